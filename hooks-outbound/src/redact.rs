//! Webhook URLs as people may see them: credentials never shown.
//!
//! A webhook URL is often the secret itself: `https://user:pass@host`,
//! `?token=...`, Slack's `/services/T../B../<secret>`, Discord's
//! `/api/webhooks/<id>/<token>`. Every place that shows a URL — `Display` and
//! `Debug` of a target, labels in reports and logs, config warnings — goes
//! through this one module. Userinfo and every query value become `***`, the
//! fragment is dropped, and path segments that look like secrets are masked.

use std::fmt;

/// What stands in for a hidden part.
pub const MASK: &str = "***";

/// `url` with userinfo, query values, the fragment and secret-looking path
/// segments masked: `https://***@hooks.slack.com/services/***/***/***?token=***`.
/// Text that does not parse as a URL is masked the same way by its shape
/// (what precedes an `@`, what follows `?` or `#`, secret-looking segments).
pub fn redact_url(url: &str) -> String {
    let Some(parsed) = web_url(url) else {
        return redact_unparsed(url.trim());
    };
    let mut out = format!("{}://", parsed.scheme());
    if !parsed.username().is_empty() || parsed.password().is_some() {
        out.push_str(MASK);
        out.push('@');
    }
    out.push_str(&host_and_path(&parsed));
    if parsed.path() == "/" {
        out.push('/');
    }
    if let Some(query) = parsed.query() {
        out.push('?');
        out.push_str(&mask_query(query));
    }
    out
}

/// The label of a target without a name: host (and port) and path, secret
/// segments masked, no scheme, credentials or query: `hooks.slack.com/services/***/***/***`.
pub fn url_label(url: &str) -> String {
    match web_url(url) {
        Some(parsed) => host_and_path(&parsed),
        None => redact_unparsed(url.trim()),
    }
}

/// `url` parsed, when it is an `http(s)` URL (other schemes are masked by shape).
fn web_url(url: &str) -> Option<reqwest::Url> {
    reqwest::Url::parse(url.trim())
        .ok()
        .filter(|parsed| matches!(parsed.scheme(), "http" | "https"))
}

/// Text that is not a URL, masked by shape alone: everything up to the last
/// `@` (userinfo), query values, the fragment, secret-looking segments.
fn redact_unparsed(text: &str) -> String {
    let text = text.split('#').next().unwrap_or_default();
    let (head, query) = match text.split_once('?') {
        Some((head, query)) => (head, Some(mask_query(query))),
        None => (text, None),
    };
    let head = match head.rsplit_once('@') {
        Some((before, after)) => {
            let scheme = before
                .split_once("://")
                .map_or(String::new(), |(scheme, _)| format!("{scheme}://"));
            format!("{scheme}{MASK}@{after}")
        }
        None => head.to_owned(),
    };
    let segments: Vec<&str> = head.split('/').collect();
    let mut out = mask_segments("", &segments).join("/");
    if let Some(query) = query {
        out.push('?');
        out.push_str(&query);
    }
    out
}

/// A URL that shows itself redacted through both `Display` and `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct RedactedUrl<'a>(pub &'a str);

impl fmt::Display for RedactedUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact_url(self.0))
    }
}

impl fmt::Debug for RedactedUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_url(self.0))
    }
}

/// Replaces every occurrence of `url` (as written, and as the URL parser
/// normalises it) in `text` by its redacted form: for error messages of
/// libraries that quote the URL they were given.
pub fn scrub(text: &str, url: &str) -> String {
    let mut out = text.to_owned();
    let mut forms = vec![url.trim().to_owned()];
    if let Ok(parsed) = reqwest::Url::parse(url.trim()) {
        forms.push(parsed.to_string());
    }
    for form in forms.iter().filter(|form| !form.is_empty()) {
        out = out.replace(form.as_str(), &redact_url(url));
    }
    out
}

fn host_and_path(url: &reqwest::Url) -> String {
    let mut out = url.host_str().unwrap_or_default().to_owned();
    if let Some(port) = url.port() {
        out.push_str(&format!(":{port}"));
    }
    let segments: Vec<&str> = url.path().split('/').skip(1).collect();
    let masked = mask_segments(url.host_str().unwrap_or_default(), &segments);
    if !(masked.len() == 1 && masked[0].is_empty()) {
        for segment in masked {
            out.push('/');
            out.push_str(&segment);
        }
    }
    out
}

/// Known secret-bearing layouts first, then a shape rule for the rest.
fn mask_segments(host: &str, segments: &[&str]) -> Vec<String> {
    let host = host.to_ascii_lowercase();
    // Everything after the marker is an id or a token, whatever it looks like.
    let marker = if host.ends_with("slack.com") {
        segments
            .iter()
            .position(|s| *s == "services" || *s == "workflows" || *s == "triggers")
    } else if host.ends_with("discord.com") || host.ends_with("discordapp.com") {
        segments.iter().position(|s| *s == "webhooks")
    } else {
        None
    };
    segments
        .iter()
        .enumerate()
        .map(|(index, segment)| {
            let after_marker = marker.is_some_and(|marker| index > marker);
            if after_marker || looks_secret(segment) {
                MASK.to_owned()
            } else {
                (*segment).to_owned()
            }
        })
        .collect()
}

/// Whether a path segment looks like a credential: long and random-looking
/// (letters and digits mixed, or very long), or a long run of digits (an id
/// that, with the next segment, makes a capability URL).
fn looks_secret(segment: &str) -> bool {
    let token_chars = segment
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '=' | '%' | '+'));
    if !token_chars || segment.is_empty() {
        return false;
    }
    let digits = segment.chars().filter(char::is_ascii_digit).count();
    let letters = segment.chars().filter(char::is_ascii_alphabetic).count();
    let len = segment.chars().count();
    (len >= 16 && digits > 0 && letters > 0) || len >= 32 || (digits == len && len >= 10)
}

fn mask_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) => format!("{key}={MASK}"),
            None if pair.is_empty() => String::new(),
            None => MASK.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_query_values_are_masked() {
        assert_eq!(
            redact_url("https://alice:hunter2@example.com:8443/hook?token=abc&x=1&flag"),
            "https://***@example.com:8443/hook?token=***&x=***&***"
        );
        assert_eq!(
            redact_url("https://tok@example.com/"),
            "https://***@example.com/"
        );
        assert_eq!(
            redact_url("https://example.com/a#secret"),
            "https://example.com/a"
        );
        assert_eq!(redact_url("x.example/h"), "x.example/h");
        assert_eq!(redact_url("ftp:/u:hunter2@h/p?k=v"), "***@h/p?k=***",);
        assert_eq!(
            redact_url("u:hunter2@[::1/hooks/T0k3nT0k3nT0k3nT0k3n"),
            "***@[::1/hooks/***"
        );
        assert_eq!(redact_url("ftp://u:hunter2@h/p"), "ftp://***@h/p");
    }

    #[test]
    fn secret_paths_are_masked() {
        assert_eq!(
            url_label("https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX"),
            "hooks.slack.com/services/***/***/***"
        );
        assert_eq!(
            url_label("https://discord.com/api/webhooks/123456789012345678/abcDEF_ghi-JKL"),
            "discord.com/api/webhooks/***/***"
        );
        assert_eq!(
            url_label("https://ci.example.com/hooks/3f8a9c2e1b7d4f60a1b2/run"),
            "ci.example.com/hooks/***/run"
        );
        assert_eq!(
            url_label("https://example.com/v1/events"),
            "example.com/v1/events"
        );
        assert_eq!(url_label("http://127.0.0.1:9000/"), "127.0.0.1:9000");
        assert_eq!(
            url_label("https://u:p@example.com/x?token=t"),
            "example.com/x"
        );
    }

    #[test]
    fn scrub_replaces_the_url_in_messages() {
        let url = "https://u:hunter2@example.com/x?token=t0p";
        let message = format!("error sending request for url ({url}): refused");
        let scrubbed = scrub(&message, url);
        assert!(
            !scrubbed.contains("hunter2") && !scrubbed.contains("t0p"),
            "{scrubbed}"
        );
        assert_eq!(
            format!("{:?}", RedactedUrl(url)),
            "\"https://***@example.com/x?token=***\""
        );
    }
}
