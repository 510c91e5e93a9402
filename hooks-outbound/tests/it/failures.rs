//! Failure semantics: retries, redirects, dead endpoints, full queues, bounded flush.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, HookEvent};
use hermes_hooks_outbound::{DeliveryOutcome, Outbound, OutboundOptions};

use crate::support::{Answer, Sink, dead_url};
use crate::*;

async fn one_delivery(
    sink: &Sink,
    options: OutboundOptions,
) -> hermes_hooks_outbound::DeliveryReport {
    let outbound = Outbound::new(
        vec![target(&sink.url("/hook"), &[HookEvent::OnSessionEnd])],
        options,
    )
    .expect("outbound");
    outbound.dispatch(&session_end()).await;
    assert!(outbound.wait_idle(SOON).await);
    let mut reports = outbound.take_reports();
    assert_eq!(reports.len(), 1);
    reports.remove(0)
}

// 139
#[tokio::test]
async fn client_errors_are_not_retried() {
    let sink = Sink::status(422).await;
    let report = one_delivery(&sink, options()).await;
    assert_eq!(sink.requests().len(), 1);
    assert_eq!(report.outcome, DeliveryOutcome::Rejected);
    assert_eq!((report.attempts, report.status), (1, Some(422)));
}

// 140
#[tokio::test]
async fn server_errors_are_retried_once() {
    let sink = Sink::status(503).await;
    let report = one_delivery(&sink, options()).await;
    let requests = sink.requests();
    assert_eq!(requests.len(), 2);
    // The retry resends the same bytes and id.
    assert_eq!(requests[0].body, requests[1].body);
    assert_eq!(
        requests[0].header("x-hermes-delivery"),
        requests[1].header("x-hermes-delivery")
    );
    assert_eq!(
        report.outcome,
        DeliveryOutcome::Failed {
            error: "HTTP 503".into()
        }
    );
    assert_eq!((report.attempts, report.status), (2, Some(503)));
}

#[tokio::test]
async fn a_retry_that_succeeds_is_delivered() {
    let sink = Sink::start(|_, index| Answer::Status(if index == 0 { 500 } else { 200 })).await;
    let report = one_delivery(&sink, options()).await;
    assert_eq!(sink.requests().len(), 2);
    assert_eq!(report.outcome, DeliveryOutcome::Delivered);
    assert_eq!(report.attempts, 2);
}

// The one test that waits for the real default retry delay (1 s).
#[tokio::test]
async fn the_default_retry_waits_about_a_second() {
    let sink = Sink::status(500).await;
    let defaults = options().with_retry_delay(hermes_hooks_outbound::outbound::DEFAULT_RETRY_DELAY);
    one_delivery(&sink, defaults).await;
    let requests = sink.requests();
    assert_eq!(requests.len(), 2);
    let gap = requests[1].at.duration_since(requests[0].at);
    // Not before the delay (a lower bound load cannot break); the upper
    // bound only guards against a lost retry, 10 times the delay.
    assert!(gap >= Duration::from_millis(950), "{gap:?}");
    assert!(gap < Duration::from_secs(10), "{gap:?}");
}

// 141
#[tokio::test]
async fn redirects_are_never_followed() {
    for code in [301, 302, 303, 307, 308] {
        let sink = Sink::start(move |request, _| {
            if request.path == "/hook" {
                Answer::Redirect(code, "/elsewhere".into())
            } else {
                Answer::Status(200)
            }
        })
        .await;
        let report = one_delivery(&sink, options()).await;
        let requests = sink.requests();
        assert_eq!(requests.len(), 1, "{code}");
        assert_eq!(
            (requests[0].method.as_str(), requests[0].path.as_str()),
            ("POST", "/hook")
        );
        assert_eq!(
            report.outcome,
            DeliveryOutcome::Redirected {
                location: Some("/elsewhere".into())
            }
        );
        assert_eq!((report.attempts, report.status), (1, Some(code)));
    }
}

// 143
#[tokio::test]
async fn connection_errors_do_not_raise_and_are_retried_once() {
    let outbound = Outbound::new(
        vec![target(&dead_url().await, &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    let replies = outbound.dispatch(&session_end()).await;
    assert!(replies.is_empty());
    assert!(outbound.wait_idle(SOON).await);
    let report = outbound.take_reports().remove(0);
    assert_eq!(report.attempts, 2);
    assert_eq!(report.status, None);
    match report.outcome {
        DeliveryOutcome::Failed { error } => {
            assert!(error.starts_with("connection failed"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outbound.stats().retries, 1);
}

#[tokio::test]
async fn attempts_time_out_per_target_timeout() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let mut spec = target(&sink.url("/"), &[HookEvent::OnSessionEnd]);
    spec.timeout = Duration::from_secs(1);
    let outbound = Outbound::new(vec![spec], options().with_max_attempts(1)).expect("outbound");
    outbound.dispatch(&session_end()).await;
    assert!(outbound.wait_idle(SOON).await);
    let report = outbound.take_reports().remove(0);
    assert_eq!(
        report.outcome,
        DeliveryOutcome::Failed {
            error: "timed out after 1s".into()
        }
    );
    assert!(report.elapsed >= Duration::from_millis(900));
}

#[tokio::test]
async fn a_full_queue_drops_the_new_event_and_counts_it() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options().with_queue_capacity(4),
    )
    .expect("outbound");
    let mut accepted = Vec::new();
    for _ in 0..10 {
        accepted.extend(outbound.enqueue(&session_end()));
    }
    let stats = outbound.stats();
    // Four queued, plus possibly one per lane worker that already took one.
    let most = 4 + hermes_hooks_outbound::config::DEFAULT_CONCURRENCY;
    assert!((4..=most).contains(&accepted.len()), "{}", accepted.len());
    assert_eq!(stats.enqueued as usize, accepted.len());
    assert_eq!(stats.dropped as usize, 10 - accepted.len());
    let dropped = outbound.take_reports();
    assert_eq!(dropped.len(), 10 - accepted.len());
    assert!(
        dropped
            .iter()
            .all(|r| r.outcome == DeliveryOutcome::Dropped && r.attempts == 0)
    );
    // The first queued ones are the ones kept (the new ones are dropped).
    assert!(
        dropped
            .iter()
            .all(|r| !accepted.iter().any(|a| a.delivery_id == r.delivery_id))
    );
}

/// A flood: far more reports than the list keeps. The list is cut, and the
/// batch says so and still counts every one.
#[tokio::test]
async fn a_flood_is_counted_in_full_and_the_cut_list_says_so() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options().with_queue_capacity(4).with_report_capacity(16),
    )
    .expect("outbound");
    let mut accepted = 0;
    for _ in 0..500 {
        accepted += outbound.enqueue(&session_end()).len();
    }
    let batch = outbound.take_report_batch();
    let dropped = (500 - accepted) as u64;
    assert_eq!(batch.totals.dropped, dropped);
    assert_eq!(batch.totals.total(), dropped);
    assert_eq!(batch.reports.len(), 16, "the list keeps the most recent 16");
    assert_eq!(batch.omitted, dropped - 16);
    assert!(batch.is_truncated());
    // The next batch starts a new span.
    let next = outbound.take_report_batch();
    assert_eq!((next.totals.total(), next.omitted), (0, 0));
    assert!(next.reports.is_empty() && !next.is_truncated());
}

// A dead endpoint can delay shutdown but never hang it.
#[tokio::test]
async fn flush_is_bounded_by_its_timeout() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    outbound.dispatch(&session_end()).await;
    // In flight at the endpoint, which never answers: returning at all is
    // the bound (a hang guard on it, no clock), and the delivery is still
    // pending after it.
    assert_eq!(sink.wait_for(1, SOON).await.len(), 1);
    tokio::time::timeout(HANG_GUARD, outbound.flush(Duration::from_millis(300)))
        .await
        .expect("flush returned while the endpoint hung");
    assert_eq!(outbound.stats().pending, 1);
}

/// Deliveries still queued or in flight when the flush bound passes are
/// reported as abandoned, not left out (they looked like "no target").
#[tokio::test]
async fn deliveries_abandoned_at_the_flush_bound_are_reported() {
    let hanging = Sink::start(|_, _| Answer::Hang).await;
    let ok = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![
            target(&hanging.url("/slow"), &[HookEvent::OnSessionEnd]),
            target(&ok.url("/ok"), &[HookEvent::OnSessionEnd]),
        ],
        options(),
    )
    .expect("outbound");
    let first = outbound.enqueue(&session_end());
    let second = outbound.enqueue(&session_end());
    assert_eq!(first.len() + second.len(), 4);
    outbound.flush(Duration::from_millis(300)).await;
    let reports = outbound.take_reports();
    let abandoned: Vec<_> = reports
        .iter()
        .filter(|report| report.outcome == DeliveryOutcome::Abandoned)
        .collect();
    // Both deliveries to the hanging target (one in flight, one queued).
    assert_eq!(abandoned.len(), 2, "{reports:?}");
    for report in &abandoned {
        assert_eq!(report.target, format!("{}/slow", hanging.addr));
        assert!(
            first
                .iter()
                .chain(&second)
                .any(|d| d.delivery_id == report.delivery_id)
        );
        assert_eq!(report.outcome.as_str(), "abandoned");
    }
    let delivered = reports
        .iter()
        .filter(|report| report.outcome == DeliveryOutcome::Delivered)
        .count();
    assert_eq!(delivered, 2);
    let json = serde_json::to_value(abandoned[0]).unwrap_or_default();
    assert_eq!(json["outcome"]["kind"], "abandoned");
    // A second flush with nothing new waiting reports nothing again.
    outbound.flush(Duration::from_millis(50)).await;
    assert!(outbound.take_reports().is_empty());
}

#[tokio::test]
async fn a_delivery_dropped_by_a_full_lane_is_a_skipped_run() {
    let sink = Sink::start(|_, _| Answer::Hang).await;
    let outbound = std::sync::Arc::new(
        Outbound::new(
            vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
            options().with_queue_capacity(1),
        )
        .expect("outbound"),
    );
    let hooks = hermes_hooks_core::Hooks::builder()
        .with(outbound.clone())
        .build();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let report = hooks.emit_with_report(&session_end()).await;
        statuses.extend(report.runs.into_iter().map(|run| run.status));
    }
    assert_eq!(statuses.len(), 4);
    assert_eq!(statuses[0], hermes_hooks_core::RunStatus::Queued);
    assert!(
        statuses
            .iter()
            .any(|status| matches!(status, hermes_hooks_core::RunStatus::Skipped(why) if why.contains("full"))),
        "{statuses:?}"
    );
}
