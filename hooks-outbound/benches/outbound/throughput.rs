//! Deliveries per second to one local receiver: [`Outbound`] at several
//! `concurrency` settings, four targets, and the ceiling, a plain reqwest
//! client posting the same signed body to the same kind of receiver with N
//! requests in flight (no queue, no reports, no signing per request).
//!
//! The rows run in rounds (`OUTBOUND_BENCH_ROUNDS`, 5 by default), each round
//! every row once in turn, and the table gives each row's median and range:
//! a load change on this shared machine then moves every row, not one. The
//! receiver (`OUTBOUND_BENCH_RECEIVER`) is `own` by default, a minimal hyper
//! server on a thread of its own, or `shared`, on the senders' 2-worker
//! runtime (the receiver of the earlier runs).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use hermes_hooks_outbound::request::{EventDocument, PreparedDelivery, iso_timestamp};
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};
use tokio::runtime::Runtime;

use super::support::{
    Answer, context, dispatch_now, event, median, options, signed, sink, sink_on_own_thread,
};

/// One sender set-up of the table.
#[derive(Clone, Copy)]
enum Sender {
    /// `lanes` targets of `Outbound`, `concurrency` in flight each.
    Outbound { lanes: usize, concurrency: usize },
    /// Plain reqwest, `in_flight` tasks.
    Reqwest { in_flight: usize },
}

/// One row's result in one round.
struct Run {
    per_second: f64,
    dropped: u64,
    failed: u64,
    failure: String,
}

/// Prints the table: one row per sender set-up, `events` deliveries per
/// target per round.
pub fn throughput(runtime: &Runtime, events: u64) {
    let rounds: usize = std::env::var("OUTBOUND_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
        .max(1);
    let own = std::env::var("OUTBOUND_BENCH_RECEIVER").map_or(true, |kind| kind != "shared");
    let senders = [
        Sender::Outbound {
            lanes: 1,
            concurrency: 1,
        },
        Sender::Outbound {
            lanes: 1,
            concurrency: 4,
        },
        Sender::Reqwest { in_flight: 4 },
        Sender::Outbound {
            lanes: 1,
            concurrency: 16,
        },
        Sender::Reqwest { in_flight: 16 },
        Sender::Outbound {
            lanes: 4,
            concurrency: 4,
        },
        Sender::Reqwest { in_flight: 32 },
    ];
    let mut runs: Vec<Vec<Run>> = senders.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (sender, runs) in senders.iter().zip(&mut runs) {
            let receiver = if own {
                sink_on_own_thread()
            } else {
                runtime.block_on(sink(Answer::Ok))
            };
            runs.push(match *sender {
                Sender::Outbound { lanes, concurrency } => {
                    outbound_run(runtime, receiver, events, lanes, concurrency)
                }
                Sender::Reqwest { in_flight } => reqwest_run(runtime, receiver, events, in_flight),
            });
        }
    }
    let receiver = if own { "own thread" } else { "shared runtime" };
    println!(
        "\n| sender ({receiver} receiver) | in flight | deliveries per round | rounds | median deliveries/s | range | dropped | not delivered |\n|---|---:|---:|---:|---:|---|---:|---|"
    );
    for (sender, runs) in senders.iter().zip(&runs) {
        let mut rates: Vec<f64> = runs.iter().map(|run| run.per_second).collect();
        let low = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates.iter().copied().fold(0.0, f64::max);
        let (name, in_flight, per_round) = match *sender {
            Sender::Outbound {
                lanes: 1,
                concurrency,
            } => (
                "Outbound, one target".to_owned(),
                format!("{concurrency}"),
                events,
            ),
            Sender::Outbound { lanes, concurrency } => (
                format!("Outbound, {lanes} targets"),
                format!("{concurrency} per target"),
                events * lanes as u64,
            ),
            Sender::Reqwest { in_flight } => (
                "plain reqwest (ceiling)".to_owned(),
                format!("{in_flight}"),
                events,
            ),
        };
        let dropped: u64 = runs.iter().map(|run| run.dropped).sum();
        let failed: u64 = runs.iter().map(|run| run.failed).sum();
        let failure = runs
            .iter()
            .map(|run| run.failure.as_str())
            .find(|failure| !failure.is_empty())
            .unwrap_or_default();
        println!(
            "| {name} | {in_flight} | {per_round} | {rounds} | {:.0} | {low:.0}–{high:.0} | {dropped} | {failed} {failure} |",
            median(&mut rates),
        );
    }
}

/// `lanes` targets on one receiver, each with `concurrency` in flight.
fn outbound_run(
    runtime: &Runtime,
    (url, received): (String, Arc<AtomicU64>),
    events: u64,
    lanes: usize,
    concurrency: usize,
) -> Run {
    let event = event();
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
    Run {
        per_second: received.load(Ordering::Relaxed) as f64 / seconds,
        dropped: stats.dropped,
        failed: stats.failed,
        failure,
    }
}

/// The ceiling: `in_flight` tasks, each posting the same signed body and
/// draining the answer in a loop, through one keep-alive reqwest client.
fn reqwest_run(
    runtime: &Runtime,
    (url, received): (String, Arc<AtomicU64>),
    events: u64,
    in_flight: usize,
) -> Run {
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
    Run {
        per_second: received.load(Ordering::Relaxed) as f64 / seconds,
        dropped: 0,
        failed: failed.load(Ordering::Relaxed),
        failure: String::new(),
    }
}
