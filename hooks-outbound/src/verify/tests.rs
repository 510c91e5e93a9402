//! Verification tests: the published vectors and real Hermes envelopes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Event, HookEvent};
use serde_json::json;

use super::*;
use crate::config::TargetSpec;
use crate::request::{EventDocument, PreparedDelivery, iso_timestamp};
use crate::signing::Secret;

const TOLERANCE: Duration = Duration::from_secs(300);

#[test]
fn github_vector_signature_checks_out() {
    let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    assert_eq!(
        verify_hermes_signature(b"It's a Secret to Everybody", header, b"Hello, World!"),
        Ok(())
    );
    assert_eq!(
        verify_hermes_signature(b"It's a Secret to Everybody", header, b"Hello, World?"),
        Err(VerifyError::BadSignature)
    );
    assert_eq!(
        verify_hermes_signature(b"wrong", header, b"Hello, World!"),
        Err(VerifyError::BadSignature)
    );
    // The vector's body is not a Hermes envelope: the signature passes, the envelope check fails.
    let headers = [("X-Hub-Signature-256", header)];
    let result = verify(
        b"It's a Secret to Everybody",
        &headers[..],
        b"Hello, World!",
        SystemTime::now(),
        TOLERANCE,
    );
    assert!(matches!(result, Err(VerifyError::NotJson(_))));
}

#[test]
fn malformed_hermes_signatures() {
    for header in [
        "757107ea",
        "sha256=zz",
        "sha256=abcd",
        "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    ] {
        assert!(
            matches!(
                verify_hermes_signature(b"k", header, b"x"),
                Err(VerifyError::MalformedSignature { .. })
            ),
            "{header}"
        );
    }
}

#[test]
fn standard_webhooks_vector_checks_out() {
    let secret = b"whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    let body = br#"{"email":"test@example.com","username":"test_user"}"#;
    let at = UNIX_EPOCH + Duration::from_secs(1_649_367_553);
    let headers = [
        ("webhook-id", "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk"),
        ("webhook-timestamp", "1649367553"),
        (
            "webhook-signature",
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
        ),
    ];
    let verified = verify(secret, &headers[..], body, at, TOLERANCE);
    assert_eq!(
        verified,
        Ok(Verified {
            delivery_id: "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk".into(),
            event: None,
            scheme: Scheme::StandardWebhooks
        })
    );
    // Too old, too far ahead, tampered body, wrong secret, unknown version only.
    assert!(matches!(
        verify(
            secret,
            &headers[..],
            body,
            at + Duration::from_secs(301),
            TOLERANCE
        ),
        Err(VerifyError::OutsideTolerance {
            skew_secs: 301,
            tolerance_secs: 300
        })
    ));
    assert!(matches!(
        verify(
            secret,
            &headers[..],
            body,
            at - Duration::from_secs(400),
            TOLERANCE
        ),
        Err(VerifyError::OutsideTolerance { .. })
    ));
    assert_eq!(
        verify(secret, &headers[..], b"{}", at, TOLERANCE),
        Err(VerifyError::BadSignature)
    );
    assert_eq!(
        verify(b"whsec_AAAA", &headers[..], body, at, TOLERANCE),
        Err(VerifyError::BadSignature)
    );
    let v2_only = [headers[0], headers[1], ("webhook-signature", "v2,abc")];
    assert!(matches!(
        verify(secret, &v2_only[..], body, at, TOLERANCE),
        Err(VerifyError::MalformedSignature { .. })
    ));
    let no_id = [headers[1], headers[2]];
    assert_eq!(
        verify(secret, &no_id[..], body, at, TOLERANCE),
        Err(VerifyError::MissingHeader("webhook-id"))
    );
}

fn delivery(created: SystemTime) -> PreparedDelivery {
    let event = Event::from_json(
        HookEvent::OnSessionEnd,
        json!({"session_id": "s1", "completed": true}),
    );
    let context = WireContext::new("/w", "default");
    let document = EventDocument::new(&event, &context).unwrap_or_else(|e| panic!("{e}"));
    PreparedDelivery::new(&document, created, &iso_timestamp(created))
}

fn signed_headers(delivery: &PreparedDelivery, standard: bool) -> Vec<(String, String)> {
    let mut target = TargetSpec::new("https://x", [HookEvent::OnSessionEnd]);
    target.secret = Some(Secret::new("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"));
    target.standard_webhooks = standard;
    delivery
        .headers("on_session_end", &target)
        .iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                value.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

const SECRET: &[u8] = b"whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

#[test]
fn hermes_envelope_round_trip() {
    let now = SystemTime::now();
    let delivery = delivery(now);
    let headers = signed_headers(&delivery, false);
    let verified = verify(SECRET, &headers, &delivery.body, now, TOLERANCE);
    assert_eq!(
        verified,
        Ok(Verified {
            delivery_id: delivery.delivery_id.clone(),
            event: Some("on_session_end".into()),
            scheme: Scheme::Hermes
        })
    );
    // Only the GitHub header (as Hermes inbound would see it).
    let github_only: Vec<_> = headers
        .iter()
        .filter(|(n, _)| n != "x-hermes-signature-256")
        .cloned()
        .collect();
    assert!(verify(SECRET, &github_only, &delivery.body, now, TOLERANCE).is_ok());
}

#[test]
fn hermes_envelope_checks_freshness_and_unsigned_headers() {
    let created = SystemTime::now() - Duration::from_secs(3600);
    let stale = delivery(created);
    let headers = signed_headers(&stale, false);
    assert!(matches!(
        verify(SECRET, &headers, &stale.body, SystemTime::now(), TOLERANCE),
        Err(VerifyError::OutsideTolerance { .. })
    ));
    let now = SystemTime::now();
    let fresh = delivery(now);
    let mut headers = signed_headers(&fresh, false);
    for (name, value) in &mut headers {
        if name == "x-hermes-delivery" {
            *value = "0".repeat(32);
        }
    }
    assert!(matches!(
        verify(SECRET, &headers, &fresh.body, now, TOLERANCE),
        Err(VerifyError::DeliveryIdMismatch { .. })
    ));
    let mut headers = signed_headers(&fresh, false);
    for (name, value) in &mut headers {
        if name == "x-hermes-event" {
            *value = "pre_tool_call".into();
        }
    }
    assert!(matches!(
        verify(SECRET, &headers, &fresh.body, now, TOLERANCE),
        Err(VerifyError::EventMismatch { .. })
    ));
    assert_eq!(
        verify(
            SECRET,
            &Vec::<(String, String)>::new(),
            &fresh.body,
            now,
            TOLERANCE
        ),
        Err(VerifyError::MissingSignature)
    );
}

#[test]
fn standard_webhooks_envelope_round_trip_and_cross_checks() {
    let now = SystemTime::now();
    let delivery = delivery(now);
    let headers = signed_headers(&delivery, true);
    let verified = verify(SECRET, &headers, &delivery.body, now, TOLERANCE);
    assert_eq!(
        verified,
        Ok(Verified {
            delivery_id: delivery.delivery_id.clone(),
            event: Some("on_session_end".into()),
            scheme: Scheme::StandardWebhooks
        })
    );
    let mut forged = headers.clone();
    for (name, value) in &mut forged {
        if name == "x-hermes-event" {
            *value = "pre_tool_call".into();
        }
    }
    assert!(matches!(
        verify(SECRET, &forged, &delivery.body, now, TOLERANCE),
        Err(VerifyError::EventMismatch { .. })
    ));
}

#[test]
fn iso_timestamps_parse_with_z_or_offset() {
    let expected = UNIX_EPOCH + Duration::from_micros(1_784_728_800_123_456);
    assert_eq!(
        parse_iso_timestamp("2026-07-22T14:00:00.123456Z"),
        Ok(expected)
    );
    assert_eq!(
        parse_iso_timestamp("2026-07-22T14:00:00.123456+00:00"),
        Ok(expected)
    );
    assert_eq!(
        parse_iso_timestamp("2026-07-22T14:00:00Z"),
        Ok(UNIX_EPOCH + Duration::from_secs(1_784_728_800))
    );
    assert!(parse_iso_timestamp("yesterday").is_err());
}

proptest::proptest! {
    #[test]
    fn iso_timestamps_round_trip(micros in 0u64..4_102_444_800_000_000) {
        let time = UNIX_EPOCH + Duration::from_micros(micros);
        proptest::prop_assert_eq!(parse_iso_timestamp(&iso_timestamp(time)), Ok(time));
    }

    #[test]
    fn arbitrary_headers_never_panic(signature in ".{0,80}", body in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
        let headers = [("x-hermes-signature-256", signature.as_str()), ("webhook-signature", signature.as_str()),
            ("webhook-id", "x"), ("webhook-timestamp", signature.as_str())];
        let _ = verify(b"k", &headers[..], &body, SystemTime::now(), TOLERANCE);
        let _ = verify(b"k", &headers[..1], &body, SystemTime::now(), TOLERANCE);
    }
}
