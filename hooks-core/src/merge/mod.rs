//! The merge rules: one function per [`MergeRule`], turning the replies of one
//! event (in registration order, already in the Hermes wire shape) into one
//! [`Outcome`] for the host.
//!
//! Every rule ignores what it does not recognise, so observer-only callbacks and
//! malformed replies never change a decision.

mod directives;
mod json;
mod tool_gate;
mod transforms;

#[cfg(test)]
mod tests;

use crate::catalog::{MergeRule, gateway_event};
use crate::event::{Event, EventName};
use crate::outcome::Outcome;
use crate::reply::Reply;

pub use crate::replies::FAILOVER_REASONS;
pub use directives::{command_decision, context, gateway_dispatch, verify_continue};
pub use tool_gate::{tool_gate, tool_gate_blocker};
pub use transforms::{
    error_classification, first_non_empty_string, first_string, transcription_fields,
};

/// The merge rule of `event`: the catalog's for catalog and gateway events,
/// [`MergeRule::Ignore`] for other names.
pub fn rule_of(event: &Event) -> MergeRule {
    match event.name() {
        EventName::Hook(hook) => hook.meta().merge,
        EventName::Gateway(name) => gateway_event(name).map_or(MergeRule::Ignore, |m| m.merge),
        EventName::Other(_) => MergeRule::Ignore,
    }
}

/// Merges `replies` (in registration order) by the rule of `event`.
pub fn merge(event: &Event, replies: &[Reply]) -> Outcome {
    merge_by(rule_of(event), event, replies)
}

/// Merges `replies` by an explicit `rule`, whatever the event's own rule is.
///
/// Useful to hosts and tests that replay replies recorded under another name.
pub fn merge_by(rule: MergeRule, event: &Event, replies: &[Reply]) -> Outcome {
    match rule {
        MergeRule::Ignore => Outcome::Nothing,
        MergeRule::ToolGate => tool_gate(event, replies),
        MergeRule::Context => context(event, replies),
        MergeRule::VerifyContinue => verify_continue(event, replies),
        MergeRule::GatewayDispatch => gateway_dispatch(event, replies),
        MergeRule::TranscriptionFields => transcription_fields(event, replies),
        MergeRule::FirstString => first_string(event, replies),
        MergeRule::FirstNonEmptyString => first_non_empty_string(event, replies),
        MergeRule::ErrorClassification => error_classification(event, replies),
        MergeRule::CommandDecision => command_decision(event, replies),
    }
}
