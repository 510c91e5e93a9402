//! The durable targets of an [`Outbound`]: their deliveries are written to the
//! spool on the emitting thread (the bound of `emit` is that SQLite write) and
//! a background [`crate::spool::SpoolWorker`] sends them. Without the `durable`
//! feature, or when the spool cannot be opened, they are delivered best effort,
//! with a warning saying so.

use std::path::{Path, PathBuf};
#[cfg(feature = "durable")]
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_hooks_core::HookEvent;
use tokio::runtime::Handle;

use super::{Outbound, OutboundOptions};
use crate::config::{DeliveryMode, TargetSpec};
use crate::queue::{Lane, Shared};
use crate::request::EventDocument;

/// The durable spool of a Hermes home: `<home>/outbound/spool.sqlite3`.
pub fn home_spool_path(home: &Path) -> PathBuf {
    home.join("outbound").join("spool.sqlite3")
}

/// What is left in the spool when a host stops its worker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpoolLeft {
    /// Deliveries still pending: the next host of this home, or `hooks deliver`, sends them.
    pub pending: u64,
    /// Dead letters (see `hooks spool`).
    pub dead: u64,
    /// Whether the worker's attempts in flight finished within the bound.
    pub stopped_in_time: bool,
    /// Durable deliveries of this process lost because the spool could not
    /// be written: refused with the in-memory hold full, or still held at the stop.
    pub spool_failed: u64,
    /// What this process's spooled rows came to.
    pub status: SpoolStatus,
}

pub use super::own::SpoolStatus;

#[cfg(feature = "durable")]
pub(super) struct Durable {
    /// The spool's file, when a target is durable.
    path: Option<PathBuf>,
    writer: Option<crate::spool::SpoolWriter>,
    worker: Arc<std::sync::Mutex<Option<crate::spool::WorkerHandle>>>,
    /// This process's rows: what `flush` waits for.
    own: Arc<super::own::OwnRows>,
    refusals: std::sync::Mutex<(Option<Instant>, u64)>,
    /// Why the spool could not be opened at load (a load warning).
    open_error: Option<String>,
    /// Set by `stop_spool`: the writer starts no worker any more.
    stopped: Arc<std::sync::atomic::AtomicBool>,
    /// Whether this process drains the spool (`OutboundOptions::drain_spool`).
    drain: bool,
}

#[cfg(not(feature = "durable"))]
pub(super) struct Durable;

#[cfg(not(feature = "durable"))]
impl Durable {
    /// Why the spool could not be opened: never, without a spool.
    pub(super) fn open_error(&self) -> Option<&String> {
        None
    }

    pub(super) fn start(
        _runtime: &Handle,
        _client: &reqwest::Client,
        targets: &[TargetSpec],
        _options: &OutboundOptions,
    ) -> Durable {
        for target in targets
            .iter()
            .filter(|t| t.delivery == DeliveryMode::Durable)
        {
            tracing::warn!(
                "outbound webhook {}: 'delivery: durable' needs the durable feature, which this build lacks — delivering best effort",
                target.label()
            );
        }
        Durable
    }

    pub(super) fn spools(&self, _target: &TargetSpec) -> bool {
        false
    }

    pub(super) fn write(
        &self,
        _lane: &Lane,
        _hook: HookEvent,
        _delivery_id: &str,
        _document: &EventDocument,
        _shared: &Shared,
        _enqueued: Instant,
    ) -> super::Offered {
        super::Offered::SpoolFailed
    }
}

#[cfg(feature = "durable")]
impl Durable {
    /// Why the spool could not be opened at load (a load warning).
    pub(super) fn open_error(&self) -> Option<&String> {
        self.open_error.as_ref()
    }

    /// Opens the spool when a target is durable and starts its writer and
    /// (unless `options.drain_spool` is off) its worker. A spool that cannot
    /// be opened is a load warning; its rows are held in memory meanwhile
    /// and the writer keeps trying.
    pub(super) fn start(
        runtime: &Handle,
        client: &reqwest::Client,
        targets: &[TargetSpec],
        options: &OutboundOptions,
    ) -> Durable {
        let own = Arc::new(super::own::OwnRows::default());
        let none = Durable {
            path: None,
            writer: None,
            worker: Arc::default(),
            own: own.clone(),
            refusals: std::sync::Mutex::new((None, 0)),
            open_error: None,
            stopped: Arc::default(),
            drain: false,
        };
        let durable: Vec<Arc<TargetSpec>> = targets
            .iter()
            .filter(|target| target.delivery == DeliveryMode::Durable)
            .map(|target| Arc::new(target.clone()))
            .collect();
        if durable.is_empty() {
            return none;
        }
        let Some(path) = &options.spool_path else {
            let labels: Vec<String> = durable.iter().map(|target| target.label()).collect();
            tracing::warn!(
                "outbound webhooks {}: 'delivery: durable' without a spool path — delivering best effort",
                labels.join(", ")
            );
            return none;
        };
        let durability = durable
            .iter()
            .map(|target| target.durability)
            .max_by_key(|durability| *durability == crate::config::Durability::PowerLoss)
            .unwrap_or_default();
        let (spool, open_error) = match crate::spool::Spool::open_with(path, durability) {
            Ok(spool) => (Some(Arc::new(spool)), None),
            Err(error) => {
                tracing::warn!(
                    "outbound durable spool {}: cannot be opened ({error}) — durable deliveries are held in memory (at most {}) until it can",
                    path.display(),
                    options.spool_hold
                );
                (None, Some(error.to_string()))
            }
        };
        let worker: Arc<std::sync::Mutex<Option<crate::spool::WorkerHandle>>> = Arc::default();
        let stopped: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let start_worker = {
            let worker = worker.clone();
            let stopped = stopped.clone();
            let runtime = runtime.clone();
            let client = client.clone();
            let retry_delay = options.retry_delay;
            let drain = options.drain_spool;
            let own = own.clone();
            move |spool: &Arc<crate::spool::Spool>| {
                let Ok(mut slot) = worker.lock() else { return };
                if let Some(running) = slot.as_ref() {
                    running.wake();
                    return;
                }
                if !drain || stopped.load(std::sync::atomic::Ordering::Acquire) {
                    return;
                }
                // The backoff starts at the retry delay (1 s by default) and doubles up to 5 min.
                let observer = own.clone();
                *slot = Some(
                    crate::spool::SpoolWorker::new(spool.clone(), durable.clone(), client.clone())
                        .with_backoff(retry_delay, Duration::from_secs(300))
                        .observe(Arc::new(move |row, settled, _| {
                            observer.settled(row, settled)
                        }))
                        .spawn(&runtime),
                );
            }
        };
        if let Some(spool) = &spool {
            start_worker(spool);
        }
        let writer = crate::spool::SpoolWriter::start(
            path,
            spool,
            durability,
            options.spool_hold,
            Box::new(start_worker),
        );
        let writer = match writer {
            Ok(writer) => writer,
            Err(error) => {
                tracing::warn!("outbound durable spool: cannot start its writer: {error}");
                return Durable {
                    open_error: Some(error.to_string()),
                    ..none
                };
            }
        };
        Durable {
            path: Some(path.clone()),
            writer: Some(writer),
            worker,
            own,
            refusals: std::sync::Mutex::new((None, 0)),
            open_error,
            stopped,
            drain: options.drain_spool,
        }
    }

    /// Whether `target`'s deliveries go to the spool.
    pub(super) fn spools(&self, target: &TargetSpec) -> bool {
        self.writer.is_some() && target.delivery == DeliveryMode::Durable
    }

    /// Writes one delivery through the spool's writer (waiting for its group
    /// commit) and reports it: `Spooled`, `Held` (the spool failed; kept in
    /// memory), or `Dropped` (with a warning) when refused.
    pub(super) fn write(
        &self,
        lane: &Lane,
        hook: HookEvent,
        delivery_id: &str,
        document: &EventDocument,
        shared: &Shared,
        enqueued: Instant,
    ) -> super::Offered {
        use crate::report::{DeliveryOutcome, DeliveryReport};
        use crate::spool::WriteOutcome;
        let Some(writer) = &self.writer else {
            return super::Offered::SpoolFailed;
        };
        let target = &lane.target;
        let label = lane.label.as_ref().to_owned();
        // Tracked first: the worker may settle the row before `write` returns.
        self.own.add(delivery_id);
        let written = writer.write(crate::spool::OwnedDelivery {
            target_key: crate::spool::target_key(target),
            target: label.clone(),
            event: hook.as_str().to_owned(),
            delivery_id: delivery_id.to_owned(),
            document: document.as_bytes().to_vec(),
            max_rows: target.max_spool,
        });
        let (outcome, offered) = match written {
            WriteOutcome::Written => (DeliveryOutcome::Spooled, super::Offered::Accepted),
            WriteOutcome::Held => (DeliveryOutcome::Held, super::Offered::SpoolHeld),
            WriteOutcome::Full => {
                self.warn_refused(&format!(
                    "outbound spool holds max_spool={} deliveries for {label} — refusing {} event",
                    target.max_spool,
                    hook.as_str()
                ));
                (DeliveryOutcome::Dropped, super::Offered::SpoolFull)
            }
            WriteOutcome::Refused => {
                self.warn_refused(&format!(
                    "outbound spool cannot be written and its in-memory hold is full — {} event for {label} not kept (spool_failed)",
                    hook.as_str()
                ));
                (DeliveryOutcome::Dropped, super::Offered::SpoolFailed)
            }
        };
        if !matches!(written, WriteOutcome::Written | WriteOutcome::Held) {
            self.own.forget(delivery_id);
        }
        shared.handed_off(DeliveryReport {
            target: label,
            event: hook.as_str().to_owned(),
            delivery_id: delivery_id.to_owned(),
            attempts: 0,
            status: None,
            outcome,
            elapsed: enqueued.elapsed(),
        });
        offered
    }

    /// One warning a second at most, counting the ones it swallowed.
    fn warn_refused(&self, message: &str) {
        let Ok(mut state) = self.refusals.lock() else {
            return;
        };
        let (last, suppressed) = &mut *state;
        if last.is_some_and(|at| at.elapsed() < Duration::from_secs(1)) {
            *suppressed += 1;
            return;
        }
        let also = std::mem::take(suppressed);
        *last = Some(Instant::now());
        if also > 0 {
            tracing::warn!("{message} ({also} more since the last warning)");
        } else {
            tracing::warn!("{message}");
        }
    }
}

impl Outbound {
    /// The durable spool, when a target is durable and it could be opened.
    #[cfg(feature = "durable")]
    pub fn spool(&self) -> Option<Arc<crate::spool::Spool>> {
        self.durable.writer.as_ref()?.spool()
    }

    /// The durable spool's file, when a target is durable.
    #[cfg(feature = "durable")]
    pub fn spool_file(&self) -> Option<&Path> {
        self.durable.path.as_deref()
    }

    /// What the spool's writer and this process's spooled rows came to so
    /// far; `None` without a durable target.
    pub fn spool_status(&self) -> Option<SpoolStatus> {
        #[cfg(feature = "durable")]
        {
            let writer = self.durable.writer.as_ref()?;
            Some(self.durable.own.status(writer.stats()))
        }
        #[cfg(not(feature = "durable"))]
        None
    }

    /// Waits, at most `timeout`, until every row this process spooled was
    /// attempted once (delivered, dead-lettered, or failed and due again
    /// later, for `hooks deliver`); true when none is left unattempted.
    pub async fn wait_spooled(&self, timeout: Duration) -> bool {
        #[cfg(feature = "durable")]
        {
            // Without a worker of its own (a spool that has not opened yet
            // may still recover and start one) there is nothing to wait for
            // only when this process never drains.
            if !self.durable.drain {
                return self.durable.own.unattempted() == 0;
            }
            self.durable.own.wait(timeout).await
        }
        #[cfg(not(feature = "durable"))]
        {
            let _ = timeout;
            true
        }
    }

    /// Stops the background spool worker (its attempts in flight get at most
    /// `timeout`) and says what the spool still holds; `None` without a
    /// spool. The writer keeps going: deliveries emitted afterwards are
    /// still spooled, for the next host or `hooks deliver`; rows it still
    /// holds in memory are counted in `spool_failed` (lost unless the spool
    /// recovers before the process exits).
    pub async fn stop_spool(&self, timeout: Duration) -> Option<SpoolLeft> {
        #[cfg(feature = "durable")]
        {
            let writer = self.durable.writer.as_ref()?;
            self.durable
                .stopped
                .store(true, std::sync::atomic::Ordering::Release);
            let worker = self.durable.worker.lock().ok().and_then(|mut w| w.take());
            let stopped_in_time = match worker {
                Some(mut worker) => worker.stop(timeout).await,
                None => true,
            };
            let mut stats = writer.stats();
            stats.spool_failed += stats.held;
            stats.lost_at_stop += stats.held;
            let (pending, dead) = writer
                .spool()
                .and_then(|spool| spool.counts().ok())
                .unwrap_or_default();
            Some(SpoolLeft {
                pending,
                dead,
                stopped_in_time,
                spool_failed: stats.spool_failed,
                status: self.durable.own.status(stats),
            })
        }
        #[cfg(not(feature = "durable"))]
        {
            let _ = timeout;
            None
        }
    }
}
