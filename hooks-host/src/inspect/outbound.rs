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

    /// Whether the target is plain `http://` to this machine (`localhost`, a
    /// 127.x address or `[::1]`): its payloads never cross a network, so the
    /// plain-http warning every `http://` URL gets is no problem there.
    pub fn is_loopback_http(&self) -> bool {
        let url = &self.target.url;
        let Some(rest) = url
            .get(..7)
            .filter(|scheme| scheme.eq_ignore_ascii_case("http://"))
            .and_then(|_| url.get(7..))
        else {
            return false;
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host_port = authority.rsplit('@').next().unwrap_or_default();
        let host = match host_port.strip_prefix('[') {
            Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
            None => host_port.split(':').next().unwrap_or_default(),
        };
        host.eq_ignore_ascii_case("localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|address| address.is_loopback())
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

#[cfg(test)]
mod tests {
    use super::OutboundRow;
    use hermes_hooks_outbound::TargetSpec;

    fn row(url: &str) -> OutboundRow {
        OutboundRow {
            target: TargetSpec::new(url, []),
        }
    }

    #[test]
    fn only_plain_http_to_this_machine_is_loopback() {
        for url in [
            "http://127.0.0.1:8644/hermes-events",
            "HTTP://localhost/x",
            "http://user:pw@127.5.0.1",
            "http://[::1]:80/x",
        ] {
            assert!(row(url).is_loopback_http(), "{url}");
        }
        for url in [
            "https://127.0.0.1/x",
            "http://example.com/x",
            "http://127.0.0.1.example.com/x",
            "http://localhost@evil.example/x",
            "http://10.0.0.1/x",
            "http://[::2]/x",
        ] {
            assert!(!row(url).is_loopback_http(), "{url}");
        }
    }
}
