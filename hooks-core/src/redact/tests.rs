//! The redaction rules, case by case.

use super::*;

mod table;
use table::TABLE;

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
        "ci.example.com/hooks/***/***"
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
fn text_that_does_not_parse_keeps_its_readable_path() {
    // The host of text without a scheme is no marker (R36-6).
    assert_eq!(
        redact_url("hooks.example.com/api/v1/events"),
        "hooks.example.com/api/v1/events"
    );
    assert_eq!(
        redact_url("wss://token.example.com/api/events"),
        "wss://token.example.com/api/events"
    );
    assert_eq!(
        redact_url("wss://ex.invalid/Ho%6Fks/hunter"),
        "wss://ex.invalid/Ho%6Fks/***"
    );
    assert_eq!(
        redact_url("hooks.slack.com./Services/T0/B0/hunter"),
        "hooks.slack.com./Services/***/***/***"
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

/// The parts of `url` that `expected` shows masked.
fn hidden_parts(url: &str, expected: &str) -> Vec<String> {
    let parsed = url::Url::parse(url).expect("a table URL parses");
    let mut hidden: Vec<String> = parsed
        .path()
        .split('/')
        .skip(1)
        .zip(expected.split('/').skip(1))
        .filter(|(original, shown)| original != shown)
        .flat_map(|(original, shown)| {
            let shown: Vec<&str> = shown.split([';', '=', '@', ':']).collect();
            original
                .split([';', '=', '@', ':'])
                .filter(|part| part.len() > 2 && !shown.contains(part))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    hidden.extend(parsed.query_pairs().map(|(_, value)| value.into_owned()));
    hidden
}

#[test]
fn every_known_layout_and_key_shape_is_masked() {
    let mut wrong = Vec::new();
    for (url, expected) in TABLE {
        let label = url_label(url);
        if label != *expected {
            wrong.push(format!(
                "{url}\n  shown:    {label}\n  expected: {expected}"
            ));
        }
        // The full form (warnings, `Debug`) and the text without its scheme
        // (masked by shape) hide the same parts.
        let bare = url.split_once("://").map_or(*url, |(_, rest)| rest);
        for shown in [redact_url(url), redact_url(bare)] {
            for part in hidden_parts(url, expected) {
                if shown.contains(&part) {
                    wrong.push(format!("{url}\n  shows {part}: {shown}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

proptest::proptest! {
    /// A random key (letters and digits, 20 to 40 of them, as webhook secrets
    /// are generated) in any path position of any host is never shown, by the
    /// label or the full form.
    #[test]
    fn a_random_key_in_the_path_is_never_shown(
        host in "[a-z]{3,10}\\.(com|io|net|example)",
        before in proptest::collection::vec("[a-z]{2,8}", 0..3),
        key in "[A-Za-z0-9]{20,40}",
        after in proptest::collection::vec("[a-z]{2,8}", 0..2),
    ) {
        // A word around it, or the key, that is itself a marker (`key`,
        // `…hook`) hides its neighbours by design: only plain words must
        // stay readable.
        proptest::prop_assume!(
            !before
                .iter()
                .chain(&after)
                .chain(std::iter::once(&key))
                .any(|word| super::markers::is_marker(None, word))
        );
        proptest::prop_assume!(key.chars().any(|c| c.is_ascii_digit()));
        proptest::prop_assume!(key.chars().any(|c| c.is_ascii_alphabetic()));
        let mut path = before.clone();
        path.push(key.clone());
        path.extend(after.iter().cloned());
        let url = format!("https://{host}/{}", path.join("/"));
        proptest::prop_assert!(!url_label(&url).contains(&key), "{}", url_label(&url));
        proptest::prop_assert!(!redact_url(&url).contains(&key), "{}", redact_url(&url));
        // The readable words around it stay.
        for word in before.iter().chain(&after) {
            proptest::prop_assert!(url_label(&url).contains(word.as_str()));
        }
    }
}

/// Each `(url, label)`: `url_label` shows `label`, and neither it nor
/// `redact_url` (of the URL and of its text without the scheme) shows `hunter`
/// unless `label` does.
fn check(cases: &[(&str, &str)]) {
    let mut wrong = Vec::new();
    for (url, expected) in cases {
        let label = url_label(url);
        if label != *expected {
            wrong.push(format!(
                "{url}\n  shown:    {label}\n  expected: {expected}"
            ));
        }
        let bare = url.split_once("://").map_or(*url, |(_, rest)| rest);
        for shown in [redact_url(url), redact_url(bare)] {
            if shown.contains("hunter") && !expected.contains("hunter") {
                wrong.push(format!("{url}\n  shows the secret: {shown}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// R37-8: a marker word at the end of a longer word, or with a version or
/// digits before or after it, is a marker: what follows it is masked (before,
/// `v2hook` was masked by its shape and the secret after it shown).
#[test]
fn a_marker_inside_a_longer_word_masks_what_follows() {
    check(&[
        ("https://ex.invalid/v2hook/hunter", "ex.invalid/***/***"),
        ("https://ex.invalid/V2Hooks/hunter", "ex.invalid/***/***"),
        ("https://ex.invalid/2hook/hunter", "ex.invalid/2hook/***"),
        ("https://ex.invalid/hook2/hunter", "ex.invalid/hook2/***"),
        (
            "https://ex.invalid/hooksv2/hunter",
            "ex.invalid/hooksv2/***",
        ),
        ("https://ex.invalid/myhook/hunter", "ex.invalid/myhook/***"),
        (
            "https://ex.invalid/slackwebhooks/hunter",
            "ex.invalid/slackwebhooks/***",
        ),
        (
            "https://ex.invalid/githubtoken/hunter",
            "ex.invalid/githubtoken/***",
        ),
        (
            "https://ex.invalid/clientsecret/hunter",
            "ex.invalid/clientsecret/***",
        ),
        ("https://ex.invalid/v1apikey/hunter", "ex.invalid/***/***"),
        ("https://ex.invalid/v2key/hunter", "ex.invalid/v2key/***"),
        ("https://ex.invalid/auth2/hunter", "ex.invalid/auth2/***"),
        // `key` and `auth` end ordinary words: only whole.
        (
            "https://ex.invalid/monkey/hunter",
            "ex.invalid/monkey/hunter",
        ),
        (
            "https://ex.invalid/oauth2/callback",
            "ex.invalid/oauth2/callback",
        ),
        (
            "https://ex.invalid/hookah/hunter",
            "ex.invalid/hookah/hunter",
        ),
        (
            "https://ex.invalid/WebhookReceiver/hunter",
            "ex.invalid/WebhookReceiver/hunter",
        ),
    ]);
}

/// R36-7 (`pw-before`): when the path carries a marker, a segment before it
/// is shown only when it is a well-known path word (`api`, a version, the
/// layout's own words); anything else, however plain, is masked.
#[test]
fn segments_before_a_marker_are_masked_unless_well_known() {
    check(&[
        ("https://ex.invalid/hunter/hook", "ex.invalid/***/hook"),
        (
            "https://ex.invalid/api/hunter/v1/hooks/x",
            "ex.invalid/api/***/v1/hooks/***",
        ),
        (
            "https://ex.invalid/hunter;v=1/token/x",
            "ex.invalid/***/token/***",
        ),
        (
            "https://ex.invalid/API/V2/Services/Webhooks/hunter",
            "ex.invalid/API/V2/Services/Webhooks/***",
        ),
        (
            "https://ex.invalid/api;k=hunter/hook/x",
            "ex.invalid/api;k=***/hook/***",
        ),
        (
            "https://ex.invalid/v2/hunter/myhook",
            "ex.invalid/v2/***/myhook",
        ),
        // Known hosts: the layout's words before its marker stay.
        (
            "https://hooks.slack.com/hunter/services/T0/B0/x",
            "hooks.slack.com/***/services/***/***/***",
        ),
        (
            "https://discord.com/api/v10/webhooks/1/hunter",
            "discord.com/api/v10/webhooks/***/***",
        ),
        (
            "https://maker.ifttt.com/trigger/hunter/with/key/x",
            "maker.ifttt.com/trigger/***/with/key/***",
        ),
        // No marker: the path stays readable.
        (
            "https://ex.invalid/hunter/events",
            "ex.invalid/hunter/events",
        ),
    ]);
    assert_eq!(
        redact_url("wss://ex.invalid/hunter/hook/x"),
        "wss://ex.invalid/***/hook/***"
    );
    assert_eq!(redact_url("ex.invalid/hunter/hook"), "ex.invalid/***/hook");
}

/// R36-7 (`host-secret`): when the path carries a marker, host labels left
/// of the registrable name are masked unless they are service words; known
/// hosts, IP addresses and the registrable name stay.
#[test]
fn host_labels_of_a_url_with_a_marker_are_masked_unless_service_words() {
    check(&[
        ("https://hunter.ex.invalid/hook", "***.ex.invalid/hook"),
        (
            "https://hunter.api.ex.invalid:8443/hooks/x",
            "***.api.ex.invalid:8443/hooks/***",
        ),
        (
            "https://WWW.Hooks.hunter.ex.co.uk/webhook/x",
            "www.hooks.***.ex.co.uk/webhook/***",
        ),
        (
            "https://hunter.ex.invalid./token/x",
            "***.ex.invalid./token/***",
        ),
        (
            "https://events.hunter.ex.invalid/hook",
            "events.***.ex.invalid/hook",
        ),
        // Known hosts, addresses and the registrable name stay as they are.
        (
            "https://hooks.slack.com/services/T0/B0/hunter",
            "hooks.slack.com/services/***/***/***",
        ),
        (
            "https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/hunter",
            "contoso.webhook.office.com/webhookb2/***/IncomingWebhook/***/***",
        ),
        ("https://10.0.0.7/hook/hunter", "10.0.0.7/hook/***"),
        ("https://[::1]:9/hook/hunter", "[::1]:9/hook/***"),
        ("https://ex.invalid/hook/hunter", "ex.invalid/hook/***"),
        // No marker in the path: the host stays readable.
        (
            "https://hunter.ex.invalid/api/events",
            "hunter.ex.invalid/api/events",
        ),
    ]);
    assert_eq!(
        redact_url("wss://hunter.ex.invalid:9/hook/x"),
        "wss://***.ex.invalid:9/hook/***"
    );
    assert_eq!(redact_url("hunter.ex.invalid/hook"), "***.ex.invalid/hook");
}
