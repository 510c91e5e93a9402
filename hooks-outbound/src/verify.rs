//! Checking a received delivery: the signature over the raw body bytes, the
//! timestamp against a tolerance, and the unsigned headers against the signed body.
//!
//! Two schemes are accepted:
//! - **Hermes / GitHub**: `X-Hermes-Signature-256` or `X-Hub-Signature-256`
//!   (`sha256=<hex HMAC-SHA256(secret, body)>`). The body is signed, so its
//!   `timestamp` must be within the tolerance and its `delivery_id` must equal
//!   `X-Hermes-Delivery` (and `hook_event_name` equal `X-Hermes-Event`).
//! - **Standard Webhooks**: `webhook-id`, `webhook-timestamp`,
//!   `webhook-signature` (space-separated `v1,<base64>` entries over
//!   `id.timestamp.body`; a `whsec_` secret is base64-decoded). `svix-*` names work too.
//!
//! Comparisons are constant-time (`hmac`'s `verify_slice`).
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use hermes_hooks_outbound::verify::{verify, VerifyError};
//!
//! let headers = [("X-Hermes-Signature-256", "sha256=00")];
//! let result = verify(b"secret", &headers[..], b"{}", SystemTime::now(), Duration::from_secs(300));
//! assert!(matches!(result, Err(VerifyError::MalformedSignature { .. })));
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::Mac;
use serde_json::{Map, Value};

use crate::signing::{new_mac, standard_webhooks_key, standard_webhooks_mac};

/// The replay window most receivers use: five minutes either way.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

/// Case-insensitive header access over whatever header type a server has.
pub trait HeaderLookup {
    /// The first value of header `name` (any case), if present and text.
    fn header(&self, name: &str) -> Option<&str>;
}

/// The `http` header map of hyper and reqwest (with either HTTP feature).
#[cfg(any(feature = "sender", feature = "receiver"))]
impl HeaderLookup for hyper::HeaderMap {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|value| value.to_str().ok())
    }
}

impl<K: AsRef<str>, V: AsRef<str>> HeaderLookup for [(K, V)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(key, _)| key.as_ref().eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_ref())
    }
}

impl<K: AsRef<str>, V: AsRef<str>> HeaderLookup for Vec<(K, V)> {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

/// Which signature scheme a delivery was verified with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Scheme {
    /// `X-Hermes-Signature-256` / `X-Hub-Signature-256`.
    Hermes,
    /// `webhook-signature` (Standard Webhooks).
    StandardWebhooks,
}

/// A delivery whose signature, timestamp and ids checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verified {
    /// The delivery id (body `delivery_id`, or `webhook-id`).
    pub delivery_id: String,
    /// The event name (body `hook_event_name`, or `X-Hermes-Event`), when known.
    pub event: Option<String>,
    /// The scheme that verified it.
    pub scheme: Scheme,
}

/// Why a delivery was not accepted. Messages never include a signature value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// No signature header of either scheme.
    #[error(
        "no signature header (X-Hermes-Signature-256, X-Hub-Signature-256 or webhook-signature)"
    )]
    MissingSignature,
    /// A delivery with this id was already accepted: a replay.
    #[error("delivery {delivery_id} was already accepted (replay refused)")]
    Replayed {
        /// The repeated id.
        delivery_id: String,
    },
    /// A signature header that cannot be decoded.
    #[error("{header} is malformed (expected {expected})")]
    MalformedSignature {
        /// The header.
        header: &'static str,
        /// The expected shape.
        expected: &'static str,
    },
    /// The signature does not match the body under this secret.
    #[error("signature does not match the body")]
    BadSignature,
    /// A header the scheme needs is absent.
    #[error("{0} header is missing")]
    MissingHeader(&'static str),
    /// The body is not a JSON object (the Hermes scheme needs its fields).
    #[error("body is not a JSON object: {0}")]
    NotJson(String),
    /// The signed body lacks a field the Hermes scheme needs.
    #[error("signed body has no string '{0}'")]
    MissingField(&'static str),
    /// A timestamp that cannot be read.
    #[error("{field} '{value}' is not a valid timestamp")]
    BadTimestamp {
        /// Where it came from (`timestamp` or `webhook-timestamp`).
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// The timestamp is too far from now: a replay or a skewed clock.
    #[error("timestamp is {skew_secs}s away from now, beyond the {tolerance_secs}s tolerance")]
    OutsideTolerance {
        /// Seconds between the timestamp and now.
        skew_secs: u64,
        /// The allowed window.
        tolerance_secs: u64,
    },
    /// An unsigned id header disagrees with the signed one.
    #[error("delivery id header '{header}' does not match the signed '{signed}'")]
    DeliveryIdMismatch {
        /// The header value.
        header: String,
        /// The signed value.
        signed: String,
    },
    /// `X-Hermes-Event` disagrees with the signed body's `hook_event_name`.
    #[error("X-Hermes-Event '{header}' does not match the signed hook_event_name '{signed}'")]
    EventMismatch {
        /// The header value.
        header: String,
        /// The signed value.
        signed: String,
    },
}

/// Verifies a delivery's signature and freshness; see the module docs for the rules.
///
/// `secret` is the shared secret's bytes as configured (a `whsec_` secret is
/// decoded for Standard Webhooks only). When both schemes are present, Standard
/// Webhooks is checked (its timestamp is part of the signed content).
pub fn verify<H: HeaderLookup + ?Sized>(
    secret: &[u8],
    headers: &H,
    body: &[u8],
    now: SystemTime,
    tolerance: Duration,
) -> Result<Verified, VerifyError> {
    if let Some(signatures) = first_header(headers, &["webhook-signature", "svix-signature"]) {
        return verify_standard(secret, headers, signatures, body, now, tolerance);
    }
    let signature = first_header(headers, &["x-hermes-signature-256", "x-hub-signature-256"])
        .ok_or(VerifyError::MissingSignature)?;
    verify_hermes_signature(secret, signature, body)?;
    let document = json_object(body)?;
    let delivery_id = string_field(&document, "delivery_id")?;
    if let Some(header) = headers
        .header("x-hermes-delivery")
        .filter(|h| *h != delivery_id)
    {
        return Err(VerifyError::DeliveryIdMismatch {
            header: header.to_owned(),
            signed: delivery_id.to_owned(),
        });
    }
    let event = string_field(&document, "hook_event_name")?;
    check_event_header(headers, event)?;
    let timestamp = string_field(&document, "timestamp")?;
    check_tolerance(parse_iso_timestamp(timestamp)?, now, tolerance)?;
    Ok(Verified {
        delivery_id: delivery_id.to_owned(),
        event: Some(event.to_owned()),
        scheme: Scheme::Hermes,
    })
}

/// Checks a `sha256=<hex>` header value against `HMAC-SHA256(secret, body)` in constant time.
pub fn verify_hermes_signature(
    secret: &[u8],
    header: &str,
    body: &[u8],
) -> Result<(), VerifyError> {
    let malformed = VerifyError::MalformedSignature {
        header: "X-Hermes-Signature-256",
        expected: "sha256=<64 hex digits>",
    };
    let hex_digest = header
        .trim()
        .strip_prefix("sha256=")
        .ok_or(malformed.clone())?;
    let digest = hex::decode(hex_digest).map_err(|_| malformed.clone())?;
    if digest.len() != 32 {
        return Err(malformed);
    }
    let mut mac = new_mac(secret);
    mac.update(body);
    mac.verify_slice(&digest)
        .map_err(|_| VerifyError::BadSignature)
}

fn verify_standard<H: HeaderLookup + ?Sized>(
    secret: &[u8],
    headers: &H,
    signatures: &str,
    body: &[u8],
    now: SystemTime,
    tolerance: Duration,
) -> Result<Verified, VerifyError> {
    let id = first_header(headers, &["webhook-id", "svix-id"])
        .ok_or(VerifyError::MissingHeader("webhook-id"))?;
    let timestamp_text = first_header(headers, &["webhook-timestamp", "svix-timestamp"])
        .ok_or(VerifyError::MissingHeader("webhook-timestamp"))?;
    let timestamp: u64 = timestamp_text
        .trim()
        .parse()
        .map_err(|_| VerifyError::BadTimestamp {
            field: "webhook-timestamp",
            value: timestamp_text.to_owned(),
        })?;
    let key = standard_webhooks_key(secret).unwrap_or_else(|| secret.to_vec());
    let mac = standard_webhooks_mac(&key, id, timestamp, body);
    let candidates: Vec<Vec<u8>> = signatures
        .split_whitespace()
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .filter_map(|encoded| BASE64.decode(encoded).ok())
        .collect();
    if candidates.is_empty() {
        return Err(VerifyError::MalformedSignature {
            header: "webhook-signature",
            expected: "space-separated v1,<base64> entries",
        });
    }
    // Every candidate is compared, matching or not, so timing says nothing about which.
    let matched = candidates.iter().fold(false, |found, candidate| {
        mac.clone().verify_slice(candidate).is_ok() | found
    });
    if !matched {
        return Err(VerifyError::BadSignature);
    }
    check_tolerance(UNIX_EPOCH + Duration::from_secs(timestamp), now, tolerance)?;
    if let Some(header) = headers.header("x-hermes-delivery").filter(|h| *h != id) {
        return Err(VerifyError::DeliveryIdMismatch {
            header: header.to_owned(),
            signed: id.to_owned(),
        });
    }
    let document = json_object(body).ok();
    let body_field = |key: &str| document.as_ref()?.get(key)?.as_str().map(str::to_owned);
    if let Some(body_id) = body_field("delivery_id").filter(|body_id| body_id != id) {
        return Err(VerifyError::DeliveryIdMismatch {
            header: id.to_owned(),
            signed: body_id,
        });
    }
    let event = match body_field("hook_event_name") {
        Some(event) => {
            check_event_header(headers, &event)?;
            Some(event)
        }
        None => headers.header("x-hermes-event").map(str::to_owned),
    };
    Ok(Verified {
        delivery_id: id.to_owned(),
        event,
        scheme: Scheme::StandardWebhooks,
    })
}

fn first_header<'h, H: HeaderLookup + ?Sized>(headers: &'h H, names: &[&str]) -> Option<&'h str> {
    names.iter().find_map(|name| headers.header(name))
}

fn json_object(body: &[u8]) -> Result<Map<String, Value>, VerifyError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(VerifyError::NotJson("not an object".into())),
        Err(error) => Err(VerifyError::NotJson(error.to_string())),
    }
}

fn string_field<'d>(
    document: &'d Map<String, Value>,
    key: &'static str,
) -> Result<&'d str, VerifyError> {
    document
        .get(key)
        .and_then(Value::as_str)
        .ok_or(VerifyError::MissingField(key))
}

fn check_event_header<H: HeaderLookup + ?Sized>(
    headers: &H,
    signed: &str,
) -> Result<(), VerifyError> {
    match headers.header("x-hermes-event") {
        Some(header) if header != signed => Err(VerifyError::EventMismatch {
            header: header.to_owned(),
            signed: signed.to_owned(),
        }),
        _ => Ok(()),
    }
}

fn check_tolerance(
    timestamp: SystemTime,
    now: SystemTime,
    tolerance: Duration,
) -> Result<(), VerifyError> {
    let skew = match now.duration_since(timestamp) {
        Ok(behind) => behind,
        Err(ahead) => ahead.duration(),
    };
    if skew > tolerance {
        return Err(VerifyError::OutsideTolerance {
            skew_secs: skew.as_secs(),
            tolerance_secs: tolerance.as_secs(),
        });
    }
    Ok(())
}

/// Parses the body's `timestamp`: RFC 3339 in UTC (`Z`, or `+00:00`), fraction optional.
pub fn parse_iso_timestamp(text: &str) -> Result<SystemTime, VerifyError> {
    let bad = || VerifyError::BadTimestamp {
        field: "timestamp",
        value: text.to_owned(),
    };
    let normalised = match text.strip_suffix("+00:00") {
        Some(head) => format!("{head}Z"),
        None => text.to_owned(),
    };
    humantime::parse_rfc3339(&normalised).map_err(|_| bad())
}

// The tests sign with the sender's request builder and check with `verify`.
#[cfg(all(test, feature = "sender"))]
mod tests;
