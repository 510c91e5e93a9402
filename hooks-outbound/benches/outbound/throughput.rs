//! Deliveries per second to one local receiver: [`Outbound`] at several
//! `concurrency` settings, four targets, and the ceiling, a plain reqwest
//! client posting the same signed body to the same kind of receiver with N
//! requests in flight (no queue, no reports, no signing per request).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use hermes_hooks_outbound::request::{EventDocument, PreparedDelivery, iso_timestamp};
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};
use tokio::runtime::Runtime;

use super::{context, dispatch_now, event, options, signed, sink};

/// Prints the table: one row per sender set-up, `events` deliveries per target.
pub fn throughput(runtime: &Runtime, events: u64) {
    println!(
        "\n| sender | in flight | deliveries | seconds | deliveries/s | dropped | not delivered |\n|---|---:|---:|---:|---:|---:|---|"
    );
    for concurrency in [1, 4, 16] {
        outbound_row(runtime, events, 1, concurrency);
    }
    outbound_row(runtime, events, 4, 4);
    for in_flight in [4, 16, 32] {
        reqwest_row(runtime, events, in_flight);
    }
}

/// `lanes` targets on one receiver, each with `concurrency` in flight.
fn outbound_row(runtime: &Runtime, events: u64, lanes: usize, concurrency: usize) {
    let event = event();
    let (url, received) = runtime.block_on(sink(false));
    let targets = (0..lanes)
        .map(|i| {
            let mut target = signed(&format!("{url}?lane={i}"));
            target.concurrency = concurrency;
            target
        })
        .collect();
    let outbound =
        Outbound::with_runtime(runtime.handle(), targets, options(256 * lanes)).expect("outbound");
    let started = Instant::now();
    let mut sent = 0;
    while sent < events {
        // Keep each lane under its bound so nothing is dropped.
        if outbound.stats().pending < 150 * lanes as u64 {
            dispatch_now(&outbound, &event);
            sent += 1;
        } else {
            // Sleep rather than spin: the producer must not steal a core from the lanes.
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    runtime.block_on(outbound.wait_idle(Duration::from_secs(60)));
    let seconds = started.elapsed().as_secs_f64();
    let stats = outbound.stats();
    let failure = outbound
        .take_reports()
        .into_iter()
        .find(|report| report.outcome != DeliveryOutcome::Delivered)
        .map(|report| format!("{:?}", report.outcome))
        .unwrap_or_default();
    let sender = if lanes == 1 {
        "Outbound, one target".to_owned()
    } else {
        format!("Outbound, {lanes} targets")
    };
    println!(
        "| {sender} | {concurrency} per target | {} | {seconds:.2} | {:.0} | {} | {} {failure} |",
        events * lanes as u64,
        received.load(Ordering::Relaxed) as f64 / seconds,
        stats.dropped,
        stats.failed
    );
}

/// The ceiling: `in_flight` tasks, each posting the same signed body and
/// draining the answer in a loop, through one keep-alive reqwest client.
fn reqwest_row(runtime: &Runtime, events: u64, in_flight: usize) {
    let (url, received) = runtime.block_on(sink(false));
    let target = signed(&url);
    let document = EventDocument::new(&event(), &context()).expect("document");
    let now = SystemTime::now();
    let delivery = PreparedDelivery::new(&document, now, &iso_timestamp(now));
    let headers = delivery.headers("post_tool_call", &target);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .tcp_nodelay(true)
        .build()
        .expect("client");
    let url = reqwest::Url::parse(&url).expect("url");
    let left = Arc::new(AtomicU64::new(events));
    let failed = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    runtime.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..in_flight {
            let (client, url, headers) = (client.clone(), url.clone(), headers.clone());
            let (left, failed, body) = (left.clone(), failed.clone(), delivery.body.clone());
            tasks.push(tokio::spawn(async move {
                while left
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                    .is_ok()
                {
                    let sent = client
                        .post(url.clone())
                        .headers(headers.clone())
                        .body(body.clone())
                        .send()
                        .await;
                    match sent {
                        Ok(response) if response.status().is_success() => {
                            let _ = response.bytes().await;
                        }
                        _ => {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "| plain reqwest (ceiling) | {in_flight} | {events} | {seconds:.2} | {:.0} | — | {} |",
        received.load(Ordering::Relaxed) as f64 / seconds,
        failed.load(Ordering::Relaxed)
    );
}
