//! A small agent host built on `hermes-hooks` with only the `shell`
//! feature: it loads a Hermes home's shell hooks, registers its own Rust
//! closure guard, and asks the hooks before every tool call.

use std::path::Path;

use hermes_hooks::payloads::PreToolCall;
use hermes_hooks::{Event, Host, HostError, HostOptions, ToolGate};
use serde_json::{Map, Value, json};

/// The agent's own rule, a Rust closure: nothing may touch `/etc`.
pub fn register_guard(host: &Host) {
    host.callbacks()
        .register("pre_tool_call", "downstream-guard", |event: &Event| {
            let command = event
                .payload()
                .get("args")
                .and_then(|args| args.get("command"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            Ok(command.contains("/etc").then(
                || json!({"action": "block", "message": "downstream-guard: /etc is off limits"}),
            ))
        });
}

/// Loads `home` (approving its shell hooks when `accept`), registers the
/// guard, asks the hooks about each `(tool, command)` and says what the agent
/// does: `ran: ...` or `blocked: <message>`.
pub async fn run(
    home: &Path,
    accept: bool,
    calls: &[(&str, &str)],
) -> Result<(Host, Vec<String>), HostError> {
    let host = Host::load(HostOptions::new().home(home).accept_hooks(accept)).await?;
    register_guard(&host);
    let mut lines = Vec::new();
    for (tool, command) in calls {
        let mut args = Map::new();
        args.insert("command".to_owned(), Value::from(*command));
        let event: Event = PreToolCall::default()
            .with_tool_name(*tool)
            .with_args(args.clone())
            .into();
        lines.push(match host.hooks().emit(&event).await.tool_gate() {
            ToolGate::Block { message, .. } => format!("blocked: {message}"),
            ToolGate::Modify { args } => format!("ran: {}", Value::Object(args)),
            ToolGate::Approve { .. } => "blocked: needs a human".to_owned(),
            ToolGate::Proceed => format!("ran: {}", Value::Object(args)),
            // `ToolGate` may grow: an unknown decision never runs the tool.
            #[allow(unreachable_patterns)]
            _ => "blocked: a decision this agent does not know".to_owned(),
        });
    }
    Ok((host, lines))
}
