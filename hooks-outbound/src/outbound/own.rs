//! The rows this process spooled: what a flush waits for (each attempted
//! once) and what `hooks emit` reports (delivered before exit, or left for
//! `hooks deliver`).

// Without `durable` only `SpoolStatus` is used (always `None` there).
#![cfg_attr(not(feature = "durable"), allow(dead_code))]

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;

/// The most rows tracked at once: a host that spools without draining
/// (`drain_spool: false`) must not grow without bound.
const TRACKED: usize = 100_000;

/// What a process's durable deliveries came to (`hooks emit --json`'s
/// `spool`, [`super::SpoolLeft::status`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SpoolStatus {
    /// Committed to the spool by this process.
    pub written: u64,
    /// Of this process's rows: answered 2xx (gone from the spool).
    pub delivered: u64,
    /// Of this process's rows: dead-lettered (4xx, 3xx, `max_age`).
    pub dead: u64,
    /// Of this process's rows: attempted, failed, and due again later (left
    /// in the spool for the next host or `hooks deliver`).
    pub retrying: u64,
    /// Of this process's rows: not attempted yet (left in the spool, or
    /// held; rows lost at the writer's stop are counted in `spool_failed`).
    pub unattempted: u64,
    /// Held in memory right now: the spool could not be written.
    pub held: u64,
    /// Held rows written once the spool recovered.
    pub recovered: u64,
    /// Lost: the spool could not be written and the hold was full, or they
    /// were still held when the writer stopped.
    pub spool_failed: u64,
    /// Spool transactions that failed.
    pub write_errors: u64,
}

impl SpoolStatus {
    /// This process's rows left in the spool for the next host or `hooks deliver`.
    pub fn left(&self) -> u64 {
        self.retrying + self.unattempted.saturating_sub(self.held)
    }
}

#[derive(Default)]
struct Tracked {
    unattempted: HashSet<String>,
    retrying: HashSet<String>,
    delivered: u64,
    dead: u64,
}

/// This process's spooled rows, settled by the worker's observer.
#[derive(Default)]
pub(crate) struct OwnRows {
    tracked: Mutex<Tracked>,
    changed: tokio::sync::Notify,
}

impl OwnRows {
    fn lock(&self) -> MutexGuard<'_, Tracked> {
        self.tracked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A row of this process was written (or held).
    pub(crate) fn add(&self, delivery_id: &str) {
        let mut tracked = self.lock();
        if tracked.unattempted.len() + tracked.retrying.len() < TRACKED {
            tracked.unattempted.insert(delivery_id.to_owned());
        }
    }

    /// A row handed to the writer was not kept after all (refused).
    pub(crate) fn forget(&self, delivery_id: &str) {
        self.lock().unattempted.remove(delivery_id);
    }

    /// The worker settled `row` after an attempt (or buried it).
    #[cfg(feature = "durable")]
    pub(crate) fn settled(&self, row: &crate::spool::SpoolRow, settled: crate::spool::Settled) {
        use crate::spool::Settled;
        let mut tracked = self.lock();
        let id = row.delivery_id.as_str();
        let ours = tracked.unattempted.remove(id) | tracked.retrying.remove(id);
        if !ours {
            return;
        }
        match settled {
            Settled::Delivered => tracked.delivered += 1,
            Settled::Dead => tracked.dead += 1,
            Settled::Retrying => {
                tracked.retrying.insert(id.to_owned());
            }
        }
        drop(tracked);
        self.changed.notify_waiters();
    }

    /// How many of this process's rows were not attempted yet.
    pub(crate) fn unattempted(&self) -> usize {
        self.lock().unattempted.len()
    }

    /// Waits until every row was attempted once, at most `timeout`.
    pub(crate) async fn wait(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.changed.notified();
            if self.unattempted() == 0 {
                return true;
            }
            // Polled too: another process's worker may settle our rows.
            let tick = tokio::time::Instant::now() + Duration::from_millis(100);
            if tokio::time::timeout_at(deadline.min(tick), changed)
                .await
                .is_err()
                && tokio::time::Instant::now() >= deadline
            {
                return self.unattempted() == 0;
            }
        }
    }

    /// The counts, with the writer's.
    #[cfg(feature = "durable")]
    pub(crate) fn status(&self, writer: crate::spool::WriterStats) -> SpoolStatus {
        let tracked = self.lock();
        SpoolStatus {
            written: writer.written,
            delivered: tracked.delivered,
            dead: tracked.dead,
            retrying: tracked.retrying.len() as u64,
            unattempted: (tracked.unattempted.len() as u64).saturating_sub(writer.lost_at_stop),
            held: writer.held,
            recovered: writer.recovered,
            spool_failed: writer.spool_failed,
            write_errors: writer.write_errors,
        }
    }
}
