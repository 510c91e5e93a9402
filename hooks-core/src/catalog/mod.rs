//! The event catalog: every hook event, its class, merge rule and run policy.
//!
//! The tables live in `generated.rs`, written by `cargo xtask codegen` from
//! `hooks-core/schema/events.yaml`. This module holds the hand-written types
//! those tables are made of, so the generator only emits data.

mod generated;

pub use generated::*;

/// How an event's callbacks are meant to be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventClass {
    /// Replies are ignored; the callback only watches.
    Observer,
    /// The first valid reply replaces a value (tool result, LLM output, ...).
    Transform,
    /// Replies are directives the host interprets (block, context, skip, ...).
    Directive,
}

impl EventClass {
    /// The schema spelling of the class.
    pub const fn as_str(self) -> &'static str {
        match self {
            EventClass::Observer => "observer",
            EventClass::Transform => "transform",
            EventClass::Directive => "directive",
        }
    }
}

/// The rule that turns the replies of many callbacks into one outcome.
///
/// Each rule is implemented once, in [`crate::merge`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MergeRule {
    /// Replies are ignored (observers).
    Ignore,
    /// `pre_tool_call`: block / approve / modify.
    ToolGate,
    /// `pre_llm_call`: contexts joined by a blank line in order.
    Context,
    /// `pre_verify`: the first `continue` (or Claude-style `block`) with a message.
    VerifyContinue,
    /// `pre_gateway_dispatch`: the first recognised skip / rewrite / allow.
    GatewayDispatch,
    /// `pre_transcription`: per-field merge of prompt / language / model.
    TranscriptionFields,
    /// The first string reply wins, the empty string included.
    FirstString,
    /// The first non-empty string reply wins.
    FirstNonEmptyString,
    /// Every callback runs; the first valid classification wins.
    ErrorClassification,
    /// Gateway `command:*` hooks: allow / deny / handled / rewrite.
    CommandDecision,
}

impl MergeRule {
    /// The schema spelling of the rule.
    pub const fn as_str(self) -> &'static str {
        match self {
            MergeRule::Ignore => "ignore",
            MergeRule::ToolGate => "tool_gate",
            MergeRule::Context => "context",
            MergeRule::VerifyContinue => "verify_continue",
            MergeRule::GatewayDispatch => "gateway_dispatch",
            MergeRule::TranscriptionFields => "transcription_fields",
            MergeRule::FirstString => "first_string",
            MergeRule::FirstNonEmptyString => "first_non_empty_string",
            MergeRule::ErrorClassification => "error_classification",
            MergeRule::CommandDecision => "command_decision",
        }
    }
}

/// How an in-process callback of an event is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunPolicy {
    /// Inline on the caller, without a time limit.
    Inline,
    /// On a worker, bounded by `plugins.hook_callback_timeout`.
    Bounded,
    /// Always on the caller's thread, never moved to a worker (`subagent_stop`).
    CallerThread,
    /// Through a bounded per-callback queue; the producer never waits.
    Queued,
}

/// What a bounded callback's failure (timeout, panic, still running) means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailMode {
    /// Skip the callback and go on.
    Open,
    /// Turn the failure into a block (only `pre_tool_call`).
    Closed,
}

/// Where an event's definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventSource {
    /// The user documentation's catalog table.
    Doc,
    /// Added by current upstream code after the documentation was written.
    Upstream,
}

/// One field of an event payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldMeta {
    /// The keyword the host passes.
    pub name: &'static str,
    /// The schema type (`string`, `integer`, `number`, `boolean`, `object`,
    /// `array`, `any`, with a trailing `?` when it may be null).
    pub ty: &'static str,
    /// Whether the host may leave the key out entirely (not only set it to null).
    pub optional: bool,
    /// What the field holds.
    pub description: &'static str,
}

/// Everything the catalog knows about one plugin/shell event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventMeta {
    /// The event name, e.g. `pre_tool_call`.
    pub name: &'static str,
    /// Observer, transform or directive.
    pub class: EventClass,
    /// How replies merge.
    pub merge: MergeRule,
    /// How in-process callbacks run.
    pub run: RunPolicy,
    /// What a bounded callback's failure means.
    pub fail: FailMode,
    /// Whether shell hooks may register for it.
    pub shell: bool,
    /// Whether tool-name matchers apply (`pre_tool_call`, `post_tool_call`).
    pub tool_matcher: bool,
    /// Whether the payload carries `telemetry_schema_version` (every event but
    /// `gateway_platform_event`, as in the reference).
    pub telemetry: bool,
    /// Where the definition comes from.
    pub source: EventSource,
    /// When the event fires.
    pub fires: &'static str,
    /// The payload fields.
    pub fields: &'static [FieldMeta],
    /// What a hook sees that may be private.
    pub privacy: &'static str,
}

impl EventMeta {
    /// Whether in-process callbacks are bounded by the callback timeout.
    pub const fn is_bounded(&self) -> bool {
        matches!(self.run, RunPolicy::Bounded)
    }

    /// Whether the event is delivered through per-callback queues.
    pub const fn is_queued(&self) -> bool {
        matches!(self.run, RunPolicy::Queued)
    }

    /// The payload field called `name`, if the event has one.
    pub fn field(&self, name: &str) -> Option<&'static FieldMeta> {
        self.fields.iter().find(|field| field.name == name)
    }
}

/// Everything the catalog knows about one gateway event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayEventMeta {
    /// The event name, e.g. `agent:start`, or a wildcard pattern such as `command:*`.
    pub name: &'static str,
    /// How handler replies merge (`Ignore`, or `CommandDecision` for `command:*`).
    pub merge: MergeRule,
    /// When the event fires.
    pub fires: &'static str,
    /// The context keys.
    pub fields: &'static [FieldMeta],
}

/// Looks up a gateway event by name; `command:<anything>` finds `command:*`.
pub fn gateway_event(name: &str) -> Option<&'static GatewayEventMeta> {
    GATEWAY_EVENTS
        .iter()
        .find(|meta| match meta.name.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
            None => meta.name == name,
        })
}

/// The closest catalog event name to `name`, for "did you mean" messages.
///
/// Uses a normalised similarity like Python's `difflib` cutoff of 0.6.
pub fn suggest(name: &str) -> Option<&'static str> {
    VALID_HOOKS
        .iter()
        .map(|candidate| (strsim::normalized_levenshtein(name, candidate), *candidate))
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// The error of parsing a name that is not in the catalog. Its text names
/// the nearest catalog event when one is close ([`suggest`]):
/// `unknown hook event 'pre_tool_cal' (did you mean 'pre_tool_call'?)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEvent(pub String);

impl UnknownEvent {
    /// The name that is not in the catalog.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The closest catalog event name, when one is close enough to be a typo.
    pub fn nearest(&self) -> Option<&'static str> {
        suggest(&self.0)
    }
}

// Written by hand (not with thiserror) so the contract build stays small.
impl std::fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown hook event '{}'", self.0)?;
        if let Some(nearest) = self.nearest() {
            write!(f, " (did you mean '{nearest}'?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownEvent {}
