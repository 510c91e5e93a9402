//! Several deliveries in flight per target (`concurrency`): how many, what
//! stays true with them (retry, signing, flush, reports), and the order kept
//! with one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hermes_hooks_core::{Config, Dispatcher, HookEvent};
use hermes_hooks_outbound::signing::hermes_signature;
use hermes_hooks_outbound::verify::verify;
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};

use crate::support::{Answer, Sink};
use crate::*;

const SECRET: &str = "concurrency-secret";

/// `concurrency: 3` from config.yaml: three requests reach a receiver that
/// never answers, each on its own connection, and a fourth waits in the queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_number_of_deliveries_is_in_flight_and_no_more() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let home = tempfile::tempdir().expect("tempdir");
    let config = Config::from_value(
        home.path(),
        json!({"hooks": {"outbound": [{"url": sink.url("/slow"), "events": ["on_session_end"],
                                       "concurrency": 3}]}}),
    );
    let (outbound, _warnings) = Outbound::from_config(&config, options()).expect("outbound");
    assert_eq!(outbound.targets().next().map(|t| t.concurrency), Some(3));
    let accepted: usize = (0..10)
        .map(|_| outbound.enqueue(&session_end()).len())
        .sum();
    assert_eq!(accepted, 10);
    assert_eq!(sink.wait_for(3, SOON).await.len(), 3);
    // Given time, no fourth request starts while the three hang.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.requests().len(), 3);
    assert_eq!(sink.connections(), 3);
    assert_eq!(outbound.stats().pending, 10);
}

/// With one in flight the lane is FIFO: deliveries arrive in the order queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_concurrency_one_deliveries_arrive_in_queue_order() {
    let sink = Sink::status(200).await;
    let mut one = target(&sink.url("/in-order"), &[HookEvent::OnSessionEnd]);
    one.concurrency = 1;
    let outbound = Outbound::new(vec![one], options()).expect("outbound");
    let queued: Vec<String> = (0..40)
        .flat_map(|_| outbound.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    assert!(outbound.wait_idle(SOON).await);
    let arrived: Vec<String> = sink
        .requests()
        .iter()
        .filter_map(|request| request.header("x-hermes-delivery").map(str::to_owned))
        .collect();
    assert_eq!(arrived, queued);
}

/// Four in flight against a receiver that fails every first attempt: each
/// delivery is retried once, with the same signed bytes, and all arrive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_of_several_in_flight_is_retried_once_with_the_same_signed_bytes() {
    let seen: Arc<Mutex<HashSet<String>>> = Arc::default();
    let sink = Sink::start({
        let seen = seen.clone();
        move |request, _| {
            let id = request.header("x-hermes-delivery").unwrap_or("").to_owned();
            let first = seen.lock().map(|mut seen| seen.insert(id)).unwrap_or(false);
            // Slow enough that the four overlap.
            Answer::After(Duration::from_millis(20), if first { 503 } else { 200 })
        }
    })
    .await;
    let target = signed_target(&sink.url("/flaky"), &[HookEvent::OnSessionEnd], SECRET);
    assert_eq!(target.concurrency, 4);
    let outbound = Outbound::new(vec![target], options()).expect("outbound");
    let queued: Vec<String> = (0..12)
        .flat_map(|_| outbound.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    assert_eq!(queued.len(), 12);
    assert!(outbound.wait_idle(SOON).await);
    let reports = outbound.take_reports();
    assert_eq!(reports.len(), 12, "{reports:?}");
    for report in &reports {
        assert_eq!(report.outcome, DeliveryOutcome::Delivered, "{report:?}");
        assert_eq!((report.attempts, report.status), (2, Some(200)));
    }
    assert_eq!(outbound.stats().retries, 12);
    let mut attempts: HashMap<String, Vec<Vec<u8>>> = HashMap::new();
    for request in sink.requests() {
        let signature = hermes_signature(SECRET.as_bytes(), &request.body);
        assert_eq!(
            request.header("x-hermes-signature-256"),
            Some(signature.as_str())
        );
        let verified = verify(
            SECRET.as_bytes(),
            &request.headers,
            &request.body,
            SystemTime::now(),
            Duration::from_secs(300),
        );
        assert!(verified.is_ok(), "{verified:?}");
        let id = request.header("x-hermes-delivery").unwrap_or("").to_owned();
        attempts.entry(id).or_default().push(request.body.to_vec());
    }
    assert_eq!(attempts.len(), 12);
    for id in &queued {
        let bodies = &attempts[id];
        assert_eq!(bodies.len(), 2, "{id}: sent once and retried once");
        assert_eq!(
            bodies[0], bodies[1],
            "{id}: the retry resends the same bytes"
        );
    }
}

/// Many deliveries over few connections: the workers share keep-alive
/// connections instead of opening one per delivery.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_in_flight_reuse_keep_alive_connections() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/many"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    for _ in 0..4 {
        for _ in 0..100 {
            assert_eq!(outbound.enqueue(&session_end()).len(), 1);
        }
        assert!(outbound.wait_idle(SOON).await);
    }
    let stats = outbound.stats();
    assert_eq!((stats.delivered, stats.dropped, stats.failed), (400, 0, 0));
    assert_eq!(sink.requests().len(), 400);
    // Four workers need four connections; a connection handed back a moment
    // after the next request started may add a few, never one per delivery.
    let connections = sink.connections();
    assert!(
        (1..=16).contains(&connections),
        "{connections} connections for 400 deliveries"
    );
}

/// Flush waits for every delivery in flight, not just one per target.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_waits_for_all_deliveries_in_flight() {
    let sink = Sink::start(|_, _| Answer::After(Duration::from_millis(100), 200)).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/slow-ok"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    for _ in 0..10 {
        outbound.dispatch(&session_end()).await;
    }
    outbound.flush(SOON).await;
    let stats = outbound.stats();
    assert_eq!((stats.pending, stats.delivered), (0, 10));
    assert_eq!(sink.requests().len(), 10);
}

/// At the flush bound, every delivery still in flight (one per worker) and
/// every queued one is reported abandoned, each once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_flush_bound_every_delivery_in_flight_or_queued_is_abandoned() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/hang"), &[HookEvent::OnSessionEnd])],
        options().with_queue_capacity(8),
    )
    .expect("outbound");
    let queued: HashSet<String> = (0..7)
        .flat_map(|_| outbound.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    assert_eq!(queued.len(), 7);
    // Four in flight, three queued.
    assert_eq!(sink.wait_for(4, SOON).await.len(), 4);
    outbound.flush(Duration::from_millis(300)).await;
    let batch = outbound.take_report_batch();
    let abandoned: HashSet<String> = batch
        .reports
        .iter()
        .filter(|report| report.outcome == DeliveryOutcome::Abandoned)
        .map(|report| report.delivery_id.clone())
        .collect();
    assert_eq!(abandoned, queued);
    assert_eq!(batch.totals.abandoned, 7);
    assert_eq!(outbound.stats().pending, 7);
}
