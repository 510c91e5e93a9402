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

/// Segments after which, on a host of no known layout, every segment is
/// secret: the words webhook and capability URLs put before their key.
pub(super) const GENERIC_MARKERS: [&str; 14] = [
    "hook", "hooks", "webhook", "webhooks", "token", "tokens", "secret", "secrets", "key", "keys",
    "apikey", "api-key", "password", "passwd",
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
        keep: &[],
    },
];

/// Whether `host` is `domain` or a subdomain of it.
fn host_in(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// The layout rule of `host`, if it is a known one.
pub(super) fn host_rule(host: &str) -> Option<&'static HostRule> {
    let host = host.to_ascii_lowercase();
    HOST_RULES.iter().find(|rule| host_in(&host, rule.domain))
}
