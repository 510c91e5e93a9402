//! A small agent host built on `hermes-hooks` with only the `shell`
//! feature: it loads a Hermes home's shell hooks, registers its own Rust
//! closure rules, asks the hooks before every tool call, and says, for each
//! call, which hook blocked or modified it. Everything it names comes from
//! the facade's root (`hermes_hooks::...`).

use std::path::Path;

use hermes_hooks::payloads::PreToolCall;
use hermes_hooks::{Event, HookRun, Host, HostOptions, Report, ToolGate, UnknownEvent};
use serde_json::{Map, Value, json};

/// The agent's own rules, Rust closures labelled `host:downstream-guard`:
/// nothing may touch `/etc`, and `ls` never colours its output.
pub fn register_guard(host: &Host) -> Result<(), UnknownEvent> {
    host.register("pre_tool_call", "downstream-guard", |event: &Event| {
        let command = event
            .get("args")
            .and_then(|args| args.get("command"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(if command.contains("/etc") {
            Some(json!({"action": "block", "message": "downstream-guard: /etc is off limits"}))
        } else if command.starts_with("ls") {
            Some(json!({"action": "modify", "args": {"color": "never"}}))
        } else {
            None
        })
    })?;
    Ok(())
}

/// Loads `home` (approving its shell hooks when `accept`), registers the
/// guard, asks the hooks about each `(tool, command)` and says what the agent
/// does and who decided: `ran: ARGS`, `ran: ARGS (modified by HOOK)` or
/// `blocked by HOOK: MESSAGE`, a hook reading `SOURCE (MECHANISM, N ms)`.
pub async fn run(
    home: &Path,
    accept: bool,
    calls: &[(&str, &str)],
) -> Result<(Host, Vec<String>), Box<dyn std::error::Error + Send + Sync>> {
    let host = Host::load(HostOptions::new().home(home).accept_hooks(accept)).await?;
    register_guard(&host)?;
    let mut lines = Vec::new();
    for (tool, command) in calls {
        let mut args = Map::new();
        args.insert("command".to_owned(), Value::from(*command));
        let event: Event = PreToolCall::default()
            .with_tool_name(*tool)
            .with_args(args.clone())
            .into();
        let report = host.hooks().emit_with_report(&event).await;
        lines.push(decide(&report, args));
    }
    Ok((host, lines))
}

/// What the agent does with one call, and which hook decided.
fn decide(report: &Report, args: Map<String, Value>) -> String {
    let modified: Vec<String> = report.modified_by().into_iter().map(who).collect();
    let note = if modified.is_empty() {
        String::new()
    } else {
        format!(" (modified by {})", modified.join(", "))
    };
    match report.outcome.clone().tool_gate() {
        ToolGate::Block {
            message, source, ..
        } => {
            let by = report.blocked_by().map_or_else(|| source.to_string(), who);
            format!("blocked by {by}: {message}")
        }
        ToolGate::Modify { args } => format!("ran: {}{note}", Value::Object(args)),
        ToolGate::Approve { .. } => "blocked: needs a human".to_owned(),
        ToolGate::Proceed => format!("ran: {}", Value::Object(args)),
        // `ToolGate` may grow: an unknown decision never runs the tool.
        #[allow(unreachable_patterns)]
        _ => "blocked: a decision this agent does not know".to_owned(),
    }
}

/// A hook as a person reads it: `shell:/path/guard.sh (shell, 3 ms)`.
fn who(run: &HookRun) -> String {
    format!(
        "{} ({}, {} ms)",
        run.source,
        run.mechanism,
        run.elapsed.as_millis()
    )
}
