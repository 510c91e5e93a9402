//! [`Outbound`]: the dispatcher that turns events into queued webhook deliveries.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use hermes_hooks_core::catalog::EVENT_COUNT;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Config, ConfigWarning, Event, HookEvent};
use tokio::runtime::Handle;
use tokio::sync::broadcast;

use crate::config::{TargetSpec, parse_config};
use crate::delivery::{LaneWork, RetryPolicy, spawn_lane};
use crate::queue::{Job, Lane, Shared, lane_capacity};
use crate::report::{DeliveryReport, OutboundStats, ReportBatch};
use crate::request::{
    EventDocument, METADATA_LEN, PreparedDelivery, iso_timestamp, new_delivery_id_in,
};

mod dispatcher;
mod document;
mod durable;
mod own;
pub use durable::{SpoolLeft, SpoolStatus, home_spool_path as spool_path};
#[cfg(test)]
mod tests;

/// The default number of queued deliveries, all targets together.
pub const DEFAULT_QUEUE_CAPACITY: usize = 256;
/// The default number of attempts per delivery (one retry).
pub const DEFAULT_MAX_ATTEMPTS: u32 = 2;
/// The default wait before a retry (multiplied by the attempt number).
pub const DEFAULT_RETRY_DELAY: Duration = Duration::from_secs(1);
/// How long a host should let [`Dispatcher::flush`](hermes_hooks_core::Dispatcher::flush) wait at shutdown.
pub const SHUTDOWN_FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// Settings of an [`Outbound`] beyond the targets.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OutboundOptions {
    /// Queued deliveries allowed in all, split evenly between the targets' lanes.
    pub queue_capacity: usize,
    /// Attempts per delivery (at least 1).
    pub max_attempts: u32,
    /// The wait before retry `n` is `retry_delay × n`.
    pub retry_delay: Duration,
    /// The `cwd` and `profile` put in every body.
    pub context: WireContext,
    /// When true, no target is registered (`HERMES_SAFE_MODE`).
    pub safe_mode: bool,
    /// How many recent reports [`Outbound::take_reports`] keeps (oldest dropped first).
    pub report_capacity: usize,
    /// The durable spool's file; `None`: `<home>/outbound/spool.sqlite3` of
    /// the config's home ([`Outbound::from_config`]), or no spool ([`Outbound::new`]).
    pub spool_path: Option<std::path::PathBuf>,
    /// Whether this dispatcher drains the spool in the background (a host
    /// does; a process that leaves it to `hooks deliver` workers need not).
    pub drain_spool: bool,
    /// How many durable deliveries are held in memory while the spool cannot
    /// be written (past it they are refused and counted as `spool_failed`).
    pub spool_hold: usize,
}

/// What became of one delivery offered to a target (for run records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// The spool's outcomes are built only with `durable`.
#[cfg_attr(not(feature = "durable"), allow(dead_code))]
pub(crate) enum Offered {
    /// Queued, or written to the spool.
    Accepted,
    /// The target's lane was full: dropped.
    LaneFull,
    /// The target's spool rows reached `max_spool`: refused.
    SpoolFull,
    /// The spool could not be written: held in memory until it can.
    SpoolHeld,
    /// The spool could not be written and the hold was full: lost.
    SpoolFailed,
}

impl Offered {
    fn accepted(self) -> bool {
        matches!(self, Offered::Accepted | Offered::SpoolHeld)
    }
}

impl Default for OutboundOptions {
    fn default() -> Self {
        OutboundOptions {
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            retry_delay: DEFAULT_RETRY_DELAY,
            context: WireContext::current(),
            safe_mode: hermes_hooks_core::home::safe_mode(),
            report_capacity: 1024,
            spool_path: None,
            drain_spool: true,
            #[cfg(feature = "durable")]
            spool_hold: crate::spool::DEFAULT_HOLD_CAPACITY,
            // Nothing is held without a spool to write to.
            #[cfg(not(feature = "durable"))]
            spool_hold: 0,
        }
    }
}

/// Why an [`Outbound`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutboundError {
    /// Built outside a tokio runtime, so the lanes had nowhere to run.
    #[error("outbound webhooks need a tokio runtime: build them inside one or pass a handle")]
    NoRuntime,
    /// The HTTP client could not be built (TLS setup).
    #[error("outbound webhooks: cannot build the HTTP client: {0}")]
    Client(String),
}

/// One event's document, built once for all its targets, and its clocks.
struct Built {
    document: EventDocument,
    /// `created` as the body's `timestamp`.
    timestamp: String,
    created: SystemTime,
    enqueued: Instant,
}

/// A delivery accepted into a queue by [`Outbound::enqueue`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnqueuedDelivery {
    /// The target's label.
    pub target: String,
    /// The delivery id, to find its [`DeliveryReport`] later.
    pub delivery_id: String,
}

/// One event's deliveries after [`Outbound::emit_and_wait`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct EventDeliveries {
    /// The reports of the deliveries that finished (or were dropped), in finishing order.
    pub finished: Vec<DeliveryReport>,
    /// The deliveries still queued or in flight when the wait ended.
    pub unfinished: Vec<EnqueuedDelivery>,
}

/// Outbound webhooks as a [`Dispatcher`](hermes_hooks_core::Dispatcher) (name `outbound`).
///
/// `dispatch` serialises the event once, builds each matching target's body on
/// the caller (the document plus a spliced-in id and timestamp; signing waits
/// for the lane worker) and queues it without waiting; it never returns a reply. Each
/// target has its own lane (a bounded queue served by two tasks with up to
/// [`TargetSpec::concurrency`] requests in flight between them; FIFO only with 1) on the tokio
/// runtime current at construction, and one shared keep-alive HTTP client. Call [`Dispatcher::flush`](hermes_hooks_core::Dispatcher::flush) (at most [`SHUTDOWN_FLUSH_TIMEOUT`]) before
/// the runtime shuts down so queued deliveries go out.
pub struct Outbound {
    lanes: Vec<Lane>,
    /// Lane indexes per catalog event index.
    by_event: Vec<Vec<usize>>,
    /// The size of the last document per catalog event index: the next one of
    /// the same event is serialised into a buffer of that size, so it rarely grows.
    document_sizes: Box<[AtomicUsize]>,
    shared: Arc<Shared>,
    context: WireContext,
    /// The spool of the durable targets, and its background worker.
    durable: durable::Durable,
}

impl Outbound {
    /// Targets from `config`'s `hooks.outbound` (none in safe mode), with lanes
    /// on the current tokio runtime. The warnings are for the caller to show.
    pub fn from_config(
        config: &Config,
        options: OutboundOptions,
    ) -> Result<(Outbound, Vec<ConfigWarning>), OutboundError> {
        if options.safe_mode {
            tracing::info!("HERMES_SAFE_MODE is on — no outbound webhook registered");
            return Ok((Outbound::new(Vec::new(), options)?, Vec::new()));
        }
        let parsed = parse_config(config);
        let mut options = options;
        if options.spool_path.is_none() {
            options.spool_path = Some(durable::home_spool_path(config.home()));
        }
        let spool_path = options.spool_path.clone();
        let outbound = Outbound::new(parsed.targets, options)?;
        let mut warnings = parsed.warnings;
        if let (Some(error), Some(path)) = (outbound.durable.open_error(), spool_path) {
            warnings.push(ConfigWarning::new(
                path,
                "hooks.outbound",
                format!(
                    "the durable spool cannot be opened ({error}); durable deliveries are held in memory until it can"
                ),
            ));
        }
        Ok((outbound, warnings))
    }

    /// An outbound dispatcher for `targets`, with lanes on the current tokio runtime.
    pub fn new(
        targets: Vec<TargetSpec>,
        options: OutboundOptions,
    ) -> Result<Outbound, OutboundError> {
        let runtime = Handle::try_current().map_err(|_| OutboundError::NoRuntime)?;
        Outbound::with_runtime(&runtime, targets, options)
    }

    /// An outbound dispatcher for `targets`, with lanes spawned on `runtime`.
    pub fn with_runtime(
        runtime: &Handle,
        targets: Vec<TargetSpec>,
        options: OutboundOptions,
    ) -> Result<Outbound, OutboundError> {
        let targets = if options.safe_mode {
            Vec::new()
        } else {
            targets
        };
        let client = http_client()?;
        let shared = Arc::new(Shared::new(options.queue_capacity, options.report_capacity));
        shared.reserve_in_flight(targets.iter().map(|target| target.concurrency).sum());
        let policy = RetryPolicy {
            max_attempts: options.max_attempts.max(1),
            retry_delay: options.retry_delay,
        };
        let durable = durable::Durable::start(runtime, &client, &targets, &options);
        let capacity = lane_capacity(options.queue_capacity, targets.len());
        let mut by_event = vec![Vec::new(); EVENT_COUNT];
        let mut lanes = Vec::with_capacity(targets.len());
        for (index, target) in targets.into_iter().enumerate() {
            let target = Arc::new(target);
            let (lane, jobs) = Lane::new(target.clone(), capacity);
            for event in &target.events {
                by_event[event.index()].push(index);
                tracing::info!(
                    "outbound webhook registered: {} -> {} (matcher={}, timeout={}s, concurrency={})",
                    event.as_str(),
                    lane.label,
                    target.matcher.pattern().unwrap_or("None"),
                    target.timeout.as_secs(),
                    target.concurrency
                );
            }
            let label = lane.label.clone();
            lanes.push(lane);
            if durable.spools(&target) {
                // Its deliveries go to the spool, and its worker sends them.
                continue;
            }
            spawn_lane(
                runtime,
                LaneWork {
                    client: client.clone(),
                    target,
                    label,
                    jobs,
                    shared: shared.clone(),
                    policy,
                },
            );
        }
        if !lanes.is_empty() {
            hermes_hooks_core::dispatch::invalidate_interest();
        }
        Ok(Outbound {
            lanes,
            by_event,
            document_sizes: (0..EVENT_COUNT).map(|_| AtomicUsize::new(0)).collect(),
            shared,
            context: options.context,
            durable,
        })
    }

    /// The registered targets, in config order.
    pub fn targets(&self) -> impl Iterator<Item = &TargetSpec> {
        self.lanes.iter().map(|lane| lane.target.as_ref())
    }

    /// Queues `event` for every target that wants it and says which deliveries
    /// were accepted (dropped ones are not listed; they get a `Dropped` report).
    pub fn enqueue(&self, event: &Event) -> Vec<EnqueuedDelivery> {
        let mut accepted = Vec::new();
        self.enqueue_with(event, |lane, delivery_id, offered| {
            if offered.accepted() {
                accepted.push(EnqueuedDelivery {
                    target: lane.label.as_ref().to_owned(),
                    delivery_id: delivery_id.to_owned(),
                });
            }
        });
        accepted
    }

    /// The agent's path: build, queue, never wait. Calls `on_offered` per
    /// delivery with what became of it.
    fn enqueue_with(&self, event: &Event, mut on_offered: impl FnMut(&Lane, &str, Offered)) {
        let Some(hook) = event.hook() else {
            return;
        };
        let tool_name = event.tool_name();
        let mut wanted = self.by_event[hook.index()]
            .iter()
            .map(|&index| &self.lanes[index])
            .filter(|lane| lane.target.wants(hook, tool_name))
            .peekable();
        if wanted.peek().is_none() {
            return;
        }
        // Built on the first lane with room: a flood into full lanes costs no
        // serialisation, and no clock read.
        let mut built: Option<Built> = None;
        while let Some(lane) = wanted.next() {
            let mut id_buffer = [0; 32];
            let delivery_id = new_delivery_id_in(&mut id_buffer);
            if self.durable.spools(&lane.target) {
                let Some(document) = self.take_document(&mut built, event, hook) else {
                    return;
                };
                let offered = self.durable.write(
                    lane,
                    hook,
                    delivery_id,
                    &document.document,
                    &self.shared,
                    document.enqueued,
                );
                on_offered(lane, delivery_id, offered);
                built = Some(document);
                continue;
            }
            if lane.is_full() {
                on_offered(lane, delivery_id, Offered::LaneFull);
                lane.drop_unbuilt(hook, delivery_id.to_owned(), &self.shared);
                continue;
            }
            let Some(document) = self.take_document(&mut built, event, hook) else {
                return;
            };
            let (created, enqueued) = (document.created, document.enqueued);
            // The last target takes the document's buffer; earlier ones copy it.
            let delivery = if wanted.peek().is_none() {
                PreparedDelivery::taking(
                    document.document,
                    delivery_id,
                    created,
                    &document.timestamp,
                )
            } else {
                let body = self
                    .shared
                    .pool
                    .take(document.document.as_bytes().len() + METADATA_LEN);
                let delivery = PreparedDelivery::copying(
                    &document.document,
                    body,
                    delivery_id,
                    created,
                    &document.timestamp,
                );
                built = Some(document);
                delivery
            };
            let job = Job {
                event: hook,
                delivery,
                enqueued,
            };
            let offered = if lane.offer(job, &self.shared) {
                Offered::Accepted
            } else {
                Offered::LaneFull
            };
            on_offered(lane, delivery_id, offered);
        }
    }

    /// The reports of deliveries finished since the last call (at most
    /// `report_capacity`, the most recent kept), including `Abandoned` ones
    /// after a [`Dispatcher::flush`](hermes_hooks_core::Dispatcher::flush) that ran out of time.
    pub fn take_reports(&self) -> Vec<DeliveryReport> {
        self.take_report_batch().reports
    }

    /// [`Outbound::take_reports`] with the totals of every report since the
    /// last take (by outcome, the ones the capped list let go included) and
    /// how many the list leaves out.
    pub fn take_report_batch(&self) -> ReportBatch {
        self.shared.take_report_batch()
    }

    /// A stream of every report from now on (a slow reader misses the oldest).
    pub fn subscribe(&self) -> broadcast::Receiver<DeliveryReport> {
        self.shared.subscribe()
    }

    /// The counters since construction.
    pub fn stats(&self) -> OutboundStats {
        self.shared.stats()
    }
}

/// The HTTP client every delivery goes through: redirects never followed,
/// keep-alive connections, no Nagle delay.
pub(crate) fn http_client() -> Result<reqwest::Client, OutboundError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .build()
        .map_err(|error| OutboundError::Client(error.to_string()))
}

impl fmt::Debug for Outbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbound")
            .field(
                "targets",
                &self
                    .lanes
                    .iter()
                    .map(|lane| lane.label.as_ref())
                    .collect::<Vec<_>>(),
            )
            .field("stats", &self.stats())
            .finish()
    }
}

setters!(OutboundOptions {
    with_queue_capacity => queue_capacity: usize,
    with_max_attempts => max_attempts: u32,
    with_retry_delay => retry_delay: Duration,
    with_context => context: WireContext,
    with_safe_mode => safe_mode: bool,
    with_report_capacity => report_capacity: usize,
    with_spool_path => spool_path: Option<std::path::PathBuf>,
    with_drain_spool => drain_spool: bool,
    with_spool_hold => spool_hold: usize,
});
