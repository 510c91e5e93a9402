//! A target's `Debug`: its url redacted, its secret as `Secret` shows it.

use super::TargetSpec;

/// A target's `Debug` shows its url redacted (and its secret as `Secret` does).
impl std::fmt::Debug for TargetSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TargetSpec")
            .field("name", &self.name)
            .field("url", &crate::redact::RedactedUrl(&self.url))
            .field("events", &self.events)
            .field("matcher", &self.matcher)
            .field("timeout", &self.timeout)
            .field("secret", &self.secret)
            .field("standard_webhooks", &self.standard_webhooks)
            .finish()
    }
}
