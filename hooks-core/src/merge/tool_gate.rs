//! `pre_tool_call`: block / approve / modify, with the precedence of upstream
//! fix #87420 (a later block outranks an earlier approve).

use serde_json::{Map, Value};

use crate::event::Event;
use crate::outcome::{BlockSource, Outcome, ToolGate};
use crate::replies::ToolDecision;
use crate::reply::Reply;

/// Merges `pre_tool_call` replies into a [`ToolGate`].
///
/// Replies are scanned in order and non-objects ignored:
/// - `{"action":"modify","args":{..}}` with a non-empty object shallow-merges
///   into one accumulator that starts as the event's original `args`; later keys win;
/// - `{"action":"block","message":M}` with a non-empty string `M` ends the scan
///   and wins (a block without such a message is ignored), naming the
///   reply's source in [`ToolGate::Block`];
/// - the first `{"action":"approve"}` supplies the approval message and rule key;
///   the scan goes on, so later modifies still count and a later block outranks it;
/// - anything else is ignored.
///
/// Precedence: block, then approve (with the merged args when any modify came),
/// then modify (the full args after the merge); with none of them, [`Outcome::Nothing`].
pub fn tool_gate(event: &Event, replies: &[Reply]) -> Outcome {
    let mut scan = GateScan::new(event);
    for reply in replies {
        if let Some(block) = scan.take(reply) {
            return Outcome::Tool(block);
        }
    }
    scan.finish()
}

/// The reply whose block decided `replies` (by the rules of [`tool_gate`]),
/// so a host can say which hook blocked; `None` when the outcome is no block.
pub fn tool_gate_blocker<'a>(event: &Event, replies: &'a [Reply]) -> Option<&'a Reply> {
    let mut scan = GateScan::new(event);
    replies.iter().find(|reply| scan.take(reply).is_some())
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
    /// The reply is read by [`ToolDecision::from_wire`], the one parser of
    /// tool-call decisions.
    fn take(&mut self, reply: &Reply) -> Option<ToolGate> {
        match ToolDecision::from_wire(&reply.value)? {
            ToolDecision::Block { message } => Some(ToolGate::block(
                message,
                BlockSource::new(std::sync::Arc::clone(&reply.source)),
            )),
            ToolDecision::Approve { message, rule_key } => {
                if self.approval.is_none() {
                    self.approval = Some((message, rule_key));
                }
                None
            }
            ToolDecision::Modify { args } => {
                self.modified |= !args.is_empty();
                self.args.extend(args);
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
