//! Host names as shown when the path says the URL carries a secret: a
//! capability URL may put its secret in a host label too
//! (`https://hunter.ex.invalid/hook`, red team R36-7).

use super::MASK;
use super::markers::HostRule;

/// Host labels that name a service rather than hold a secret, shown left of
/// the registrable name (compared in any case).
const SERVICE_LABELS: &[&str] = &[
    "www",
    "api",
    "apis",
    "hook",
    "hooks",
    "webhook",
    "webhooks",
    "event",
    "events",
    "in",
    "inbound",
    "ingest",
    "notify",
    "callback",
    "callbacks",
    "app",
    "apps",
    "ci",
    "n8n",
    "mm",
    "chat",
    "matrix",
    "mattermost",
    "rocketchat",
    "zulip",
    "ntfy",
    "gitlab",
    "jenkins",
    "grafana",
    "alerts",
    "notifications",
    "bot",
    "bots",
    "gateway",
];

/// Second-level labels under which a country's names are registered
/// (`ex.co.uk`, `ex.com.au`): with a two-letter top level, the registrable
/// name has three labels.
const SECOND_LEVELS: &[&str] = &[
    "co", "com", "net", "org", "gov", "edu", "ac", "ne", "or", "go", "mil",
];

/// `host` with each label left of its registrable name masked unless it is
/// one of [`SERVICE_LABELS`]: `hunter.api.ex.invalid` shows
/// `***.api.ex.invalid`. A host of a known layout (`rule`), an IP address
/// and a name of one or two labels are shown as they are. The registrable
/// name is the last two labels, three under a country's second level
/// (`ex.co.uk`); no public suffix list is read, so a name registered deeper
/// shows one label more masked, never one less.
pub(super) fn shown_host(host: &str, rule: Option<&HostRule>) -> String {
    let name = host.strip_suffix('.').unwrap_or(host);
    if rule.is_some() || name.starts_with('[') || name.parse::<std::net::Ipv4Addr>().is_ok() {
        return host.to_owned();
    }
    let labels: Vec<&str> = name.split('.').collect();
    let registrable = match labels.as_slice() {
        [.., second, top]
            if top.len() == 2 && SECOND_LEVELS.contains(&second.to_ascii_lowercase().as_str()) =>
        {
            3
        }
        _ => 2,
    };
    if labels.len() <= registrable {
        return host.to_owned();
    }
    let split = labels.len() - registrable;
    let mut shown: Vec<&str> = labels[..split]
        .iter()
        .map(|label| {
            let service = SERVICE_LABELS
                .iter()
                .any(|word| word.eq_ignore_ascii_case(label));
            if service { *label } else { MASK }
        })
        .collect();
    shown.extend_from_slice(&labels[split..]);
    let mut out = shown.join(".");
    if name.len() < host.len() {
        out.push('.');
    }
    out
}
