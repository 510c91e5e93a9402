//! What a host reports: per-mechanism status, [`FlushReport`], [`ShutdownReport`].

use hermes_hooks_process::runtime::Stopped;

#[cfg(feature = "outbound")]
use hermes_hooks_outbound::{DeliveryReport, DeliveryTotals, SpoolLeft};

/// What one mechanism registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MechanismStatus {
    /// `plugins`, `shell`, `imported` (with `hooks_from:`), `outbound` or `gateway`.
    pub mechanism: &'static str,
    /// How many were registered (plugins, hooks, targets).
    pub registered: usize,
    /// How many were configured but left out (failed to load, refused consent, skipped).
    pub failed: usize,
    /// A short description, e.g. `2 shell hook(s)`.
    pub summary: String,
}

impl MechanismStatus {
    /// A status line for `mechanism`.
    pub fn new(
        mechanism: &'static str,
        registered: usize,
        failed: usize,
        summary: impl Into<String>,
    ) -> MechanismStatus {
        MechanismStatus {
            mechanism,
            registered,
            failed,
            summary: summary.into(),
        }
    }
}

/// What [`super::Host::flush`] waited for and what became of it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FlushReport {
    /// Webhook delivery reports finished since the last flush (the most
    /// recent, when there are more than the list keeps).
    #[cfg(feature = "outbound")]
    pub deliveries: Vec<DeliveryReport>,
    /// Every delivery report since the last flush, by outcome, listed or not.
    #[cfg(feature = "outbound")]
    pub totals: DeliveryTotals,
    /// Reports not in `deliveries` (the capped list let the oldest go).
    #[cfg(feature = "outbound")]
    pub omitted: u64,
    /// Webhook deliveries still queued or in flight at the bound.
    pub pending: u64,
    /// Whether the OTLP collector did not take the hook-run spans within
    /// 40 ms (`otlp::FLUSH_WAIT`; feature `otlp`, always `false` without
    /// it): the send goes on in the background, and a process that exits
    /// now drops them.
    pub spans_abandoned: bool,
    /// With a `delivery: durable` target: what this host's spooled rows
    /// came to so far, with the spool writer's health (`held` in memory,
    /// `spool_failed`: lost because the spool could not be written).
    #[cfg(feature = "outbound")]
    pub spool: Option<hermes_hooks_outbound::SpoolStatus>,
}

/// What [`super::Host::shutdown`] did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// Every webhook delivery report not taken before.
    #[cfg(feature = "outbound")]
    pub deliveries: Vec<DeliveryReport>,
    /// Webhook deliveries still queued or in flight at the bound: abandoned.
    pub abandoned: u64,
    /// Every delivery report since the last take, by outcome, listed or not.
    #[cfg(feature = "outbound")]
    pub totals: DeliveryTotals,
    /// Reports not in `deliveries` (the capped list let the oldest go).
    #[cfg(feature = "outbound")]
    pub omitted: u64,
    /// Whether every streaming observer queue drained in time.
    pub observers_drained: bool,
    /// How the host's own background runtime stopped (its tasks dropped,
    /// every gateway worker and handler process killed with its tree);
    /// `None` when the runtime was given ([`super::HostOptions::runtime`]) and
    /// is left running.
    pub runtime: Option<Stopped>,
    /// Whether the runtime's stop hit its bound: a task still blocked a
    /// thread, which is left to end on its own.
    pub bound_hit: bool,
    /// With a `delivery: durable` target: what the spool still holds after
    /// its background worker stopped (the next host of the home, or
    /// `hooks deliver`, sends it).
    #[cfg(feature = "outbound")]
    pub spool: Option<SpoolLeft>,
}
