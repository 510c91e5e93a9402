//! Tests of the generated payload structs against the generated catalog.

use serde_json::{Value, json};

use super::*;
use crate::catalog::HookEvent;
use crate::event::Event;

/// What every payload struct must satisfy, checked against its catalog entry.
fn check_payload<P: HookPayload + Default + PartialEq + std::fmt::Debug>() -> HookEvent {
    let meta = P::EVENT.meta();
    let event: Event = P::default().into();
    assert_eq!(event.hook(), Some(P::EVENT));

    // Keys in schema order (optional ones are left out when `None`), then the
    // telemetry marker last, as the reference's `setdefault` appends it.
    let mut expected: Vec<&str> = meta
        .fields
        .iter()
        .filter(|field| !field.optional)
        .map(|field| field.name)
        .collect();
    if meta.telemetry {
        expected.push(TELEMETRY_KEY);
    }
    let keys: Vec<&str> = event.payload().keys().map(String::as_str).collect();
    assert_eq!(keys, expected, "{}", meta.name);
    if meta.telemetry {
        assert_eq!(
            event.get(TELEMETRY_KEY),
            Some(&json!(TELEMETRY_SCHEMA_VERSION))
        );
    }

    // Nullable fields are null, not absent, when unset.
    for field in meta
        .fields
        .iter()
        .filter(|f| f.ty.ends_with('?') && !f.optional)
    {
        assert_eq!(
            event.get(field.name),
            Some(&Value::Null),
            "{}.{}",
            meta.name,
            field.name
        );
    }

    // serde and the Event conversion agree on the payload.
    let mut serialized = serde_json::to_value(P::default()).expect("serializes");
    if let (Value::Object(map), true) = (&mut serialized, meta.telemetry) {
        map.insert(TELEMETRY_KEY.to_owned(), json!(TELEMETRY_SCHEMA_VERSION));
    }
    assert_eq!(
        serialized,
        Value::Object(event.payload().clone()),
        "{}",
        meta.name
    );

    // And the payload decodes back to the same struct.
    assert_eq!(
        P::from_event(&event).expect("decodes"),
        P::default(),
        "{}",
        meta.name
    );

    // A JSON null in any field decodes as if the key were absent (issue 15
    // item 17: `"session_id": null` made every typed native plugin fail).
    let nulls: serde_json::Map<String, Value> = meta
        .fields
        .iter()
        .map(|field| (field.name.to_owned(), Value::Null))
        .collect();
    let decoded = P::from_event(&Event::from_json(P::EVENT, Value::Object(nulls)));
    assert_eq!(
        decoded.map_err(|error| error.to_string()),
        Ok(P::default()),
        "{}: null fields",
        meta.name
    );

    super::in_place::in_place_matches_fresh::<P>();
    P::EVENT
}

macro_rules! check_all {
    ($($payload:ident),* $(,)?) => {
        vec![$(check_payload::<$payload>()),*]
    };
}

#[test]
fn every_event_has_a_payload_struct_matching_its_catalog_entry() {
    let events = check_all!(
        PreToolCall,
        PostToolCall,
        TransformToolResult,
        TransformTerminalOutput,
        PreTranscription,
        PreLlmCall,
        PostLlmCall,
        TransformLlmOutput,
        PreVerify,
        PreApiRequest,
        PostApiRequest,
        ApiRequestError,
        OnStreamStart,
        OnStreamDelta,
        OnStreamEnd,
        OnInterimMessage,
        TransformApiErrorClassification,
        OnSessionStart,
        OnSessionEnd,
        OnSessionFinalize,
        OnSessionReset,
        OnSkillLifecycle,
        SubagentStart,
        SubagentStop,
        PreGatewayDispatch,
        GatewayPlatformEvent,
        PreCommand,
        PreApprovalRequest,
        PostApprovalResponse,
        KanbanTaskClaimed,
        KanbanTaskCompleted,
        KanbanTaskBlocked,
        OnKanbanWorkerSpawned,
        OnKanbanWorkerExited,
        OnKanbanWorkerStaleClaim,
        OnKanbanTaskUpdated,
        OnKanbanDispatchTick,
        AgentLoopStopped,
        OnRoomMemberActivity,
        PreAuxiliaryCall,
        PostAuxiliaryCall,
    );
    assert_eq!(
        events,
        HookEvent::ALL,
        "one struct per event, in catalog order"
    );
}

/// Reference test 199 (`test_invoke_hook_adds_observer_schema_version`).
#[test]
fn payloads_carry_the_observer_schema_version_except_platform_events() {
    let event: Event = PostToolCall::default().into();
    assert_eq!(
        event.get("telemetry_schema_version"),
        Some(&json!("hermes.observer.v1"))
    );

    let event: Event = GatewayPlatformEvent {
        platform: "telegram".into(),
        event_type: "reaction".into(),
        ..GatewayPlatformEvent::default()
    }
    .into();
    assert_eq!(event.get("telemetry_schema_version"), None);
    assert_eq!(
        event.payload().keys().collect::<Vec<_>>(),
        ["platform", "event_type", "payload"]
    );
}

#[test]
fn optional_keys_appear_only_when_set() {
    let cli: Event = OnSessionReset {
        session_id: "s2".into(),
        platform: "cli".into(),
        reason: Some("new".into()),
        ..OnSessionReset::default()
    }
    .into();
    assert_eq!(
        cli.payload().keys().collect::<Vec<_>>(),
        [
            "session_id",
            "platform",
            "reason",
            "telemetry_schema_version"
        ]
    );

    let gateway: Event = OnSessionReset {
        session_id: "s2".into(),
        platform: "telegram".into(),
        reason: Some("new".into()),
        old_session_id: Some("s1".into()),
        new_session_id: Some("s2".into()),
    }
    .into();
    assert_eq!(gateway.get("old_session_id"), Some(&json!("s1")));
    assert_eq!(gateway.payload().len(), 6);
}

#[test]
fn typed_values_keep_their_json_types() {
    let event: Event = PostToolCall {
        tool_name: "terminal".into(),
        duration_ms: 42,
        error_type: Some("Timeout".into()),
        ..PostToolCall::default()
    }
    .into();
    assert_eq!(event.get("duration_ms"), Some(&json!(42)));
    assert_eq!(event.get("error_type"), Some(&json!("Timeout")));
    assert_eq!(event.get("error_message"), Some(&Value::Null));
    assert_eq!(event.tool_name(), Some("terminal"));

    // A non-finite number cannot be JSON: it becomes null rather than failing.
    let event: Event = PostApiRequest {
        api_duration: f64::NAN,
        ..PostApiRequest::default()
    }
    .into();
    assert_eq!(event.get("api_duration"), Some(&Value::Null));
}

#[test]
fn decoding_is_lenient_about_missing_and_unknown_keys() {
    let event = Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "read_file", "brand_new_key": 1}),
    );
    let payload = PreToolCall::from_event(&event).expect("decodes");
    assert_eq!(payload.tool_name, "read_file");
    assert!(payload.args.is_empty());
}

#[test]
fn decoding_the_wrong_event_or_a_bad_value_fails_with_the_event_name() {
    let event = Event::from_json(HookEvent::PostToolCall, json!({}));
    let error = PreToolCall::from_event(&event).expect_err("wrong event");
    assert_eq!(
        error.to_string(),
        "expected a 'pre_tool_call' event, got 'post_tool_call'"
    );

    let event = Event::from_json(HookEvent::PostToolCall, json!({"duration_ms": "slow"}));
    let error = PostToolCall::from_event(&event).expect_err("bad type");
    assert!(
        error
            .to_string()
            .starts_with("'post_tool_call' payload: invalid type"),
        "{error}"
    );
    // The serde error stays reachable as the source, for error reporters.
    let source = std::error::Error::source(&error).expect("a source");
    assert!(source.to_string().starts_with("invalid type"), "{source}");
}

#[test]
fn debug_output_shows_no_payload_values() {
    let mut args = serde_json::Map::new();
    args.insert("api_key".into(), json!("sk-very-secret"));
    let payload = PreToolCall {
        tool_name: "terminal".into(),
        args,
        ..PreToolCall::default()
    };
    let debug = format!("{payload:?}");
    assert!(!debug.contains("sk-very-secret"), "{debug}");
    assert!(debug.starts_with("PreToolCall"), "{debug}");
}

#[test]
fn a_null_session_id_decodes_as_absent() {
    let event = Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls"}, "session_id": null}),
    );
    let payload = PreToolCall::from_event(&event).expect("decodes");
    assert_eq!(payload.tool_name, "terminal");
    assert_eq!(payload.session_id, "");
}
