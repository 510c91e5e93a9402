//! The generated catalog: lookups, names and the reference's VALID_HOOKS tests.

use std::str::FromStr;

use hermes_hooks_core::HookEvent;
use hermes_hooks_core::catalog::{
    self, EVENT_COUNT, EVENTS, EventClass, EventSource, FailMode, GATEWAY_EVENTS, MergeRule,
    RunPolicy, UnknownEvent, VALID_HOOKS,
};

#[test]
fn names_round_trip_in_catalog_order() {
    assert_eq!(EVENT_COUNT, 41);
    assert_eq!(VALID_HOOKS.len(), EVENT_COUNT);
    for (index, event) in HookEvent::ALL.into_iter().enumerate() {
        assert_eq!(event.index(), index);
        assert_eq!(event.as_str(), VALID_HOOKS[index]);
        assert_eq!(event.to_string(), VALID_HOOKS[index]);
        assert_eq!(HookEvent::from_str(VALID_HOOKS[index]), Ok(event));
        assert_eq!(EVENTS[index].name, VALID_HOOKS[index]);
    }
    assert_eq!(
        "on_banana".parse::<HookEvent>(),
        Err(UnknownEvent("on_banana".to_owned()))
    );
    assert_eq!(
        UnknownEvent("pre_tool_cal".to_owned()).to_string(),
        "unknown hook event 'pre_tool_cal' (did you mean 'pre_tool_call'?)"
    );
    assert_eq!(
        UnknownEvent("on_banana".to_owned()).to_string(),
        "unknown hook event 'on_banana'"
    );
}

/// Reference tests 195 and 196: the request-scoped API hooks, subagent_start,
/// the transform hooks and pre_gateway_dispatch are valid hook names.
#[test]
fn valid_hooks_include_request_scoped_api_hooks_and_pre_gateway_dispatch() {
    for name in [
        "pre_api_request",
        "post_api_request",
        "api_request_error",
        "subagent_start",
        "transform_tool_result",
        "transform_terminal_output",
        "transform_llm_output",
        "transform_api_error_classification",
        "pre_gateway_dispatch",
    ] {
        assert!(VALID_HOOKS.contains(&name), "{name}");
    }
}

#[test]
fn every_event_is_documented_with_fields_and_privacy() {
    for meta in &EVENTS {
        assert!(!meta.fires.is_empty(), "{}", meta.name);
        assert!(!meta.privacy.is_empty(), "{}", meta.name);
        assert!(!meta.fields.is_empty(), "{}", meta.name);
        for field in meta.fields {
            let base = field.ty.trim_end_matches('?');
            assert!(
                [
                    "string", "integer", "number", "boolean", "object", "array", "any"
                ]
                .contains(&base),
                "{}.{}: {}",
                meta.name,
                field.name,
                field.ty
            );
        }
    }
}

#[test]
fn policies_follow_the_reference() {
    let pre_tool_call = HookEvent::PreToolCall.meta();
    assert_eq!(pre_tool_call.class, EventClass::Directive);
    assert_eq!(pre_tool_call.merge, MergeRule::ToolGate);
    assert_eq!(pre_tool_call.fail, FailMode::Closed);
    assert!(pre_tool_call.is_bounded() && pre_tool_call.tool_matcher);
    assert_eq!(pre_tool_call.field("args").map(|f| f.ty), Some("object"));

    assert_eq!(HookEvent::SubagentStop.meta().run, RunPolicy::CallerThread);
    assert!(HookEvent::OnStreamDelta.meta().is_queued());
    assert!(!HookEvent::TransformApiErrorClassification.meta().shell);
    assert!(!HookEvent::GatewayPlatformEvent.meta().telemetry);
    assert_eq!(
        HookEvent::PostAuxiliaryCall.meta().source,
        EventSource::Upstream
    );
    assert_eq!(HookEvent::PreLlmCall.meta().source, EventSource::Doc);
}

#[test]
fn gateway_events_have_context_keys_and_wildcard_lookup() {
    assert_eq!(GATEWAY_EVENTS.len(), 11);
    let start = catalog::gateway_event("agent:start").expect("agent:start");
    let keys: Vec<&str> = start.fields.iter().map(|f| f.name).collect();
    assert_eq!(
        keys,
        [
            "platform",
            "user_id",
            "chat_id",
            "thread_id",
            "chat_type",
            "session_id",
            "message"
        ]
    );
    let command = catalog::gateway_event("command:reset").expect("command:*");
    assert_eq!(command.name, "command:*");
    assert_eq!(command.merge, MergeRule::CommandDecision);
    assert!(catalog::gateway_event("agent").is_none());
}

/// The payload structs are `#[non_exhaustive]` (the upstream catalog adds
/// fields), so outside hooks-core they are built with `default()` and the
/// `with_*` setters: plain, optional (key left out), nullable and `any` fields.
#[test]
fn payloads_are_built_with_setters_outside_hooks_core() {
    use hermes_hooks_core::Event;
    use hermes_hooks_core::payloads::{HookPayload, PostToolCall, TransformTerminalOutput};
    use serde_json::json;

    let mut args = serde_json::Map::new();
    args.insert("command".into(), "ls".into());
    let event: Event = PostToolCall::default()
        .with_tool_name("terminal")
        .with_args(args)
        .with_duration_ms(12)
        .with_error_type("Timeout")
        .with_middleware_trace(vec![json!("guard")])
        .into();
    assert_eq!(event.get("tool_name"), Some(&json!("terminal")));
    assert_eq!(event.get("args"), Some(&json!({"command": "ls"})));
    assert_eq!(event.get("duration_ms"), Some(&json!(12)));
    assert_eq!(event.get("error_type"), Some(&json!("Timeout")));
    // A nullable field left unset is an explicit null.
    assert_eq!(event.get("error_message"), Some(&json!(null)));
    let back = PostToolCall::from_event(&event).expect("decodes");
    assert_eq!(back.error_type.as_deref(), Some("Timeout"));
    assert_eq!(back.middleware_trace, vec![json!("guard")]);

    let unset: Event = TransformTerminalOutput::default().with_command("ls").into();
    assert_eq!(
        unset.get("tool_call_id"),
        None,
        "an optional key is left out"
    );
    let set: Event = TransformTerminalOutput::default()
        .with_tool_call_id("call-1")
        .into();
    assert_eq!(set.get("tool_call_id"), Some(&json!("call-1")));
}
