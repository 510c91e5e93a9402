//! A hook refused right before it runs (changed since approval, or its
//! approval no longer holds): a block when it fails closed, else a skip.

#[allow(unused_imports)]
use super::*;

/// A hook whose check before the run failed: a block when it fails closed,
/// else a skipped run.
pub(super) fn refuse(
    hook: &RegisteredHook,
    event: &Event,
    why: &str,
    runs: Option<&mut Vec<HookRun>>,
    replies: &mut Vec<Reply>,
) {
    let blocks = hook.spec.blocks_on_failure();
    let value = blocks.then(|| failed_closed(&hook.spec, why));
    if let Some(runs) = runs {
        let status = if blocks {
            RunStatus::Blocked
        } else {
            RunStatus::Skipped("changed since approval".into())
        };
        let run = HookRun::new(MECHANISM, Arc::clone(&hook.source), event.name(), status);
        runs.push(run.decision(value.clone()).diagnostic(why));
    }
    if let Some(value) = value {
        replies.push(Reply::new(Arc::clone(&hook.source), value));
    }
}

/// The reason a fail-closed hook whose consent failed at load blocks with:
/// `reason`, and, unless it was simply never approved anywhere, what differs
/// (`why`) and the command that approves it.
fn refusal_reason(reason: &'static str, why: &str, subject: &crate::binding::Subject) -> Arc<str> {
    if why == "not approved" && subject.bound_project_with_scripts().is_none() {
        return Arc::from(reason);
    }
    if reason == crate::consent::CANNOT_BE_APPROVED_REASON {
        return Arc::from(format!(
            "{reason} ({})",
            hermes_hooks_core::display::escape(why)
        ));
    }
    Arc::from(format!(
        "{reason} ({}); to approve it, run {}",
        hermes_hooks_core::display::escape(why),
        crate::consent::approve_hint(subject)
    ))
}

/// The one warning about a fail-closed `config.yaml` hook (`subject`, in
/// the file `config`) denied consent, and the reason its calls block with:
/// it cannot be approved as it is (`unbindable`), it `changed` since its
/// approval, or it was never approved; `why` says more.
pub(super) fn blocking(
    config: &std::path::Path,
    subject: &crate::binding::Subject,
    (changed, unbindable): (bool, bool),
    why: &str,
) -> (hermes_hooks_core::ConfigWarning, Arc<str>) {
    use crate::consent::{CANNOT_BE_APPROVED_REASON, CHANGED_REASON, NOT_APPROVED_REASON};
    let reason = match (unbindable, changed) {
        (true, _) => CANNOT_BE_APPROVED_REASON,
        (false, true) => CHANGED_REASON,
        (false, false) => NOT_APPROVED_REASON,
    };
    let command = crate::shown_hook_command(&subject.command);
    let warning = hermes_hooks_core::ConfigWarning::new(
        config,
        format!("hooks.{}", subject.event),
        format!("fail-closed hook {command} blocks every call it matches: {reason} ({why})"),
    );
    (warning, refusal_reason(reason, why, subject))
}
