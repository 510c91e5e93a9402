//! Typed replies, one per merge rule that has a structured answer: what a
//! hook may answer, and the one reading of a reply in the Hermes wire shape.
//!
//! Each type has `from_wire` (how its merge rule reads one reply: the merge
//! rules in [`crate::merge`] read through it, and nowhere else) and
//! `into_wire` (the shape a hook of that rule sends). The SDK re-exports
//! these types for native plugins; shell hooks translate their dialects into
//! them. `schema/generated/<rule>.reply.schema.json` describes the same
//! shapes for hook authors in any language.

mod classification;
mod command;
mod context;
mod dispatch;
mod tool;
mod transcription;
mod verify;

#[cfg(test)]
mod tests;

pub use classification::{ClassificationReply, FAILOVER_REASONS};
pub use command::CommandReply;
pub use context::ContextReply;
pub use dispatch::DispatchReply;
pub use tool::ToolDecision;
pub use transcription::TranscriptionReply;
pub use verify::ContinueReply;

/// How a merge rule that takes the first decision reads one reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reading<T> {
    /// The reply decides: the scan stops with this answer.
    Decides(T),
    /// The reply is the rule's but cannot be carried out: the scan stops
    /// with no decision (a `pre_gateway_dispatch` `rewrite` whose `text` is
    /// not a string, as in the reference).
    Void,
    /// The rule does not recognise the reply: the scan reads on.
    Ignored,
}
