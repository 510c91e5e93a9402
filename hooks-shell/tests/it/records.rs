//! Run records of shell hooks (issue 16): one per hook touched, a test per
//! status, through the bus as a host sees them.

use std::time::Duration;

use hermes_hooks_core::HookEvent::{OnStreamDelta, PreToolCall};
use hermes_hooks_core::{Hooks, RunStatus, ToolGate};
use hermes_hooks_shell::{Consent, RegisterOptions, ShellHookSpec, ShellHooks};
use serde_json::json;

use crate::support::{Home, context, event, tool_event};

fn bus(home: &Home, specs: Vec<ShellHookSpec>) -> Hooks {
    Hooks::builder()
        .with(ShellHooks::from_approved_specs(
            home.path(),
            context(),
            specs,
        ))
        .build()
}

#[tokio::test]
async fn completed_blocked_and_failed_runs_are_recorded_in_config_order() {
    let home = Home::new();
    let quiet = home.sh("quiet.sh", "cat >/dev/null; echo '{}'");
    let broken = home.sh("broken.sh", "cat >/dev/null; echo 'not json'; exit 1");
    let guard = home.sh("guard.sh", "cat >/dev/null; echo 'no rm' >&2; exit 2");
    let hooks = bus(
        &home,
        vec![
            home.spec(PreToolCall, &quiet),
            home.spec(PreToolCall, &broken),
            home.spec(PreToolCall, &guard),
        ],
    );
    let report = hooks.emit_with_report(&tool_event("terminal")).await;
    let runs = &report.runs;
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(runs[0].status, RunStatus::Completed);
    assert_eq!(&*runs[0].source, format!("shell:{quiet}"));
    assert_eq!(&*runs[0].mechanism, "shell");
    assert!(runs[0].elapsed > Duration::ZERO);
    assert_eq!(runs[1].status, RunStatus::Failed);
    assert_eq!(runs[1].diagnostics[0], "exited with status 1");
    assert!(
        runs[1]
            .diagnostics
            .iter()
            .any(|d| d.starts_with("reply is not valid JSON")),
        "{:?}",
        runs[1].diagnostics
    );
    assert_eq!(runs[2].status, RunStatus::Blocked);
    assert_eq!(
        runs[2].decision,
        Some(json!({"action": "block", "message": "no rm"}))
    );
    assert!(matches!(report.outcome.tool_gate(), ToolGate::Block { .. }));
    assert_eq!(
        report.block_source.as_deref(),
        Some(&*format!("shell:{guard}"))
    );
    // The block itself names the hook, as its run record does.
    let gate = report.outcome.tool_gate();
    let source = gate.block_source().expect("a block");
    assert_eq!(&*source.source, format!("shell:{guard}"));
    assert_eq!(source.mechanism.as_deref(), Some("shell"));
    assert_eq!(source.elapsed, Some(runs[2].elapsed));
}

#[tokio::test]
async fn a_timeout_is_timed_out_and_a_fail_closed_one_says_it_blocked() {
    let home = Home::new();
    let slow = home.sh("slow.sh", "cat >/dev/null; sleep 30");
    let mut spec = home.spec(PreToolCall, &slow);
    spec.timeout = Duration::from_millis(200);
    spec.fail_closed = true;
    let report = bus(&home, vec![spec])
        .emit_with_report(&tool_event("terminal"))
        .await;
    let run = &report.runs[0];
    assert_eq!(run.status, RunStatus::TimedOut);
    assert_eq!(
        run.diagnostics,
        [
            "timed out after 0.2s; killed with everything it started",
            "failed closed: the tool call is blocked"
        ]
    );
    assert_eq!(
        run.decision.as_ref().map(|d| d["action"].clone()),
        Some(json!("block"))
    );
}

#[tokio::test]
async fn a_command_that_cannot_run_is_failed() {
    let home = Home::new();
    let spec = home.spec(PreToolCall, "/nonexistent/hook.sh");
    let report = bus(&home, vec![spec])
        .emit_with_report(&tool_event("terminal"))
        .await;
    assert_eq!(report.runs[0].status, RunStatus::Failed);
    // (What of cargo's environment names this crate's folder is said after.)
    assert_eq!(
        report.runs[0].diagnostics[0],
        "could not run: command not found"
    );
}

#[tokio::test]
async fn truncated_output_is_a_diagnostic() {
    let home = Home::new();
    let loud = home.sh(
        "loud.sh",
        "cat >/dev/null; head -c 1200000 /dev/zero | tr '\\0' x",
    );
    let report = bus(&home, vec![home.spec(PreToolCall, &loud)])
        .emit_with_report(&tool_event("terminal"))
        .await;
    let diagnostics = &report.runs[0].diagnostics;
    assert!(
        diagnostics
            .iter()
            .any(|d| d == "stdout passed 1048576 bytes; the rest was discarded"),
        "{diagnostics:?}"
    );
}

#[tokio::test]
async fn an_unconsented_hook_is_skipped_and_a_queued_one_queued() {
    let home = Home::new();
    let guard = home.sh("guard.sh", "cat >/dev/null; exit 2");
    let observer = home.sh("observer.sh", "cat >/dev/null");
    let config = home.config(json!({"hooks": {
        "pre_tool_call": [{"command": guard}],
        "on_stream_delta": [{"command": observer}],
    }}));
    let denied = ShellHooks::register(
        &config,
        RegisterOptions::new(Consent::allowlisted_only())
            .with_context(context())
            .with_safe_mode(false)
            .with_queue_capacity(8),
    );
    assert_eq!(denied.denied.len(), 2);
    let hooks = Hooks::builder().with(denied.hooks).build();
    let report = hooks.emit_with_report(&tool_event("terminal")).await;
    assert_eq!(report.runs.len(), 1, "{:?}", report.runs);
    assert_eq!(
        report.runs[0].status,
        RunStatus::Skipped("not allowlisted".into())
    );
    assert!(report.runs[0].diagnostics[0].contains("not allowlisted"));
    // Nothing ran, so nothing blocks.
    assert_eq!(report.outcome.tool_gate(), ToolGate::Proceed);

    let queued = bus(&home, vec![home.spec(OnStreamDelta, &observer)]);
    let report = queued
        .emit_with_report(&event(
            "on_stream_delta",
            json!({"kind": "text", "delta": "x"}),
        ))
        .await;
    assert_eq!(report.runs[0].status, RunStatus::Queued);
    queued.flush(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_reply_with_a_wrong_field_is_failed_naming_the_field() {
    let home = Home::new();
    let wrong = home.sh(
        "wrong.sh",
        r#"cat >/dev/null; echo '{"action": "modify", "args": "path=/safe"}'"#,
    );
    let report = bus(&home, vec![home.spec(PreToolCall, &wrong)])
        .emit_with_report(&tool_event("terminal"))
        .await;
    let run = &report.runs[0];
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        run.diagnostics,
        ["reply field `args`: expected object, got string \"path=/safe\""]
    );
    // The Claude Code dialect is not a wrong field.
    let claude = home.sh(
        "claude.sh",
        r#"cat >/dev/null; echo '{"decision": "block", "reason": "no"}'"#,
    );
    let report = bus(&home, vec![home.spec(PreToolCall, &claude)])
        .emit_with_report(&tool_event("terminal"))
        .await;
    assert_eq!(report.runs[0].status, RunStatus::Blocked);
    assert!(report.runs[0].diagnostics.is_empty());
}
