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
}

#[cfg(feature = "durable")]
pub(super) struct Durable {
    spool: Option<Arc<crate::spool::Spool>>,
    worker: std::sync::Mutex<Option<crate::spool::WorkerHandle>>,
    refusals: std::sync::Mutex<(Option<Instant>, u64)>,
}

#[cfg(not(feature = "durable"))]
pub(super) struct Durable;

#[cfg(not(feature = "durable"))]
impl Durable {
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
    ) -> bool {
        false
    }
}

#[cfg(feature = "durable")]
impl Durable {
    /// Opens the spool when a target is durable and starts its worker (unless
    /// `options.drain_spool` is off).
    pub(super) fn start(
        runtime: &Handle,
        client: &reqwest::Client,
        targets: &[TargetSpec],
        options: &OutboundOptions,
    ) -> Durable {
        let none = Durable {
            spool: None,
            worker: std::sync::Mutex::new(None),
            refusals: std::sync::Mutex::new((None, 0)),
        };
        let durable: Vec<Arc<TargetSpec>> = targets
            .iter()
            .filter(|target| target.delivery == DeliveryMode::Durable)
            .map(|target| Arc::new(target.clone()))
            .collect();
        if durable.is_empty() {
            return none;
        }
        let labels = || {
            durable
                .iter()
                .map(|target| target.label())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(path) = &options.spool_path else {
            tracing::warn!(
                "outbound webhooks {}: 'delivery: durable' without a spool path — delivering best effort",
                labels()
            );
            return none;
        };
        let spool = match crate::spool::Spool::open(path) {
            Ok(spool) => Arc::new(spool),
            Err(error) => {
                tracing::warn!(
                    "outbound webhooks {}: cannot open the durable spool ({error}) — delivering best effort",
                    labels()
                );
                return none;
            }
        };
        let worker = options.drain_spool.then(|| {
            // The backoff starts at the retry delay (1 s by default) and doubles up to 5 min.
            crate::spool::SpoolWorker::new(spool.clone(), durable, client.clone())
                .with_backoff(options.retry_delay, Duration::from_secs(300))
                .spawn(runtime)
        });
        Durable {
            spool: Some(spool),
            worker: std::sync::Mutex::new(worker),
            refusals: std::sync::Mutex::new((None, 0)),
        }
    }

    /// Whether `target`'s deliveries go to the spool.
    pub(super) fn spools(&self, target: &TargetSpec) -> bool {
        self.spool.is_some() && target.delivery == DeliveryMode::Durable
    }

    /// Writes one delivery to the spool and wakes the worker; false (with a
    /// warning and a `Dropped` report) when the spool refused or failed.
    pub(super) fn write(
        &self,
        lane: &Lane,
        hook: HookEvent,
        delivery_id: &str,
        document: &EventDocument,
        shared: &Shared,
        enqueued: Instant,
    ) -> bool {
        use crate::report::{DeliveryOutcome, DeliveryReport};
        let Some(spool) = &self.spool else {
            return false;
        };
        let target = &lane.target;
        let label = lane.label.as_ref().to_owned();
        let written = spool.insert(&crate::spool::NewDelivery {
            target_key: &crate::spool::target_key(target),
            target: &label,
            event: hook.as_str(),
            delivery_id,
            document: document.as_bytes(),
            max_rows: target.max_spool,
        });
        let outcome = match written {
            Ok(true) => DeliveryOutcome::Spooled,
            Ok(false) => {
                self.warn_refused(&format!(
                    "outbound spool holds max_spool={} deliveries for {label} — refusing {} event",
                    target.max_spool,
                    hook.as_str()
                ));
                DeliveryOutcome::Dropped
            }
            Err(error) => {
                self.warn_refused(&format!(
                    "outbound spool write failed for {label} ({error}) — {} event not kept",
                    hook.as_str()
                ));
                DeliveryOutcome::Dropped
            }
        };
        let spooled = outcome == DeliveryOutcome::Spooled;
        shared.handed_off(DeliveryReport {
            target: label,
            event: hook.as_str().to_owned(),
            delivery_id: delivery_id.to_owned(),
            attempts: 0,
            status: None,
            outcome,
            elapsed: enqueued.elapsed(),
        });
        if spooled && let Ok(worker) = self.worker.lock() {
            worker.iter().for_each(crate::spool::WorkerHandle::wake);
        }
        spooled
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
    pub fn spool(&self) -> Option<&Arc<crate::spool::Spool>> {
        self.durable.spool.as_ref()
    }

    /// Stops the background spool worker (its attempts in flight get at most
    /// `timeout`) and says what the spool still holds; `None` without a spool.
    pub async fn stop_spool(&self, timeout: Duration) -> Option<SpoolLeft> {
        #[cfg(feature = "durable")]
        {
            let spool = self.durable.spool.as_ref()?;
            let worker = self.durable.worker.lock().ok().and_then(|mut w| w.take());
            let stopped_in_time = match worker {
                Some(mut worker) => worker.stop(timeout).await,
                None => true,
            };
            let (pending, dead) = spool.counts().unwrap_or_default();
            Some(SpoolLeft {
                pending,
                dead,
                stopped_in_time,
            })
        }
        #[cfg(not(feature = "durable"))]
        {
            let _ = timeout;
            None
        }
    }
}
