//! The `hooks listen` receiver: real deliveries in, verdicts out.

use hermes_hooks_core::HookEvent;
use hermes_hooks_outbound::receiver::{ReceivedDelivery, Verification, serve};
use hermes_hooks_outbound::verify::{Scheme, VerifyError};
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};
use std::sync::{Arc, Mutex};

use crate::*;

struct Listening {
    url: String,
    seen: Arc<Mutex<Vec<ReceivedDelivery>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn listen(secret: Option<&str>) -> Listening {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<ReceivedDelivery>>> = Arc::default();
    let sink = seen.clone();
    let secret = secret.map(|s| s.as_bytes().to_vec());
    let task = tokio::spawn(serve(listener, secret, move |delivery| {
        sink.lock().expect("lock").push(delivery)
    }));
    Listening { url, seen, task }
}

async fn deliver_to(
    url: &str,
    secret: Option<&str>,
    standard: bool,
) -> (hermes_hooks_outbound::DeliveryReport, String) {
    let mut spec = match secret {
        Some(secret) => signed_target(url, &[HookEvent::OnSessionEnd], secret),
        None => target(url, &[HookEvent::OnSessionEnd]),
    };
    spec.standard_webhooks = standard;
    let outbound = Outbound::new(vec![spec], options()).expect("outbound");
    let id = outbound.enqueue(&session_end()).remove(0).delivery_id;
    assert!(outbound.wait_idle(SOON).await);
    (outbound.take_reports().remove(0), id)
}

#[tokio::test]
async fn signed_deliveries_are_verified_and_handed_over() {
    let listening = listen(Some("s3cret")).await;
    for standard in [false, true] {
        let (report, id) = deliver_to(&listening.url, Some("s3cret"), standard).await;
        assert_eq!(report.outcome, DeliveryOutcome::Delivered);
        let seen = listening
            .seen
            .lock()
            .expect("lock")
            .pop()
            .expect("a delivery");
        assert_eq!(seen.status, 200);
        assert_eq!(seen.delivery_id.as_deref(), Some(id.as_str()));
        assert_eq!(seen.event.as_deref(), Some("on_session_end"));
        let scheme = if standard {
            Scheme::StandardWebhooks
        } else {
            Scheme::Hermes
        };
        assert_eq!(seen.verification, Verification::Verified(scheme));
        assert_eq!(seen.body["session_id"], "sess_abc123");
        assert!(
            seen.headers
                .iter()
                .any(|(n, v)| n == "x-hermes-signature-256" && v == "<present>")
        );
    }
}

#[tokio::test]
async fn a_wrong_secret_is_answered_401_and_not_retried() {
    let listening = listen(Some("right")).await;
    let (report, _) = deliver_to(&listening.url, Some("wrong"), false).await;
    assert_eq!(report.outcome, DeliveryOutcome::Rejected);
    assert_eq!(report.status, Some(401));
    let seen = listening
        .seen
        .lock()
        .expect("lock")
        .pop()
        .expect("a delivery");
    assert_eq!(
        seen.verification,
        Verification::Rejected(VerifyError::BadSignature)
    );
    // Unsigned deliveries to a receiver with a secret are refused too.
    let (report, _) = deliver_to(&listening.url, None, false).await;
    assert_eq!(report.status, Some(401));
}

#[tokio::test]
async fn without_a_secret_everything_json_is_accepted_unverified() {
    let listening = listen(None).await;
    let (report, _) = deliver_to(&listening.url, Some("whatever"), false).await;
    assert_eq!(report.status, Some(200));
    let seen = listening
        .seen
        .lock()
        .expect("lock")
        .pop()
        .expect("a delivery");
    assert_eq!(seen.verification, Verification::NoSecret);
    assert!(!seen.verification.is_verified());
}

#[tokio::test]
async fn non_json_and_non_post_are_refused() {
    let listening = listen(None).await;
    let client = reqwest::Client::new();
    let response = client
        .post(&listening.url)
        .body("not json")
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status().as_u16(), 400);
    let response = client.get(&listening.url).send().await.expect("answer");
    assert_eq!(response.status().as_u16(), 405);
    let seen = listening.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].status, 400);

    let signed = listen(Some("k")).await;
    let response = client
        .post(&signed.url)
        .header(
            "x-hermes-signature-256",
            hermes_hooks_outbound::signing::hermes_signature(b"k", b"nope"),
        )
        .body("nope")
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status().as_u16(), 400);
    // A bad signature is refused as such even when the body is not JSON either.
    let response = client
        .post(&signed.url)
        .header(
            "x-hermes-signature-256",
            hermes_hooks_outbound::signing::hermes_signature(b"other", b"nope"),
        )
        .body("nope")
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status().as_u16(), 401);
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let config = hermes_hooks_outbound::receiver::ReceiverConfig::default().with_max_body_bytes(16);
    let task = tokio::spawn(hermes_hooks_outbound::receiver::serve_with(
        listener,
        config,
        |_| {},
    ));
    let response = reqwest::Client::new()
        .post(&url)
        .body("x".repeat(100))
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status().as_u16(), 413);
    task.abort();
}

/// A receiver with `config`, on a free port; aborted when the handle drops.
async fn listen_with(config: hermes_hooks_outbound::receiver::ReceiverConfig) -> Listening {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<ReceivedDelivery>>> = Arc::default();
    let sink = seen.clone();
    let task = tokio::spawn(hermes_hooks_outbound::receiver::serve_with(
        listener,
        config,
        move |delivery| sink.lock().expect("lock").push(delivery),
    ));
    Listening { url, seen, task }
}

#[tokio::test]
async fn a_client_that_sends_nothing_is_dropped() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listening = listen_with(
        hermes_hooks_outbound::receiver::ReceiverConfig::default()
            .with_read_timeout(std::time::Duration::from_millis(300)),
    )
    .await;
    let addr = listening
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    for opening in ["", "POST / HTTP/1.1\r\nHost: x\r\n"] {
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        stream.write_all(opening.as_bytes()).await.expect("write");
        let mut buffer = Vec::new();
        // Closed by the server well before this bound (the old code waited forever).
        let read = tokio::time::timeout(SOON, stream.read_to_end(&mut buffer)).await;
        assert!(
            read.is_ok(),
            "connection with {opening:?} still open after {SOON:?}"
        );
    }
    // A normal client is still served.
    let response = reqwest::Client::new()
        .post(&listening.url)
        .body("{}")
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn a_replayed_delivery_is_refused() {
    use hermes_hooks_core::wire::WireContext;
    use hermes_hooks_outbound::request::{EventDocument, PreparedDelivery, iso_timestamp};
    let listening = listen(Some("s3cret")).await;
    let context = WireContext::new("/w", "default");
    let document = EventDocument::new(&session_end(), &context).expect("document");
    let now = std::time::SystemTime::now();
    let send = |delivery: &PreparedDelivery, standard: bool| {
        let mut spec = signed_target(&listening.url, &[HookEvent::OnSessionEnd], "s3cret");
        spec.standard_webhooks = standard;
        let request = reqwest::Client::new()
            .post(&listening.url)
            .headers(delivery.headers("on_session_end", &spec))
            .body(delivery.body.clone());
        async move { request.send().await.expect("answer").status().as_u16() }
    };
    for standard in [false, true] {
        let delivery = PreparedDelivery::new(&document, now, &iso_timestamp(now));
        assert_eq!(send(&delivery, standard).await, 200);
        assert_eq!(
            send(&delivery, standard).await,
            409,
            "the same delivery again"
        );
        let fresh = PreparedDelivery::new(&document, now, &iso_timestamp(now));
        assert_eq!(send(&fresh, standard).await, 200, "a new id is fine");
    }
    let seen = listening.seen.lock().expect("lock").clone();
    let replayed: Vec<_> = seen.iter().filter(|d| d.status == 409).collect();
    assert_eq!(replayed.len(), 2);
    assert!(matches!(
        &replayed[0].verification,
        Verification::Rejected(VerifyError::Replayed { .. })
    ));
}

/// A Standard Webhooks delivery from another sender (Svix and the like): the
/// body has no `delivery_id`, the id is only in `svix-id` / `webhook-id`.
#[tokio::test]
async fn a_replay_is_refused_by_the_header_id_when_the_body_has_none() {
    use hermes_hooks_outbound::signing::standard_webhooks_signature;
    let listening = listen(Some("s3cret")).await;
    let body = br#"{"hook_event_name": "on_session_end", "type": "invoice.paid"}"#;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let send = |prefix: &'static str, id: &'static str| {
        let signature = standard_webhooks_signature(b"s3cret", id, now, body);
        let request = reqwest::Client::new()
            .post(&listening.url)
            .header("content-type", "application/json")
            .header(format!("{prefix}-id"), id)
            .header(format!("{prefix}-timestamp"), now.to_string())
            .header(format!("{prefix}-signature"), signature)
            .body(body.to_vec());
        async move { request.send().await.expect("answer").status().as_u16() }
    };
    for (prefix, id, other) in [
        ("svix", "msg_2Lr1", "msg_2Lr2"),
        ("webhook", "msg_3Ab1", "msg_3Ab2"),
    ] {
        assert_eq!(send(prefix, id).await, 200, "{prefix}: first copy");
        assert_eq!(
            send(prefix, id).await,
            409,
            "{prefix}: the same delivery again"
        );
        assert_eq!(send(prefix, id).await, 409, "{prefix}: and again");
        assert_eq!(send(prefix, other).await, 200, "{prefix}: a new id is fine");
    }
    let seen = listening.seen.lock().expect("lock").clone();
    assert_eq!(seen[0].delivery_id.as_deref(), Some("msg_2Lr1"));
    assert!(seen[0].verification.is_verified());
    assert!(matches!(
        &seen[1].verification,
        Verification::Rejected(VerifyError::Replayed { delivery_id }) if delivery_id == "msg_2Lr1"
    ));
}
