//! The request of one delivery: the body bytes (serialised once, signed and sent
//! as they are) and the headers.
//!
//! The event's document ([`hooks_core::wire::HookDocument`]) is serialised once
//! per event, straight from the borrowed payload; each target's body is those
//! bytes with `delivery_id` and `timestamp` spliced in before the closing brace,
//! so the JSON is the same as serialising the whole object, without a second
//! pass over the payload. The last target takes the buffer itself.

use std::time::{SystemTime, UNIX_EPOCH};

use hooks_core::Event;
use hooks_core::wire::{WireContext, write_hook_document};
use hyper::body::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, USER_AGENT};

use crate::config::TargetSpec;

/// The `User-Agent` of every delivery.
pub const USER_AGENT_VALUE: &str = "Hermes-Agent-Outbound-Webhook";
/// The event name header.
pub const EVENT_HEADER: &str = "x-hermes-event";
/// The delivery id header (equal to the body's `delivery_id`).
pub const DELIVERY_HEADER: &str = "x-hermes-delivery";
/// The Hermes signature header, `sha256=<hex>`.
pub const SIGNATURE_HEADER: &str = "x-hermes-signature-256";
/// The GitHub signature header, sent with the same value so GitHub-style
/// receivers (Hermes's own inbound webhooks among them) accept deliveries.
pub const GITHUB_SIGNATURE_HEADER: &str = "x-hub-signature-256";
/// Standard Webhooks: the message id (the delivery id).
pub const STANDARD_ID_HEADER: &str = "webhook-id";
/// Standard Webhooks: unix seconds of the delivery.
pub const STANDARD_TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// Standard Webhooks: space-separated `v1,<base64>` signatures.
pub const STANDARD_SIGNATURE_HEADER: &str = "webhook-signature";

const DELIVERY_ID_KEY: &[u8] = br#""delivery_id":""#;
const TIMESTAMP_KEY: &[u8] = br#"","timestamp":""#;
/// How much a document grows into a body (its `}` becomes `,`, then
/// `"delivery_id":"<32 hex>","timestamp":"<27 chars>"}`), so buffers can be sized once.
pub(crate) const METADATA_LEN: usize = DELIVERY_ID_KEY.len() + 32 + TIMESTAMP_KEY.len() + 27 + 2;

/// The serialised document of one event, shared by every target it goes to.
#[derive(Debug, Clone)]
pub struct EventDocument {
    json: Vec<u8>,
}

impl EventDocument {
    /// Serialises the document of `event` in `context`.
    pub fn new(event: &Event, context: &WireContext) -> Result<Self, serde_json::Error> {
        EventDocument::with_capacity(event, context, 0)
    }

    /// Serialises the document of `event` in `context` into a buffer of
    /// `capacity` bytes plus room for the delivery metadata, so that neither
    /// serialisation nor [`PreparedDelivery::from_document`] has to grow it
    /// when the guess is right (a wrong guess only costs a reallocation).
    pub fn with_capacity(
        event: &Event,
        context: &WireContext,
        capacity: usize,
    ) -> Result<Self, serde_json::Error> {
        EventDocument::in_buffer(
            event,
            context,
            Vec::with_capacity(capacity.max(128) + METADATA_LEN),
        )
    }

    /// Serialises the document of `event` in `context` into `buffer` (cleared
    /// first), so a caller can reuse the memory of earlier bodies.
    pub fn in_buffer(
        event: &Event,
        context: &WireContext,
        mut buffer: Vec<u8>,
    ) -> Result<Self, serde_json::Error> {
        buffer.clear();
        // Borrowed serialisation: the payload is written as it is, not copied first.
        write_hook_document(event, context, &mut buffer)?;
        Ok(EventDocument { json: buffer })
    }

    /// The document's JSON bytes (without delivery metadata).
    pub fn as_bytes(&self) -> &[u8] {
        &self.json
    }
}

/// One delivery's body and identity, ready to sign and send (and resend: a retry
/// reuses the same bytes, id and timestamp).
#[derive(Debug, Clone)]
pub struct PreparedDelivery {
    /// 32 lowercase hex characters (a v4 UUID without dashes), new per event and target.
    pub delivery_id: String,
    /// When the delivery was created.
    pub created: SystemTime,
    /// The exact bytes that are signed and sent.
    pub body: Bytes,
}

impl PreparedDelivery {
    /// The delivery of `document` created at `created`, with a fresh id (the
    /// document is copied, so it can serve further targets).
    ///
    /// `timestamp` is `created` in UTC ISO 8601 with microseconds and `Z`
    /// ([`iso_timestamp`]); pass it in so one event's targets share one formatting.
    pub fn new(document: &EventDocument, created: SystemTime, timestamp: &str) -> Self {
        let mut id = [0; 32];
        let body = Vec::with_capacity(document.as_bytes().len() + METADATA_LEN);
        let delivery_id = new_delivery_id_in(&mut id);
        PreparedDelivery::copying(document, body, delivery_id, created, timestamp)
    }

    /// Like [`PreparedDelivery::new`] for the last target of an event: the
    /// document's buffer becomes the body, without a copy.
    pub fn from_document(document: EventDocument, created: SystemTime, timestamp: &str) -> Self {
        let mut id = [0; 32];
        PreparedDelivery::taking(document, new_delivery_id_in(&mut id), created, timestamp)
    }

    /// The delivery `delivery_id` of a copy of `document`, made in `body` (cleared first).
    pub(crate) fn copying(
        document: &EventDocument,
        mut body: Vec<u8>,
        delivery_id: &str,
        created: SystemTime,
        timestamp: &str,
    ) -> Self {
        body.clear();
        body.extend_from_slice(document.as_bytes());
        PreparedDelivery::with_body(body, delivery_id, created, timestamp)
    }

    /// The delivery `delivery_id` of `document`, its buffer becoming the body.
    pub(crate) fn taking(
        document: EventDocument,
        delivery_id: &str,
        created: SystemTime,
        timestamp: &str,
    ) -> Self {
        PreparedDelivery::with_body(document.json, delivery_id, created, timestamp)
    }

    /// The delivery whose body is the document in `body` plus `delivery_id` and `timestamp`.
    fn with_body(
        mut body: Vec<u8>,
        delivery_id: &str,
        created: SystemTime,
        timestamp: &str,
    ) -> Self {
        // The document is always a non-empty object (`hook_event_name` comes
        // first), so the metadata goes in before its closing brace after a comma.
        if body.len() > 2 && body.last() == Some(&b'}') {
            body.pop();
            body.push(b',');
        } else {
            body.clear();
            body.push(b'{');
        }
        body.extend_from_slice(DELIVERY_ID_KEY);
        body.extend_from_slice(delivery_id.as_bytes());
        body.extend_from_slice(TIMESTAMP_KEY);
        body.extend_from_slice(timestamp.as_bytes());
        body.extend_from_slice(br#""}"#);
        PreparedDelivery {
            delivery_id: delivery_id.to_owned(),
            created,
            body: Bytes::from(body),
        }
    }

    /// The headers of this delivery to `target` (signing happens here, once).
    pub fn headers(&self, event: &str, target: &TargetSpec) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(10);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
        insert(&mut headers, EVENT_HEADER, event, false);
        insert(&mut headers, DELIVERY_HEADER, &self.delivery_id, false);
        let Some(secret) = &target.secret else {
            return headers;
        };
        let signature = secret.hermes_signature(&self.body);
        insert(&mut headers, SIGNATURE_HEADER, &signature, true);
        insert(&mut headers, GITHUB_SIGNATURE_HEADER, &signature, true);
        if target.standard_webhooks {
            let seconds = unix_seconds(self.created);
            let signature =
                secret.standard_webhooks_signature(&self.delivery_id, seconds, &self.body);
            insert(&mut headers, STANDARD_ID_HEADER, &self.delivery_id, false);
            insert(
                &mut headers,
                STANDARD_TIMESTAMP_HEADER,
                &seconds.to_string(),
                false,
            );
            insert(&mut headers, STANDARD_SIGNATURE_HEADER, &signature, true);
        }
        headers
    }
}

/// A fresh delivery id: a v4 UUID as 32 lowercase hex digits (Python's `uuid4().hex`).
pub fn new_delivery_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A fresh delivery id written into `buffer` (no allocation), as [`new_delivery_id`].
pub(crate) fn new_delivery_id_in(buffer: &mut [u8; 32]) -> &str {
    uuid::Uuid::new_v4().simple().encode_lower(buffer)
}

fn insert(headers: &mut HeaderMap, name: &'static str, value: &str, sensitive: bool) {
    // Event names, hex ids, digits and signatures are visible ASCII; anything
    // else would be a bug upstream, and the header is then left out rather than panicking.
    if let Ok(mut value) = HeaderValue::from_str(value) {
        value.set_sensitive(sensitive);
        headers.insert(HeaderName::from_static(name), value);
    }
}

/// `time` as UTC ISO 8601 with microseconds and `Z`, e.g. `2026-07-22T14:00:00.123456Z`.
pub fn iso_timestamp(time: SystemTime) -> String {
    humantime::format_rfc3339_micros(time).to_string()
}

/// Whole seconds since the Unix epoch (0 for times before it).
pub fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use hooks_core::HookEvent;
    use serde_json::{Value, json};

    use super::*;
    use crate::signing::{Secret, hermes_signature, standard_webhooks_signature};

    fn document() -> EventDocument {
        let event = Event::from_json(
            HookEvent::PostToolCall,
            json!({"tool_name": "terminal", "args": {"command": "ls", "note": "é \"q\""}, "session_id": "s1", "task_id": "t"}),
        );
        let context = WireContext {
            cwd: "/work".into(),
            profile: "default".into(),
        };
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
                "profile",
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
        let context = WireContext {
            cwd: "/w".into(),
            profile: "p".into(),
        };
        let bytes = |capacity| {
            EventDocument::with_capacity(&event, &context, capacity)
                .map(|document| document.as_bytes().to_vec())
                .ok()
        };
        assert_eq!(bytes(0), bytes(1 << 16));
        assert_eq!(
            bytes(3),
            serde_json::to_vec(&hooks_core::wire::hook_document(&event, &context)).ok()
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
}
