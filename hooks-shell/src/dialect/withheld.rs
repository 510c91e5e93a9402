//! Imported hooks that are registered but do not run: ones without consent
//! (their script changed since it was approved, or never approved) and
//! handlers of a type that cannot run here (`prompt`, `agent`, `mcp_tool`).
//!
//! A fail-closed one (`failClosed` / `fail_closed` on `PreToolUse`) blocks
//! every call it matches, as a fail-closed native shell hook whose script
//! changed does: skipping it would leave the tool unguarded, silently. The
//! others are reported as skipped runs, so a guard that does not guard shows.

use std::sync::Arc;

use hermes_hooks_core::{Event, EventName, HookEvent, HookRun, RunStatus};
use serde_json::{Value, json};

use super::discover::Unsupported;
use super::dispatch::applies_to;
use super::events::{ToolFilter, ToolOutcome};
use super::guards::GuardDown;
use super::matcher::{Condition, DialectMatcher};
use super::{EventMapping, ImportedHook};
use crate::consent::{CHANGED_REASON, changed_message, not_allowlisted_message};
use hermes_hooks_core::display::escape;

pub use crate::consent::NOT_APPROVED_REASON;

/// Why a registered imported hook does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Approved once, but its script changed since.
    Changed,
    /// Never approved.
    NotApproved,
}

/// One imported hook that is matched like the others but never spawned.
#[derive(Debug)]
pub(crate) struct Withheld {
    /// The source its records and replies name.
    pub(crate) source: Arc<str>,
    mapping: EventMapping,
    matcher: DialectMatcher,
    condition: Option<Condition>,
    /// The block it contributes when it fails closed (`None`: a skipped run).
    pub(crate) block: Option<Value>,
    /// The diagnostic of its record.
    diagnostic: String,
    /// The skip reason of its record, when it does not block.
    skip: &'static str,
}

impl Withheld {
    /// A hook denied consent (`why`, in detail `detail`: what changed); it
    /// blocks when it fails closed.
    pub(crate) fn denied(
        hook: &ImportedHook,
        source: Arc<str>,
        why: Why,
        detail: &str,
    ) -> Withheld {
        let event = hook.event().map_or("", HookEvent::as_str);
        let command = hook.shown_command();
        let (reason, skip) = match why {
            Why::Changed => (CHANGED_REASON, "script changed since approval"),
            Why::NotApproved => (NOT_APPROVED_REASON, "not allowlisted"),
        };
        let shown = match (detail, why) {
            ("" | "not approved", _) => reason.to_owned(),
            // Why it is not approved, when more than "not yet" (a name
            // computed when it runs cannot be): never "approve it".
            (_, Why::NotApproved) => format!("it is not approved: {}", escape(detail)),
            _ => format!("{reason} ({})", escape(detail)),
        };
        let block = hook
            .fail_closed
            .then(|| blocked(&format!("hook {command} failed closed: {shown}")));
        let diagnostic = match (&block, why) {
            (Some(_), Why::NotApproved) if shown != reason => {
                format!("failed closed without running: {shown}")
            }
            (Some(_), _) => format!("failed closed without running: {reason}"),
            (None, Why::Changed) => changed_message(event, &command, false),
            (None, Why::NotApproved) if shown != reason => format!(
                "imported hook for {} ({command}) cannot be approved as it is — skipped: {}",
                escape(event),
                escape(detail)
            ),
            (None, Why::NotApproved) => not_allowlisted_message(event, &command),
        };
        Withheld {
            source,
            mapping: hook.mapping,
            matcher: hook.matcher.clone(),
            condition: hook.condition.clone(),
            block,
            diagnostic,
            skip,
        }
    }

    /// A handler of a type that cannot run; `None` unless it fails closed
    /// (the others are listed as unsupported, and match nothing).
    pub(crate) fn unsupported(entry: &Unsupported) -> Option<Withheld> {
        if !entry.fail_closed || entry.mapping.ours != Some(HookEvent::PreToolCall) {
            return None;
        }
        let (matcher, _) = DialectMatcher::build(entry.matcher.as_deref());
        let name = format!("{} ({})", entry.key, entry.source.display());
        let reason = format!("'{}' hooks cannot run here", entry.kind);
        Some(Withheld {
            source: format!("{}:{} hook {name}", entry.dialect, entry.kind).into(),
            mapping: entry.mapping,
            matcher,
            condition: entry.condition.clone(),
            block: Some(blocked(&format!("hook {name} failed closed: {reason}"))),
            diagnostic: format!("failed closed without running: {reason}"),
            skip: "unsupported",
        })
    }

    /// A fail-closed guard that cannot run as written (its file does not
    /// parse, its matcher does not compile): it blocks every call of its event.
    pub(crate) fn guard_down(guard: &GuardDown) -> Withheld {
        let field = if guard.key.is_empty() {
            String::new()
        } else {
            format!(" {}", guard.key)
        };
        Withheld {
            source: format!("{}:{}{field}", guard.dialect, guard.source.display()).into(),
            mapping: EventMapping {
                theirs: "",
                ours: Some(guard.event),
                tools: ToolFilter::Any,
                outcome: ToolOutcome::Any,
            },
            matcher: DialectMatcher::All,
            condition: None,
            block: Some(blocked(&guard.block_message())),
            diagnostic: format!("failed closed without running: {}", guard.reason),
            skip: "cannot run",
        }
    }

    /// The Hermes event it is registered on.
    pub(crate) fn event(&self) -> Option<HookEvent> {
        self.mapping.ours
    }

    /// Whether `event` is one it would have run for (matcher and `if` rule).
    pub(crate) fn applies(&self, event: &Event) -> bool {
        self.mapping.ours == event.hook()
            && applies_to(
                &self.mapping,
                &self.matcher,
                self.condition.as_ref(),
                self.block.is_some(),
                event,
            )
    }

    /// Its record for `event`: blocked (failing closed) or skipped.
    pub(crate) fn record(&self, event: &EventName, mechanism: &str) -> HookRun {
        let status = match self.block {
            Some(_) => RunStatus::Blocked,
            None => RunStatus::Skipped(self.skip.into()),
        };
        HookRun::new(mechanism, Arc::clone(&self.source), event, status)
            .decision(self.block.clone())
            .diagnostic(self.diagnostic.clone())
    }
}

fn blocked(message: &str) -> Value {
    json!({"action": "block", "message": message})
}
