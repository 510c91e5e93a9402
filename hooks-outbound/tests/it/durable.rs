//! `delivery: durable`: the SQLite spool between `emit` and the receiver —
//! retried until a 2xx under one delivery id, dead letters, `max_age`,
//! `max_spool`, and a spool that outlives its host.

use std::path::Path;
use std::time::{Duration, Instant};

use hermes_hooks_core::{Dispatcher, HookEvent};
use hermes_hooks_outbound::request::DELIVERY_HEADER;
use hermes_hooks_outbound::spool::{Spool, SpoolTable};
use hermes_hooks_outbound::verify::verify;
use hermes_hooks_outbound::{DeliveryMode, DeliveryOutcome, Outbound, OutboundOptions, TargetSpec};

use crate::support::{Answer, Sink};
use crate::*;

fn durable(mut target: TargetSpec) -> TargetSpec {
    target.delivery = DeliveryMode::Durable;
    target
}

fn spooling(dir: &Path) -> OutboundOptions {
    options().with_spool_path(Some(dir.join("outbound/spool.sqlite3")))
}

/// Waits until the spool holds `expected` (pending, dead) rows.
async fn wait_counts(spool: &Spool, expected: (u64, u64)) -> (u64, u64) {
    let deadline = Instant::now() + SOON;
    loop {
        let counts = spool.counts().expect("counts");
        if counts == expected || Instant::now() > deadline {
            return counts;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_durable_delivery_is_retried_under_one_id_with_fresh_signed_timestamps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = Sink::start(|_, index| Answer::Status(if index < 2 { 503 } else { 200 })).await;
    let secret = "durable-s3cret";
    let target = durable(signed_target(
        &sink.url("/d"),
        &[HookEvent::OnSessionEnd],
        secret,
    ));
    let outbound = Outbound::new(vec![target], spooling(dir.path())).expect("outbound");
    let accepted = outbound.enqueue(&session_end());
    assert_eq!(accepted.len(), 1);
    let reports = outbound.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].outcome, DeliveryOutcome::Spooled);
    assert_eq!(outbound.stats().spooled, 1);

    let requests = sink.wait_for(3, SOON).await;
    assert_eq!(requests.len(), 3, "two 503s, then a 2xx");
    let mut timestamps = Vec::new();
    for request in &requests {
        assert_eq!(
            request.header(DELIVERY_HEADER),
            Some(accepted[0].delivery_id.as_str())
        );
        assert_eq!(
            request.json()["delivery_id"],
            accepted[0].delivery_id.as_str()
        );
        let verified = verify(
            secret.as_bytes(),
            &request.headers,
            &request.body,
            std::time::SystemTime::now(),
            Duration::from_secs(300),
        );
        assert!(verified.is_ok(), "each attempt is signed: {verified:?}");
        timestamps.push(
            request.json()["timestamp"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        );
    }
    timestamps.dedup();
    assert_eq!(timestamps.len(), 3, "each attempt has its own timestamp");
    let spool = outbound.spool().expect("spool");
    assert_eq!(
        wait_counts(&spool, (0, 0)).await,
        (0, 0),
        "delivered rows leave"
    );
    // Nothing more arrives after the 2xx.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_4xx_makes_a_dead_letter_and_retry_brings_it_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = Sink::start(|_, index| Answer::Status(if index == 0 { 404 } else { 200 })).await;
    let target = durable(target(&sink.url("/d"), &[HookEvent::OnSessionEnd]));
    let outbound = Outbound::new(vec![target], spooling(dir.path())).expect("outbound");
    outbound.dispatch(&session_end()).await;
    let spool = outbound.spool().expect("spool").clone();
    assert_eq!(wait_counts(&spool, (0, 1)).await, (0, 1));
    let dead = spool.list(SpoolTable::Dead).expect("dead");
    assert_eq!(dead[0].last_error.as_deref(), Some("HTTP 404 (rejected)"));
    assert_eq!(dead[0].attempts, 1);
    assert_eq!(sink.requests().len(), 1, "a 4xx is not retried");

    assert_eq!(spool.retry(Some(&dead[0].delivery_id)).expect("retry"), 1);
    assert_eq!(wait_counts(&spool, (0, 0)).await, (0, 0));
    let requests = sink.wait_for(2, SOON).await;
    assert_eq!(
        requests[1].header(DELIVERY_HEADER),
        Some(dead[0].delivery_id.as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_older_than_max_age_dies_with_its_last_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = Sink::status(503).await;
    let mut target = durable(target(&sink.url("/d"), &[HookEvent::OnSessionEnd]));
    target.max_age = Duration::from_millis(300);
    let outbound = Outbound::new(vec![target], spooling(dir.path())).expect("outbound");
    outbound.dispatch(&session_end()).await;
    let spool = outbound.spool().expect("spool").clone();
    assert_eq!(wait_counts(&spool, (0, 1)).await, (0, 1));
    let dead = spool.list(SpoolTable::Dead).expect("dead");
    let error = dead[0].last_error.clone().unwrap_or_default();
    assert!(
        error.contains("longer than max_age") && error.contains("HTTP 503"),
        "{error}"
    );
    assert!(!sink.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_spool_new_deliveries_are_refused_and_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut target = durable(target("http://127.0.0.1:9/d", &[HookEvent::OnSessionEnd]));
    target.max_spool = 2;
    let options = spooling(dir.path()).with_drain_spool(false);
    let outbound = Outbound::new(vec![target], options).expect("outbound");
    for _ in 0..3 {
        outbound.dispatch(&session_end()).await;
    }
    let outcomes: Vec<&str> = outbound
        .take_reports()
        .iter()
        .map(|report| report.outcome.as_str())
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    assert_eq!(outcomes, ["spooled", "spooled", "dropped"]);
    let stats = outbound.stats();
    assert_eq!((stats.spooled, stats.dropped), (2, 1));
    assert_eq!(
        outbound.spool().expect("spool").counts().expect("counts"),
        (2, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_host_of_the_home_sends_what_the_last_one_left() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = Sink::status(200).await;
    let url = sink.url("/d");
    let first = Outbound::new(
        vec![durable(target(&url, &[HookEvent::OnSessionEnd]))],
        spooling(dir.path()).with_drain_spool(false),
    )
    .expect("first");
    let accepted: Vec<String> = (0..5)
        .flat_map(|_| first.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    let left = first.stop_spool(SOON).await.expect("a spool");
    assert_eq!((left.pending, left.dead), (5, 0));
    drop(first);
    assert!(sink.requests().is_empty());

    let second = Outbound::new(
        vec![durable(target(&url, &[HookEvent::OnSessionEnd]))],
        spooling(dir.path()),
    )
    .expect("second");
    let requests = sink.wait_for(5, SOON).await;
    let mut got: Vec<String> = requests
        .iter()
        .filter_map(|request| request.header(DELIVERY_HEADER).map(str::to_owned))
        .collect();
    got.sort();
    let mut want = accepted.clone();
    want.sort();
    assert_eq!(got, want, "each once, in the ids emit gave");
    let left = second.stop_spool(SOON).await.expect("a spool");
    assert_eq!(
        (left.pending, left.dead, left.stopped_in_time),
        (0, 0, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_on_one_spool_send_each_row_once() {
    use hermes_hooks_outbound::spool::SpoolWorker;
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = Sink::status(200).await;
    let target = durable(target(&sink.url("/d"), &[HookEvent::OnSessionEnd]));
    let producer = Outbound::new(
        vec![target.clone()],
        spooling(dir.path()).with_drain_spool(false),
    )
    .expect("producer");
    let ids: Vec<String> = (0..60)
        .flat_map(|_| producer.enqueue(&session_end()))
        .map(|delivery| delivery.delivery_id)
        .collect();
    // Two workers, each with its own connection to the file, as two processes would have.
    let path = dir.path().join("outbound/spool.sqlite3");
    let mut handles = Vec::new();
    for _ in 0..2 {
        let spool = std::sync::Arc::new(Spool::open(&path).expect("open"));
        let worker =
            SpoolWorker::for_targets(spool, std::slice::from_ref(&target)).expect("worker");
        handles.push(worker.spawn(&tokio::runtime::Handle::current()));
    }
    let requests = sink.wait_for(ids.len(), SOON).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    for handle in &mut handles {
        assert!(handle.stop(SOON).await);
    }
    let mut got: Vec<String> = sink
        .requests()
        .iter()
        .filter_map(|request| request.header(DELIVERY_HEADER).map(str::to_owned))
        .collect();
    assert_eq!(requests.len(), ids.len());
    got.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(got, want, "each row sent once, by one of the two");
    assert_eq!(
        producer.spool().expect("spool").counts().expect("counts"),
        (0, 0)
    );
}
