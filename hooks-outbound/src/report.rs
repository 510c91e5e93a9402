//! What became of each delivery, and the running counters.

use std::time::Duration;

use serde::Serialize;

/// How one delivery ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeliveryOutcome {
    /// A 2xx answer.
    Delivered,
    /// A 4xx answer: the receiver refused the request; not retried.
    Rejected,
    /// A 3xx answer: never followed; the configured url needs updating.
    Redirected {
        /// The `Location` header, if any.
        location: Option<String>,
    },
    /// Every attempt failed (connection error, timeout, 5xx, ...).
    Failed {
        /// The last attempt's error.
        error: String,
    },
    /// Not sent: the target's queue was full (or its worker had stopped).
    Dropped,
    /// Still queued or in flight when a flush ran out of time: the process
    /// went on (usually to exit) without knowing whether it arrived.
    Abandoned,
    /// `delivery: durable`: written to the spool, which delivers it from there
    /// (in the background of this host, or by `hooks deliver`).
    Spooled,
    /// A NATS JetStream target: the stream acknowledged it (stored once, by its id).
    Published,
    /// `delivery: durable`, but the spool could not be written: held in a
    /// bounded queue in memory and written when the spool recovers (lost,
    /// and counted as `spool_failed`, if the process stops first).
    Held,
}

impl DeliveryOutcome {
    /// A short word for tables: `delivered`, `rejected`, `redirected`, `failed`,
    /// `dropped`, `abandoned`, `spooled`, `published`, `held`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DeliveryOutcome::Delivered => "delivered",
            DeliveryOutcome::Rejected => "rejected",
            DeliveryOutcome::Redirected { .. } => "redirected",
            DeliveryOutcome::Failed { .. } => "failed",
            DeliveryOutcome::Dropped => "dropped",
            DeliveryOutcome::Abandoned => "abandoned",
            DeliveryOutcome::Spooled => "spooled",
            DeliveryOutcome::Published => "published",
            DeliveryOutcome::Held => "held",
        }
    }
}

/// The record of one finished (or dropped) delivery. Holds no secret or signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DeliveryReport {
    /// The target's label (name, else url).
    pub target: String,
    /// The event name.
    pub event: String,
    /// The delivery id (`X-Hermes-Delivery` and the body's `delivery_id`).
    pub delivery_id: String,
    /// HTTP attempts made (0 for a dropped delivery).
    pub attempts: u32,
    /// The last HTTP status received, if any.
    pub status: Option<u16>,
    /// How it ended.
    pub outcome: DeliveryOutcome,
    /// From enqueue to the end of the last attempt (queue wait included).
    #[serde(rename = "elapsed_ms", serialize_with = "as_millis")]
    pub elapsed: Duration,
}

fn as_millis<S: serde::Serializer>(elapsed: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(elapsed.as_secs_f64() * 1000.0)
}

/// Counters since the [`Outbound`] was built.
///
#[cfg_attr(feature = "sender", doc = "[`Outbound`]: crate::Outbound")]
#[cfg_attr(not(feature = "sender"), doc = "[`Outbound`]: crate#features")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OutboundStats {
    /// Deliveries accepted into a queue.
    pub enqueued: u64,
    /// Deliveries answered with a 2xx.
    pub delivered: u64,
    /// Deliveries that ended otherwise: rejected (4xx), redirected (3xx) or failed.
    pub failed: u64,
    /// Deliveries dropped because their target's queue was full.
    pub dropped: u64,
    /// Second (and later) attempts made.
    pub retries: u64,
    /// Deliveries queued or in flight right now.
    pub pending: u64,
    /// Durable deliveries written to the spool (refused ones count as dropped).
    pub spooled: u64,
}

/// How many deliveries ended each way over one span of reports (since the
/// last [`Outbound::take_report_batch`]), listed or not. A struct, not a
/// map, so a new kind of ending is a new field.
///
#[cfg_attr(
    feature = "sender",
    doc = "[`Outbound::take_report_batch`]: crate::Outbound::take_report_batch"
)]
#[cfg_attr(
    not(feature = "sender"),
    doc = "[`Outbound::take_report_batch`]: crate#features"
)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DeliveryTotals {
    /// Answered with a 2xx.
    pub delivered: u64,
    /// Answered with a 4xx (not retried).
    pub rejected: u64,
    /// Answered with a 3xx (never followed).
    pub redirected: u64,
    /// Every attempt failed.
    pub failed: u64,
    /// Never sent: the target's queue was full.
    pub dropped: u64,
    /// Still queued or in flight when a flush ran out of time (one that
    /// finishes later is counted again by how it ended).
    pub abandoned: u64,
    /// Written to the durable spool (sent later by its worker).
    pub spooled: u64,
    /// Acknowledged by a NATS JetStream stream.
    pub published: u64,
    /// Held in memory: the durable spool could not be written.
    pub held: u64,
}

impl DeliveryTotals {
    /// Counts one report's outcome.
    pub fn count(&mut self, outcome: &DeliveryOutcome) {
        let counter = match outcome {
            DeliveryOutcome::Delivered => &mut self.delivered,
            DeliveryOutcome::Rejected => &mut self.rejected,
            DeliveryOutcome::Redirected { .. } => &mut self.redirected,
            DeliveryOutcome::Failed { .. } => &mut self.failed,
            DeliveryOutcome::Dropped => &mut self.dropped,
            DeliveryOutcome::Abandoned => &mut self.abandoned,
            DeliveryOutcome::Spooled => &mut self.spooled,
            DeliveryOutcome::Published => &mut self.published,
            DeliveryOutcome::Held => &mut self.held,
        };
        *counter += 1;
    }

    /// Every report counted.
    pub fn total(&self) -> u64 {
        self.delivered
            + self.rejected
            + self.redirected
            + self.failed
            + self.dropped
            + self.abandoned
            + self.spooled
            + self.published
            + self.held
    }

    /// The non-zero counts in words, e.g. `500 delivered, 199500 dropped`
    /// (`none` when nothing was counted).
    pub fn to_text(&self) -> String {
        let parts: Vec<String> = [
            (self.delivered, "delivered"),
            (self.rejected, "rejected"),
            (self.redirected, "redirected"),
            (self.failed, "failed"),
            (self.dropped, "dropped"),
            (self.abandoned, "abandoned"),
            (self.spooled, "spooled"),
            (self.published, "published"),
            (self.held, "held"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| format!("{count} {word}"))
        .collect();
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// The reports taken at once, the totals of every report of the span (the
/// listed ones and those the capped list let go) and how many it let go.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReportBatch {
    /// The most recent reports, in finishing order (at most `report_capacity`).
    pub reports: Vec<DeliveryReport>,
    /// Every report of the span, by outcome.
    pub totals: DeliveryTotals,
    /// Reports of the span not in `reports` (the oldest, let go at the cap).
    pub omitted: u64,
}

impl ReportBatch {
    /// Whether `reports` leaves some out.
    pub fn is_truncated(&self) -> bool {
        self.omitted > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_serialise_for_the_cli() {
        let report = DeliveryReport {
            target: "ci".into(),
            event: "on_session_end".into(),
            delivery_id: "abc".into(),
            attempts: 1,
            status: Some(302),
            outcome: DeliveryOutcome::Redirected {
                location: Some("https://elsewhere".into()),
            },
            elapsed: Duration::from_millis(12),
        };
        let json = serde_json::to_value(&report).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"target": "ci", "event": "on_session_end", "delivery_id": "abc",
                "attempts": 1, "status": 302,
                "outcome": {"kind": "redirected", "location": "https://elsewhere"}, "elapsed_ms": 12.0})
        );
        assert_eq!(report.outcome.as_str(), "redirected");
    }

    #[test]
    fn totals_count_every_kind() {
        let mut totals = DeliveryTotals::default();
        for outcome in [
            DeliveryOutcome::Delivered,
            DeliveryOutcome::Dropped,
            DeliveryOutcome::Dropped,
            DeliveryOutcome::Failed { error: "x".into() },
        ] {
            totals.count(&outcome);
        }
        assert_eq!(totals.total(), 4);
        assert_eq!(totals.to_text(), "1 delivered, 1 failed, 2 dropped");
        assert_eq!(DeliveryTotals::default().to_text(), "none");
    }
}
