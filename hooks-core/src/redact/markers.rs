//! Which path segments say that a secret follows: the known hosts' layouts
//! and the generic marker words.

/// A host whose webhook URLs carry the secret in the path: after the first
/// `markers` segment, every segment is an id or a token, whatever it looks like,
/// except the fixed words of the layout (`keep`).
pub(super) struct HostRule {
    /// The host, or a parent domain of it.
    pub(super) domain: &'static str,
    /// The segments after which everything is secret.
    pub(super) markers: &'static [&'static str],
    /// Fixed words of the layout, shown as they are.
    pub(super) keep: &'static [&'static str],
}

/// Words after which, on any host, every segment is secret: the words
/// webhook and capability URLs put before their key. A segment's
/// [`marker_word`] is one when, with its `-` removed or as its last `-` piece
/// (`web-hook`, `x-api-key`, `incoming-webhooks`), and a version after it
/// taken off (`hooks-v2`), it is one of these, or one of these with a plural
/// `s` (`hooks`, `keys`); also when, a version or digits at either end taken
/// off (`v2hook`, `hook2`, `hooksv2`), it is one, or ends in one of the
/// [`SUFFIX_MARKERS`] (`myhook`, `githubtoken`).
const GENERIC_MARKERS: &[&str] = &[
    "hook",
    "webhook",
    "incoming",
    "token",
    "accesstoken",
    "authtoken",
    "auth",
    "secret",
    "key",
    "apikey",
    "password",
    "passwd",
];

/// The marker words that make a marker at the end of a longer word too
/// (`myhook`, `slackwebhooks`, `githubtoken`, `clientsecret`: R37-8's
/// `v2hook`). `key` and `auth` are not among them: they end ordinary words
/// (`monkey`, `oauth`), and count only whole.
const SUFFIX_MARKERS: &[&str] = &[
    "hook", "webhook", "token", "secret", "password", "passwd", "apikey",
];

/// Path words that say nothing secret, shown when they come before a
/// marker (every other segment there is masked, however plain: the secret of
/// `/hunter/hook` is a plain word). Besides these: a version (`v1`, `v10`),
/// the layout words of a known host (its markers and fixed words).
const WELL_KNOWN: &[&str] = &[
    "api",
    "apis",
    "rest",
    "in",
    "public",
    "service",
    "services",
    "hook",
    "hooks",
    "webhook",
    "webhooks",
    "event",
    "events",
    "incoming",
    "inbound",
    "ingest",
    "callback",
    "callbacks",
    "notify",
    "notifications",
    "integration",
    "integrations",
    "trigger",
    "triggers",
    "_matrix",
];

/// The known layouts. Anything else is judged by [`looks_secret`].
const HOST_RULES: &[HostRule] = &[
    // hooks.slack.com/services/T../B../<secret>, /workflows/.., /triggers/..
    HostRule {
        domain: "slack.com",
        markers: &["services", "workflows", "triggers"],
        keep: &[],
    },
    // discord.com/api/webhooks/<id>/<token>
    HostRule {
        domain: "discord.com",
        markers: &["webhooks"],
        keep: &["slack", "github"],
    },
    HostRule {
        domain: "discordapp.com",
        markers: &["webhooks"],
        keep: &["slack", "github"],
    },
    // hooks.zapier.com/hooks/catch/<id>/<secret>/
    HostRule {
        domain: "zapier.com",
        markers: &["hooks"],
        keep: &["catch", "standard"],
    },
    // <tenant>.webhook.office.com/webhookb2/<guid>@<guid>/IncomingWebhook/<id>/<guid>
    // and the older outlook.office.com/webhook/...
    HostRule {
        domain: "office.com",
        markers: &["webhookb2", "webhook"],
        keep: &["IncomingWebhook"],
    },
    HostRule {
        domain: "office365.com",
        markers: &["webhookb2", "webhook"],
        keep: &["IncomingWebhook"],
    },
    // Teams workflows: <region>.logic.azure.com/workflows/<id>/triggers/manual/paths/invoke
    HostRule {
        domain: "logic.azure.com",
        markers: &["workflows"],
        keep: &["triggers", "manual", "paths", "invoke"],
    },
    // maker.ifttt.com/trigger/<event>/with/key/<key>
    HostRule {
        domain: "ifttt.com",
        markers: &["key"],
        keep: &["trigger", "with"],
    },
];

/// Whether `host` is `domain` or a subdomain of it.
fn host_in(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// The layout rule of `host`, if it is a known one: compared lowercase, and
/// without the trailing dot of a fully qualified name (`hooks.slack.com.`).
pub(super) fn host_rule(host: &str) -> Option<&'static HostRule> {
    let host = host.to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    HOST_RULES.iter().find(|rule| host_in(host, rule.domain))
}

/// The word `segment` says, as markers are compared: percent-decoded (twice
/// encoded too, `ho%256Fk`), cut at its first `;` (segment parameters), `=`
/// (a `token=<value>` segment), `:` or `/` (`token:<value>`,
/// `hook%2F<value>`), trimmed of punctuation at its ends, cut at a file
/// suffix (`hook.php`, `hook.`), camel case parts and `_` read as `-`
/// pieces (`webHookToken`, `api_key`).
pub(super) fn marker_word(segment: &str) -> String {
    let mut decoded = super::percent_decoded(segment);
    for _ in 0..2 {
        let again = super::percent_decoded(&decoded);
        if again == decoded {
            break;
        }
        decoded = again;
    }
    let base = decoded
        .split([';', '=', ':', '/'])
        .next()
        .unwrap_or_default();
    let base = base.trim_matches(|c: char| !c.is_alphanumeric());
    let base = base.split('.').next().unwrap_or_default();
    let base = base.trim_matches(|c: char| !c.is_alphanumeric());
    let mut word = String::with_capacity(base.len() + 4);
    let mut after_lower = false;
    for c in base.chars() {
        if c.is_uppercase() && after_lower {
            word.push('-');
        }
        after_lower = c.is_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    word.to_lowercase().replace('_', "-")
}

/// Whether `segment` says that what follows it is secret: a marker of the
/// host's layout, or a generic marker on any host.
pub(super) fn is_marker(rule: Option<&HostRule>, segment: &str) -> bool {
    let word = marker_word(segment);
    if word.is_empty() {
        return false;
    }
    let generic = |word: &str| {
        GENERIC_MARKERS.contains(&word)
            || word
                .strip_suffix('s')
                .is_some_and(|word| GENERIC_MARKERS.contains(&word))
    };
    let last_piece = word.rsplit('-').next().unwrap_or_default();
    // A version after the word (`hooks-v2`, R37-8) is no part of it.
    let unversioned = match word.rsplit_once("-v") {
        Some((head, version)) if version.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => word.as_str(),
    };
    let joined = word.replace('-', "");
    let core = without_versions(&joined);
    let ends_in_one = |word: &str| {
        let singular = word.strip_suffix('s').unwrap_or(word);
        SUFFIX_MARKERS
            .iter()
            .any(|marker| word.ends_with(marker) || singular.ends_with(marker))
    };
    rule.is_some_and(|rule| rule.markers.contains(&word.as_str()))
        || generic(&joined)
        || generic(core)
        || ends_in_one(core)
        || generic(last_piece)
        || generic(&unversioned.replace('-', ""))
        || generic(unversioned.rsplit('-').next().unwrap_or_default())
}

/// `word` with a version or digits taken off either end: `v2hook`, `2hook`,
/// `hook2` and `hookv2` are `hook`; `v2` is empty.
fn without_versions(word: &str) -> &str {
    let digits = |c: char| c.is_ascii_digit();
    let head = match word.strip_prefix('v') {
        Some(rest) if rest.starts_with(digits) => rest,
        _ => word,
    };
    let head = head.trim_start_matches(digits);
    let tail = head.trim_end_matches(digits);
    if tail.len() < head.len() {
        tail.strip_suffix('v').unwrap_or(tail)
    } else {
        tail
    }
}

/// Whether `segment` is a fixed word of the host's layout (any case).
pub(super) fn kept(rule: Option<&HostRule>, segment: &str) -> bool {
    rule.is_some_and(|rule| {
        rule.keep
            .iter()
            .any(|word| word.eq_ignore_ascii_case(segment))
    })
}

/// Whether `segment`, before the marker of its path, is shown: its word
/// (percent-decoded, any case, cut at its first `;`) is one of
/// [`WELL_KNOWN`], a version (`v2`), or a marker or fixed word of the host's
/// layout.
pub(super) fn well_known(rule: Option<&HostRule>, segment: &str) -> bool {
    let base = segment.split(';').next().unwrap_or_default();
    let word = super::percent_decoded(base).to_ascii_lowercase();
    let version = word
        .strip_prefix('v')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    WELL_KNOWN.contains(&word.as_str())
        || version
        || kept(rule, &word)
        || rule.is_some_and(|rule| rule.markers.contains(&word.as_str()))
}
