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
//!
//! Beside the rate, each row gives the CPU time its threads spent per
//! delivery, from `/proc/self/task/*/schedstat`: the emitting thread (the
//! bench's main thread: `dispatch`, and its sleeps while the queue is full),
//! the runtime's workers (lanes, HTTP client) and the receiver's thread.
//! Unlike the rate it moves little with the other jobs on the machine, so it
//! tells whether our lanes cost more than the plain client, and `2 cores /
//! (all three)` is what the two vCPUs would carry with nothing else running.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use hermes_hooks_outbound::request::{EventDocument, PreparedDelivery, iso_timestamp};
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};
use tokio::runtime::Handle;

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
    /// CPU ns per delivery: the emitting thread, the runtime's workers, the receiver.
    cpu: [f64; 3],
    dropped: u64,
    failed: u64,
    failure: String,
}

/// Prints the table: one row per sender set-up, `events` deliveries per
/// target per round.
pub fn throughput(runtime: &Handle, events: u64) {
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
    // OUTBOUND_BENCH_ONLY=outbound (or reqwest) keeps those rows: one side under `perf record`.
    let only = std::env::var("OUTBOUND_BENCH_ONLY").unwrap_or_default();
    let senders: Vec<Sender> = senders
        .into_iter()
        .filter(|sender| {
            !matches!(
                (only.as_str(), sender),
                ("outbound", Sender::Reqwest { .. }) | ("reqwest", Sender::Outbound { .. })
            )
        })
        .collect();
    let mut runs: Vec<Vec<Run>> = senders.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (sender, runs) in senders.iter().zip(&mut runs) {
            let receiver = if own {
                sink_on_own_thread()
            } else {
                runtime.block_on(sink(Answer::Ok))
            };
            let received = receiver.1.clone();
            let before = thread_cpu();
            let mut run = match *sender {
                Sender::Outbound { lanes, concurrency } => {
                    outbound_run(runtime, receiver, events, lanes, concurrency)
                }
                Sender::Reqwest { in_flight } => reqwest_run(runtime, receiver, events, in_flight),
            };
            let after = thread_cpu();
            let deliveries = received.load(Ordering::Relaxed).max(1) as f64;
            for (slot, (after, before)) in run.cpu.iter_mut().zip(after.iter().zip(before)) {
                *slot = after.saturating_sub(before) as f64 / deliveries;
            }
            runs.push(run);
        }
    }
    let receiver = if own { "own thread" } else { "shared runtime" };
    println!(
        "\n| sender ({receiver} receiver) | in flight | deliveries per round | rounds | median deliveries/s | range | CPU µs per delivery: emitter + workers + receiver | 2-core rate from CPU | dropped | not delivered |\n|---|---:|---:|---:|---:|---|---|---:|---:|---|"
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
        let cpu: Vec<f64> = (0..3)
            .map(|part| {
                let mut values: Vec<f64> = runs.iter().map(|run| run.cpu[part] / 1e3).collect();
                median(&mut values)
            })
            .collect();
        println!(
            "| {name} | {in_flight} | {per_round} | {rounds} | {:.0} | {low:.0}–{high:.0} | {:.1} + {:.1} + {:.1} | {:.0} | {dropped} | {failed} {failure} |",
            median(&mut rates),
            cpu[0],
            cpu[1],
            cpu[2],
            2e6 / cpu.iter().sum::<f64>(),
        );
    }
}

/// `lanes` targets on one receiver, each with `concurrency` in flight.
fn outbound_run(
    runtime: &Handle,
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
        Outbound::with_runtime(runtime, targets, options(256 * lanes)).expect("outbound");
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
        cpu: [0.0; 3],
        dropped: stats.dropped,
        failed: stats.failed,
        failure,
    }
}

/// The ceiling: `in_flight` tasks, each posting the same signed body and
/// draining the answer in a loop, through one keep-alive reqwest client.
fn reqwest_run(
    runtime: &Handle,
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
        cpu: [0.0; 3],
        dropped: 0,
        failed: failed.load(Ordering::Relaxed),
        failure: String::new(),
    }
}

/// CPU ns this process's threads have run so far: the main (emitting)
/// thread, the runtime's workers (`tokio-rt-worker`, and any other), the
/// receivers' threads (`bench-receiver`). Zero where `/proc` lacks it.
fn thread_cpu() -> [u64; 3] {
    let mut cpu = [0; 3];
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return cpu;
    };
    let main = std::process::id().to_string();
    for task in tasks.flatten() {
        let path = task.path();
        let ran = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let part = if task.file_name().to_string_lossy() == main {
            0
        } else if comm.trim() == "bench-receiver" {
            2
        } else {
            1
        };
        cpu[part] += ran;
    }
    cpu
}
