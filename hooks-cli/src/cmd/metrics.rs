//! `hooks deliver --metrics ADDR`: the worker's numbers as Prometheus text
//! (`prometheus-client`), per target: rows pending, in flight and dead, the
//! age of the oldest pending row (gauges read from the spool at each
//! scrape, so they cover every worker sharing it), and what this worker did
//! (delivered, retried, dead-lettered, and a histogram of attempt latency).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use hermes_hooks_outbound::spool::{SettleObserver, Settled, Spool, TargetStats};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The label set: the target's label.
type Labels = Vec<(String, String)>;

fn labels(target: &str) -> Labels {
    vec![("target".to_owned(), target.to_owned())]
}

fn latency_histogram() -> Histogram {
    // 1 ms to ~33 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

/// The registry and the families it holds.
pub struct Metrics {
    registry: Registry,
    spool: Arc<Spool>,
    /// The worker's targets: shown (at 0) even when the spool holds none of their rows.
    targets: Vec<String>,
    pending: Family<Labels, Gauge>,
    in_flight: Family<Labels, Gauge>,
    dead_rows: Family<Labels, Gauge>,
    oldest_age: Family<Labels, Gauge<f64, AtomicU64>>,
    delivered: Family<Labels, Counter>,
    retried: Family<Labels, Counter>,
    dead: Family<Labels, Counter>,
    latency: Family<Labels, Histogram, fn() -> Histogram>,
}

impl Metrics {
    /// Metrics of `spool` for a worker of `targets` (labels); the gauges
    /// are read from the spool at each scrape.
    pub fn new(spool: Arc<Spool>, targets: Vec<String>) -> Arc<Metrics> {
        let mut registry = Registry::with_prefix("hooks");
        let metrics = Metrics {
            registry: Registry::default(),
            spool,
            targets,
            pending: Family::default(),
            in_flight: Family::default(),
            dead_rows: Family::default(),
            oldest_age: Family::default(),
            delivered: Family::default(),
            retried: Family::default(),
            dead: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        };
        registry.register(
            "spool_pending",
            "Deliveries waiting in the spool (in flight included)",
            metrics.pending.clone(),
        );
        registry.register(
            "spool_in_flight",
            "Deliveries leased by a worker right now",
            metrics.in_flight.clone(),
        );
        registry.register(
            "spool_dead",
            "Dead letters in the spool",
            metrics.dead_rows.clone(),
        );
        registry.register(
            "spool_oldest_pending_age_seconds",
            "Age of the oldest pending delivery",
            metrics.oldest_age.clone(),
        );
        registry.register(
            "deliveries_delivered",
            "Deliveries this worker saw answered 2xx",
            metrics.delivered.clone(),
        );
        registry.register(
            "deliveries_retried",
            "Attempts of this worker that failed and were scheduled again",
            metrics.retried.clone(),
        );
        registry.register(
            "deliveries_dead",
            "Deliveries this worker dead-lettered",
            metrics.dead.clone(),
        );
        registry.register(
            "delivery_latency_seconds",
            "How long each attempt of this worker took",
            metrics.latency.clone(),
        );
        Arc::new(Metrics {
            registry,
            ..metrics
        })
    }

    /// The observer a worker reports each settled row to.
    pub fn observer(self: &Arc<Self>) -> SettleObserver {
        let metrics = self.clone();
        Arc::new(move |row, settled, took: Duration| {
            let labels = labels(&row.target);
            let counter = match settled {
                Settled::Delivered => &metrics.delivered,
                Settled::Retrying => &metrics.retried,
                Settled::Dead => &metrics.dead,
            };
            counter.get_or_create(&labels).inc();
            metrics
                .latency
                .get_or_create(&labels)
                .observe(took.as_secs_f64());
        })
    }

    /// The Prometheus text exposition, the spool's gauges read now.
    pub fn render(&self) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis() as i64)
            .unwrap_or(0);
        let mut stats: Vec<TargetStats> = self.spool.stats().unwrap_or_default();
        for target in &self.targets {
            if !stats.iter().any(|known| &known.target == target) {
                stats.push(TargetStats::empty(target));
            }
        }
        // Targets whose rows are all gone disappear, not keep their last value.
        for family in [&self.pending, &self.in_flight, &self.dead_rows] {
            family.clear();
        }
        self.oldest_age.clear();
        for target in &stats {
            let labels = labels(&target.target);
            let to_i64 = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
            self.pending
                .get_or_create(&labels)
                .set(to_i64(target.pending));
            self.in_flight
                .get_or_create(&labels)
                .set(to_i64(target.in_flight));
            self.dead_rows
                .get_or_create(&labels)
                .set(to_i64(target.dead));
            let age = target
                .oldest_created_ms
                .map_or(0.0, |oldest| (now - oldest).max(0) as f64 / 1000.0);
            self.oldest_age.get_or_create(&labels).set(age);
        }
        let mut text = String::new();
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// Serves `GET` of any path with the metrics until the task is dropped.
pub async fn serve(listener: tokio::net::TcpListener, metrics: Arc<Metrics>) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            // The request head only (a scrape has no body), capped.
            let mut head = Vec::new();
            let mut buffer = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
                    Ok(Ok(read)) if read > 0 => head.extend_from_slice(&buffer[..read]),
                    _ => return,
                }
            }
            let body = metrics.render();
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            let _ = stream.shutdown().await;
        });
    }
}
