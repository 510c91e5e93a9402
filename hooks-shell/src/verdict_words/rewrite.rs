//! A fail-closed guard's rewrite that would leave the call as it was (red
//! team round 11, R11-1): Hermes merges a `modify`'s `args` into the call's
//! own, so `{"action": "modify", "args": {}}`, or args under names the call
//! does not have (`cmd` for `command`), change nothing the tool reads and
//! the call runs unchanged: the guard meant to change it, so it blocks.

use serde_json::Value;

/// Why the `modify` in `reply` (the Hermes wire shape) changes none of the
/// call's arguments `call_args`; `None` for any other reply, or a rewrite
/// that sets at least one argument the call has (or any argument, when the
/// call has none).
pub(crate) fn unapplied_rewrite(reply: &Value, call_args: Option<&Value>) -> Option<String> {
    if reply.get("action").and_then(Value::as_str) != Some("modify") {
        return None;
    }
    let rewrite = reply.get("args").and_then(Value::as_object)?;
    let hint = "Hermes merges a rewrite into the call's arguments, so the call would run as it was; \
                set the argument to change by its name";
    if rewrite.is_empty() {
        return Some(format!("its rewrite sets no argument; {hint}"));
    }
    let call = call_args
        .and_then(Value::as_object)
        .filter(|call| !call.is_empty())?;
    if rewrite.keys().any(|name| call.contains_key(name)) {
        return None;
    }
    let names = |keys: Vec<&String>| {
        keys.iter()
            .map(|key| format!("{key:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!(
        "its rewrite sets {} but the call's arguments are {}; {hint}",
        names(rewrite.keys().collect()),
        names(call.keys().collect())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call() -> Value {
        json!({"command": "rm -rf /"})
    }

    #[test]
    fn a_rewrite_that_changes_nothing_the_tool_reads_is_unapplied() {
        for reply in [
            json!({"action": "modify", "args": {}}),
            json!({"action": "modify", "args": {"cmd": "echo safe"}}),
            json!({"action": "modify", "args": {"Command": "echo safe"}}),
        ] {
            assert!(
                unapplied_rewrite(&reply, Some(&call())).is_some(),
                "{reply}"
            );
        }
        assert!(unapplied_rewrite(&json!({"action": "modify", "args": {}}), None).is_some());
    }

    #[test]
    fn a_rewrite_of_an_argument_of_the_call_or_no_rewrite_is_applied() {
        for reply in [
            json!({"action": "modify", "args": {"command": "echo safe"}}),
            json!({"action": "modify", "args": {"command": "ls", "timeout": 5}}),
            json!({"action": "block", "message": "no"}),
            json!({"context": "x"}),
        ] {
            assert_eq!(unapplied_rewrite(&reply, Some(&call())), None, "{reply}");
        }
        let reply = json!({"action": "modify", "args": {"cmd": "ls"}});
        assert_eq!(unapplied_rewrite(&reply, None), None);
        assert_eq!(unapplied_rewrite(&reply, Some(&json!({}))), None);
    }
}
