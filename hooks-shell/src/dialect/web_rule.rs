//! A `WebFetch` rule (`WebFetch(domain:example.com)`,
//! `WebFetch(https://example.com/*)`) against the URL an agent gave. The
//! host is read as a browser reads it (the WHATWG URL standard, Claude
//! Code's `new URL()`): lowercased, percent-escapes decoded, IDNA as
//! punycode, `\` a path separator; a trailing dot is dropped
//! (`evil.com.` is `evil.com` to DNS).
//!
//! A fail-closed guard also runs when the URL may reach a host its text
//! does not settle ([`may_match`]): one that does not parse (`evil.com/x`,
//! no scheme: a fetcher may add one), and the host another reader finds,
//! RFC 3986's authority up to `/`, `?` or `#` and after its last `@`
//! (`https://evil.com\@good.com/` is `evil.com` to WHATWG, `good.com` to
//! Python's `urlsplit`). (docs/decisions/hermes-tool-shapes.md)

use url::Url;

use super::matcher::glob;

/// Whether the rule `pattern` (`domain:HOST` or a URL glob) matches `url`
/// (Claude Code's reading).
pub(super) fn matches(pattern: &str, url: &str) -> bool {
    match pattern.strip_prefix("domain:") {
        Some(domain) => whatwg_host(url).is_some_and(|host| host_matches(domain, &host)),
        None => glob(pattern, url),
    }
}

/// [`matches`] for a fail-closed guard: also `true` when the URL does not
/// parse, or when another reading of it matches (the host after the
/// authority's last `@`, the URL as the standard writes it).
pub(super) fn may_match(pattern: &str, url: &str) -> bool {
    if matches(pattern, url) {
        return true;
    }
    let Ok(parsed) = Url::parse(url) else {
        return true;
    };
    match pattern.strip_prefix("domain:") {
        Some(domain) => authority_host(url).is_some_and(|host| host_matches(domain, &host)),
        None => glob(pattern, parsed.as_str()),
    }
}

/// The host of `url` as the WHATWG standard parses it; `None` when it does
/// not parse or has no host.
fn whatwg_host(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    Some(host.trim_end_matches('.').to_owned())
}

/// The host RFC 3986 reads: the authority after `scheme://` up to the first
/// `/`, `?` or `#`, after its last `@`, without the port; percent-escapes
/// decoded, lowercased, a trailing dot dropped.
fn authority_host(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(bracketed),
        None => host.split(':').next().unwrap_or(host),
    };
    let decoded = percent_decoded(host).to_lowercase();
    Some(decoded.trim_end_matches('.').to_owned())
}

/// Whether `host` (already canonical) is `domain`: a glob, compared without
/// case and a trailing dot; a domain without `*` is read as a host (IDNA).
fn host_matches(domain: &str, host: &str) -> bool {
    let domain = domain.trim().trim_end_matches('.');
    let canonical = (!domain.contains('*'))
        .then(|| Url::parse(&format!("http://{domain}/")).ok())
        .flatten()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| domain.to_lowercase());
    glob(&canonical, host)
}

/// `%XX` escapes decoded (invalid UTF-8 replaced); a `%` not followed by two
/// hex digits is kept.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |offset: usize| {
            bytes
                .get(at + offset)
                .and_then(|b| (*b as char).to_digit(16))
        };
        match (bytes[at], hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{matches, may_match};

    #[test]
    fn the_host_is_read_as_a_browser_reads_it() {
        for url in [
            "https://evil.com/x",
            "https://EVIL.COM/x",
            "https://evil.com./x",
            "https://%65vil.com/",
            "https://evil.com\\@good.com/",
            "https://user:pw@evil.com:8443/x",
            "HTTPS://Evil.Com",
        ] {
            assert!(matches("domain:evil.com", url), "{url}");
            assert!(matches("domain:EVIL.com.", url), "{url}");
        }
        for url in ["https://good.com/evil.com", "https://evil.com.good.com/"] {
            assert!(!matches("domain:evil.com", url), "{url}");
            assert!(!may_match("domain:evil.com", url), "{url}");
        }
        assert!(matches("domain:*.evil.com", "https://a.EVIL.com/"));
        assert!(matches("domain:bücher.de", "https://xn--bcher-kva.de/"));
    }

    #[test]
    fn a_fail_closed_rule_runs_for_every_reading_and_for_what_does_not_parse() {
        for url in [
            "https://good.com\\@evil.com/",
            "evil.com/x",
            "//evil.com/x",
            "https://exa mple.com/",
            "",
        ] {
            assert!(may_match("domain:evil.com", url), "{url}");
        }
        assert!(may_match("https://evil.com/*", "HTTPS://EVIL.COM/x"));
        assert!(!matches("https://evil.com/*", "HTTPS://EVIL.COM/x"));
        assert!(!may_match("https://evil.com/*", "https://good.com/x"));
    }
}
