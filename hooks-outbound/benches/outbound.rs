//! Outbound webhook benchmarks: the cost of `dispatch` on the agent's path
//! (live, dead and hanging endpoints), deliveries per second to a local sink
//! (`outbound/throughput.rs`, with a plain reqwest client as the ceiling), and
//! RSS while flooding a dead endpoint; `support/` is shared with `durable.rs`. `cargo bench -p hermes-hooks-outbound`.
//!
//! Criterion measures the CPU pieces (mean with confidence interval); the
//! per-call percentiles, throughput and RSS are measured by hand below, because
//! they need a live runtime and a sink, and printed as a table.

use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, black_box};
use hermes_hooks_core::wire::{WireContext, write_hook_document};
use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_outbound::Outbound;
use hermes_hooks_outbound::request::{EventDocument, PreparedDelivery, iso_timestamp};
use hermes_hooks_process::runtime::Background;
use serde_json::json;
use tokio::runtime::Handle;

mod support;
#[path = "outbound/throughput.rs"]
mod throughput;

use support::{Answer, context, dead_url, dispatch_now, event, options, percentile, signed, sink};

fn cpu_pieces(criterion: &mut Criterion, runtime: &Handle) {
    let event = event();
    let context = context();
    let document = EventDocument::new(&event, &context).expect("document");
    let target = signed("http://127.0.0.1:9/hook");
    criterion.bench_function("serialize document (once per event)", |b| {
        b.iter(|| EventDocument::new(black_box(&event), &context))
    });
    criterion.bench_function("serialize document, owned map (before)", |b| {
        b.iter(|| {
            serde_json::to_vec(&hermes_hooks_core::wire::hook_document(
                black_box(&event),
                &context,
            ))
        })
    });
    let size = document.as_bytes().len();
    criterion.bench_function("serialize document, presized buffer (dispatch)", |b| {
        b.iter(|| EventDocument::with_capacity(black_box(&event), &context, size))
    });
    criterion.bench_function("delivery id (uuid v4)", |b| {
        b.iter(hermes_hooks_outbound::request::new_delivery_id)
    });
    criterion.bench_function("timestamp (ISO 8601, once per event)", |b| {
        b.iter(|| iso_timestamp(black_box(SystemTime::now())))
    });
    criterion.bench_function("build body, copy (every target but the last)", |b| {
        b.iter(|| {
            let now = SystemTime::now();
            PreparedDelivery::new(black_box(&document), now, &iso_timestamp(now))
        })
    });
    criterion.bench_function("build body, take (the last target)", |b| {
        // Set up like `dispatch` does it: a buffer with room for the metadata.
        b.iter_batched(
            || EventDocument::with_capacity(&event, &context, size).expect("document"),
            |document| {
                let now = SystemTime::now();
                PreparedDelivery::from_document(document, now, &iso_timestamp(now))
            },
            criterion::BatchSize::SmallInput,
        )
    });
    let now = SystemTime::now();
    let delivery = PreparedDelivery::new(&document, now, &iso_timestamp(now));
    criterion.bench_function("sign + headers (lane worker)", |b| {
        b.iter(|| delivery.headers("post_tool_call", black_box(&target)))
    });
    let headers: Vec<(String, String)> = delivery
        .headers("post_tool_call", &target)
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_owned()))
        .collect();
    criterion.bench_function("verify (receiver)", |b| {
        b.iter(|| {
            hermes_hooks_outbound::verify::verify(
                b"bench-secret-0123456789",
                &headers,
                &delivery.body,
                now,
                Duration::from_secs(300),
            )
        })
    });
    // The accepted path: a live sink, bursts of at most 200 timed, then the
    // lane drained outside the timing so every timed emit is accepted.
    let (url, _) = runtime.block_on(sink(Answer::Ok));
    let live = Outbound::with_runtime(runtime, vec![signed(&url)], options(256)).expect("outbound");
    criterion.bench_function("dispatch, accepted (live sink, one signed target)", |b| {
        b.iter_custom(|iterations| {
            let mut timed = Duration::ZERO;
            let mut left = iterations;
            while left > 0 {
                let burst = left.min(200);
                let started = Instant::now();
                for _ in 0..burst {
                    dispatch_now(&live, &event);
                }
                timed += started.elapsed();
                runtime.block_on(live.wait_idle(Duration::from_secs(10)));
                left -= burst;
            }
            timed
        })
    });
    assert_eq!(
        live.stats().dropped,
        0,
        "the accepted-path bench dropped events"
    );
    // The drop path: a hanging endpoint's lane is full, every emit is dropped.
    let (url, _) = runtime.block_on(sink(Answer::Hang));
    let outbound =
        Outbound::with_runtime(runtime, vec![signed(&url)], options(256)).expect("outbound");
    for _ in 0..300 {
        dispatch_now(&outbound, &event);
    }
    criterion.bench_function("dispatch, queue full (drop path)", |b| {
        b.iter(|| dispatch_now(&outbound, &event))
    });
    let unhooked = Event::from_json(HookEvent::PreLlmCall, json!({}));
    criterion.bench_function("dispatch, event nobody wants", |b| {
        b.iter(|| dispatch_now(&outbound, &unhooked))
    });
}

struct Percentiles {
    p50: Duration,
    p99: Duration,
    max: Duration,
}

fn percentiles(samples: &mut [Duration]) -> Percentiles {
    samples.sort();
    Percentiles {
        p50: percentile(samples, 0.5),
        p99: percentile(samples, 0.99),
        max: samples[samples.len() - 1],
    }
}

fn row(label: &str, samples: &mut [Duration]) {
    let p = percentiles(samples);
    println!(
        "| {label} | {} | {:.2} | {:.2} | {:.1} |",
        samples.len(),
        p.p50.as_secs_f64() * 1e6,
        p.p99.as_secs_f64() * 1e6,
        p.max.as_secs_f64() * 1e6
    );
}

fn time_emit(outbound: &Outbound, event: &Event) -> Duration {
    let started = Instant::now();
    dispatch_now(outbound, event);
    started.elapsed()
}

/// The machine's own tail: a pure-CPU step of about an emit's length
/// (serialising the document into a reused buffer: no lock, no allocation, no
/// wake-up), timed right after each emit, the same way, under the same load.
struct NoiseFloor {
    buffer: Vec<u8>,
    context: WireContext,
    samples: Vec<Duration>,
}

impl NoiseFloor {
    fn new() -> Self {
        NoiseFloor {
            buffer: Vec::with_capacity(4096),
            context: context(),
            samples: Vec::new(),
        }
    }

    fn time_step(&mut self, event: &Event) {
        let started = Instant::now();
        self.buffer.clear();
        let written = write_hook_document(black_box(event), &self.context, &mut self.buffer);
        black_box((written.is_ok(), &self.buffer));
        self.samples.push(started.elapsed());
    }

    fn row(mut self, label: &str) {
        row(
            &format!("{label}: pure-CPU step after each emit (noise floor)"),
            &mut self.samples,
        );
    }
}

fn emit_latency(runtime: &Handle, scale: usize) {
    let event = event();
    println!(
        "\n| endpoint / phase | samples | p50 µs | p99 µs | max µs |\n|---|---:|---:|---:|---:|"
    );
    // Live: bursts of 200, then wait for the deliveries, like the reference's figure.
    let (url, _) = runtime.block_on(sink(Answer::Ok));
    let outbound =
        Outbound::with_runtime(runtime, vec![signed(&url)], options(256)).expect("outbound");
    let mut samples = Vec::new();
    let mut floor = NoiseFloor::new();
    for _ in 0..(50 * scale / 10).max(1) {
        for _ in 0..200 {
            samples.push(time_emit(&outbound, &event));
            floor.time_step(&event);
        }
        runtime.block_on(outbound.wait_idle(Duration::from_secs(10)));
    }
    row("live sink, bursts of 200", &mut samples);
    floor.row("live sink");
    assert_eq!(outbound.stats().dropped, 0);
    for (label, url) in [
        ("dead (connection refused)", runtime.block_on(dead_url())),
        (
            "hanging (accepts, never answers)",
            runtime.block_on(sink(Answer::Hang)).0,
        ),
    ] {
        // Several fresh queues, so the filling phase has enough samples for a
        // real p99 (with one queue it would be the 3rd-slowest of 250); the
        // last queue then goes on into the drop path, as one long run.
        let (mut filling, mut full) = (Vec::new(), Vec::new());
        let mut floor = NoiseFloor::new();
        let mut slow = SlowSamples::default();
        for queue in 1..=scale {
            let outbound = Outbound::with_runtime(runtime, vec![signed(&url)], options(256))
                .expect("outbound");
            let emits = if queue == scale { 300 * scale } else { 250 };
            for index in 0..emits {
                let sample = time_emit(&outbound, &event);
                floor.time_step(&event);
                if index < 250 {
                    filling.push(sample);
                    slow.note(queue, index, sample);
                } else {
                    full.push(sample);
                }
            }
        }
        let mut all = [filling.as_slice(), full.as_slice()].concat();
        row(
            &format!("{label}, first 250 per fresh queue (filling), {scale} queue(s)"),
            &mut filling,
        );
        row(&format!("{label}, after queue full (drop path)"), &mut full);
        row(&format!("{label}, all"), &mut all);
        floor.row(label);
        slow.print(label);
    }
}

/// With `OUTBOUND_BENCH_SLOW=<µs>`: where the filling phase's samples above
/// that many µs fell (queue, position in it), to tell a per-queue cost (the
/// same positions in every queue) from the machine's noise (anywhere).
#[derive(Default)]
struct SlowSamples {
    seen: Vec<(usize, usize, Duration)>,
}

impl SlowSamples {
    fn threshold() -> Option<Duration> {
        let micros: f64 = std::env::var("OUTBOUND_BENCH_SLOW").ok()?.parse().ok()?;
        Some(Duration::from_secs_f64(micros / 1e6))
    }

    fn note(&mut self, queue: usize, index: usize, sample: Duration) {
        if Self::threshold().is_some_and(|threshold| sample > threshold) {
            self.seen.push((queue, index, sample));
        }
    }

    fn print(&self, label: &str) {
        if Self::threshold().is_none() {
            return;
        }
        let places: Vec<String> = self
            .seen
            .iter()
            .map(|(queue, index, sample)| {
                format!("q{queue}#{index}={:.0}", sample.as_secs_f64() * 1e6)
            })
            .collect();
        println!("slow filling samples, {label}: {}", places.join(" "));
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

fn rss_flood(runtime: &Handle, events: usize) {
    println!(
        "\n| endpoint | events | seconds | RSS start KiB | RSS peak KiB | RSS end KiB | growth KiB | dropped |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let event = event();
    for (label, url) in [
        ("dead", runtime.block_on(dead_url())),
        ("hanging", runtime.block_on(sink(Answer::Hang)).0),
    ] {
        let outbound =
            Outbound::with_runtime(runtime, vec![signed(&url)], options(256)).expect("outbound");
        for _ in 0..1000 {
            dispatch_now(&outbound, &event);
        }
        let start = rss_kib();
        let mut peak = start;
        let started = Instant::now();
        for index in 0..events {
            dispatch_now(&outbound, &event);
            if index % 10_000 == 0 {
                peak = peak.max(rss_kib());
            }
        }
        let end = rss_kib();
        println!(
            "| {label} | {events} | {:.2} | {start} | {} | {end} | {} | {} |",
            started.elapsed().as_secs_f64(),
            peak.max(end),
            end as i64 - start as i64,
            outbound.stats().dropped
        );
        let _ = outbound.take_reports();
    }
}

fn main() {
    // OUTBOUND_BENCH_WORKERS sets the runtime's worker threads (2 by default).
    let workers = std::env::var("OUTBOUND_BENCH_WORKERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2);
    // The lanes run where a `Host` runs them: on a `Background` (its threads
    // at SCHED_BATCH). OUTBOUND_BENCH_RUNTIME=plain: a plain tokio runtime.
    let plain = std::env::var("OUTBOUND_BENCH_RUNTIME").is_ok_and(|value| value == "plain");
    let (_plain_runtime, _background, runtime) = if plain {
        let built = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .expect("runtime");
        let handle = built.handle().clone();
        (Some(built), None, handle)
    } else {
        let background = Background::with_threads("hooks-runtime", workers).expect("runtime");
        let handle = background.handle().clone();
        (None, Some(background), handle)
    };
    let benching = std::env::args().any(|arg| arg == "--bench");
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    // OUTBOUND_BENCH=cpu,latency,throughput,rss picks sections (all by default).
    let sections =
        std::env::var("OUTBOUND_BENCH").unwrap_or_else(|_| "cpu,latency,throughput,rss".into());
    let wanted = |name: &str| sections.split(',').any(|section| section.trim() == name);
    if wanted("cpu") {
        cpu_pieces(&mut criterion, &runtime);
        criterion.final_summary();
    }
    // Under `cargo test --benches` run a small smoke version only.
    let scale = if benching { 10 } else { 1 };
    if wanted("latency") {
        emit_latency(&runtime, scale);
    }
    if wanted("throughput") {
        throughput::throughput(&runtime, if benching { 20_000 } else { 500 });
    }
    if wanted("rss") {
        rss_flood(&runtime, if benching { 100_000 } else { 1_000 });
    }
}
