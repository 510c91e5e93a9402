//! The typed replies, one per merge rule: what a hook of that event may answer.
//!
//! Each converts into the Hermes wire shape the host merges (`None`: no reply).
//! The types live in the contract (`hermes_hooks_core::replies`), with the one
//! parser the merge rules use; they are re-exported here unchanged.

pub use hermes_hooks_core::replies::{DispatchReply, ToolDecision, TranscriptionReply};

/// The wire conversions of the rules whose reply is a plain Rust type (each
/// structured one through its contract type's `into_wire`).
pub(crate) mod wire {
    use hermes_hooks_core::replies::{ContextReply, ContinueReply};
    use serde_json::{Map, Value};

    /// Observers: replies are ignored, so none is sent.
    pub fn ignore(_: ()) -> Option<Value> {
        None
    }

    /// `pre_llm_call`: `Some(text)` adds context.
    pub fn context(reply: Option<String>) -> Option<Value> {
        reply.map(|context| ContextReply::new(context).into_wire())
    }

    /// `pre_verify`: `Some(message)` keeps the turn going.
    pub fn verify_continue(reply: Option<String>) -> Option<Value> {
        reply.map(|message| ContinueReply::new(message).into_wire())
    }

    /// Transforms: `Some(text)` replaces the value.
    pub fn string(reply: Option<String>) -> Option<Value> {
        reply.map(Value::String)
    }

    /// `transform_api_error_classification`: the classification object.
    pub fn classification(reply: Option<Map<String, Value>>) -> Option<Value> {
        reply.map(Value::Object)
    }

    /// `pre_tool_call`.
    pub fn tool_gate(reply: super::ToolDecision) -> Option<Value> {
        reply.into_wire()
    }

    /// `pre_gateway_dispatch`.
    pub fn gateway_dispatch(reply: Option<super::DispatchReply>) -> Option<Value> {
        reply.map(super::DispatchReply::into_wire)
    }

    /// `pre_transcription`.
    pub fn transcription(reply: super::TranscriptionReply) -> Option<Value> {
        reply.into_wire()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    #[test]
    fn tool_decisions_take_the_wire_shapes() {
        assert_eq!(ToolDecision::Allow.into_wire(), None);
        assert_eq!(
            ToolDecision::block("no").into_wire(),
            Some(json!({"action": "block", "message": "no"}))
        );
        assert_eq!(
            ToolDecision::approve("sure?").into_wire(),
            Some(json!({"action": "approve", "message": "sure?"}))
        );
        let mut args = Map::new();
        args.insert("x".into(), 1.into());
        assert_eq!(
            ToolDecision::modify(args).into_wire(),
            Some(json!({"action": "modify", "args": {"x": 1}}))
        );
    }

    #[test]
    fn other_rules_take_their_wire_shapes() {
        assert_eq!(
            wire::context(Some("c".into())),
            Some(json!({"context": "c"}))
        );
        assert_eq!(wire::context(None), None);
        assert_eq!(
            wire::verify_continue(Some("go".into())),
            Some(json!({"action": "continue", "message": "go"}))
        );
        assert_eq!(wire::string(Some(String::new())), Some(json!("")));
        assert_eq!(
            wire::gateway_dispatch(Some(DispatchReply::Allow)),
            Some(json!({"action": "allow"}))
        );
        assert_eq!(TranscriptionReply::default().into_wire(), None);
        let language = TranscriptionReply::default().with_language("ja");
        assert_eq!(language.into_wire(), Some(json!({"language": "ja"})));
    }
}
