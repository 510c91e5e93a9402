//! `pre_tool_call`: block / approve / modify, with the precedence of upstream
//! fix #87420 (a later block outranks an earlier approve).

use serde_json::{Map, Value};

use super::json::non_empty_str;
use crate::event::Event;
use crate::outcome::{Outcome, ToolGate};
use crate::reply::Reply;

/// Merges `pre_tool_call` replies into a [`ToolGate`].
///
/// Replies are scanned in order and non-objects ignored:
/// - `{"action":"modify","args":{..}}` with a non-empty object shallow-merges
///   into one accumulator that starts as the event's original `args`; later keys win;
/// - `{"action":"block","message":M}` with a non-empty string `M` ends the scan
///   and wins (a block without such a message is ignored);
/// - the first `{"action":"approve"}` supplies the approval message and rule key;
///   the scan goes on, so later modifies still count and a later block outranks it;
/// - anything else is ignored.
///
/// Precedence: block, then approve (with the merged args when any modify came),
/// then modify (the full args after the merge); with none of them, [`Outcome::Nothing`].
pub fn tool_gate(event: &Event, replies: &[Reply]) -> Outcome {
    let mut scan = GateScan::new(event);
    for reply in replies {
        if let Some(block) = scan.take(&reply.value) {
            return Outcome::Tool(block);
        }
    }
    scan.finish()
}

/// The reply whose block decided `replies` (by the rules of [`tool_gate`]),
/// so a host can say which hook blocked; `None` when the outcome is no block.
pub fn tool_gate_blocker<'a>(event: &Event, replies: &'a [Reply]) -> Option<&'a Reply> {
    let mut scan = GateScan::new(event);
    replies
        .iter()
        .find(|reply| scan.take(&reply.value).is_some())
}

/// The state of one scan over the replies.
struct GateScan {
    args: Map<String, Value>,
    modified: bool,
    approval: Option<(Option<String>, Option<String>)>,
}

impl GateScan {
    fn new(event: &Event) -> Self {
        let args = match event.get("args") {
            Some(Value::Object(args)) => args.clone(),
            _ => Map::new(),
        };
        GateScan {
            args,
            modified: false,
            approval: None,
        }
    }

    /// Takes one reply into account; returns the block that ends the scan.
    fn take(&mut self, reply: &Value) -> Option<ToolGate> {
        let reply = reply.as_object()?;
        match reply.get("action").and_then(Value::as_str)? {
            "block" => non_empty_str(reply.get("message")).map(|message| ToolGate::Block {
                message: message.to_owned(),
            }),
            "approve" => {
                if self.approval.is_none() {
                    self.approval = Some(approval_fields(reply));
                }
                None
            }
            "modify" => {
                if let Some(Value::Object(changes)) = reply.get("args") {
                    self.modified |= !changes.is_empty();
                    for (key, value) in changes {
                        self.args.insert(key.clone(), value.clone());
                    }
                }
                None
            }
            _ => None,
        }
    }

    fn finish(self) -> Outcome {
        let gate = match (self.approval, self.modified) {
            (Some((message, rule_key)), modified) => ToolGate::Approve {
                message,
                rule_key,
                args: modified.then_some(self.args),
            },
            (None, true) => ToolGate::Modify { args: self.args },
            (None, false) => return Outcome::Nothing,
        };
        Outcome::Tool(gate)
    }
}

/// The message (a non-empty string) and rule key (stripped, non-empty) of an approve.
fn approval_fields(reply: &Map<String, Value>) -> (Option<String>, Option<String>) {
    let message = non_empty_str(reply.get("message")).map(str::to_owned);
    let rule_key = reply
        .get("rule_key")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .map(str::to_owned);
    (message, rule_key)
}
