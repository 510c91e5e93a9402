//! Replies: what one callback, script or handler gave back for one event.

use std::sync::Arc;

use serde_json::Value;

/// One reply, in the Hermes wire shape (`{"action": "block", ...}`, a string, ...).
///
/// Mechanisms translate their own dialects and failures into this shape before
/// the merge: a shell hook's Claude-Code `{"decision": "block"}` arrives here as
/// `{"action": "block", "message": ...}`, and a failed-closed `pre_tool_call`
/// callback as a block.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reply {
    /// Who replied, for logs and reports (`plugin:name`, `shell:<command>`, ...).
    pub source: Arc<str>,
    /// The reply value.
    pub value: Value,
}

impl Reply {
    /// A reply from `source`.
    pub fn new(source: impl Into<Arc<str>>, value: Value) -> Self {
        Reply {
            source: source.into(),
            value,
        }
    }

    /// A `pre_tool_call` block with `message`.
    pub fn block(source: impl Into<Arc<str>>, message: impl Into<String>) -> Self {
        Reply::new(
            source,
            serde_json::json!({"action": "block", "message": message.into()}),
        )
    }
}
