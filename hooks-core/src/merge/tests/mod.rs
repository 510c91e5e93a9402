//! Unit tests of the merge rules: the reference's aggregation cases (§7.8,
//! §7.7, §5.4) and the wire shapes of the merged outcomes.

mod directives;
mod logs;
mod tool_gate;
mod transforms;
mod wire;

use serde_json::{Value, json};

use crate::event::Event;
use crate::reply::Reply;

/// Replies from anonymous callbacks, in registration order.
fn replies(values: impl IntoIterator<Item = Value>) -> Vec<Reply> {
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| Reply::new(format!("plugin:p{index}"), value))
        .collect()
}

/// An event named `name` with the JSON object `payload`.
fn event(name: &str, payload: Value) -> Event {
    Event::from_json(name, payload)
}

/// A `pre_tool_call` event for `terminal` with these original args.
fn tool_call(args: Value) -> Event {
    event(
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": args, "task_id": "t1"}),
    )
}
