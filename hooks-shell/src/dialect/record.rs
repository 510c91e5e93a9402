//! Run records of imported hooks: one [`HookRun`] per run, its answer read
//! alone (the merge of all of them is the event's reply), with the same
//! statuses and diagnostics as a native shell hook's record
//! ([`crate::record`]) where the two dialects mean the same thing.
//!
//! Where Claude Code reads a run differently, the record follows Claude
//! Code: exit 2 is a decision, not a failure; plain text on stdout of a clean
//! exit is ignored (or context), not a bad reply.

use std::sync::Arc;

use hermes_hooks_core::pyvalue::strip;
use hermes_hooks_core::{Event, HookRun, RunStatus};

use super::reply::{Contribution, Gate, merge};
use super::{Handler, ImportedHook};
use crate::reply::{first_chars, format_seconds};
use crate::run::{OUTPUT_CAP_BYTES, RunResult};

/// The mechanism name of imported hooks' run records.
pub const MECHANISM: &str = "imported";

/// How many characters of stderr a diagnostic quotes (as for shell hooks).
const QUOTED_CHARS: usize = 200;

/// The record of one run of `hook` for `event` under `source`: `result` is
/// the run, `contribution` what it was read to contribute.
pub fn record(
    source: &Arc<str>,
    hook: &ImportedHook,
    event: &Event,
    contribution: &Contribution,
    result: &RunResult,
) -> HookRun {
    let decision = merge(event, std::slice::from_ref(contribution))
        .into_iter()
        .next();
    let mut diagnostics = Vec::new();
    let status = if let Some(error) = &result.error {
        diagnostics.push(format!("could not run: {error}"));
        RunStatus::Failed
    } else if result.timed_out {
        let killed = match hook.handler {
            Handler::Http { .. } => "the request was dropped",
            _ => "killed with everything it started",
        };
        diagnostics.push(format!(
            "timed out after {}s; {killed}",
            format_seconds(hook.timeout)
        ));
        RunStatus::TimedOut
    } else {
        let failure = match (result.exit_code, result.signal) {
            (Some(0 | 2), _) => None,
            (Some(code), _) => Some(format!("exited with status {code}")),
            (None, Some(signal)) => Some(format!("killed by signal {signal}")),
            (None, None) => Some("ended without an exit status".to_owned()),
        };
        match failure {
            Some(failure) => {
                diagnostics.push(failure);
                let stderr = first_chars(strip(&result.stderr), QUOTED_CHARS);
                if !stderr.is_empty() {
                    diagnostics.push(format!("stderr: {stderr}"));
                }
                RunStatus::Failed
            }
            None if failed_closed(contribution) && unreadable(&result.stdout) => {
                // A clean exit whose output could not be read, failing closed.
                diagnostics.push(format!(
                    "reply is not a JSON object: {}",
                    first_chars(strip(&result.stdout), QUOTED_CHARS)
                ));
                RunStatus::Failed
            }
            None => RunStatus::of_reply(decision.as_ref()),
        }
    };
    if matches!(status, RunStatus::Failed | RunStatus::TimedOut) && failed_closed(contribution) {
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
    let mut run = HookRun::new(MECHANISM, Arc::clone(source), event.name(), status)
        .elapsed(result.elapsed)
        .decision(decision);
    for line in diagnostics {
        run = run.diagnostic(line);
    }
    crate::sandboxing::annotate(run, result, failed_closed(contribution))
}

/// Whether a clean exit's stdout is text its tool cannot read (else a
/// fail-closed block of a clean exit is the sandbox's denial: `annotate`).
fn unreadable(stdout: &str) -> bool {
    !stdout.trim().is_empty() && super::reply::json_object(stdout).is_none()
}

/// Whether the contribution is a block the failure produced (not one the hook asked for).
fn failed_closed(contribution: &Contribution) -> bool {
    matches!(&contribution.gate, Some(Gate::Deny(message)) if message.contains(" failed closed: "))
}
