//! An example agent host: it embeds every hook mechanism of a Hermes home with
//! one call, emits the events of a short session, and acts on every decision
//! the `pre_tool_call` gate can return.
//!
//! ```text
//! hooks-example-host [--home DIR] [--accept-hooks]
//! ```
//!
//! For each tool call it prints which hook blocked or modified it
//! (`blocked by shell:... (shell, 6.2 ms): ...`), from the report
//! `Hooks::emit_with_report` gives beside the outcome.
//!
//! Run against the example home, in place: `cargo run -p hooks-example-host
//! -- --home examples/home --accept-hooks` (its files are named
//! `${HERMES_HOME}/...`, which the host expands to the home it loads).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hermes_hooks::payloads::{OnSessionEnd, OnSessionStart, PostToolCall, PreLlmCall, PreToolCall};
use hermes_hooks::{
    Event, HookRun, Host, HostOptions, Outcome, Report, RunStatus, ToolGate, UnknownEvent,
};
use serde_json::{Map, Value, json};

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("hooks-example-host: {message}");
            eprintln!("usage: hooks-example-host [--home DIR] [--accept-hooks]");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hooks-example-host: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("hooks-example-host: {error}");
            ExitCode::from(2)
        }
    }
}

/// `--home DIR` and `--accept-hooks`; anything else is an error.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<HostOptions, String> {
    let mut options = HostOptions::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--home" => {
                let dir = args.next().ok_or("--home needs a directory")?;
                options = options.home(PathBuf::from(dir));
            }
            "--accept-hooks" => options = options.accept_hooks(true),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(options)
}

async fn run(options: HostOptions) -> Result<(), hermes_hooks::HostError> {
    // The one call: every mechanism of the home, registered in bus order.
    let host = Host::load(options).await?;
    for warning in host.warnings() {
        eprintln!("warning: {warning}");
    }
    println!("hooks: {}", host.describe());
    if let Err(error) = register_host_rules(&host) {
        // A misspelt event name would leave the rule unregistered: stop.
        eprintln!("hooks-example-host: {error}");
        return Ok(());
    }

    let hooks = host.hooks();
    hooks
        .emit(&OnSessionStart::default().with_session_id("demo").into())
        .await;
    let turn = PreLlmCall::default().with_user_message("clean up the build");
    if let Outcome::Context(context) = hooks.emit(&turn.into()).await {
        println!("context for the model: {context}");
    }

    for (tool, args) in [
        ("terminal", json!({"command": "ls -la"})),
        ("terminal", json!({"command": "rm -rf /"})),
        (
            "write_file",
            json!({"path": "notes.txt", "content": "hello"}),
        ),
        ("deploy", json!({"target": "staging"})),
    ] {
        let args = args.as_object().cloned().unwrap_or_default();
        let result = call_tool(&host, tool, args).await;
        println!("{tool}: {result}");
    }

    hooks
        .emit(&OnSessionEnd::default().with_session_id("demo").into())
        .await;
    let report = host.shutdown(Duration::from_secs(5)).await;
    println!(
        "shutdown: {} webhook delivery(ies), {} abandoned",
        report.deliveries.len(),
        report.abandoned
    );
    Ok(())
}

/// The host's own rules, as in-process Rust closures next to the home's
/// plugins (labelled `host:example-host` in reports).
fn register_host_rules(host: &Host) -> Result<(), UnknownEvent> {
    let tool = |event: &Event| event.tool_name().unwrap_or_default().to_owned();
    host.register("pre_tool_call", "example-host", move |event| {
        Ok(match tool(event).as_str() {
            // Every file the agent writes gets a fixed mode.
            "write_file" => Some(json!({"action": "modify", "args": {"mode": "0644"}})),
            // Deploys need a human.
            "deploy" => Some(json!({
                "action": "approve",
                "message": "deploys need a human",
                "rule_key": "deploy",
            })),
            _ => None,
        })
    })?;
    Ok(())
}

/// Who changed the call: `modified by host:example-host (host, 0.1 ms)`, or
/// nothing when no hook did.
fn modified_note(report: &Report) -> String {
    let by: Vec<String> = report.modified_by().into_iter().map(who).collect();
    if by.is_empty() {
        String::new()
    } else {
        format!(" (modified by {})", by.join(", "))
    }
}

/// A hook as a person reads it: `shell:~/guard.sh (shell, 3.1 ms)`.
fn who(run: &HookRun) -> String {
    format!(
        "{} ({}, {:.1} ms)",
        run.source,
        run.mechanism,
        run.elapsed_ms()
    )
}

/// Asks the hooks before a tool call, acts on every decision the gate can
/// return, and says which hook decided.
async fn call_tool(host: &Host, tool: &str, args: Map<String, Value>) -> String {
    let hooks = host.hooks();
    let event: Event = PreToolCall::default()
        .with_tool_name(tool)
        .with_args(args.clone())
        .into();
    // `emit_with_report`: the outcome `emit` gives, plus what each hook did.
    let report = hooks.emit_with_report(&event).await;
    // A hook that could not run (skipped, failed, timed out) changes no
    // decision unless it fails closed, but the operator should hear of it.
    for run in &report.runs {
        let why = match &run.status {
            RunStatus::Skipped(reason) => format!("skipped: {reason}"),
            RunStatus::Failed | RunStatus::TimedOut => format!(
                "{}: {}",
                run.status.as_str(),
                run.diagnostics.first().map_or("", String::as_str)
            ),
            _ => continue,
        };
        eprintln!("{tool}: {} {why}", who(run));
    }
    let modified = modified_note(&report);
    let result = match report.outcome.clone().tool_gate() {
        // The tool does not run; the message is what the model sees instead.
        ToolGate::Block {
            message, source, ..
        } => {
            let by = report.blocked_by().map_or_else(|| source.to_string(), who);
            return format!("blocked by {by}: {message}");
        }
        // A real host asks the user here; this one approves without asking,
        // then runs the arguments the hooks approved (possibly modified).
        ToolGate::Approve {
            message,
            rule_key,
            args: approved,
        } => {
            println!(
                "approval needed ({}): {}; approved non-interactively",
                rule_key.as_deref().unwrap_or(tool),
                message.as_deref().unwrap_or("no reason given")
            );
            run_tool(approved.unwrap_or(args))
        }
        // Run with the merged arguments, never the original ones.
        ToolGate::Modify { args: modified } => run_tool(modified),
        ToolGate::Proceed => run_tool(args),
        // `ToolGate` may grow: an unknown decision must not run the tool.
        #[allow(unreachable_patterns)]
        _ => return "blocked: a decision this host does not know".to_owned(),
    };
    let post: Event = PostToolCall::default()
        .with_tool_name(tool)
        .with_result(result.clone())
        .into();
    hooks.emit(&post).await;
    format!("{result}{modified}")
}

/// The "tool": describes what it would do.
fn run_tool(args: Map<String, Value>) -> String {
    format!("ran with {}", Value::Object(args))
}
