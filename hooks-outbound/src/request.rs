//! The request of one delivery: the body bytes (serialised once, signed and sent
//! as they are) and the headers.
//!
//! The event's document ([`hermes_hooks_core::wire::HookDocument`]) is serialised once
//! per event, straight from the borrowed payload; each target's body is those
//! bytes with `delivery_id` and `timestamp` spliced in before the closing brace,
//! so the JSON is the same as serialising the whole object, without a second
//! pass over the payload. The last target takes the buffer itself.

use std::time::{SystemTime, UNIX_EPOCH};

use hermes_hooks_core::Event;
use hermes_hooks_core::wire::{WireContext, write_hook_document};
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

    /// A document serialised earlier (read back from the durable spool).
    #[cfg_attr(not(feature = "durable"), allow(dead_code))]
    pub(crate) fn from_bytes(json: Vec<u8>) -> Self {
        EventDocument { json }
    }

    /// The document's JSON bytes (without delivery metadata).
    pub fn as_bytes(&self) -> &[u8] {
        &self.json
    }
}

/// One delivery's body and identity, ready to sign and send (and resend: a retry
/// reuses the same bytes, id and timestamp).
#[derive(Debug, Clone)]
#[non_exhaustive]
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
mod tests;
