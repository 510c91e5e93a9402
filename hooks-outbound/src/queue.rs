//! Per-target lanes under one bound, and the state shared by the lanes and the
//! [`crate::Outbound`] handle: pending count, counters, reports.
//!
//! Each target has its own lane (a bounded queue, [`crate::jobs`], served by
//! two tasks with up to `concurrency` requests in flight between them), so a slow or dead
//! endpoint only fills its own lane.
//! The configured capacity is split evenly between the lanes, which keeps the
//! total bounded while guaranteeing each target its share: a blackholed target
//! can never take the slots a healthy one needs.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hermes_hooks_core::HookEvent;
use tokio::sync::{Notify, broadcast};

use crate::config::TargetSpec;
use crate::jobs::{self, JobReceiver, JobSender, Refused};
use crate::pool::BufferPool;
use crate::report::{DeliveryOutcome, DeliveryReport, DeliveryTotals, OutboundStats, ReportBatch};
use crate::request::PreparedDelivery;

/// How often a lane that keeps dropping logs another warning.
const DROP_WARNING_INTERVAL: Duration = Duration::from_secs(1);

/// One queued delivery.
pub(crate) struct Job {
    pub(crate) event: HookEvent,
    pub(crate) delivery: PreparedDelivery,
    pub(crate) enqueued: Instant,
}

/// The sending side of one target's lane.
pub(crate) struct Lane {
    pub(crate) target: Arc<TargetSpec>,
    /// [`TargetSpec::label`], computed once: it parses and redacts the url,
    /// which cost more than the rest of a dropped event's path together.
    pub(crate) label: Arc<str>,
    pub(crate) sender: JobSender<Job>,
    pub(crate) capacity: usize,
    drop_log: Mutex<DropLog>,
}

#[derive(Default)]
struct DropLog {
    last_warning: Option<Instant>,
    suppressed: u64,
}

impl Lane {
    /// A lane for `target` holding at most `capacity` queued jobs, and its receiving end.
    pub(crate) fn new(target: Arc<TargetSpec>, capacity: usize) -> (Lane, JobReceiver<Job>) {
        let (sender, receiver) = jobs::channel(capacity);
        let label = Arc::from(target.label());
        let lane = Lane {
            label,
            target,
            sender,
            capacity,
            drop_log: Mutex::new(DropLog::default()),
        };
        (lane, receiver)
    }

    /// Queues `job` without waiting; a full (or stopped) lane drops it with a
    /// warning, rate-limited so a flood cannot turn into a flood of log lines.
    pub(crate) fn offer(&self, job: Job, shared: &Shared) -> bool {
        shared.pending.fetch_add(1, Ordering::AcqRel);
        // Listed before it is queued: the worker may finish it at once.
        let id = job.delivery.delivery_id.clone();
        shared.track(&id, &self.label, job.event, job.enqueued);
        let (job, stopped) = match self.sender.try_send(job) {
            Ok(()) => {
                shared.enqueued.fetch_add(1, Ordering::Relaxed);
                return true;
            }
            Err(Refused::Full(job)) => (job, false),
            Err(Refused::Stopped(job)) => (job, true),
        };
        shared.untrack(&id);
        shared.pool.give(job.delivery.body);
        self.record_drop(job.event, job.delivery.delivery_id, stopped, shared);
        false
    }

    /// Whether the lane has no free slot right now (the event would be dropped).
    pub(crate) fn is_full(&self) -> bool {
        self.sender.is_full()
    }

    /// Drops delivery `delivery_id` of `event` without building it (the lane is full).
    pub(crate) fn drop_unbuilt(&self, event: HookEvent, delivery_id: String, shared: &Shared) {
        shared.pending.fetch_add(1, Ordering::AcqRel);
        let stopped = self.sender.is_stopped();
        self.record_drop(event, delivery_id, stopped, shared);
    }

    fn record_drop(&self, event: HookEvent, delivery_id: String, stopped: bool, shared: &Shared) {
        self.warn_dropped(event, stopped);
        shared.finish(DeliveryReport {
            target: self.label.as_ref().to_owned(),
            event: event.as_str().to_owned(),
            delivery_id,
            attempts: 0,
            status: None,
            outcome: DeliveryOutcome::Dropped,
            elapsed: Duration::ZERO,
        });
    }

    fn warn_dropped(&self, event: HookEvent, stopped: bool) {
        let Ok(mut log) = self.drop_log.lock() else {
            return;
        };
        let now = Instant::now();
        if log
            .last_warning
            .is_some_and(|last| now.duration_since(last) < DROP_WARNING_INTERVAL)
        {
            log.suppressed += 1;
            return;
        }
        let suppressed = std::mem::take(&mut log.suppressed);
        log.last_warning = Some(now);
        drop(log);
        let also = if suppressed > 0 {
            format!(" ({suppressed} more dropped since the last warning)")
        } else {
            String::new()
        };
        let (event, label) = (event.as_str(), &self.label);
        if stopped {
            tracing::warn!(
                "outbound webhook worker for {label} has stopped — dropping {event} event{also}"
            );
        } else {
            tracing::warn!(
                "outbound webhook queue full ({} pending) — dropping {event} event for {label}{also}",
                self.capacity
            );
        }
    }
}

/// A delivery queued or in flight.
struct Waiting {
    label: Arc<str>,
    event: HookEvent,
    enqueued: Instant,
}

/// State shared by the handle and every lane worker.
pub(crate) struct Shared {
    pending: AtomicU64,
    idle: Notify,
    enqueued: AtomicU64,
    delivered: AtomicU64,
    failed: AtomicU64,
    dropped: AtomicU64,
    spooled: AtomicU64,
    pub(crate) retries: AtomicU64,
    reports: Mutex<ReportLog>,
    report_capacity: usize,
    /// Deliveries queued or in flight, by id: what a flush that runs out of
    /// time reports as abandoned.
    waiting: Mutex<HashMap<String, Waiting>>,
    subscribers: broadcast::Sender<DeliveryReport>,
    /// Finished bodies' memory, reused for the next ones.
    pub(crate) pool: BufferPool,
}

impl Shared {
    /// State for lanes holding `queue_capacity` deliveries in all, keeping
    /// `report_capacity` recent reports.
    pub(crate) fn new(queue_capacity: usize, report_capacity: usize) -> Shared {
        let (subscribers, _) = broadcast::channel(report_capacity.max(1));
        Shared {
            pending: AtomicU64::new(0),
            idle: Notify::new(),
            enqueued: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            spooled: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            // Sized up front: growing it copies every kept report, a pause of
            // tens of µs on the emitting thread when drops are being recorded.
            reports: Mutex::new(ReportLog {
                kept: VecDeque::with_capacity(report_capacity),
                ..ReportLog::default()
            }),
            report_capacity,
            // Sized up front too: growing it rehashes every waiting delivery
            // on the emitting thread (a pause of µs at 112 and 224 queued).
            waiting: Mutex::new(HashMap::with_capacity(queue_capacity)),
            subscribers,
            // One buffer per queue slot: a full queue's bodies can all be reused.
            pool: BufferPool::new(queue_capacity),
        }
    }

    /// Makes room for `in_flight` deliveries beyond the queues' bound (the
    /// lanes' workers hold that many outside them), so tracking never grows
    /// the map on the emitting thread.
    pub(crate) fn reserve_in_flight(&self, in_flight: usize) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.reserve(in_flight);
        }
    }

    /// Lists a delivery as waiting (queued or in flight).
    fn track(&self, id: &str, label: &Arc<str>, event: HookEvent, enqueued: Instant) {
        if let Ok(mut waiting) = self.waiting.lock() {
            let entry = Waiting {
                label: Arc::clone(label),
                event,
                enqueued,
            };
            waiting.insert(id.to_owned(), entry);
        }
    }

    fn untrack(&self, id: &str) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(id);
        }
    }

    /// Reports every delivery still queued or in flight as
    /// [`DeliveryOutcome::Abandoned`] (a flush ran out of time) and returns
    /// how many. They stay pending: one that still finishes is reported again.
    pub(crate) fn abandon_waiting(&self) -> usize {
        let waiting: Vec<(String, Waiting)> = match self.waiting.lock() {
            Ok(mut waiting) => waiting.drain().collect(),
            Err(_) => return 0,
        };
        let count = waiting.len();
        for (delivery_id, entry) in waiting {
            self.publish(DeliveryReport {
                target: entry.label.as_ref().to_owned(),
                event: entry.event.as_str().to_owned(),
                delivery_id,
                attempts: 0,
                status: None,
                outcome: DeliveryOutcome::Abandoned,
                elapsed: entry.enqueued.elapsed(),
            });
        }
        count
    }

    /// Records a finished (or dropped) delivery and wakes flushers when nothing is left.
    pub(crate) fn finish(&self, report: DeliveryReport) {
        let counter = match report.outcome {
            // A stream's acknowledgement is a delivery.
            DeliveryOutcome::Delivered | DeliveryOutcome::Published => &self.delivered,
            DeliveryOutcome::Dropped => &self.dropped,
            _ => &self.failed,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if report.outcome != DeliveryOutcome::Dropped {
            self.untrack(&report.delivery_id);
        }
        self.publish(report);
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.idle.notify_waiters();
        }
    }

    /// Records a delivery that left this process's hands at once: written to
    /// the spool (`Spooled`) or refused by it (`Dropped`); neither is pending here.
    #[cfg_attr(not(feature = "durable"), allow(dead_code))]
    pub(crate) fn handed_off(&self, report: DeliveryReport) {
        let counter = match report.outcome {
            DeliveryOutcome::Spooled | DeliveryOutcome::Published | DeliveryOutcome::Held => {
                &self.spooled
            }
            _ => &self.dropped,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        self.publish(report);
    }

    /// Hands a report to subscribers and keeps it for `take_reports`.
    fn publish(&self, report: DeliveryReport) {
        if self.subscribers.receiver_count() > 0 {
            let _ = self.subscribers.send(report.clone());
        }
        if let Ok(mut log) = self.reports.lock() {
            log.totals.count(&report.outcome);
            if log.kept.len() >= self.report_capacity {
                log.omitted += 1;
                if log.kept.pop_front().is_none() {
                    return; // a capacity of 0 keeps nothing
                }
            }
            log.kept.push_back(report);
        }
    }

    /// Waits until nothing is queued or in flight, at most `timeout`; true when idle.
    pub(crate) async fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            // Registered before the check, so a notification in between is not lost.
            notified.as_mut().enable();
            if self.pending.load(Ordering::Acquire) == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.pending.load(Ordering::Acquire) == 0;
            }
        }
    }

    /// The kept reports, the totals of the span and how many were let go;
    /// a new span starts.
    pub(crate) fn take_report_batch(&self) -> ReportBatch {
        self.reports
            .lock()
            .map(|mut log| {
                let batch = ReportBatch {
                    reports: log.kept.drain(..).collect(),
                    totals: log.totals,
                    omitted: log.omitted,
                };
                log.totals = DeliveryTotals::default();
                log.omitted = 0;
                batch
            })
            .unwrap_or_default()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<DeliveryReport> {
        self.subscribers.subscribe()
    }

    pub(crate) fn stats(&self) -> OutboundStats {
        OutboundStats {
            enqueued: self.enqueued.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            pending: self.pending.load(Ordering::Acquire),
            spooled: self.spooled.load(Ordering::Relaxed),
        }
    }
}

/// The reports kept for `take_report_batch`, and what the span saw in all.
#[derive(Debug, Default)]
struct ReportLog {
    kept: VecDeque<DeliveryReport>,
    totals: DeliveryTotals,
    omitted: u64,
}

/// The capacity of each of `lanes` lanes sharing `total` slots (at least 1 each).
pub(crate) fn lane_capacity(total: usize, lanes: usize) -> usize {
    (total / lanes.max(1)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_split_evenly_with_a_floor_of_one() {
        assert_eq!(lane_capacity(256, 1), 256);
        assert_eq!(lane_capacity(256, 2), 128);
        assert_eq!(lane_capacity(256, 3), 85);
        assert_eq!(lane_capacity(2, 5), 1);
        assert_eq!(lane_capacity(256, 0), 256);
    }
}
