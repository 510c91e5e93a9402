//! Webhook URLs as people may see them: credentials never shown.
//!
//! A webhook URL is often the secret itself: `https://user:pass@host`,
//! `?token=...`, Slack's `/services/T../B../<secret>`, Discord's
//! `/api/webhooks/<id>/<token>`. Every place that shows a URL — `Display` and
//! `Debug` of a target, labels in reports and logs, config warnings — goes
//! through this one module. The rule:
//!
//! - Userinfo and every query value become `***`; the fragment is dropped.
//! - **Markers.** Every path segment after the first *marker* segment is `***`,
//!   however short. A segment is compared by its word: percent-decoded (also
//!   when encoded twice), lowercase, cut at its first `;`, `=`, `:` or `/`,
//!   trimmed of punctuation at its ends, cut at a file suffix, camel case
//!   parts and `_` read as `-` (so `ho%6Fk`, `ho%256Fk`, `hook;v=1`,
//!   `hook.php`, `HOOKS`, `api_key`, `webHookToken`, `token=<value>` and
//!   `token:<value>` are all markers). On every host, a word is a marker
//!   when, with its `-` removed or as its last `-` piece (`web-hook`,
//!   `x-api-key`, `incoming-webhooks`), a version after it taken off
//!   (`hooks-v2`), it is `hook`,
//!   `webhook`, `incoming`, `token`, `accesstoken`, `authtoken`, `auth`,
//!   `secret`, `key`, `apikey`, `password` or `passwd`, or one of these with a
//!   plural `s`; so is a word that is one with a version or digits at either
//!   end taken off (`v2hook`, `hook2`, `hooksv2`), or that ends in `hook`,
//!   `webhook`, `token`, `secret`, `password`, `passwd` or `apikey`
//!   (`myhook`, `githubtoken`; `key` and `auth` count only whole: they end
//!   ordinary words, `monkey`, `oauth`). Hosts whose layout is known (the
//!   host or a parent domain, any case, a trailing dot ignored) add their own: Slack's `services`,
//!   `workflows`, `triggers`; Discord's `webhooks`; Zapier's `hooks`
//!   (`hooks/catch/<id>/<secret>`); Teams/Office's `webhookb2` and `webhook`
//!   (`webhookb2/<tenant>@<guid>/IncomingWebhook/<id>/<guid>`); Teams
//!   workflows' `workflows`; IFTTT's `key`. The fixed words of those layouts
//!   (`IncomingWebhook`, `triggers/manual/paths/invoke`, ...) stay. What
//!   follows the word in the marker segment itself is masked too: `key=***`,
//!   `token:***`, `hook%2F***`, `hook;***` (each `;` parameter).
//! - **Before the marker** only well-known path words stay: `api`, `rest`,
//!   `in`, `public`, `service(s)`, `(web)hook(s)`, `event(s)`, `incoming`,
//!   `inbound`, `ingest`, `callback(s)`, `notify`, `notifications`,
//!   `integration(s)`, `trigger(s)`, `_matrix`, a version (`v1`), and the
//!   markers and fixed words of the host's layout (IFTTT's `trigger`,
//!   `with`). Every other segment is `***`, however plain: a secret may come
//!   first (`/hunter/hook` shows `/***/hook`; IFTTT's event name is masked).
//! - **Shapes**, before any marker and where there is none: `;key=value`
//!   segment parameters show `key=***`; a segment holding `user:pass@` (a `:`
//!   before its last `@`, as written or percent-encoded) shows `***@` and what
//!   follows the `@`; a segment whose percent-escapes hide a `;` or `=` is
//!   `***`; so is a segment holding a piece that looks like a key (long digit
//!   runs, UUIDs and hex, letters mixed with digits, high-entropy mixed case,
//!   anything of 32 characters or more), or one shaped like a password a
//!   person chose (a word of six or more characters with digits inside its
//!   letters, `Pa55w0rd`; the punctuation `!`, `$`, `*` or `^`, `hunter!2`).
//!
//! - **The host**, when the path carries a marker: each label left of the
//!   registrable name (the last two labels, three under a country's
//!   `co`/`com`/`org`/... with a two-letter top level: `ex.co.uk`) is `***`
//!   unless it is a service word: `www`, `api(s)`, `(web)hook(s)`,
//!   `event(s)`, `in`, `inbound`, `ingest`, `notify`, `callback(s)`,
//!   `app(s)`, `ci`, `n8n`, `mm`, `chat`, `matrix`, `mattermost`,
//!   `rocketchat`, `zulip`, `ntfy`, `gitlab`, `jenkins`, `grafana`, `alerts`,
//!   `notifications`, `bot(s)`, `gateway`
//!   (`https://hunter.api.ex.invalid/hook` shows `***.api.ex.invalid/hook`).
//!   Hosts of a known layout (`hooks.slack.com`, `contoso.webhook.office.com`)
//!   and IP addresses stay as they are. Without a marker the host is shown.
//!
//! Ordinary paths with no marker stay readable: words, dates, versions (`v2`,
//! `oauth2`, `sha256`), names with dashes (`/api/v1/events/`), and so does
//! their host. The host is never a marker (`hooks.example.com/api/v1/events`
//! stays).
//!
//! What this cannot hide: a short secret that is a plain word in a URL with
//! no marker at all cannot be told from a path word or a host label, nor
//! can one in the registrable name (`hunter.invalid`); they are shown as
//! written. Words that are markers mask what follows them even when it is
//! no secret (`/auth/login` shows `/auth/***`).

use std::fmt;

mod host;
mod markers;
mod shape;
use host::shown_host;
use markers::{host_rule, is_marker, kept, well_known};
use shape::{looks_secret, percent_decoded};

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
fn web_url(url: &str) -> Option<url::Url> {
    url::Url::parse(url.trim())
        .ok()
        .filter(|parsed| matches!(parsed.scheme(), "http" | "https"))
}

/// Text that is not a URL, masked by shape alone: everything up to the last
/// `@` (userinfo), query values, the fragment, secret-looking segments, and
/// the host rules of the host it names.
fn redact_unparsed(text: &str) -> String {
    let text = text.split('#').next().unwrap_or_default();
    let (head, query) = match text.split_once('?') {
        Some((head, query)) => (head, Some(mask_query(query))),
        None => (text, None),
    };
    let rest = head.split_once("://").map_or(head, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    let (head, hidden) = match head.rsplit_once('@') {
        Some((before, after)) => {
            let scheme = before
                .split_once("://")
                .map_or(String::new(), |(scheme, _)| format!("{scheme}://"));
            (format!("{scheme}{MASK}@{after}"), Some(before))
        }
        None => (head.to_owned(), None),
    };
    // The scheme and host come before the path (`scheme:`, ``, host), and are
    // no markers.
    let first_path = if text.contains("://") { 3 } else { 1 };
    // A marker hidden with the userinfo still makes everything after it secret.
    let rule = host_rule(host);
    let marker_passed = hidden.is_some_and(|before| {
        before
            .split('/')
            .skip(first_path)
            .any(|segment| is_marker(rule, segment))
    });
    let segments: Vec<&str> = head.split('/').collect();
    let mut masked = mask_segments_from(host, &segments, marker_passed, first_path);
    let marked = marker_passed
        || segments
            .iter()
            .skip(first_path)
            .any(|segment| is_marker(rule, segment));
    // The host, in the authority segment (after any `***@`), once the path
    // says the URL carries a secret.
    if marked
        && !host.is_empty()
        && let Some(authority) = masked.get_mut(first_path - 1)
    {
        let at = authority.rfind('@').map_or(0, |at| at + 1);
        if authority[at..].starts_with(host) {
            let shown = shown_host(host, rule);
            authority.replace_range(at..at + host.len(), &shown);
        }
    }
    let mut out = masked.join("/");
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
    if let Ok(parsed) = url::Url::parse(url.trim()) {
        forms.push(parsed.to_string());
    }
    for form in forms.iter().filter(|form| !form.is_empty()) {
        out = out.replace(form.as_str(), &redact_url(url));
    }
    out
}

fn host_and_path(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    let segments: Vec<&str> = url.path().split('/').skip(1).collect();
    let rule = host_rule(host);
    // A path that says the URL carries a secret may have put it in the host.
    let mut out = if segments.iter().any(|segment| is_marker(rule, segment)) {
        shown_host(host, rule)
    } else {
        host.to_owned()
    };
    if let Some(port) = url.port() {
        out.push_str(&format!(":{port}"));
    }
    let masked = mask_segments(host, &segments);
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
    mask_segments_from(host, segments, false, 0)
}

/// [`mask_segments`], where `marker_passed` says a marker came before
/// `segments` (everything is then after it), and segments before `first_path`
/// (the scheme and host of text that did not parse) are never markers.
fn mask_segments_from(
    host: &str,
    segments: &[&str],
    marker_passed: bool,
    first_path: usize,
) -> Vec<String> {
    let rule = host_rule(host);
    // What follows a word that says a secret follows (`…/hook/hunter2`,
    // `…/token/abc`: red team R33b-6), on a known host too (R36-6).
    let marker = segments
        .iter()
        .enumerate()
        .skip(first_path)
        .find(|(_, segment)| is_marker(rule, segment))
        .map(|(index, _)| index);
    segments
        .iter()
        .enumerate()
        .map(|(index, segment)| {
            let after_marker = (marker_passed || marker.is_some_and(|marker| index > marker))
                && !segment.is_empty()
                && !kept(rule, segment);
            // Before the marker only well-known words stay (`/hunter/hook`:
            // the secret may come first, R36-7).
            let before_marker = marker.is_some_and(|marker| index < marker)
                && index >= first_path
                && !segment.is_empty()
                && !well_known(rule, segment);
            if after_marker || before_marker {
                MASK.to_owned()
            } else if marker == Some(index) {
                mask_marker(segment)
            } else {
                mask_segment(segment)
            }
        })
        .collect()
}

/// The marker segment itself: what follows its word is masked, the value of
/// `token=<value>`, and after a `:` or an encoded `/` (`token:hunter`,
/// `hook%2Fhunter`), each `;` parameter (`hook;hunter`: R37-7); the whole
/// segment when its percent-escapes hide a `;` or `=`.
fn mask_marker(segment: &str) -> String {
    let decoded = percent_decoded(segment);
    let hides = |c: char| decoded.matches(c).count() > segment.matches(c).count();
    if hides(';') || hides('=') {
        return MASK.to_owned();
    }
    let lower = segment.to_ascii_lowercase();
    let value = ["=", ":", "%2f", "%3a"]
        .iter()
        .filter_map(|cut| lower.find(cut).map(|at| at + cut.len()))
        .min();
    let parameters = segment.find(';');
    if let Some(value) = value.filter(|value| parameters.is_none_or(|at| *value <= at)) {
        let rest = parameters.map_or("", |at| &segment[at..]);
        return format!("{}{MASK}{}", &segment[..value], masked_parameters(rest));
    }
    match parameters {
        Some(at) => format!("{}{}", &segment[..at], masked_parameters(&segment[at..])),
        None => mask_segment(segment),
    }
}

/// `;key=value` parameters after a marker: `;key=***`, a bare one `;***`.
fn masked_parameters(parameters: &str) -> String {
    parameters
        .split(';')
        .skip(1)
        .map(|parameter| match parameter.split_once('=') {
            Some((key, _)) => format!(";{key}={MASK}"),
            None => format!(";{MASK}"),
        })
        .collect()
}

/// One path segment with its `;key=value` parameters' values masked (Matrix
/// and others put `;token=` there), or [`MASK`] when what precedes them looks
/// like a credential or its percent-escapes hide a `;` or `=`.
fn mask_segment(segment: &str) -> String {
    let decoded = percent_decoded(segment);
    // Parameters or a value hidden by percent-encoding (`x%3Btoken=...`).
    let hides = |c: char| decoded.matches(c).count() > segment.matches(c).count();
    if hides(';') || hides('=') {
        return MASK.to_owned();
    }
    // `user:pass@host` written into the path (R36-7).
    if decoded
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
    {
        return match segment.rsplit_once('@') {
            Some((_, after)) => format!("{MASK}@{}", mask_segment(after)),
            None => MASK.to_owned(),
        };
    }
    let mut parts = segment.split(';');
    let base = parts.next().unwrap_or_default();
    let mut out = if looks_secret(base) {
        MASK.to_owned()
    } else {
        base.to_owned()
    };
    for parameter in parts {
        out.push(';');
        match parameter.split_once('=') {
            Some((key, _)) => {
                out.push_str(key);
                out.push('=');
                out.push_str(MASK);
            }
            None if looks_secret(parameter) => out.push_str(MASK),
            None => out.push_str(parameter),
        }
    }
    out
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
mod tests;
