//! Outbound webhook targets as configured, with their URLs safe to show
//! (hooks-outbound's one redaction).

use hermes_hooks_outbound::TargetSpec;
pub use hermes_hooks_outbound::redact::redact_url;
use serde_json::{Value, json};

/// One configured webhook target.
#[derive(Debug, Clone)]
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

    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.target.name,
            "url": self.url(),
            "events": self.target.events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
            "signed": self.target.is_signed(),
            "timeout": self.target.timeout.as_secs(),
        })
    }
}
