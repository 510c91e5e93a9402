//! What operators do with a spool (`hooks spool`, `hooks doctor`, metrics):
//! list, count, retry, purge, probe, and the per-target numbers.

use rusqlite::params;
use serde::Serialize;

use super::{COLUMNS, DEAD_COLUMNS, Spool, SpoolError, SpoolRow, SpoolTable, read_row};
use crate::spool::now_ms;

/// What the spool holds for one target.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TargetStats {
    /// The target's label.
    pub target: String,
    /// Rows waiting for their (next) attempt, in flight included.
    pub pending: u64,
    /// Rows leased by a worker right now (being sent).
    pub in_flight: u64,
    /// Dead letters.
    pub dead: u64,
    /// When the oldest pending row was spooled (ms since the epoch, the producer's clock).
    pub oldest_created_ms: Option<i64>,
}

impl TargetStats {
    /// Nothing held for `target`.
    pub fn empty(target: &str) -> TargetStats {
        TargetStats {
            target: target.to_owned(),
            ..TargetStats::default()
        }
    }
}

impl Spool {
    /// Every row of `table`, oldest first.
    pub fn list(&self, table: SpoolTable) -> Result<Vec<SpoolRow>, SpoolError> {
        self.with(|connection| {
            let sql = match table {
                SpoolTable::Pending => format!("SELECT {COLUMNS} FROM pending ORDER BY id"),
                SpoolTable::Dead => format!("SELECT {DEAD_COLUMNS} FROM dead ORDER BY died_ms, id"),
            };
            let mut statement = connection.prepare(&sql)?;
            statement
                .query_map([], |row| read_row(row, table))?
                .collect()
        })
    }

    /// Commits a one-row write (a health table): `Ok` when the spool can be
    /// written now (the disk has room, the file and its folder are writable).
    pub fn probe_write(&self) -> Result<(), SpoolError> {
        self.with(|connection| {
            connection.execute_batch(
                "CREATE TABLE IF NOT EXISTS health (id INTEGER PRIMARY KEY, checked_ms INTEGER NOT NULL)",
            )?;
            connection.execute(
                "INSERT OR REPLACE INTO health (id, checked_ms) VALUES (1, ?1)",
                [now_ms()],
            )?;
            Ok(())
        })
    }

    /// How many rows are pending and dead.
    pub fn counts(&self) -> Result<(u64, u64), SpoolError> {
        self.with(|connection| {
            connection.query_row(
                "SELECT (SELECT COUNT(*) FROM pending), (SELECT COUNT(*) FROM dead)",
                [],
                |row| Ok((row.get::<_, u64>(0)?, row.get::<_, u64>(1)?)),
            )
        })
    }

    /// Makes delivery `delivery_id` (or, with `None`, every row) due now: a
    /// dead one goes back to pending with its attempts kept. Returns how many.
    pub fn retry(&self, delivery_id: Option<&str>) -> Result<usize, SpoolError> {
        self.with(|connection| {
            let transaction = connection.transaction()?;
            let now = now_ms();
            let filter = if delivery_id.is_some() {
                "WHERE delivery_id = ?2"
            } else {
                "WHERE ?2 IS NULL"
            };
            transaction.execute(
                &format!(
                    "INSERT OR IGNORE INTO pending (target_key, target, event, delivery_id, document,
                        created_ms, attempts, next_attempt_ms, last_error)
                     SELECT target_key, target, event, delivery_id, document, ?1, attempts, ?1, last_error
                     FROM dead {filter} ORDER BY id"
                ),
                params![now, delivery_id],
            )?;
            // ?1 is unused here; numbered parameters still count it.
            transaction.execute(
                &format!("DELETE FROM dead {filter} AND ?1 IS NOT NULL"),
                params![now, delivery_id],
            )?;
            let due = transaction.execute(
                &format!(
                    "UPDATE pending SET next_attempt_ms = ?1 {filter} AND lease_token = 0"
                ),
                params![now, delivery_id],
            )?;
            transaction.commit()?;
            // Revived rows are counted by the update, which made them due again.
            Ok(due)
        })
    }

    /// Deletes the dead letters (`dead_only`) or every row; returns how many.
    pub fn purge(&self, dead_only: bool) -> Result<usize, SpoolError> {
        self.with(|connection| {
            let mut removed = connection.execute("DELETE FROM dead", [])?;
            if !dead_only {
                removed += connection.execute("DELETE FROM pending", [])?;
            }
            Ok(removed)
        })
    }

    /// Pending, in-flight and dead rows per target, by label.
    pub fn stats(&self) -> Result<Vec<TargetStats>, SpoolError> {
        self.with(|connection| {
            let mut by_target: std::collections::BTreeMap<String, TargetStats> =
                std::collections::BTreeMap::new();
            let mut pending = connection.prepare(
                "SELECT target, COUNT(*), SUM(lease_token != 0), MIN(created_ms)
                 FROM pending GROUP BY target",
            )?;
            let rows = pending.query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, u64>(1)?,
                    row.get::<_, Option<u64>>(2)?.unwrap_or(0),
                    row.get::<_, Option<i64>>(3)?,
                ))
            })?;
            for row in rows {
                let (target, count, in_flight, oldest) = row?;
                let entry = by_target.entry(target.clone()).or_default();
                entry.target = target;
                entry.pending = count;
                entry.in_flight = in_flight;
                entry.oldest_created_ms = oldest;
            }
            let mut dead =
                connection.prepare("SELECT target, COUNT(*) FROM dead GROUP BY target")?;
            let rows = dead.query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, u64>(1)?))
            })?;
            for row in rows {
                let (target, count) = row?;
                let entry = by_target.entry(target.clone()).or_default();
                entry.target = target;
                entry.dead = count;
            }
            Ok(by_target.into_values().collect())
        })
    }
}
