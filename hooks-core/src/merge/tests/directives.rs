//! `pre_verify` (§7.8 262–267), `pre_llm_call` context (§7.8 274–277),
//! `pre_gateway_dispatch` (§7.7) and gateway `command:*` decisions (§5.4).

use serde_json::{Value, json};

use super::{event, replies};
use crate::merge::{command_decision, context, gateway_dispatch, merge, verify_continue};
use crate::outcome::{CommandDecision, DispatchDecision, Outcome};

fn verify(values: Vec<Value>) -> Outcome {
    verify_continue(
        &event("pre_verify", json!({"attempt": 0})),
        &replies(values),
    )
}

fn continue_with(message: &str) -> Outcome {
    Outcome::Continue {
        message: message.to_owned(),
    }
}

// 262
#[test]
fn verify_continue_canonical() {
    let outcome = verify(vec![
        json!({"action": "continue", "message": "run the formatter"}),
    ]);
    assert_eq!(outcome, continue_with("run the formatter"));
}

// 263
#[test]
fn verify_claude_block_means_continue() {
    let outcome = verify(vec![
        json!({"decision": "block", "reason": "tests not run"}),
    ]);
    assert_eq!(outcome, continue_with("tests not run"));
}

// 264
#[test]
fn verify_first_actionable_directive_wins() {
    let outcome = verify(vec![
        json!({"action": "continue"}),
        json!({"action": "stop", "message": "not an action we know"}),
        json!({"action": " Continue ", "message": "first"}),
        json!({"decision": "block", "reason": "second"}),
    ]);
    assert_eq!(outcome, continue_with("first"));
}

// 265
#[test]
fn verify_message_is_trimmed() {
    let outcome = verify(vec![
        json!({"action": "continue", "message": "  \n lint it \t"}),
    ]);
    assert_eq!(outcome, continue_with("lint it"));
}

// 266
#[test]
fn verify_invalid_returns_ignored() {
    let outcome = verify(vec![
        json!("continue"),
        json!(1),
        json!({"action": "continue", "message": "   "}),
        json!({"action": "continue", "message": 12}),
        json!({"action": "finish", "message": "done"}),
        json!({"message": "no action"}),
        // A truthy non-string message shadows `reason`, as `message or reason` does.
        json!({"action": "continue", "message": ["x"], "reason": "hidden"}),
    ]);
    assert_eq!(outcome, Outcome::Nothing);
}

#[test]
fn verify_falsy_action_falls_back_to_decision_and_empty_message_to_reason() {
    let outcome = verify(vec![
        json!({"action": "", "decision": "BLOCK", "message": "", "reason": " why "}),
    ]);
    assert_eq!(outcome, continue_with("why"));
}

// 267
#[test]
fn verify_nothing_when_no_hooks() {
    assert_eq!(verify(vec![]), Outcome::Nothing);
}

fn llm_context(values: Vec<Value>) -> Outcome {
    context(
        &event("pre_llm_call", json!({"user_message": "hi"})),
        &replies(values),
    )
}

// 274
#[test]
fn context_dict_returned() {
    let outcome = llm_context(vec![json!({"context": "Recalled: likes Python"})]);
    assert_eq!(outcome, Outcome::Context("Recalled: likes Python".into()));
}

// 275
#[test]
fn context_plain_string_return_is_verbatim() {
    let outcome = llm_context(vec![json!("  padded memory \n")]);
    assert_eq!(outcome, Outcome::Context("  padded memory \n".into()));
}

// 276 / 277
#[test]
fn context_from_several_plugins_joined_in_order() {
    let outcome = llm_context(vec![
        json!({"context": "aaa"}),
        json!(null),
        json!("bbb"),
        json!({"context": ""}),
        json!("   "),
        json!({"other": "x"}),
        json!({"context": "ccc"}),
    ]);
    assert_eq!(outcome, Outcome::Context("aaa\n\nbbb\n\nccc".into()));
}

#[test]
fn context_non_string_values_become_their_python_str() {
    let outcome = llm_context(vec![
        json!({"context": {"k": [1, 2]}}),
        json!({"context": 7}),
        json!({"context": 0}),
    ]);
    // The reference renders them with `str()` (agent/turn_context.py).
    assert_eq!(outcome, Outcome::Context("{'k': [1, 2]}\n\n7".into()));
}

#[test]
fn context_nothing_without_pieces() {
    assert_eq!(
        llm_context(vec![json!({"context": null}), json!(3)]),
        Outcome::Nothing
    );
}

fn dispatch(values: Vec<Value>) -> Outcome {
    gateway_dispatch(&event("pre_gateway_dispatch", json!({})), &replies(values))
}

// §7.7 187
#[test]
fn dispatch_skip_short_circuits() {
    let outcome = dispatch(vec![
        json!("skip"),
        json!({"action": "skip", "reason": "unauthorized-dm"}),
        json!({"action": "rewrite", "text": "later"}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Dispatch(DispatchDecision::Skip {
            reason: Some("unauthorized-dm".into())
        })
    );
    assert_eq!(
        dispatch(vec![json!({"action": "skip"})]),
        Outcome::Dispatch(DispatchDecision::Skip { reason: None })
    );
}

// §7.7 188
#[test]
fn dispatch_rewrite_replaces_text() {
    let outcome = dispatch(vec![
        json!({"action": "observe"}),
        json!({"action": "rewrite", "text": "combined prompt"}),
        json!({"action": "skip"}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Dispatch(DispatchDecision::Rewrite {
            text: "combined prompt".into()
        })
    );
}

#[test]
fn dispatch_rewrite_with_non_string_text_stops_unchanged() {
    let outcome = dispatch(vec![
        json!({"action": "rewrite", "text": 5}),
        json!({"action": "skip", "reason": "never reached"}),
    ]);
    assert_eq!(outcome, Outcome::Nothing);
}

// §7.7 189
#[test]
fn dispatch_allow_stops_scanning() {
    let outcome = dispatch(vec![json!({"action": "allow"}), json!({"action": "skip"})]);
    assert_eq!(outcome, Outcome::Dispatch(DispatchDecision::Allow));
    assert_eq!(
        dispatch(vec![json!({"action": "Skip"}), json!(null)]),
        Outcome::Nothing
    );
}

fn command(name: &str, payload: Value, values: Vec<Value>) -> Outcome {
    command_decision(&event(name, payload), &replies(values))
}

#[test]
fn command_allow_and_blank_decisions_go_on() {
    let outcome = command(
        "command:reset",
        json!({"command": "reset"}),
        vec![
            json!({"decision": "allow"}),
            json!({"decision": "  "}),
            json!({}),
            json!("deny"),
            json!({"decision": "maybe"}),
            json!({"decision": " DENY ", "message": "not now"}),
        ],
    );
    assert_eq!(
        outcome,
        Outcome::Command(CommandDecision::Deny {
            message: "not now".into()
        })
    );
}

#[test]
fn command_deny_default_message_names_the_command() {
    let outcome = command(
        "command:reset",
        json!({"command": "reset", "raw_command": "new"}),
        vec![json!({"decision": "deny", "message": ""})],
    );
    assert_eq!(
        outcome,
        Outcome::Command(CommandDecision::Deny {
            message: "Command `/new` was blocked by a hook.".into()
        })
    );
    let outcome = command(
        "command:model",
        json!({}),
        vec![json!({"decision": "deny"})],
    );
    assert_eq!(
        outcome,
        Outcome::Command(CommandDecision::Deny {
            message: "Command `/model` was blocked by a hook.".into()
        })
    );
}

#[test]
fn command_handled_with_and_without_message() {
    let handled = |value| command("command:help", json!({"command": "help"}), vec![value]);
    assert_eq!(
        handled(json!({"decision": "handled", "message": "done"})),
        Outcome::Command(CommandDecision::Handled {
            message: Some("done".into())
        })
    );
    assert_eq!(
        handled(json!({"decision": "handled", "message": 3})),
        Outcome::Command(CommandDecision::Handled { message: None })
    );
}

#[test]
fn command_rewrite_normalises_name_and_args() {
    let outcome = command(
        "command:reset",
        json!({"command": "reset"}),
        vec![
            json!({"decision": "rewrite", "command_name": " / "}),
            json!({"decision": "rewrite", "command_name": null, "raw_args": "x"}),
            json!({"decision": "rewrite", "command_name": " /new ", "raw_args": "  keep  "}),
            json!({"decision": "deny"}),
        ],
    );
    assert_eq!(
        outcome,
        Outcome::Command(CommandDecision::Rewrite {
            command: "new".into(),
            args: "keep".into()
        })
    );
    let outcome = command(
        "command:reset",
        json!({}),
        vec![json!({"decision": "rewrite", "command_name": "status"})],
    );
    assert_eq!(
        outcome,
        Outcome::Command(CommandDecision::Rewrite {
            command: "status".into(),
            args: String::new()
        })
    );
}

#[test]
fn merge_routes_gateway_commands_and_ignores_observer_events() {
    let deny = json!({"decision": "deny", "message": "no"});
    assert!(matches!(
        merge(&event("command:reset", json!({})), &replies([deny.clone()])),
        Outcome::Command(CommandDecision::Deny { .. })
    ));
    assert_eq!(
        merge(&event("agent:start", json!({})), &replies([deny.clone()])),
        Outcome::Nothing
    );
    assert_eq!(
        merge(
            &event("post_tool_call", json!({})),
            &replies([deny.clone()])
        ),
        Outcome::Nothing
    );
    assert_eq!(
        merge(&event("on_banana", json!({})), &replies([deny])),
        Outcome::Nothing
    );
}
