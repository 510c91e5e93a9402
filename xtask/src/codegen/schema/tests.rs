//! Schema validation: each mistake is reported naming the event and the key.

use super::parse;

const VALID_EVENT: &str = "
  - name: pre_tool_call
    source: doc
    class: directive
    merge: tool_gate
    run: bounded
    fail: closed
    shell: true
    tool_matcher: true
    fires: Before a tool runs.
    fields:
      - {name: tool_name, type: string, description: The tool.}
      - {name: args, type: object, description: The arguments.}
    privacy: Arguments may hold secrets.
";

fn schema_with(events: &str) -> String {
    format!(
        "events:{events}\ngateway_events:\n  - {{name: \"agent:start\", merge: ignore, fires: Start., fields: []}}\n"
    )
}

fn error_of(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("schema should be rejected:\n{text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_valid_schema_parses() {
    let schema = parse(&schema_with(VALID_EVENT)).expect("valid schema");
    assert_eq!(schema.events[0].fields[1].base, "object");
    assert!(schema.events[0].telemetry, "telemetry defaults to true");
}

#[test]
fn unknown_class_names_event_and_key() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("class: directive", "class: observe"),
    ));
    assert_eq!(
        message,
        "events.yaml: event 'pre_tool_call': 'class' is 'observe', expected one of: observer, transform, directive"
    );
}

#[test]
fn unknown_merge_rule_names_event_and_key() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("merge: tool_gate", "merge: first_wins"),
    ));
    assert!(
        message.starts_with("events.yaml: event 'pre_tool_call': 'merge' is 'first_wins'"),
        "{message}"
    );
}

#[test]
fn duplicate_event_name_is_rejected() {
    let message = error_of(&schema_with(&format!("{VALID_EVENT}{VALID_EVENT}")));
    assert_eq!(
        message,
        "events.yaml: event 'pre_tool_call': duplicate 'name' (entries #1 and #2)"
    );
}

#[test]
fn missing_field_type_names_event_field_and_key() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("{name: args, type: object,", "{name: args,"),
    ));
    assert_eq!(
        message,
        "events.yaml: event 'pre_tool_call': field 'args': missing 'type'"
    );
}

#[test]
fn unknown_field_type_is_rejected() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("type: object", "type: dict"),
    ));
    assert!(
        message.starts_with("events.yaml: event 'pre_tool_call': field 'args': 'type' is 'dict'"),
        "{message}"
    );
}

#[test]
fn duplicate_field_is_rejected() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("{name: args,", "{name: tool_name,"),
    ));
    assert!(
        message.contains("event 'pre_tool_call': field 'tool_name': duplicate 'name'"),
        "{message}"
    );
}

#[test]
fn missing_required_key_is_named() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("    privacy: Arguments may hold secrets.\n", ""),
    ));
    assert_eq!(
        message,
        "events.yaml: event 'pre_tool_call': missing 'privacy'"
    );
}

#[test]
fn unknown_key_is_named() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("    shell: true\n", "    shell: true\n    shel: true\n"),
    ));
    assert_eq!(
        message,
        "events.yaml: event 'pre_tool_call': unknown key 'shel'"
    );
}

#[test]
fn observer_must_ignore_replies() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("class: directive", "class: observer"),
    ));
    assert!(
        message.contains("event 'pre_tool_call': 'merge' is 'tool_gate' but 'class' is 'observer'"),
        "{message}"
    );
}

#[test]
fn telemetry_key_cannot_be_a_field() {
    let message = error_of(&schema_with(
        &VALID_EVENT.replace("{name: args,", "{name: telemetry_schema_version,"),
    ));
    assert!(
        message.contains("field 'telemetry_schema_version'"),
        "{message}"
    );
}

#[test]
fn gateway_event_names_need_a_namespace() {
    let text = format!(
        "events:{VALID_EVENT}\ngateway_events:\n  - {{name: startup, merge: ignore, fires: Start., fields: []}}\n"
    );
    let message = error_of(&text);
    assert_eq!(
        message,
        "events.yaml: gateway event 'startup': 'name' must be 'namespace:action' or 'namespace:*'"
    );
}

#[test]
fn plugin_merge_rules_are_not_gateway_rules() {
    let text = format!(
        "events:{VALID_EVENT}\ngateway_events:\n  - {{name: \"command:*\", merge: tool_gate, fires: Start., fields: []}}\n"
    );
    let message = error_of(&text);
    assert!(
        message.starts_with("events.yaml: gateway event 'command:*': 'merge' is 'tool_gate'"),
        "{message}"
    );
}
