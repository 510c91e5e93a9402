//! The generated JSON Schemas (`hooks-core/schema/generated/`) hold for what
//! the test suite feeds hooks and what hooks answer, checked by an independent
//! validator (the `jsonschema` crate), and `hermes_hooks_core::schemas` agrees
//! with it.

use std::path::PathBuf;

use hermes_hooks_core::catalog::MergeRule;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Event, EventName, HookEvent};
use hermes_hooks_shell::run::stdin_bytes;
use hermes_hooks_shell::synthetic_payload;
use serde_json::{Value, json};

use crate::reference::model::Report;
use crate::support::workspace_root;

fn schema_path(name: &str) -> PathBuf {
    workspace_root()
        .join("hooks-core/schema/generated")
        .join(name)
}

fn validator(name: &str) -> jsonschema::Validator {
    let path = schema_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

#[test]
fn every_shell_events_stdin_document_validates_against_its_schema() {
    let context = WireContext::current();
    let shell_events: Vec<HookEvent> = HookEvent::ALL
        .into_iter()
        .filter(|event| event.meta().shell)
        .collect();
    assert!(shell_events.len() > 10);
    for event in shell_events {
        let validator = validator(&format!("{event}.stdin.schema.json"));
        for tool in [None, Some("terminal")] {
            let payload = synthetic_payload(event, tool);
            let bytes = stdin_bytes(&Event::new(event, payload), &context);
            let document: Value = serde_json::from_slice(&bytes).expect("stdin is JSON");
            let found = errors(&validator, &document);
            assert!(
                found.is_empty(),
                "{event} ({tool:?}): {found:?}\n{document}"
            );
        }
        // A document of another event is refused: the schema is that event's.
        let other = if event == HookEvent::PreToolCall {
            HookEvent::PostToolCall
        } else {
            HookEvent::PreToolCall
        };
        let bytes = stdin_bytes(&Event::new(other, synthetic_payload(other, None)), &context);
        let document: Value = serde_json::from_slice(&bytes).expect("stdin is JSON");
        assert!(!validator.is_valid(&document), "{event} accepted {other}");
    }
}

#[test]
fn every_reply_of_the_reference_table_validates_against_its_rules_schema() {
    let mut checked = 0;
    for case in crate::reference::all_cases() {
        let Some(rule) = EventName::parse(case.event).hook().map(|e| e.meta().merge) else {
            continue;
        };
        // Replies of these rules are strings, which a shell hook (stdout: a JSON
        // object) cannot give: what it answers there is ignored by the merge.
        if matches!(
            rule,
            MergeRule::FirstString | MergeRule::FirstNonEmptyString
        ) {
            continue;
        }
        let Report::Hooks(fired) = &case.ours else {
            continue;
        };
        let validator = validator(&format!("{}.reply.schema.json", rule.as_str()));
        for reply in fired.iter().filter_map(|fired| fired.parsed.as_ref()) {
            let found = errors(&validator, reply);
            assert!(found.is_empty(), "{}: {reply}: {found:?}", case.name);
            assert!(
                hermes_hooks_core::schemas::check_reply(rule, reply).is_empty(),
                "{}: {reply}",
                case.name
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} replies checked");
}

#[test]
fn the_contracts_checker_agrees_with_an_independent_validator() {
    let samples = [
        (
            MergeRule::ToolGate,
            json!({"action": "block", "message": "no"}),
        ),
        (
            MergeRule::ToolGate,
            json!({"action": "block", "message": 42}),
        ),
        (
            MergeRule::ToolGate,
            json!({"action": "modify", "args": {"x": 1}}),
        ),
        (
            MergeRule::ToolGate,
            json!({"action": "modify", "args": [1]}),
        ),
        (MergeRule::ToolGate, json!({"action": "blok"})),
        (
            MergeRule::ToolGate,
            json!({"decision": "block", "reason": "r"}),
        ),
        (MergeRule::ToolGate, json!("block")),
        (MergeRule::Context, json!({"context": "c"})),
        (MergeRule::Context, json!({"context": ["c"]})),
        (MergeRule::Context, json!("plain text")),
        (
            MergeRule::VerifyContinue,
            json!({"action": "continue", "message": "go"}),
        ),
        (MergeRule::VerifyContinue, json!({"action": "stop"})),
        (
            MergeRule::GatewayDispatch,
            json!({"action": "skip", "reason": null}),
        ),
        (
            MergeRule::GatewayDispatch,
            json!({"action": "rewrite", "text": 3}),
        ),
        (MergeRule::TranscriptionFields, json!({"language": "ja"})),
        (MergeRule::TranscriptionFields, json!({"language": false})),
        (MergeRule::FirstString, json!("x")),
        (MergeRule::FirstString, json!(null)),
        (
            MergeRule::ErrorClassification,
            json!({"reason": "billing", "retryable": true}),
        ),
        (
            MergeRule::ErrorClassification,
            json!({"reason": "whatever"}),
        ),
        (
            MergeRule::CommandDecision,
            json!({"decision": "deny", "message": "no"}),
        ),
        (MergeRule::CommandDecision, json!({"decision": "maybe"})),
        (MergeRule::Ignore, json!({"anything": [1, 2]})),
    ];
    for (rule, reply) in samples {
        let independent =
            validator(&format!("{}.reply.schema.json", rule.as_str())).is_valid(&reply);
        let ours = hermes_hooks_core::schemas::check_reply(rule, &reply);
        assert_eq!(
            independent,
            ours.is_empty(),
            "{} {reply}: jsonschema says {independent}, ours {ours:?}",
            rule.as_str()
        );
    }
}
