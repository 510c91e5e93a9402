//! Claims and leases without comparing two processes' clocks.
//!
//! A claim stamps the row with a fresh random *lease token*, the lease's
//! length (ms) and the holder (boot id, pid, process start time). A row is
//! free when its token is 0; the holder gives it back by settling it. Nobody
//! ever reads a lease's expiry off another process's wall clock: a taker
//! takes a lease over only when
//! - the holder is a process of this boot that is gone (its pid is missing
//!   or now belongs to a process started at another time): at once; or
//! - it has seen the *same* token on the row for the lease's length, timed by
//!   its own monotonic clock (the holder's send is bounded by that length).
//!
//! The take-over is conditional on the token it saw, so of two takers one wins.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rusqlite::{OptionalExtension, params};

use super::{COLUMNS, Spool, SpoolError, SpoolRow, SpoolTable, read_row};
use crate::spool::now_ms;

/// A lease as the spool holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HeldLease {
    id: i64,
    token: i64,
    length_ms: i64,
    holder: Option<String>,
}

/// The leases a taker has seen, per row, with when it first saw each token
/// (its own monotonic clock).
#[derive(Debug, Default)]
pub struct LeaseWatch {
    seen: HashMap<i64, (i64, Instant)>,
}

impl LeaseWatch {
    /// Nothing seen yet.
    pub fn new() -> LeaseWatch {
        LeaseWatch::default()
    }
}

/// A fresh nonzero lease token.
fn new_token() -> i64 {
    let (high, _) = uuid::Uuid::new_v4().as_u64_pair();
    // Nonzero: 0 means "free".
    i64::from_ne_bytes(high.to_ne_bytes()) | 1
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// This process as a lease holder: `boot_id/pid/start_ticks` (Linux), else `None`.
pub(crate) fn this_holder() -> Option<&'static str> {
    static HOLDER: OnceLock<Option<String>> = OnceLock::new();
    HOLDER
        .get_or_init(|| {
            let pid = std::process::id();
            Some(format!("{}/{pid}/{}", boot_id()?, start_ticks(pid)?))
        })
        .as_deref()
}

fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_owned()).filter(|id| !id.is_empty())
}

/// Field 22 of `/proc/<pid>/stat`: when the process started (clock ticks since boot).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields after the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// `Some(true)` when `holder` is a live process, `Some(false)` when it is a
/// process of this boot that is gone, `None` when this process cannot tell
/// (another machine or boot, no `/proc`).
fn holder_alive(holder: &str) -> Option<bool> {
    let mut parts = holder.split('/');
    let (boot, pid, ticks) = (parts.next()?, parts.next()?, parts.next()?);
    if boot != boot_id()? {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    let ticks: u64 = ticks.parse().ok()?;
    Some(start_ticks(pid) == Some(ticks))
}

impl Spool {
    /// Claims the oldest due free row of `target_key` for `lease`: no other
    /// claimer gets it until it is settled, released, or its holder is seen
    /// gone (see the module doc). One row per claim, so a lease covers
    /// exactly one send. `delivered` rows (answered 2xx, still leased by
    /// this caller) leave the spool in the same transaction: one commit per
    /// row sent.
    pub fn claim_next(
        &self,
        target_key: &str,
        lease: Duration,
        delivered: &[i64],
    ) -> Result<Option<SpoolRow>, SpoolError> {
        self.with(|connection| {
            let transaction =
                connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let claimed = {
                let mut delete = transaction.prepare_cached("DELETE FROM pending WHERE id = ?1")?;
                for id in delivered {
                    delete.execute([id])?;
                }
                // One statement: the choice and the lease are one step for every process.
                let mut claim = transaction.prepare_cached(&format!(
                    "UPDATE pending SET lease_token = ?1, lease_ms = ?2, lease_holder = ?3,
                        lease_until_ms = ?4 + ?2
                     WHERE id = (SELECT id FROM pending INDEXED BY pending_order
                                 WHERE target_key = ?5 AND lease_token = 0 AND next_attempt_ms <= ?4
                                 ORDER BY id LIMIT 1)
                     RETURNING {COLUMNS}"
                ))?;
                claim
                    .query_row(
                        params![
                            new_token(),
                            millis(lease),
                            this_holder(),
                            now_ms(),
                            target_key
                        ],
                        |row| read_row(row, SpoolTable::Pending),
                    )
                    .optional()?
            };
            transaction.commit()?;
            Ok(claimed)
        })
    }

    /// Claims at most `limit` due free rows of `target_keys` for `lease`
    /// (one transaction; each row gets its own token).
    pub fn claim_due(
        &self,
        target_keys: &[String],
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<SpoolRow>, SpoolError> {
        let mut rows = Vec::new();
        for key in target_keys {
            while rows.len() < limit {
                match self.claim_next(key, lease, &[])? {
                    Some(row) => rows.push(row),
                    None => break,
                }
            }
        }
        Ok(rows)
    }

    /// Takes over one lease of `target_key` whose holder is gone, or that
    /// `watch` has seen unchanged for its whole length; the row is then
    /// leased to this caller for `lease`. Never reads another process's clock.
    pub fn take_over_stale(
        &self,
        target_key: &str,
        lease: Duration,
        watch: &mut LeaseWatch,
    ) -> Result<Option<SpoolRow>, SpoolError> {
        let held: Vec<HeldLease> = self.with(|connection| {
            let mut statement = connection.prepare_cached(
                "SELECT id, lease_token, lease_ms, lease_holder FROM pending INDEXED BY pending_order
                 WHERE target_key = ?1 AND lease_token != 0 ORDER BY id",
            )?;
            statement
                .query_map([target_key], |row| {
                    Ok(HeldLease {
                        id: row.get(0)?,
                        token: row.get(1)?,
                        length_ms: row.get(2)?,
                        holder: row.get(3)?,
                    })
                })?
                .collect()
        })?;
        let now = Instant::now();
        watch
            .seen
            .retain(|id, (token, _)| held.iter().any(|l| l.id == *id && l.token == *token));
        let mut stale = None;
        for lease in &held {
            let (_, first_seen) = *watch.seen.entry(lease.id).or_insert((lease.token, now));
            let gone = lease.holder.as_deref().and_then(holder_alive) == Some(false);
            let length = Duration::from_millis(u64::try_from(lease.length_ms).unwrap_or(0));
            if gone || now.duration_since(first_seen) >= length {
                stale = Some(lease.clone());
                break;
            }
        }
        let Some(stale) = stale else {
            return Ok(None);
        };
        watch.seen.remove(&stale.id);
        self.with(|connection| {
            let mut statement = connection.prepare_cached(&format!(
                "UPDATE pending SET lease_token = ?1, lease_ms = ?2, lease_holder = ?3,
                    lease_until_ms = ?4 + ?2
                 WHERE id = ?5 AND lease_token = ?6
                 RETURNING {COLUMNS}"
            ))?;
            statement
                .query_row(
                    params![
                        new_token(),
                        millis(lease),
                        this_holder(),
                        now_ms(),
                        stale.id,
                        stale.token
                    ],
                    |row| read_row(row, SpoolTable::Pending),
                )
                .optional()
        })
    }

    /// Rows `ids` were answered 2xx: they leave the spool (one transaction).
    pub fn settle_delivered_many(&self, ids: &[i64]) -> Result<(), SpoolError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.with(|connection| {
            let transaction = connection.transaction()?;
            {
                let mut delete = transaction.prepare_cached("DELETE FROM pending WHERE id = ?1")?;
                for id in ids {
                    delete.execute([id])?;
                }
            }
            transaction.commit()
        })
    }

    /// Gives back the leases of rows `ids` (a worker stopping before it sent them).
    pub fn release(&self, ids: &[i64]) -> Result<(), SpoolError> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(
                "UPDATE pending SET lease_token = 0, lease_until_ms = 0, lease_holder = NULL
                 WHERE id = ?1",
            )?;
            for id in ids {
                statement.execute([id])?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spool::NewDelivery;

    fn spool_with_one_row() -> (tempfile::TempDir, Spool) {
        let dir = tempfile::tempdir().expect("tempdir");
        let spool = Spool::open(&dir.path().join("spool.sqlite3")).expect("open");
        let row = NewDelivery {
            target_key: "k1",
            target: "ci",
            event: "on_session_end",
            delivery_id: "a",
            document: b"{}",
            max_rows: 10,
        };
        assert!(spool.insert(&row).expect("insert"));
        (dir, spool)
    }

    /// Makes row `id`'s lease look held by `holder` with a lease ending, by
    /// the holder's wall clock, `until_ms` (which nobody may read).
    fn pretend_holder(spool: &Spool, holder: &str, until_ms: i64) {
        spool
            .with(|connection| {
                connection.execute(
                    "UPDATE pending SET lease_holder = ?1, lease_until_ms = ?2",
                    params![holder, until_ms],
                )
            })
            .expect("update");
    }

    #[test]
    fn a_live_holders_lease_is_taken_over_only_after_its_length_on_the_takers_clock() {
        let (_dir, spool) = spool_with_one_row();
        let lease = Duration::from_millis(300);
        let held = spool.claim_next("k1", lease, &[]).expect("claim");
        assert!(held.is_some());
        // The holder's wall clock says the lease ended two days ago: ignored.
        pretend_holder(&spool, this_holder().unwrap_or("elsewhere/1/1"), 1);
        let mut watch = LeaseWatch::new();
        assert!(spool.claim_next("k1", lease, &[]).expect("again").is_none());
        let started = Instant::now();
        assert!(
            spool
                .take_over_stale("k1", lease, &mut watch)
                .expect("first look")
                .is_none()
        );
        let taken = loop {
            if let Some(row) = spool
                .take_over_stale("k1", lease, &mut watch)
                .expect("look")
            {
                break row;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(started.elapsed() >= lease, "taken over early");
        assert_eq!(taken.delivery_id, "a");
        // Now leased to the taker, under a new token: a second taker waits again.
        let mut other = LeaseWatch::new();
        assert!(
            spool
                .take_over_stale("k1", lease, &mut other)
                .expect("other")
                .is_none()
        );
    }

    #[test]
    fn a_lease_whose_holder_is_gone_is_taken_over_at_once() {
        let (_dir, spool) = spool_with_one_row();
        let Some(me) = this_holder() else {
            return;
        };
        let lease = Duration::from_secs(3600);
        spool.claim_next("k1", lease, &[]).expect("claim");
        let mut parts: Vec<&str> = me.split('/').collect();
        parts[2] = "1"; // this pid, another start: the holder died, its pid was reused
        pretend_holder(&spool, &parts.join("/"), i64::MAX);
        let taken = spool
            .take_over_stale("k1", lease, &mut LeaseWatch::new())
            .expect("take over");
        assert_eq!(taken.map(|row| row.delivery_id).as_deref(), Some("a"));
    }

    #[test]
    fn delivered_rows_leave_with_the_next_claim() {
        let (_dir, spool) = spool_with_one_row();
        let lease = Duration::from_secs(60);
        let row = spool.claim_next("k1", lease, &[]).expect("claim");
        let id = row.map(|row| row.id).unwrap_or_default();
        assert_eq!(spool.counts().expect("counts"), (1, 0));
        assert!(
            spool
                .claim_next("k1", lease, &[id])
                .expect("next")
                .is_none()
        );
        assert_eq!(spool.counts().expect("counts"), (0, 0));
    }

    #[test]
    fn this_process_is_alive_and_a_gone_one_is_not() {
        let Some(me) = this_holder() else {
            return; // no /proc here: leases fall back to watching their length
        };
        assert_eq!(holder_alive(me), Some(true));
        let mut parts: Vec<&str> = me.split('/').collect();
        let other_start = "1";
        parts[2] = other_start;
        assert_eq!(holder_alive(&parts.join("/")), Some(false), "pid reused");
        assert_eq!(holder_alive("another-boot/1/1"), None);
    }
}
