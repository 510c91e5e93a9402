//! Tests of the request pieces: body layout and splicing, ids, headers and signatures.

use std::time::Duration;

use hermes_hooks_core::HookEvent;
use serde_json::{Value, json};

use super::*;
use crate::signing::{Secret, hermes_signature, standard_webhooks_signature};

fn document() -> EventDocument {
    let event = Event::from_json(
        HookEvent::PostToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls", "note": "é \"q\""}, "session_id": "s1", "task_id": "t"}),
    );
    let context = WireContext::new("/work", "default");
    match EventDocument::new(&event, &context) {
        Ok(document) => document,
        Err(error) => panic!("{error}"),
    }
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|error| panic!("{error}"))
}

// 129: the shell-hook wire shape plus delivery_id and timestamp, in order.
#[test]
fn body_is_the_document_plus_delivery_metadata_in_order() {
    let created = UNIX_EPOCH + Duration::from_micros(1_784_728_800_123_456);
    let delivery = PreparedDelivery::new(&document(), created, &iso_timestamp(created));
    let body = parse(&delivery.body);
    let keys: Vec<&str> = body
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "hook_event_name",
            "tool_name",
            "tool_input",
            "session_id",
            "cwd",
            "extra",
            "delivery_id",
            "timestamp"
        ]
    );
    assert_eq!(body["tool_input"]["note"], "é \"q\"");
    assert_eq!(body["extra"], json!({"task_id": "t"}));
    assert_eq!(body["delivery_id"], delivery.delivery_id.as_str());
    assert_eq!(body["timestamp"], "2026-07-22T14:00:00.123456Z");
    assert_eq!(delivery.delivery_id.len(), 32);
    assert!(
        delivery
            .delivery_id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
}

#[test]
fn spliced_body_equals_serialising_the_whole_object() {
    let document = document();
    let created = SystemTime::now();
    let delivery = PreparedDelivery::new(&document, created, &iso_timestamp(created));
    let mut whole: serde_json::Map<String, Value> =
        serde_json::from_slice(document.as_bytes()).unwrap_or_default();
    whole.insert("delivery_id".into(), json!(delivery.delivery_id));
    whole.insert("timestamp".into(), json!(iso_timestamp(created)));
    assert_eq!(
        serde_json::to_vec(&whole).ok().as_deref(),
        Some(&delivery.body[..])
    );
}

#[test]
fn taking_the_document_gives_the_bytes_of_a_copy() {
    let document = document();
    let created = SystemTime::now();
    let timestamp = iso_timestamp(created);
    let copied = PreparedDelivery::copying(
        &document,
        b"stale bytes".to_vec(),
        &"a".repeat(32),
        created,
        &timestamp,
    );
    let json_len = document.as_bytes().len();
    let taken = PreparedDelivery::taking(document, &"a".repeat(32), created, &timestamp);
    assert_eq!(copied.body, taken.body);
    assert_eq!(taken.delivery_id, "a".repeat(32));
    // The metadata length the buffers are sized with is exact.
    assert_eq!(taken.body.len(), json_len + METADATA_LEN);
    let fresh = PreparedDelivery::from_document(self::document(), created, &timestamp);
    assert_eq!(fresh.body.len(), json_len + METADATA_LEN);
    assert_ne!(fresh.delivery_id, taken.delivery_id);
}

#[test]
fn capacity_hint_does_not_change_the_bytes() {
    let event = Event::from_json(HookEvent::OnSessionEnd, json!({"session_id": "s", "n": 1}));
    let context = WireContext::new("/w", "p");
    let bytes = |capacity| {
        EventDocument::with_capacity(&event, &context, capacity)
            .map(|document| document.as_bytes().to_vec())
            .ok()
    };
    assert_eq!(bytes(0), bytes(1 << 16));
    assert_eq!(
        bytes(3),
        serde_json::to_vec(&hermes_hooks_core::wire::hook_document(&event, &context)).ok()
    );
}

#[test]
fn ids_are_new_per_delivery() {
    let document = document();
    let now = SystemTime::now();
    let a = PreparedDelivery::new(&document, now, "t");
    let b = PreparedDelivery::new(&document, now, "t");
    assert_ne!(a.delivery_id, b.delivery_id);
}

#[test]
fn headers_unsigned_signed_and_standard() {
    let created = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let delivery = PreparedDelivery::new(&document(), created, &iso_timestamp(created));
    let mut target = TargetSpec::new("https://x", [HookEvent::PostToolCall]);
    let unsigned = delivery.headers("post_tool_call", &target);
    assert_eq!(
        unsigned.get("content-type").map(|v| v.as_bytes()),
        Some(&b"application/json"[..])
    );
    assert_eq!(
        unsigned.get("user-agent").map(|v| v.as_bytes()),
        Some(USER_AGENT_VALUE.as_bytes())
    );
    assert_eq!(
        unsigned.get(EVENT_HEADER).map(|v| v.as_bytes()),
        Some(&b"post_tool_call"[..])
    );
    assert_eq!(
        unsigned.get(DELIVERY_HEADER).map(|v| v.as_bytes()),
        Some(delivery.delivery_id.as_bytes())
    );
    assert!(unsigned.get(SIGNATURE_HEADER).is_none());
    assert!(unsigned.get(GITHUB_SIGNATURE_HEADER).is_none());

    target.secret = Some(Secret::new("s3cret"));
    let signed = delivery.headers("post_tool_call", &target);
    let expected = hermes_signature(b"s3cret", &delivery.body);
    assert_eq!(
        signed.get(SIGNATURE_HEADER).map(|v| v.as_bytes()),
        Some(expected.as_bytes())
    );
    assert_eq!(
        signed.get(GITHUB_SIGNATURE_HEADER).map(|v| v.as_bytes()),
        Some(expected.as_bytes())
    );
    assert!(signed.get(STANDARD_SIGNATURE_HEADER).is_none());
    assert!(format!("{signed:?}").contains("Sensitive"));

    target.standard_webhooks = true;
    let standard = delivery.headers("post_tool_call", &target);
    assert_eq!(
        standard.get(STANDARD_ID_HEADER).map(|v| v.as_bytes()),
        Some(delivery.delivery_id.as_bytes())
    );
    assert_eq!(
        standard
            .get(STANDARD_TIMESTAMP_HEADER)
            .map(|v| v.as_bytes()),
        Some(&b"1700000000"[..])
    );
    let expected = standard_webhooks_signature(
        b"s3cret",
        &delivery.delivery_id,
        1_700_000_000,
        &delivery.body,
    );
    assert_eq!(
        standard
            .get(STANDARD_SIGNATURE_HEADER)
            .map(|v| v.as_bytes()),
        Some(expected.as_bytes())
    );
}
