//! The spool's delivery worker: claims due rows one at a time, POSTs each
//! once (fresh timestamp, same `delivery_id`), and settles it: 2xx leaves the
//! spool, 4xx and 3xx make a dead letter, anything else is retried after an
//! exponential backoff with jitter — until it has been retried for
//! `max_age`, counted from its first attempt by the workers' own
//! measurements (never by comparing two machines' clocks), when it becomes a
//! dead letter too. A row is never buried without an attempt.
//!
//! A host runs one in the background ([`crate::Outbound`] spawns it when a
//! target is durable); `hooks deliver` runs one in the foreground. Any number
//! may share a spool: each row is leased for its own send when claimed, so
//! healthy workers never send the same row twice.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinSet;

#[cfg(feature = "nats")]
use super::send::publish;
use super::send::{Attempt, Checkpoints, attempt};
use super::{LeaseWatch, Spool, SpoolError, SpoolRow, now_ms, target_key};
use crate::TargetSpec;

/// Rows attempted per target per pass.
const BATCH: usize = 64;
/// How long an idle worker sleeps before looking again (other processes
/// write to the same spool without waking it).
const IDLE_POLL: Duration = Duration::from_millis(500);
/// The lease on a claimed row beyond the longest attempt.
const LEASE_MARGIN: Duration = Duration::from_secs(10);

/// What one pass of [`SpoolWorker::drain_once`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DrainPass {
    /// Rows claimed (and attempted, unless the worker was stopped first).
    pub claimed: usize,
    /// Answered 2xx: gone from the spool.
    pub delivered: usize,
    /// Failed for now: due again after their backoff.
    pub retrying: usize,
    /// Moved to the dead letters (4xx, 3xx, `max_age`).
    pub dead: usize,
}

impl DrainPass {
    fn add(&mut self, other: DrainPass) {
        self.claimed += other.claimed;
        self.delivered += other.delivered;
        self.retrying += other.retrying;
        self.dead += other.dead;
    }
}

/// Delivers the rows of its targets from one spool.
#[derive(Clone)]
pub struct SpoolWorker {
    spool: Arc<Spool>,
    targets: Arc<HashMap<String, Arc<TargetSpec>>>,
    keys: Arc<Vec<String>>,
    client: reqwest::Client,
    #[cfg(feature = "nats")]
    publishers: Arc<HashMap<String, Arc<crate::nats::NatsPublisher>>>,
    backoff: (Duration, Duration),
    stopping: Arc<AtomicBool>,
    wake: Arc<Notify>,
    observer: Option<SettleObserver>,
    /// Per target, the leases of other workers seen so far (take-over).
    watches: Arc<Mutex<HashMap<String, LeaseWatch>>>,
}

/// How an attempt left a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// Answered 2xx: gone from the spool.
    Delivered,
    /// Failed for now: due again after its backoff.
    Retrying,
    /// Moved to the dead letters.
    Dead,
}

/// Told of every row a worker settles, with how long its attempt took (the
/// host's flush waits on it; `hooks deliver --metrics` counts with it).
pub type SettleObserver = Arc<dyn Fn(&SpoolRow, Settled, Duration) + Send + Sync>;

impl std::fmt::Debug for SpoolWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpoolWorker")
            .field("spool", &self.spool)
            .field("targets", &self.targets.len())
            .finish_non_exhaustive()
    }
}

impl SpoolWorker {
    /// A worker for `targets`' rows of `spool` (other targets' rows are left
    /// alone), sending with `client`.
    pub fn new(
        spool: Arc<Spool>,
        targets: impl IntoIterator<Item = Arc<TargetSpec>>,
        client: reqwest::Client,
    ) -> SpoolWorker {
        let targets: HashMap<String, Arc<TargetSpec>> = targets
            .into_iter()
            .map(|target| (target_key(&target), target))
            .collect();
        let keys = targets.keys().cloned().collect();
        #[cfg(feature = "nats")]
        let publishers = targets
            .iter()
            .filter(|(_, target)| target.nats.is_some())
            .map(|(key, target)| {
                let publisher = crate::nats::NatsPublisher::new(target.clone());
                (key.clone(), Arc::new(publisher))
            })
            .collect();
        SpoolWorker {
            #[cfg(feature = "nats")]
            publishers: Arc::new(publishers),
            spool,
            targets: Arc::new(targets),
            keys: Arc::new(keys),
            client,
            backoff: (Duration::from_secs(1), Duration::from_secs(300)),
            stopping: Arc::new(AtomicBool::new(false)),
            wake: Arc::new(Notify::new()),
            observer: None,
            watches: Arc::default(),
        }
    }

    /// Calls `observer` for every row it settles.
    #[must_use]
    pub fn observe(mut self, observer: SettleObserver) -> SpoolWorker {
        self.observer = Some(observer);
        self
    }

    /// A worker for the `delivery: durable` targets among `targets`, with its
    /// own HTTP client (what `hooks deliver` runs).
    pub fn for_targets(
        spool: Arc<Spool>,
        targets: &[TargetSpec],
    ) -> Result<SpoolWorker, crate::OutboundError> {
        let durable = targets
            .iter()
            .filter(|target| target.delivery == crate::DeliveryMode::Durable)
            .map(|target| Arc::new(target.clone()));
        Ok(SpoolWorker::new(
            spool,
            durable,
            crate::outbound::http_client()?,
        ))
    }

    /// How many targets it delivers to.
    pub fn target_count(&self) -> usize {
        self.targets.len()
    }

    /// Whether it delivers `target`'s rows.
    pub fn serves_target(&self, target: &TargetSpec) -> bool {
        self.targets.contains_key(&target_key(target))
    }

    /// Whether a row of the spool belongs to one of its targets.
    pub fn serves(&self, row: &SpoolRow) -> bool {
        self.targets.contains_key(&row.target_key)
    }

    /// The first retry waits about `base`, each later one twice as long, at
    /// most `cap` (defaults 1 s and 5 min); each wait is jittered to 50–100 %.
    #[must_use]
    pub fn with_backoff(mut self, base: Duration, cap: Duration) -> SpoolWorker {
        self.backoff = (base, cap.max(base));
        self
    }

    /// The spool it drains.
    pub fn spool(&self) -> &Arc<Spool> {
        &self.spool
    }

    /// Wakes the worker at once (a row was just written).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Attempts the due rows (at most a batch per target), each claimed
    /// on its own just before its send; the rows of one target go in order,
    /// targets in parallel.
    pub async fn drain_once(&self) -> Result<DrainPass, SpoolError> {
        let mut groups = JoinSet::new();
        for (key, target) in self.targets.iter() {
            let (worker, key, target) = (self.clone(), key.clone(), target.clone());
            groups.spawn(async move { worker.deliver_target(&key, &target).await });
        }
        let mut pass = DrainPass::default();
        let mut failed = None;
        while let Some(done) = groups.join_next().await {
            match done {
                Ok(Ok(group)) => pass.add(group),
                Ok(Err(error)) => failed = Some(error),
                Err(error) => tracing::warn!("outbound spool worker task failed: {error}"),
            }
        }
        match failed {
            Some(error) if pass.claimed == 0 => Err(error),
            _ => Ok(pass),
        }
    }

    /// Drains until [`WorkerHandle::stop`]: passes while rows are due, else a
    /// sleep until the next is due (at most half a second) or a wake-up.
    pub fn spawn(self, runtime: &tokio::runtime::Handle) -> WorkerHandle {
        let worker = self.clone();
        let task = runtime.spawn(async move { worker.run().await });
        WorkerHandle {
            worker: self,
            task: Some(task),
        }
    }

    async fn run(&self) -> DrainPass {
        let mut totals = DrainPass::default();
        let mut failures = 0u32;
        let mut checkpoint = Checkpoints::default();
        while !self.stopping.load(Ordering::Acquire) {
            let wait = match self.drain_once().await {
                Ok(pass) if pass.claimed > 0 => {
                    failures = 0;
                    totals.add(pass);
                    checkpoint.after(&self.spool, pass.claimed);
                    continue;
                }
                Ok(_) => {
                    checkpoint.idle(&self.spool);
                    self.idle_wait()
                }
                Err(error) => {
                    // A locked or full disk: said once per streak, retried calmly.
                    if failures == 0 {
                        tracing::warn!("outbound spool: {error}; retrying");
                    }
                    failures = failures.saturating_add(1);
                    Duration::from_secs(1)
                }
            };
            let notified = self.wake.notified();
            let _ = tokio::time::timeout(wait, notified).await;
        }
        totals
    }

    fn idle_wait(&self) -> Duration {
        match self.spool.next_due_ms(&self.keys) {
            Ok(Some(due)) => {
                let millis = u64::try_from(due.saturating_sub(now_ms())).unwrap_or(0);
                Duration::from_millis(millis).clamp(Duration::from_millis(5), IDLE_POLL)
            }
            _ => IDLE_POLL,
        }
    }

    async fn deliver_target(
        &self,
        key: &str,
        target: &TargetSpec,
    ) -> Result<DrainPass, SpoolError> {
        let mut pass = DrainPass::default();
        // Rows answered 2xx, deleted with the next claim (one commit per row
        // sent) or at the end of the pass; told to the observer once deleted.
        let mut delivered: Vec<(SpoolRow, Duration)> = Vec::new();
        let sent = self
            .deliver_rows(key, target, &mut pass, &mut delivered)
            .await;
        let flushed = self.settle_delivered(&mut pass, &mut delivered, |ids| {
            self.spool.settle_delivered_many(ids)
        });
        sent.and(flushed).map(|()| pass)
    }

    /// The next row of `key` to send: a due free one, else one whose lease
    /// went stale (its holder gone, or unchanged for its whole length).
    fn next_row(
        &self,
        key: &str,
        lease: Duration,
        pass: &mut DrainPass,
        delivered: &mut Vec<(SpoolRow, Duration)>,
    ) -> Result<Option<SpoolRow>, SpoolError> {
        let mut claimed = None;
        self.settle_delivered(pass, delivered, |ids| {
            claimed = self.spool.claim_next(key, lease, ids)?;
            Ok(())
        })?;
        if claimed.is_some() {
            return Ok(claimed);
        }
        let mut watches = self.watches.lock().unwrap_or_else(PoisonError::into_inner);
        let watch = watches.entry(key.to_owned()).or_default();
        self.spool.take_over_stale(key, lease, watch)
    }

    /// Runs `delete` on the ids of `delivered`; once it succeeded, counts
    /// them and tells the observer.
    fn settle_delivered(
        &self,
        pass: &mut DrainPass,
        delivered: &mut Vec<(SpoolRow, Duration)>,
        delete: impl FnOnce(&[i64]) -> Result<(), SpoolError>,
    ) -> Result<(), SpoolError> {
        let ids: Vec<i64> = delivered.iter().map(|(row, _)| row.id).collect();
        delete(&ids)?;
        pass.delivered += delivered.len();
        for (row, elapsed) in delivered.drain(..) {
            if let Some(observer) = &self.observer {
                observer(&row, Settled::Delivered, elapsed);
            }
        }
        Ok(())
    }

    async fn deliver_rows(
        &self,
        key: &str,
        target: &TargetSpec,
        pass: &mut DrainPass,
        delivered: &mut Vec<(SpoolRow, Duration)>,
    ) -> Result<(), SpoolError> {
        let url = reqwest::Url::parse(&target.url);
        let lease = target.timeout + LEASE_MARGIN;
        while pass.claimed < BATCH && !self.stopping.load(Ordering::Acquire) {
            let Some(row) = self.next_row(key, lease, pass, delivered)? else {
                break;
            };
            pass.claimed += 1;
            let attempts = row.attempts.saturating_add(1);
            let started = std::time::Instant::now();
            let outcome = match &url {
                #[cfg(feature = "nats")]
                Ok(_) if let Some(publisher) = self.publishers.get(&row.target_key) => {
                    publish(publisher, &row).await
                }
                Ok(url) => attempt(&self.client, url, target, &row).await,
                Err(error) => Attempt::Dead(format!("invalid url: {error}")),
            };
            let elapsed = started.elapsed();
            let took = millis(elapsed);
            let settled = match outcome {
                Attempt::Delivered => {
                    tracing::debug!(
                        "outbound webhook delivered from the spool: {} -> {}",
                        row.event,
                        target.label()
                    );
                    delivered.push((row, elapsed));
                    continue;
                }
                Attempt::Dead(error) => {
                    self.bury(target, &row, attempts, &error)?;
                    pass.dead += 1;
                    Settled::Dead
                }
                Attempt::Retry(error) => {
                    // Retried for this long since the first attempt, by this
                    // worker's measurements (the wait it scheduled last time,
                    // and this attempt): no clock of another process is read.
                    let retrying = row.retrying_ms.saturating_add(took);
                    if u128::try_from(retrying).unwrap_or(0) >= target.max_age.as_millis() {
                        let error = format!(
                            "retried for longer than max_age ({}s); last error: {error}",
                            target.max_age.as_secs()
                        );
                        self.bury(target, &row, attempts, &error)?;
                        pass.dead += 1;
                        Settled::Dead
                    } else {
                        let delay = self.backoff_after(attempts, &row.delivery_id);
                        tracing::debug!(
                            "outbound spool attempt {attempts} failed (event={} target={}): {error} — next in {:.1}s",
                            row.event,
                            target.label(),
                            delay.as_secs_f64()
                        );
                        let wait = millis(delay);
                        let next = now_ms().saturating_add(wait);
                        self.spool.settle_retry(
                            row.id,
                            attempts,
                            next,
                            retrying.saturating_add(wait),
                            &error,
                        )?;
                        pass.retrying += 1;
                        Settled::Retrying
                    }
                }
            };
            if let Some(observer) = &self.observer {
                observer(&row, settled, elapsed);
            }
        }
        Ok(())
    }

    fn bury(
        &self,
        target: &TargetSpec,
        row: &SpoolRow,
        attempts: u32,
        error: &str,
    ) -> Result<(), SpoolError> {
        tracing::warn!(
            "outbound webhook dead-lettered (event={} target={} delivery={}): {error} — see `hooks spool`",
            row.event,
            target.label(),
            row.delivery_id
        );
        self.spool.settle_dead(row.id, attempts, error)
    }

    /// The wait after failed attempt `attempts`: `base × 2^(attempts-1)` up to
    /// the cap, times a factor in [0.5, 1) so retrying workers spread out.
    fn backoff_after(&self, attempts: u32, delivery_id: &str) -> Duration {
        let (base, cap) = self.backoff;
        let exponent = attempts.saturating_sub(1).min(20);
        let full = base.saturating_mul(1 << exponent).min(cap);
        let noise = jitter(delivery_id, attempts);
        full.mul_f64(0.5 + noise / 2.0)
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A number in [0, 1) that differs per delivery, attempt and moment.
fn jitter(delivery_id: &str, attempts: u32) -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write(delivery_id.as_bytes());
    hasher.write_u32(attempts);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The running worker of a host; stop it at shutdown.
#[derive(Debug)]
pub struct WorkerHandle {
    worker: SpoolWorker,
    task: Option<tokio::task::JoinHandle<DrainPass>>,
}

impl WorkerHandle {
    /// Wakes the worker (a row was just written).
    pub fn wake(&self) {
        self.worker.wake();
    }

    /// The spool it drains.
    pub fn spool(&self) -> &Arc<Spool> {
        self.worker.spool()
    }

    /// Stops claiming rows and waits, at most `timeout`, for the attempts in
    /// flight; true when it stopped in time. Rows it claimed but did not send
    /// are released; an attempt cut off by the bound keeps its lease, so
    /// another worker resends it once the lease ends (same `delivery_id`).
    pub async fn stop(&mut self, timeout: Duration) -> bool {
        self.worker.stopping.store(true, Ordering::Release);
        self.worker.wake.notify_one();
        let Some(task) = self.task.take() else {
            return true;
        };
        let abort = task.abort_handle();
        match tokio::time::timeout(timeout, task).await {
            Ok(_) => true,
            Err(_) => {
                abort.abort();
                false
            }
        }
    }
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        self.worker.stopping.store(true, Ordering::Release);
        self.worker.wake.notify_one();
    }
}
