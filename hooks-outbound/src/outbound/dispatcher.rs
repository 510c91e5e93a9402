//! [`Outbound`] as a [`Dispatcher`]: every path queues and returns at once.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use hermes_hooks_core::{Dispatcher, Event, EventName, HookRun, Reply, RunStatus};

use super::{Offered, Outbound};

#[async_trait]
impl Dispatcher for Outbound {
    fn name(&self) -> &str {
        "outbound"
    }

    fn interest(&self, event: &EventName) -> bool {
        event
            .hook()
            .is_some_and(|hook| !self.by_event[hook.index()].is_empty())
    }

    /// Queues the deliveries and returns at once: webhooks observe, never steer.
    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.enqueue_with(event, |_, _, _| {});
        Vec::new()
    }

    /// Queues as [`Dispatcher::dispatch`] does; each target offered the event
    /// is a run: `Queued`, or `Skipped` when its lane was full (dropped).
    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        let started = Instant::now();
        self.enqueue_with(event, |lane, delivery_id, offered| {
            let (status, note) = match offered {
                Offered::Accepted => (RunStatus::Queued, None),
                Offered::LaneFull => (
                    RunStatus::Skipped("its delivery lane is full; the delivery was dropped".into()),
                    None,
                ),
                Offered::SpoolFull => (
                    RunStatus::Skipped("its spool rows reached max_spool; the delivery was refused".into()),
                    None,
                ),
                Offered::SpoolHeld => (
                    RunStatus::Queued,
                    Some("spool_failed: the spool cannot be written; held in memory until it can"),
                ),
                Offered::SpoolFailed => (
                    RunStatus::Skipped(
                        "spool_failed: the spool cannot be written and the in-memory hold is full; the delivery was refused"
                            .into(),
                    ),
                    Some("spool_failed"),
                ),
            };
            let mut run = HookRun::new(
                "outbound",
                format!("webhook:{}", lane.label),
                event.name(),
                status,
            )
            .elapsed(started.elapsed())
            .diagnostic(format!("delivery {delivery_id}"));
            if let Some(note) = note {
                run = run.diagnostic(note);
            }
            runs.push(run);
        });
        Vec::new()
    }

    /// The fast path: queueing never waits, so every event finishes on the spot.
    fn dispatch_now(&self, event: &Event, _replies: &mut Vec<Reply>) -> bool {
        self.enqueue_with(event, |_, _, _| {});
        true
    }

    /// Waits for queued deliveries, at most `timeout`. Those still queued or
    /// in flight then get an [`crate::DeliveryOutcome::Abandoned`] report, so
    /// [`Outbound::take_reports`] lists them instead of leaving them out.
    /// Durable rows this process spooled are waited for too, until each was
    /// attempted once (what is left then is for `hooks deliver`).
    async fn flush(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let idle = self.wait_idle(timeout).await;
        let remaining = deadline.saturating_duration_since(Instant::now());
        if !self.wait_spooled(remaining).await {
            tracing::debug!(
                "outbound flush: spooled deliveries left unattempted for `hooks deliver`"
            );
        }
        if !idle {
            let abandoned = self.shared.abandon_waiting();
            tracing::warn!(
                "outbound webhook flush gave up after {:.1}s with {} delivery(ies) pending; {abandoned} abandoned",
                timeout.as_secs_f64(),
                self.stats().pending
            );
        }
    }
}
