//! `delivery:`, `max_age:` and `max_spool:` of an outbound target: whether its
//! deliveries live in memory (the doc's best effort) or in the durable spool.

use std::time::Duration;

use hermes_hooks_core::pyvalue::{python_int, repr};
use serde_json::{Map, Value};

use super::{EntryParser, TargetSpec};

/// How long a durable delivery is retried before it becomes a dead letter (24 h).
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// How many deliveries of one target the spool holds by default.
pub const DEFAULT_MAX_SPOOL: u64 = 100_000;

/// How a target's deliveries are kept until they are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeliveryMode {
    /// In a bounded in-memory queue, retried once: the doc's semantics.
    #[default]
    BestEffort,
    /// Written to `$HERMES_HOME/outbound/spool.sqlite3` before `emit`
    /// returns, retried with backoff until a 2xx, a 4xx or `max_age`.
    Durable,
}

impl DeliveryMode {
    /// The config spelling: `best_effort` or `durable`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryMode::BestEffort => "best_effort",
            DeliveryMode::Durable => "durable",
        }
    }
}

/// What a committed spool row survives (`durability:` of a durable target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `process_crash` (the default): SQLite WAL with `synchronous=NORMAL`.
    /// A row `emit` reported as spooled survives `kill -9` of any process
    /// (the host, `hooks deliver`, a writer mid-commit); a power loss or an
    /// OS crash may lose the last commits before the WAL reached the disk.
    #[default]
    ProcessCrash,
    /// `power_loss`: `synchronous=FULL`, an fsync per commit (one per group
    /// of concurrent emits): a row reported as spooled survives a power loss
    /// too, at the cost of a disk flush on the writer thread.
    PowerLoss,
}

impl Durability {
    /// The config spelling: `process_crash` or `power_loss`.
    pub fn as_str(self) -> &'static str {
        match self {
            Durability::ProcessCrash => "process_crash",
            Durability::PowerLoss => "power_loss",
        }
    }

    /// SQLite's `synchronous` setting for it.
    pub fn synchronous(self) -> &'static str {
        match self {
            Durability::ProcessCrash => "NORMAL",
            Durability::PowerLoss => "FULL",
        }
    }
}

impl EntryParser<'_> {
    /// Reads the durability keys into `target`; a bad value is a warning and
    /// the default. A misspelt mode is read as `durable`: a user who asked for
    /// a guarantee is not silently given less.
    pub(super) fn durability(&mut self, entry: &Map<String, Value>, target: &mut TargetSpec) {
        let key = self.key.clone();
        target.delivery = match entry.get("delivery") {
            None | Some(Value::Null) => DeliveryMode::BestEffort,
            Some(Value::String(mode)) if mode.trim() == "best_effort" => DeliveryMode::BestEffort,
            Some(Value::String(mode)) if mode.trim() == "durable" => DeliveryMode::Durable,
            Some(other) => {
                self.warn(
                    Some("delivery"),
                    format!(
                        "{key}.delivery must be 'best_effort' or 'durable' (got {}); using durable",
                        repr(other)
                    ),
                );
                DeliveryMode::Durable
            }
        };
        target.durability = match entry.get("durability") {
            None | Some(Value::Null) => Durability::ProcessCrash,
            Some(Value::String(mode)) if mode.trim() == "process_crash" => Durability::ProcessCrash,
            Some(Value::String(mode)) if mode.trim() == "power_loss" => Durability::PowerLoss,
            Some(other) => {
                // The stronger one: a user who asked for a guarantee is not given less.
                self.warn(
                    Some("durability"),
                    format!(
                        "{key}.durability must be 'process_crash' or 'power_loss' (got {}); using power_loss",
                        repr(other)
                    ),
                );
                Durability::PowerLoss
            }
        };
        if let Some(seconds) = self.positive_int(entry, "max_age", DEFAULT_MAX_AGE.as_secs()) {
            target.max_age = Duration::from_secs(seconds);
        }
        if let Some(rows) = self.positive_int(entry, "max_spool", DEFAULT_MAX_SPOOL) {
            target.max_spool = rows;
        }
        let set = |name: &str| entry.get(name).is_some_and(|value| !value.is_null());
        if target.delivery == DeliveryMode::BestEffort
            && let Some(name) = ["max_age", "max_spool", "durability"]
                .into_iter()
                .find(|name| set(name))
        {
            self.warn(
                Some(name),
                format!("{key}.{name} only applies to 'delivery: durable'; ignored"),
            );
        }
    }

    /// A positive integer (seconds or rows) in Python's `int()` sense, or a
    /// humantime duration for `max_age` (`"24h"`); `None` keeps the default.
    fn positive_int(
        &mut self,
        entry: &Map<String, Value>,
        field: &str,
        default: u64,
    ) -> Option<u64> {
        let key = self.key.clone();
        let value = entry.get(field).filter(|value| !value.is_null())?;
        let parsed = match value {
            Value::String(text) if field == "max_age" => humantime::parse_duration(text.trim())
                .ok()
                .map(|duration| duration.as_secs())
                .or_else(|| python_int(value).and_then(|n| u64::try_from(n).ok())),
            _ => python_int(value).and_then(|n| u64::try_from(n).ok()),
        };
        match parsed.filter(|&n| n > 0) {
            Some(n) => Some(n),
            None => {
                self.warn(
                    Some(field),
                    format!(
                        "{key}.{field} must be a positive integer (got {}); using {default}",
                        repr(value)
                    ),
                );
                None
            }
        }
    }
}
