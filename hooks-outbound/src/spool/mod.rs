//! The durable spool (feature `durable`): `$HERMES_HOME/outbound/spool.sqlite3`,
//! one row per delivery of a `delivery: durable` target, written before `emit`
//! returns and removed only when the receiver answered 2xx.
//!
//! SQLite in WAL mode with `synchronous=FULL`: a committed row survives a
//! `kill -9` of the host (and a power loss). Several processes may share one
//! spool (a host draining in the background, `hooks deliver` workers): a row
//! is *claimed* with a lease before it is sent, so two of them never send it at
//! once; a claimer killed mid-delivery leaves a lease that expires, and the row
//! is sent again under the same `delivery_id` (receivers dedupe on it).
//!
//! Rows that a 4xx, a 3xx or `max_age` ended move to the `dead` table, where
//! `hooks spool` shows them and `hooks spool retry` brings them back.

mod store;
mod worker;

pub use store::{NewDelivery, Spool, SpoolError, SpoolRow, SpoolTable};
pub use worker::{DrainPass, SpoolWorker, WorkerHandle};

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

/// Milliseconds since the Unix epoch, the spool's clock.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
