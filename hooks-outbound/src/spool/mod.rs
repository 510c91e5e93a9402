//! The durable spool (feature `durable`): `$HERMES_HOME/outbound/spool.sqlite3`,
//! one row per delivery of a `delivery: durable` target, written before `emit`
//! returns and removed only when the receiver answered 2xx.
//!
//! SQLite in WAL mode, `synchronous=NORMAL` by default (a committed row
//! survives a `kill -9` of any process) or `FULL` (`durability: power_loss`,
//! an fsync per commit). No checkpoint runs inside an emit's commit: the
//! worker checkpoints after delivering and when idle. Several processes may
//! share one spool (a host draining in the background, `hooks deliver`
//! workers): a row is *claimed* with a lease token before it is sent, so two
//! of them never send it at once; a claimer killed mid-delivery leaves a lease
//! that another worker takes over once the holder is seen gone (same boot) or
//! the lease unchanged for its length by the taker's own monotonic clock —
//! never by comparing two processes' wall clocks — and the row is sent again
//! under the same `delivery_id` (receivers dedupe on it).
//!
//! Rows that a 4xx, a 3xx or `max_age` ended move to the `dead` table, where
//! `hooks spool` shows them and `hooks spool retry` brings them back.

mod send;
mod store;
mod worker;
mod writer;

pub use store::{
    Durability, LeaseWatch, NewDelivery, Spool, SpoolError, SpoolRow, SpoolTable, TargetStats,
};
pub use worker::{DrainPass, SettleObserver, Settled, SpoolWorker, WorkerHandle};
pub use writer::{DEFAULT_HOLD_CAPACITY, OwnedDelivery, SpoolWriter, WriteOutcome, WriterStats};

pub use crate::outbound::{SpoolLeft, spool_path};

/// The key a spool row names its target by: stable across restarts while the
/// target's url and name stay the same, and holding no credential (a hash).
pub fn target_key(target: &crate::TargetSpec) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(target.url.as_bytes());
    hash.update([0]);
    hash.update(target.name.as_deref().unwrap_or_default().as_bytes());
    hex::encode(&hash.finalize()[..12])
}

/// The environment variable that shifts the spool's clock by that many
/// seconds (signed). **For tests only**: it plays a machine whose clock is
/// wrong (`hooks deliver` on a host two days ahead) without root or
/// libfaketime. Never set it in production.
pub const CLOCK_OFFSET_ENV: &str = "HERMES_HOOKS_TEST_CLOCK_OFFSET_SECS";

/// Milliseconds since the Unix epoch, the spool's clock (shifted by
/// [`CLOCK_OFFSET_ENV`] when set).
pub(crate) fn now_ms() -> i64 {
    static OFFSET_MS: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    let offset = *OFFSET_MS.get_or_init(|| {
        std::env::var(CLOCK_OFFSET_ENV)
            .ok()
            .and_then(|value| value.trim().parse::<i64>().ok())
            .map_or(0, |seconds| seconds.saturating_mul(1000))
    });
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
        .saturating_add(offset)
}
