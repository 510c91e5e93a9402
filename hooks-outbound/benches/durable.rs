//! Durable delivery and NATS JetStream, measured by hand and printed as a table:
//! the emit cost of a durable target next to a best-effort one (p50/p99 on the
//! emitting thread), JetStream publish throughput (acknowledged) next to the
//! HTTP sender's, and `hooks deliver --from` worker throughput with 1, 2 and 4
//! workers into one local receiver; durable emit cost per durability mode and
//! with 4 emitting threads (group commit), and deliveries/s of a durable
//! target next to a best-effort one into the same receiver, in the same run.
//! `cargo bench -p hermes-hooks-outbound --bench durable` (the NATS rows need
//! `HERMES_TEST_NATS_SERVER` or `nats-server` on PATH, else they are skipped).

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hermes_hooks_outbound::config::NatsTarget;
use hermes_hooks_outbound::nats::consumer::{StreamSource, run_stream_worker};
use hermes_hooks_outbound::{DeliveryMode, Durability, Outbound, OutboundOptions, TargetSpec};

mod support;

use support::{Answer, dispatch_now, event, percentile, signed};

/// The receiver of every row: on the bench's runtime, answering 200.
async fn sink() -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    support::sink(Answer::Ok).await
}

fn options(spool: Option<PathBuf>) -> OutboundOptions {
    support::options(4096).with_spool_path(spool)
}

/// p50 / p99 µs of `samples` emits of `outbound`, in bursts of 100 with a pause.
async fn emit_cost(outbound: &Outbound, samples: usize) -> (f64, f64) {
    let event = event();
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples / 100 {
        for _ in 0..100 {
            let start = Instant::now();
            dispatch_now(outbound, &event);
            times.push(start.elapsed());
        }
        outbound.wait_idle(Duration::from_secs(5)).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    times.sort();
    (
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
    )
}

/// A durable target (`durability`) for `url`.
fn durable_target(url: &str, durability: Durability) -> TargetSpec {
    let mut target = signed(url);
    target.delivery = DeliveryMode::Durable;
    target.durability = durability;
    target
}

/// p50 / p99 µs of emits from `threads` threads at once, `each` per thread.
fn concurrent_emit_cost(outbound: &Outbound, threads: usize, each: usize) -> (f64, f64) {
    let event = event();
    let mut times: Vec<Duration> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    (0..each)
                        .map(|_| {
                            let start = Instant::now();
                            dispatch_now(outbound, &event);
                            start.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_default())
            .collect()
    });
    times.sort();
    (
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
    )
}

/// Events/s until `count` reaches `total` after `emit` queued them.
async fn throughput(total: u64, count: impl Fn() -> u64, emit: impl FnOnce()) -> f64 {
    let start = Instant::now();
    emit();
    let deadline = start + Duration::from_secs(60);
    while count() < total && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    count() as f64 / start.elapsed().as_secs_f64()
}

/// The server, its port, and its store (kept until the server stops).
struct NatsServer(Child, u16, #[allow(dead_code)] tempfile::TempDir);

impl NatsServer {
    fn start() -> Option<NatsServer> {
        let binary = std::env::var_os("HERMES_TEST_NATS_SERVER")
            .filter(|path| !path.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::split_paths(&std::env::var_os("PATH")?)
                    .map(|dir| dir.join("nats-server"))
                    .find(|path| path.is_file())
            })?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .ok()?
            .port();
        let store = tempfile::tempdir().ok()?;
        let child = Command::new(binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(store.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(NatsServer(child, port, store))
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.1)
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn nats_target(url: &str, stream: &str) -> TargetSpec {
    let mut target = signed(url);
    target.nats = Some(
        NatsTarget::default()
            .with_stream(stream.to_owned())
            .with_subject(format!("bench.{}", stream.to_ascii_lowercase())),
    );
    target
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let samples = 2_000;
    let total = 3_000u64;
    let mut rows: Vec<String> = Vec::new();

    // Emit cost on the agent's thread: best effort (queued) vs durable (SQLite write).
    let (url, _) = sink().await;
    let best = Outbound::new(vec![signed(&url)], options(None)).expect("outbound");
    let (p50, p99) = emit_cost(&best, samples).await;
    rows.push(format!(
        "| emit, best effort, live sink | {p50:.1} | {p99:.1} |"
    ));
    let dir = tempfile::tempdir().expect("dir");
    for durability in [Durability::ProcessCrash, Durability::PowerLoss] {
        let spool = Some(dir.path().join(format!("{}.sqlite3", durability.as_str())));
        let durable =
            Outbound::new(vec![durable_target(&url, durability)], options(spool)).expect("durable");
        let (p50, p99) = emit_cost(&durable, samples).await;
        rows.push(format!(
            "| emit, durable ({}: synchronous={}), live sink | {p50:.1} | {p99:.1} |",
            durability.as_str(),
            durability.synchronous()
        ));
        durable.stop_spool(Duration::from_secs(10)).await;
    }
    // Group commit: 4 threads emitting at once share the writer's commits.
    let spool = Some(dir.path().join("concurrent.sqlite3"));
    let durable = std::sync::Arc::new(
        Outbound::new(
            vec![durable_target(&url, Durability::ProcessCrash)],
            options(spool),
        )
        .expect("durable"),
    );
    let (p50, p99) = concurrent_emit_cost(&durable, 4, samples / 4);
    rows.push(format!(
        "| emit, durable (process_crash), 4 threads at once, live sink | {p50:.1} | {p99:.1} |"
    ));
    durable.stop_spool(Duration::from_secs(10)).await;

    // Deliveries/s to the same sink: best effort vs durable (spooled, then sent by the worker).
    let (url, count) = sink().await;
    let best = Outbound::new(vec![signed(&url)], options(None)).expect("best effort");
    let event = event();
    let best_rate = throughput(
        total,
        || count.load(Ordering::Relaxed),
        || {
            for _ in 0..total {
                dispatch_now(&best, &event);
            }
        },
    )
    .await;
    let (url, count) = sink().await;
    let spool = Some(dir.path().join("throughput.sqlite3"));
    let durable = Outbound::new(
        vec![durable_target(&url, Durability::ProcessCrash)],
        options(spool),
    )
    .expect("durable");
    let durable_rate = throughput(
        total,
        || count.load(Ordering::Relaxed),
        || {
            for _ in 0..total {
                dispatch_now(&durable, &event);
            }
        },
    )
    .await;
    durable.stop_spool(Duration::from_secs(10)).await;
    rows.push(format!(
        "| deliveries/s to one loopback sink, {total} events: best effort {best_rate:.0}, durable {durable_rate:.0} ({:.2}×) | {durable_rate:.0} events/s |",
        durable_rate / best_rate
    ));

    // Throughput, acknowledged: HTTP sender vs JetStream publisher (one lane each).
    let (url, count) = sink().await;
    let http = Outbound::new(vec![signed(&url)], options(None)).expect("http");
    let rate = throughput(
        total,
        || count.load(Ordering::Relaxed),
        || {
            for _ in 0..total {
                dispatch_now(&http, &event);
            }
        },
    )
    .await;
    rows.push(format!(
        "| HTTP sender, one target, {total} events | {rate:.0} events/s |"
    ));

    let Some(server) = NatsServer::start() else {
        rows.push("| JetStream rows | skipped: no nats-server |".to_owned());
        print(&rows);
        return;
    };
    let nats =
        Outbound::new(vec![nats_target(&server.url(), "BENCH")], options(None)).expect("nats");
    dispatch_now(&nats, &event); // connects and creates the stream first
    nats.wait_idle(Duration::from_secs(10)).await;
    let published = || nats.stats().delivered.saturating_sub(1);
    let rate = throughput(total, published, || {
        for _ in 0..total {
            dispatch_now(&nats, &event);
        }
    })
    .await;
    rows.push(format!(
        "| JetStream publish, acknowledged, one target, {total} events | {rate:.0} events/s |"
    ));

    // Workers: `total` messages on a fresh stream, k workers on one consumer into one receiver.
    for workers in [1usize, 2, 4] {
        let stream = format!("W{workers}");
        let publisher =
            Outbound::new(vec![nats_target(&server.url(), &stream)], options(None)).expect("pub");
        for _ in 0..total {
            dispatch_now(&publisher, &event);
        }
        publisher.wait_idle(Duration::from_secs(60)).await;
        let (url, count) = sink().await;
        let targets = vec![signed(&url)];
        let mut source = StreamSource::new(server.url());
        source.nats.stream = stream.clone();
        source.nats.subject = format!("bench.{}", stream.to_ascii_lowercase());
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..workers {
            let (source, targets, count) = (source.clone(), targets.clone(), count.clone());
            tasks.push(tokio::spawn(async move {
                let stop = async move {
                    while count.load(Ordering::Relaxed) < total {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                };
                run_stream_worker(&source, &targets, stop).await
            }));
        }
        let deadline = start + Duration::from_secs(120);
        while count.load(Ordering::Relaxed) < total && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let rate = count.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64();
        for task in tasks {
            let _ = task.await;
        }
        rows.push(format!("| `hooks deliver --from` workers: {workers}, {total} messages into one receiver | {rate:.0} events/s |"));
    }
    print(&rows);
}

fn print(rows: &[String]) {
    println!("\n| row | p50 µs / figure | p99 µs |\n|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}
