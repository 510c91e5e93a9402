//! Emitting with run records: [`Hooks::emit_with_report`] and
//! [`Hooks::collect_recorded`], for hosts that show what each hook did, and
//! the observers ([`crate::HooksBuilder::observe_runs`]) that see every run.

use crate::dispatch::Dispatcher;
use crate::event::Event;
use std::sync::Arc;

use crate::merge::merge;
use crate::outcome::{CommandDecision, DispatchDecision, Outcome, ToolGate};
use crate::replies::{CommandReply, DispatchReply, Reading};
use crate::reply::Reply;
use crate::runs::HookRun;

use super::Hooks;

/// What one event did: the merged outcome, every reply, and one run record
/// per hook touched.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// The merged outcome, as [`Hooks::emit`] gives it.
    pub outcome: Outcome,
    /// Every reply, in mechanism and registration order.
    pub replies: Vec<Reply>,
    /// One record per hook touched, in the order they ran.
    pub runs: Vec<HookRun>,
    /// For a [`crate::ToolGate::Block`]: the source of the reply whose block
    /// won the merge (`shell:<command>`, `plugin:<name>`, ...).
    pub block_source: Option<Arc<str>>,
}

impl Report {
    /// The run whose reply decided a tool-call block, if the outcome is one.
    pub fn blocked_by(&self) -> Option<&HookRun> {
        blocking_run(&self.runs, self.block_source.as_deref()?)
    }

    /// The runs whose replies changed what the host goes on with, in the
    /// order they ran: the `modify`s merged into a tool call's arguments
    /// (when the call is not blocked), the replacement text of a transform
    /// event (the one run whose string won), a gateway `rewrite`, the
    /// fields of a `pre_transcription` override. Empty when nothing was
    /// changed (a block: see [`Report::blocked_by`]).
    pub fn modified_by(&self) -> Vec<&HookRun> {
        let action_is = |run: &&HookRun, word: &str| {
            run.decision
                .as_ref()
                .and_then(|decision| decision.get("action"))
                .and_then(serde_json::Value::as_str)
                == Some(word)
        };
        match &self.outcome {
            Outcome::Tool(ToolGate::Modify { .. })
            | Outcome::Tool(ToolGate::Approve { args: Some(_), .. }) => self
                .runs
                .iter()
                .filter(|run| action_is(run, "modify"))
                .collect(),
            Outcome::Replace(text) => self
                .runs
                .iter()
                .find(|run| run.decision.as_ref().and_then(serde_json::Value::as_str) == Some(text))
                .into_iter()
                .collect(),
            // The first reply that decides is the rewrite that won.
            Outcome::Dispatch(DispatchDecision::Rewrite { .. }) => self
                .runs
                .iter()
                .find(|run| {
                    run.decision.as_ref().is_some_and(|decision| {
                        matches!(DispatchReply::from_wire(decision), Reading::Decides(_))
                    })
                })
                .into_iter()
                .collect(),
            Outcome::Command(CommandDecision::Rewrite { .. }) => self
                .runs
                .iter()
                .find(|run| {
                    run.decision
                        .as_ref()
                        .is_some_and(|decision| CommandReply::from_wire(decision).is_some())
                })
                .into_iter()
                .collect(),
            Outcome::Transcription(_) => self
                .runs
                .iter()
                .filter(|run| {
                    run.decision
                        .as_ref()
                        .is_some_and(serde_json::Value::is_object)
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The first run of `source` whose decision blocks.
fn blocking_run<'a>(runs: &'a [HookRun], source: &str) -> Option<&'a HookRun> {
    runs.iter().find(|run| {
        &*run.source == source && run.decision.as_ref().is_some_and(crate::runs::reply_blocks)
    })
}

impl Hooks {
    /// Fires `event` as [`Hooks::emit`] does and also returns every reply and
    /// one [`HookRun`] per hook touched. Each run is recorded as a `hook_run`
    /// tracing span and handed to the bus's run observers.
    ///
    /// Costs what `emit` costs plus the records; an unhooked event still
    /// returns after one interest lookup, with no runs.
    pub async fn emit_with_report(&self, event: &Event) -> Report {
        let (replies, runs) = self.collect_recorded(event).await;
        let mut outcome = if replies.is_empty() {
            Outcome::Nothing
        } else {
            merge(event, &replies)
        };
        let block_source = match &mut outcome {
            Outcome::Tool(crate::outcome::ToolGate::Block { source, .. }) => {
                // The run record of the blocking hook adds what the merge
                // cannot know: its mechanism and how long it ran.
                if let Some(run) = blocking_run(&runs, &source.source) {
                    source.mechanism = Some(Arc::clone(&run.mechanism));
                    source.elapsed = Some(run.elapsed);
                }
                Some(Arc::clone(&source.source))
            }
            _ => None,
        };
        Report {
            outcome,
            replies,
            runs,
            block_source,
        }
    }

    /// Every reply of `event`, in order, with one [`HookRun`] per hook touched
    /// (traced and observed like [`Hooks::emit_with_report`]'s). Each run's
    /// decision is checked against the reply schema of the event's merge rule
    /// ([`HookRun::check_decision`]).
    pub async fn collect_recorded(&self, event: &Event) -> (Vec<Reply>, Vec<HookRun>) {
        let mut runs = Vec::new();
        if self.mask(event.name()) == 0 {
            return (Vec::new(), runs);
        }
        let replies = self.record(event, &mut runs).await;
        // Every mechanism's replies are judged by the one schema here, so a
        // plugin's or a handler's wrong field is named as a shell hook's is.
        let rule = crate::merge::rule_of(event);
        for run in &mut runs {
            run.check_decision(rule);
            run.trace();
        }
        for observer in self.observers.iter() {
            observer.observe(&runs);
        }
        (replies, runs)
    }

    /// Delivers `event` to every interested mechanism through
    /// [`Dispatcher::dispatch_recorded`], appending runs to `runs`.
    pub(super) async fn record(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        let mask = self.mask(event.name());
        let mut replies = Vec::new();
        for (index, dispatcher) in self.dispatchers.iter().enumerate() {
            if mask & (1 << index) != 0 {
                replies.extend(dispatcher.dispatch_recorded(event, runs).await);
            }
        }
        replies
    }

    /// Whether any run observer is registered (then every emit records runs).
    #[inline]
    pub(super) fn observed(&self) -> bool {
        !self.observers.is_empty()
    }
}
