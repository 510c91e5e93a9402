//! Which shell hooks of one event run one after another and which together.
//!
//! The hooks of an observer event (`post_tool_call`, `on_session_start`, ...:
//! the catalog's class `observer`) are spawned together: no reply of one can
//! stop or change another, so waiting for each in turn only adds their times
//! up. Every other event keeps the reference's order: one hook after another,
//! in config order, as a `pre_tool_call` block is read in that order. Either
//! way the results come back in config order, so run records and replies
//! read the same.

use std::sync::Arc;

use hermes_hooks_core::HookEvent;
use hermes_hooks_core::catalog::EventClass;

use crate::config::ShellHookSpec;
use crate::launch::Launch;
use crate::run::{RunResult, run_launched};

/// Whether the shell hooks of `event` are spawned together (observer events).
pub fn runs_together(event: HookEvent) -> bool {
    event.meta().class == EventClass::Observer
}

/// Runs each of `jobs` (a hook and the checked script it runs, if sealed)
/// once with `input`: all at once when `together`, else one after another.
/// The results are in the order of `jobs`.
pub(crate) async fn run_all(
    jobs: &[(&ShellHookSpec, Option<&Launch>)],
    input: &Arc<[u8]>,
    together: bool,
) -> Vec<RunResult> {
    if together && jobs.len() > 1 {
        let runs = jobs
            .iter()
            .map(|(spec, launch)| run_launched(spec, Arc::clone(input), *launch));
        return futures::future::join_all(runs).await;
    }
    let mut results = Vec::with_capacity(jobs.len());
    for (spec, launch) in jobs {
        results.push(run_launched(spec, Arc::clone(input), *launch).await);
    }
    results
}
