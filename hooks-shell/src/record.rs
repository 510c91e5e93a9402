//! Run records of shell hooks: what one run of a hook process did, as a
//! [`HookRun`] (exit codes, timeouts, bad replies, truncated output).
//!
//! [`record_run`] takes only what every process hook has (a source, an event,
//! its timeout, the [`RunResult`] and the reply it was judged to give), so
//! other dialects of hook config (Claude Code, Codex, Cursor) that run through
//! [`crate::run_with_input`] produce the same records.

use std::sync::Arc;
use std::time::Duration;

use hermes_hooks_core::catalog::MergeRule;
use hermes_hooks_core::pyvalue::strip;
use hermes_hooks_core::schemas::FieldProblem;
use hermes_hooks_core::{EventName, HookEvent, HookRun, RunStatus};
use serde_json::Value;

use crate::config::ShellHookSpec;
use crate::reply::{first_chars, format_seconds};
use crate::run::{OUTPUT_CAP_BYTES, RunResult};

/// The mechanism name of shell hooks in run records.
pub const MECHANISM: &str = "shell";

/// How many characters of stdout or stderr a diagnostic quotes.
const QUOTED_CHARS: usize = 200;

/// The record of one run of `spec` under `source` (see [`record_run`]).
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn record_spec_run(
    spec: &ShellHookSpec,
    source: &Arc<str>,
    result: &RunResult,
    reply: Option<&Value>,
) -> HookRun {
    record_run(
        MECHANISM,
        Arc::clone(source),
        spec.event,
        spec.timeout,
        result,
        reply,
    )
}

/// The record of one run of a process hook: `result` is the run, `reply` what
/// it contributes to the merge (already judged: exit 2, fail-closed blocks).
///
/// Status: could not run → `Failed`; outlived `timeout` → `TimedOut`; exit 2
/// with a block on `pre_tool_call` → `Blocked`; any other unsuccessful exit,
/// stdout that is not a JSON object, or a reply with a field its merge rule's
/// schema (`hermes_hooks_core::schemas`) does not allow → `Failed`; else
/// `Blocked` or `Completed` by the reply. Diagnostics say what went wrong, that a failure
/// failed closed, and when output passed the cap.
pub fn record_run(
    mechanism: &str,
    source: Arc<str>,
    event: HookEvent,
    timeout: Duration,
    result: &RunResult,
    reply: Option<&Value>,
) -> HookRun {
    let (status, mut diagnostics) = judge(event, timeout, result, reply);
    // A block the failure produced (not one the hook asked for) says so.
    let failed_closed = reply.is_some_and(|reply| {
        reply
            .get("message")
            .and_then(Value::as_str)
            .is_some_and(|message| message.contains(" failed closed: "))
    });
    if matches!(status, RunStatus::Failed | RunStatus::TimedOut) && failed_closed {
        diagnostics.push("failed closed: the tool call is blocked".to_owned());
    }
    for (truncated, stream) in [
        (result.stdout_truncated, "stdout"),
        (result.stderr_truncated, "stderr"),
    ] {
        if truncated {
            diagnostics.push(format!(
                "{stream} passed {OUTPUT_CAP_BYTES} bytes; the rest was discarded"
            ));
        }
    }
    let mut run = HookRun::new(mechanism, source, &EventName::Hook(event), status)
        .elapsed(result.elapsed)
        .decision(reply.cloned());
    for line in diagnostics {
        run = run.diagnostic(line);
    }
    crate::sandboxing::annotate(run, result, failed_closed)
}

/// The fields of a shell hook's stdout `reply` (a JSON object, as the hook
/// wrote it) that the generated reply schema of `event`'s merge rule does not
/// allow. Rules whose replies are strings are left out: a shell hook's stdout
/// is an object, so it cannot answer them (the merge ignores what it says).
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn reply_field_problems(event: HookEvent, reply: &Value) -> Vec<FieldProblem> {
    let rule = event.meta().merge;
    if matches!(
        rule,
        MergeRule::FirstString | MergeRule::FirstNonEmptyString
    ) {
        return Vec::new();
    }
    hermes_hooks_core::schemas::check_reply(rule, reply)
}

fn judge(
    event: HookEvent,
    timeout: Duration,
    result: &RunResult,
    reply: Option<&Value>,
) -> (RunStatus, Vec<String>) {
    if let Some(error) = &result.error {
        return (RunStatus::Failed, vec![format!("could not run: {error}")]);
    }
    if result.timed_out {
        return (
            RunStatus::TimedOut,
            vec![format!(
                "timed out after {}s; killed with everything it started",
                format_seconds(timeout)
            )],
        );
    }
    let stderr = first_chars(strip(&result.stderr), QUOTED_CHARS);
    let blocks = reply.is_some_and(hermes_hooks_core::runs::reply_blocks);
    if event == HookEvent::PreToolCall && result.exit_code == Some(2) && blocks {
        return (RunStatus::Blocked, Vec::new());
    }
    let mut diagnostics = Vec::new();
    let failure = match (result.exit_code, result.signal) {
        (Some(0), _) => None,
        (Some(code), _) => Some(format!("exited with status {code}")),
        (None, Some(signal)) => Some(format!("killed by signal {signal}")),
        (None, None) => Some("ended without an exit status".to_owned()),
    };
    if let Some(failure) = failure {
        diagnostics.push(failure);
        if !stderr.is_empty() {
            diagnostics.push(format!("stderr: {stderr}"));
        }
    }
    let stdout = strip(&result.stdout);
    if !stdout.is_empty() {
        match serde_json::from_str::<Value>(stdout) {
            Ok(reply @ Value::Object(_)) => {
                // The reply as the hook wrote it, against the generated schema
                // of the event's merge rule: a wrong field is named.
                diagnostics.extend(
                    reply_field_problems(event, &reply)
                        .iter()
                        .map(ToString::to_string),
                );
            }
            Ok(_) => diagnostics.push(format!(
                "reply is not a JSON object: {}",
                first_chars(stdout, QUOTED_CHARS)
            )),
            Err(error) => diagnostics.push(format!(
                "reply is not valid JSON ({error}): {}",
                first_chars(stdout, QUOTED_CHARS)
            )),
        }
    }
    if diagnostics.is_empty() {
        (RunStatus::of_reply(reply), diagnostics)
    } else {
        (RunStatus::Failed, diagnostics)
    }
}
