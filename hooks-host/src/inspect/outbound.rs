//! Outbound webhook targets as configured, with their URLs safe to show
//! (hooks-outbound's one redaction).

use hermes_hooks_outbound::TargetSpec;
pub use hermes_hooks_outbound::redact::redact_url;
use serde_json::{Value, json};

/// One configured webhook target.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OutboundRow {
    /// The validated config entry.
    pub target: TargetSpec,
}

impl OutboundRow {
    /// The URL with credentials, query values and secret path segments masked.
    pub fn url(&self) -> String {
        self.target.redacted_url()
    }

    /// The name, else host and path with secrets masked.
    pub fn label(&self) -> String {
        self.target.label()
    }

    /// `best_effort` or `durable`.
    pub fn delivery(&self) -> &'static str {
        self.target.delivery.as_str()
    }

    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        let mut row = json!({
            "name": self.target.name,
            "url": self.url(),
            "events": self.target.events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
            "matcher": self.target.matcher.pattern(),
            "signed": self.target.is_signed(),
            "timeout": self.target.timeout.as_secs(),
            "delivery": self.delivery(),
            "concurrency": self.target.concurrency,
        });
        if let Some(nats) = &self.target.nats {
            row["nats"] = json!({"subject": nats.subject, "stream": nats.stream});
        }
        row
    }

    /// For a NATS target: whether its server answers and its stream exists
    /// (at most `timeout`); `None` for an HTTP target.
    pub async fn probe(
        &self,
        timeout: std::time::Duration,
    ) -> Option<hermes_hooks_outbound::nats::Probe> {
        self.target.nats.as_ref()?;
        Some(hermes_hooks_outbound::nats::probe(&self.target, timeout).await)
    }
}
