//! Outbound webhook targets as configured, with their URLs safe to show.

use hooks_outbound::TargetSpec;
use serde_json::{Value, json};

/// One configured webhook target.
#[derive(Debug, Clone)]
pub struct OutboundRow {
    /// The validated config entry.
    pub target: TargetSpec,
}

impl OutboundRow {
    /// The URL with credentials redacted.
    pub fn url(&self) -> String {
        redact_url(&self.target.url)
    }

    /// The name, else the redacted URL.
    pub fn label(&self) -> String {
        self.target.name.clone().unwrap_or_else(|| self.url())
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

/// `url` with its userinfo (`user:password@`) and every query value replaced by
/// `***`: webhook URLs often carry their credentials there.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (before_fragment, None),
    };
    let mut redacted = match base.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            let host = match authority.rsplit_once('@') {
                Some((_, host)) => format!("***@{host}"),
                None => authority.to_owned(),
            };
            format!("{scheme}://{host}{path}")
        }
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}=***"),
                None => pair.to_owned(),
            })
            .collect();
        redacted.push('?');
        redacted.push_str(&pairs.join("&"));
    }
    if fragment.is_some() {
        redacted.push_str("#***");
    }
    redacted
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn credentials_in_urls_are_redacted() {
        assert_eq!(
            redact_url("https://user:hunter2@ci.example.com/hook?token=abc&x=1"),
            "https://***@ci.example.com/hook?token=***&x=***"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8644/hermes-events"),
            "http://127.0.0.1:8644/hermes-events"
        );
        assert_eq!(redact_url("https://h/p#s3cret"), "https://h/p#***");
    }
}
