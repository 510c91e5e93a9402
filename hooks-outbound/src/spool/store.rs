//! The spool's SQLite file: schema, inserts on the emitting thread, claims with
//! leases, and what operators do (`hooks spool`: list, retry, purge).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::now_ms;
pub use crate::config::Durability;

/// How long a writer waits for another process's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// The size a checkpointed WAL is cut back to (bytes).
const JOURNAL_SIZE_LIMIT: i64 = 64 << 20;
/// Rows written through one handle after which its writer checkpoints
/// itself (when no worker did meanwhile: a spool nobody drains).
const CHECKPOINT_SAFETY_ROWS: u64 = 16_384;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    target_key TEXT NOT NULL,
    target TEXT NOT NULL,
    event TEXT NOT NULL,
    delivery_id TEXT NOT NULL UNIQUE,
    document BLOB NOT NULL,
    created_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    last_error TEXT,
    lease_until_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS pending_due ON pending (target_key, next_attempt_ms);
CREATE INDEX IF NOT EXISTS pending_order ON pending (target_key);
CREATE TABLE IF NOT EXISTS dead (
    id INTEGER PRIMARY KEY,
    target_key TEXT NOT NULL,
    target TEXT NOT NULL,
    event TEXT NOT NULL,
    delivery_id TEXT NOT NULL UNIQUE,
    document BLOB NOT NULL,
    created_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    died_ms INTEGER NOT NULL
);
";

/// Why the spool could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpoolError {
    /// The file or its folder could not be created or opened.
    #[error("spool {path}: {source}")]
    Io {
        /// The spool file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// SQLite refused (a corrupt file, a full disk, a lock held too long).
    #[error("spool {path}: {source}")]
    Sqlite {
        /// The spool file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
}

/// A delivery to write to the spool.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct NewDelivery<'a> {
    /// [`super::target_key`] of the target.
    pub target_key: &'a str,
    /// The target's label, for people.
    pub target: &'a str,
    /// The event name.
    pub event: &'a str,
    /// The delivery id, kept across every attempt.
    pub delivery_id: &'a str,
    /// The event's document (the body without `delivery_id` and `timestamp`,
    /// which each attempt splices in, the timestamp fresh).
    pub document: &'a [u8],
    /// The target's `max_spool`: past it the delivery is refused.
    pub max_rows: u64,
}

/// Which table a row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpoolTable {
    /// Waiting for its (next) attempt.
    Pending,
    /// Given up: a 4xx or 3xx answer, or older than `max_age`.
    Dead,
}

/// One spooled delivery.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct SpoolRow {
    /// The row id (for the worker; operators use `delivery_id`).
    #[serde(skip)]
    pub id: i64,
    /// Pending or dead.
    pub state: SpoolTable,
    /// The target's label.
    pub target: String,
    /// [`super::target_key`] of the target.
    #[serde(skip)]
    pub target_key: String,
    /// The event name.
    pub event: String,
    /// The delivery id.
    pub delivery_id: String,
    /// When it was spooled (ms since the epoch).
    pub created_ms: i64,
    /// Attempts made so far.
    pub attempts: u32,
    /// The last attempt's error.
    pub last_error: Option<String>,
    /// Pending: when the next attempt is due (ms since the epoch); dead: when it died.
    pub next_attempt_ms: i64,
    /// How long it has been retried since its first attempt (ms, summed
    /// from the workers' own measurements; 0 before the second attempt).
    pub retrying_ms: i64,
    /// The document (not shown).
    #[serde(skip)]
    pub document: Vec<u8>,
}

/// The spool of one home, shared by the emitting threads and the worker.
pub struct Spool {
    path: PathBuf,
    connection: Mutex<Connection>,
    /// A second connection for WAL checkpoints, so that one never holds up
    /// an insert (opened on the first checkpoint).
    checkpointer: Mutex<Option<Connection>>,
    /// Rows written through this handle since its last checkpoint.
    unchecked: AtomicU64,
}

impl std::fmt::Debug for Spool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spool").field("path", &self.path).finish()
    }
}

impl Spool {
    /// Opens (creating when missing, readable by the owner only) the spool at
    /// `path` with the default durability ([`Durability::ProcessCrash`]).
    pub fn open(path: &Path) -> Result<Spool, SpoolError> {
        Spool::open_with(path, Durability::default())
    }

    /// [`Spool::open`] with the given durability of each commit.
    pub fn open_with(path: &Path, durability: Durability) -> Result<Spool, SpoolError> {
        let io = |source| SpoolError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        // Bodies hold tool inputs: the file is created private before SQLite opens it.
        {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(path)
                .map_err(io)?;
        }
        let sqlite = |source| SpoolError::Sqlite {
            path: path.to_owned(),
            source,
        };
        let connection = Connection::open(path).map_err(sqlite)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        // NORMAL in WAL: a committed row survives the death of any process
        // (the WAL is in the OS's hands); FULL adds an fsync per commit, so
        // it survives a power loss too.
        connection
            .pragma_update(None, "synchronous", durability.synchronous())
            .map_err(sqlite)?;
        // No checkpoint inside a commit (it fsyncs even under NORMAL, and
        // an emit would wait for it): the delivering side checkpoints off the
        // emit path ([`Spool::checkpoint`]), and the last connection to close
        // does too.
        connection
            .pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(sqlite)?;
        connection
            .pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT)
            .map_err(sqlite)?;
        connection.execute_batch(SCHEMA).map_err(sqlite)?;
        migrate(&connection).map_err(sqlite)?;
        Ok(Spool {
            path: path.to_owned(),
            connection: Mutex::new(connection),
            checkpointer: Mutex::new(None),
            unchecked: AtomicU64::new(0),
        })
    }

    /// The spool file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, SpoolError> {
        // A panic elsewhere while holding the lock leaves a usable connection.
        let mut connection = self
            .connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        work(&mut connection).map_err(|source| SpoolError::Sqlite {
            path: self.path.clone(),
            source,
        })
    }

    /// Copies the WAL into the database file (SQLite's PASSIVE checkpoint,
    /// on a connection of its own: inserts go on meanwhile). The worker calls
    /// it after delivering and when idle, off the emit path.
    pub fn checkpoint(&self) -> Result<(), SpoolError> {
        let sqlite = |source| SpoolError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let mut checkpointer = self
            .checkpointer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if checkpointer.is_none() {
            let connection = Connection::open(&self.path).map_err(sqlite)?;
            connection.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
            *checkpointer = Some(connection);
        }
        if let Some(connection) = checkpointer.as_ref() {
            self.unchecked.store(0, Ordering::Relaxed);
            connection
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                .map_err(sqlite)?;
        }
        Ok(())
    }

    /// Writes `delivery` (due now); `Ok(false)` when its target already holds
    /// `max_rows` pending deliveries and it was refused.
    pub fn insert(&self, delivery: &NewDelivery<'_>) -> Result<bool, SpoolError> {
        Ok(self.insert_batch(std::slice::from_ref(delivery))?[0])
    }

    /// Writes `deliveries` in one transaction (one commit for all: group
    /// commit); per delivery, whether it was kept (false: its target already
    /// held `max_rows`). A delivery id already in the spool counts as kept.
    /// New rows are due at once: their due time holds no producer's clock.
    pub fn insert_batch(&self, deliveries: &[NewDelivery<'_>]) -> Result<Vec<bool>, SpoolError> {
        let kept = self.with(|connection| {
            let now = now_ms();
            let transaction =
                connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let mut room: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
            let mut kept = Vec::with_capacity(deliveries.len());
            {
                let mut count =
                    transaction.prepare_cached("SELECT COUNT(*) FROM pending WHERE target_key = ?1")?;
                let mut insert = transaction.prepare_cached(
                    "INSERT OR IGNORE INTO pending (target_key, target, event, delivery_id, document,
                        created_ms, next_attempt_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)",
                )?;
                for delivery in deliveries {
                    let left = match room.get(delivery.target_key) {
                        Some(left) => *left,
                        None => {
                            let held: i64 =
                                count.query_row([delivery.target_key], |row| row.get(0))?;
                            i64::try_from(delivery.max_rows)
                                .unwrap_or(i64::MAX)
                                .saturating_sub(held)
                        }
                    };
                    if left <= 0 {
                        room.insert(delivery.target_key, left);
                        kept.push(false);
                        continue;
                    }
                    let inserted = insert.execute(params![
                        delivery.target_key,
                        delivery.target,
                        delivery.event,
                        delivery.delivery_id,
                        delivery.document,
                        now,
                    ])?;
                    room.insert(delivery.target_key, left - i64::from(inserted == 1));
                    kept.push(true);
                }
            }
            transaction.commit()?;
            Ok(kept)
        })?;
        let written = self
            .unchecked
            .fetch_add(deliveries.len() as u64, Ordering::Relaxed);
        if written >= CHECKPOINT_SAFETY_ROWS {
            self.checkpoint()?;
        }
        Ok(kept)
    }

    /// Row `id` was answered 2xx: it leaves the spool.
    pub fn settle_delivered(&self, id: i64) -> Result<(), SpoolError> {
        self.with(|connection| {
            connection.execute("DELETE FROM pending WHERE id = ?1", [id])?;
            Ok(())
        })
    }

    /// Row `id` failed for now: its next attempt is at `next_attempt_ms`,
    /// and it has been retried for `retrying_ms` since its first attempt
    /// (measured by the workers' own clocks, never across two of them).
    pub fn settle_retry(
        &self,
        id: i64,
        attempts: u32,
        next_attempt_ms: i64,
        retrying_ms: i64,
        error: &str,
    ) -> Result<(), SpoolError> {
        self.with(|connection| {
            connection.execute(
                "UPDATE pending SET attempts = ?2, next_attempt_ms = ?3, last_error = ?4,
                 lease_until_ms = 0, lease_token = 0, lease_holder = NULL, retrying_ms = ?5
                 WHERE id = ?1",
                params![id, attempts, next_attempt_ms, error, retrying_ms],
            )?;
            Ok(())
        })
    }

    /// Row `id` is given up (`error` says why): it moves to the dead letters.
    pub fn settle_dead(&self, id: i64, attempts: u32, error: &str) -> Result<(), SpoolError> {
        self.with(|connection| {
            let transaction = connection.transaction()?;
            transaction.execute(
                "INSERT OR REPLACE INTO dead (id, target_key, target, event, delivery_id, document,
                    created_ms, attempts, last_error, died_ms)
                 SELECT id, target_key, target, event, delivery_id, document, created_ms, ?2, ?3, ?4
                 FROM pending WHERE id = ?1",
                params![id, attempts, error, now_ms()],
            )?;
            transaction.execute("DELETE FROM pending WHERE id = ?1", [id])?;
            transaction.commit()
        })
    }

    /// When the next row of `target_keys` is due (ms since the epoch), if any is pending.
    pub fn next_due_ms(&self, target_keys: &[String]) -> Result<Option<i64>, SpoolError> {
        if target_keys.is_empty() {
            return Ok(None);
        }
        self.with(|connection| {
            let sql = format!(
                "SELECT MIN(next_attempt_ms) FROM pending WHERE lease_token = 0 AND target_key IN ({})",
                placeholders(target_keys.len(), 1)
            );
            connection
                .query_row(&sql, rusqlite::params_from_iter(target_keys), |row| {
                    row.get::<_, Option<i64>>(0)
                })
                .optional()
                .map(Option::flatten)
        })
    }
}

const COLUMNS: &str = "id, target_key, target, event, delivery_id, document, created_ms, attempts, \
                       last_error, next_attempt_ms, retrying_ms";
const DEAD_COLUMNS: &str = "id, target_key, target, event, delivery_id, document, created_ms, attempts, last_error, died_ms, 0";

/// Brings a spool made by an older version up to this schema.
fn migrate(connection: &Connection) -> rusqlite::Result<()> {
    let has_retrying = connection
        .prepare("SELECT 1 FROM pragma_table_info('pending') WHERE name = 'retrying_ms'")?
        .exists([])?;
    if !has_retrying {
        connection.execute_batch(
            "ALTER TABLE pending ADD COLUMN retrying_ms INTEGER NOT NULL DEFAULT 0",
        )?;
    }
    // Leases by token (see `lease`): a spool of an older version loses its
    // wall-clock leases, so a row an old worker is sending right now may be
    // sent once more (same `delivery_id`).
    let has_token = connection
        .prepare("SELECT 1 FROM pragma_table_info('pending') WHERE name = 'lease_token'")?
        .exists([])?;
    if !has_token {
        connection.execute_batch(
            "ALTER TABLE pending ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE pending ADD COLUMN lease_ms INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE pending ADD COLUMN lease_holder TEXT;",
        )?;
    }
    Ok(())
}

fn read_row(row: &rusqlite::Row<'_>, state: SpoolTable) -> rusqlite::Result<SpoolRow> {
    Ok(SpoolRow {
        id: row.get(0)?,
        state,
        target_key: row.get(1)?,
        target: row.get(2)?,
        event: row.get(3)?,
        delivery_id: row.get(4)?,
        document: row.get(5)?,
        created_ms: row.get(6)?,
        attempts: row.get(7)?,
        last_error: row.get(8)?,
        next_attempt_ms: row.get(9)?,
        retrying_ms: row.get(10)?,
    })
}

/// `?first, ?first+1, ...` for `count` values.
fn placeholders(count: usize, first: usize) -> String {
    (first..first + count)
        .map(|index| format!("?{index}"))
        .collect::<Vec<_>>()
        .join(", ")
}

mod admin;
mod lease;
pub use admin::TargetStats;
pub use lease::LeaseWatch;

#[cfg(test)]
mod tests;
