//! One target that accepts connections and never answers must not hold back another.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hermes_hooks_core::HookEvent;
use hermes_hooks_outbound::{DeliveryOutcome, Outbound, TargetSpec};

use crate::support::{Answer, Sink};
use crate::*;

const EVENTS: usize = 300;

/// Fires `EVENTS` events at a steady pace; returns the healthy target's
/// enqueue→arrival delays, sorted, and the outbound handle.
async fn fire(targets: Vec<TargetSpec>, healthy: &Sink) -> (Vec<Duration>, Outbound) {
    let outbound = Outbound::new(targets, options()).expect("outbound");
    let healthy_label = format!("{}/healthy", healthy.addr);
    let mut enqueued_at = HashMap::new();
    for _ in 0..EVENTS {
        let now = Instant::now();
        for accepted in outbound.enqueue(&session_end()) {
            if accepted.target == healthy_label {
                enqueued_at.insert(accepted.delivery_id, now);
            }
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let arrived = healthy.wait_for(EVENTS, Duration::from_secs(30)).await;
    let mut delays: Vec<Duration> = arrived
        .iter()
        .filter_map(|request| {
            let sent = enqueued_at.get(request.header("x-hermes-delivery")?)?;
            Some(request.at.duration_since(*sent))
        })
        .collect();
    delays.sort();
    (delays, outbound)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_target_does_not_hold_back_a_healthy_one() {
    let healthy = Sink::status(200).await;
    let (baseline, _) = fire(
        vec![target(&healthy.url("/healthy"), &[HookEvent::OnSessionEnd])],
        &healthy,
    )
    .await;
    assert_eq!(baseline.len(), EVENTS);

    let healthy = Sink::status(200).await;
    let hanging = Sink::start(|_, _| Answer::Hang).await;
    let targets = vec![
        target(&hanging.url("/hanging"), &[HookEvent::OnSessionEnd]),
        target(&healthy.url("/healthy"), &[HookEvent::OnSessionEnd]),
    ];
    let (delays, outbound) = fire(targets, &healthy).await;
    // Every healthy delivery arrived, none was dropped.
    assert_eq!(delays.len(), EVENTS);
    let reports = outbound.take_reports();
    let dropped_for = |label: &str| {
        reports
            .iter()
            .filter(|r| r.target == label && r.outcome == DeliveryOutcome::Dropped)
            .count()
    };
    assert_eq!(dropped_for(&format!("{}/healthy", healthy.addr)), 0);
    // The hanging lane filled up (one in flight per worker + 128 queued) and
    // dropped the rest.
    assert_eq!(
        dropped_for(&format!("{}/hanging", hanging.addr)),
        EVENTS - 128 - hermes_hooks_outbound::config::DEFAULT_CONCURRENCY
    );

    let (p50, p99) = (percentile(&delays, 0.5), percentile(&delays, 0.99));
    let (base50, base99) = (percentile(&baseline, 0.5), percentile(&baseline, 0.99));
    println!(
        "healthy target delay with a hanging neighbour: p50 {p50:?} p99 {p99:?}; alone: p50 {base50:?} p99 {base99:?}; added p99 {:?}",
        p99.saturating_sub(base99)
    );
    // No clock assertion: the figures above are for reading. Isolation is
    // shown by every healthy delivery arriving (within `fire`'s 30 s hang
    // guard) while the hanging target, which never answers, held its
    // requests: behind it they would wait out one request timeout per
    // event, minutes for 300.
    assert!(
        !hanging.requests().is_empty(),
        "the hanging target got requests"
    );
}
