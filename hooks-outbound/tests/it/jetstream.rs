//! NATS JetStream targets against a real `nats-server -js`: each delivery is
//! stored once (`Nats-Msg-Id` = `delivery_id`, signature valid), the stream is
//! created with a duplicate window of at least 2 minutes, and a durable NATS
//! target spools while the server is down and publishes when it is back.

use std::time::{Duration, Instant};

use async_nats::jetstream;
use hermes_hooks_core::HookEvent;
use hermes_hooks_outbound::spool::Spool;
use hermes_hooks_outbound::verify::verify;
use hermes_hooks_outbound::{DeliveryMode, DeliveryOutcome, Outbound, TargetSpec};

use crate::support::nats::NatsServer;
use crate::*;

fn nats_target(url: &str, secret: &str) -> TargetSpec {
    let mut target = signed_target(url, &[HookEvent::OnSessionEnd], secret);
    target.nats = Some(hermes_hooks_outbound::config::NatsTarget::default());
    target.timeout = Duration::from_secs(2);
    target
}

/// A stored message: subject, headers, payload.
type Stored = (String, Vec<(String, String)>, Vec<u8>);

/// Every message of stream `HERMES_HOOKS`: (subject, headers, payload).
async fn stored(url: &str) -> Vec<Stored> {
    let client = async_nats::connect(url).await.expect("connect");
    let context = jetstream::new(client);
    let mut stream = context.get_stream("HERMES_HOOKS").await.expect("stream");
    let info = stream.info().await.expect("info").clone();
    assert!(
        info.config.duplicate_window >= Duration::from_secs(120),
        "{:?}",
        info.config.duplicate_window
    );
    assert_eq!(info.config.subjects, ["hermes.hooks.>"]);
    let mut messages = Vec::new();
    for sequence in info.state.first_sequence..=info.state.last_sequence {
        let Ok(message) = stream.get_raw_message(sequence).await else {
            continue;
        };
        let headers = message
            .headers
            .iter()
            .flat_map(|(name, values)| {
                values
                    .iter()
                    .map(move |value| (name.to_string(), value.to_string()))
            })
            .collect();
        messages.push((
            message.subject.to_string(),
            headers,
            message.payload.to_vec(),
        ));
    }
    messages
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// Checks each message: subject, id headers equal to the body's, a valid signature.
fn check_messages(messages: &[Stored], secret: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for (subject, headers, payload) in messages {
        assert_eq!(subject, "hermes.hooks.on_session_end");
        let body: serde_json::Value = serde_json::from_slice(payload).expect("json body");
        let id = body["delivery_id"].as_str().unwrap_or_default().to_owned();
        assert_eq!(header(headers, "Nats-Msg-Id"), Some(id.as_str()));
        assert_eq!(header(headers, "X-Hermes-Delivery"), Some(id.as_str()));
        assert_eq!(header(headers, "X-Hermes-Event"), Some("on_session_end"));
        let verified = verify(
            secret.as_bytes(),
            headers,
            payload,
            std::time::SystemTime::now(),
            Duration::from_secs(300),
        );
        assert!(verified.is_ok(), "{verified:?}");
        ids.push(id);
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nats_target_stores_each_delivery_once_under_its_id_and_signature() {
    let Some(server) = NatsServer::start("jetstream best effort") else {
        return;
    };
    let secret = "nats-s3cret";
    let outbound =
        Outbound::new(vec![nats_target(&server.url(), secret)], options()).expect("outbound");
    let mut accepted = Vec::new();
    // More than the target's `concurrency` (4): several publishes share its
    // one connection at once.
    for _ in 0..12 {
        accepted.extend(outbound.enqueue(&session_end()));
    }
    assert!(outbound.wait_idle(SOON).await, "published in time");
    let reports = outbound.take_reports();
    assert!(
        reports
            .iter()
            .all(|r| r.outcome == DeliveryOutcome::Published),
        "{reports:?}"
    );
    let stats = outbound.stats();
    assert_eq!(
        (stats.delivered, stats.failed),
        (12, 0),
        "acknowledged is delivered"
    );
    let mut ids = check_messages(&stored(&server.url()).await, secret);
    ids.sort();
    let mut want: Vec<String> = accepted.into_iter().map(|d| d.delivery_id).collect();
    want.sort();
    assert_eq!(ids, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_durable_nats_target_spools_across_a_server_restart_and_stores_each_once() {
    let Some(mut server) = NatsServer::start("jetstream durable") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "nats-s3cret";
    let mut target = nats_target(&server.url(), secret);
    target.delivery = DeliveryMode::Durable;
    let options = options().with_spool_path(Some(dir.path().join("spool.sqlite3")));
    let outbound = Outbound::new(vec![target], options).expect("outbound");
    let spool: std::sync::Arc<Spool> = outbound.spool().expect("spool").clone();
    let mut ids = Vec::new();
    // Events keep coming before, during and after the server is down.
    for round in 0..3 {
        for _ in 0..4 {
            ids.extend(
                outbound
                    .enqueue(&session_end())
                    .into_iter()
                    .map(|d| d.delivery_id),
            );
        }
        match round {
            0 => {
                wait_empty(&spool).await;
                server.stop();
            }
            1 => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                let (pending, _) = spool.counts().expect("counts");
                assert_eq!(pending, 4, "spooled while the server is down");
                server.restart();
            }
            _ => {}
        }
    }
    wait_empty(&spool).await;
    let messages = stored(&server.url()).await;
    let mut got = check_messages(&messages, secret);
    got.sort();
    ids.sort();
    assert_eq!(got, ids, "each delivery stored exactly once");
}

async fn wait_empty(spool: &Spool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while spool.counts().expect("counts") != (0, 0) {
        assert!(
            Instant::now() < deadline,
            "the spool did not drain: {:?}",
            spool.counts()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_worker_signs_for_its_targets_acks_and_dead_letters_after_max_deliver() {
    use hermes_hooks_outbound::nats::consumer::{StreamSource, run_stream_worker};
    let Some(server) = NatsServer::start("jetstream worker") else {
        return;
    };
    let outbound =
        Outbound::new(vec![nats_target(&server.url(), "publisher")], options()).expect("outbound");
    let published: Vec<String> = (0..2)
        .flat_map(|_| outbound.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    assert!(outbound.wait_idle(SOON).await);

    // A worker delivers both, each signed with its own target's secret.
    let sink = crate::support::Sink::status(200).await;
    let targets = vec![signed_target(
        &sink.url("/ok"),
        &[HookEvent::OnSessionEnd],
        "receiver",
    )];
    let mut source = StreamSource::new(server.url());
    source.backoff = Duration::from_millis(50);
    let stop = async {
        sink.wait_for(2, SOON).await;
    };
    let totals = run_stream_worker(&source, &targets, stop)
        .await
        .expect("worker");
    assert_eq!(totals.acked, 2, "{totals:?}");
    let mut got = Vec::new();
    for request in sink.requests() {
        let verified = verify(
            b"receiver",
            &request.headers,
            &request.body,
            std::time::SystemTime::now(),
            Duration::from_secs(300),
        );
        assert!(verified.is_ok(), "{verified:?}");
        got.push(
            request.json()["delivery_id"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        );
    }
    got.sort();
    let mut want = published.clone();
    want.sort();
    assert_eq!(got, want);

    // Another consumer over a failing receiver: two attempts each, then `.dead`.
    let failing = crate::support::Sink::status(503).await;
    let targets = vec![target(&failing.url("/down"), &[HookEvent::OnSessionEnd])];
    source.consumer = "second".into();
    source.max_deliver = 2;
    let stop = async {
        failing.wait_for(4, SOON).await;
        let deadline = Instant::now() + SOON;
        while stored(&server.url()).await.len() < 4 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let totals = run_stream_worker(&source, &targets, stop)
        .await
        .expect("worker");
    assert_eq!(totals.dead, 2, "{totals:?}");
    assert_eq!(failing.requests().len(), 4, "max_deliver attempts each");
    let dead: Vec<Stored> = stored(&server.url())
        .await
        .into_iter()
        .filter(|(subject, _, _)| subject == "hermes.hooks.dead")
        .collect();
    let summary: Vec<(String, Option<String>)> = stored(&server.url())
        .await
        .iter()
        .map(|(subject, headers, _)| {
            (
                subject.clone(),
                header(headers, "Nats-Msg-Id").map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(dead.len(), 2, "{summary:?} {totals:?}");
    for (_, headers, _) in &dead {
        assert_eq!(header(headers, "Hermes-Dead-Reason"), Some("HTTP 503"));
    }
}
