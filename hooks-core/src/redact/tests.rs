//! The redaction rules, case by case.

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

/// What `list` shows for each kind of webhook URL: (url, shown label).
const TABLE: &[(&str, &str)] = &[
    // Known hosts: everything after the marker is a secret, however short.
    (
        "https://hooks.zapier.com/hooks/catch/1234567/abcd3fg/",
        "hooks.zapier.com/hooks/catch/***/***/",
    ),
    (
        "https://hooks.zapier.com/hooks/catch/123/xyzw/",
        "hooks.zapier.com/hooks/catch/***/***/",
    ),
    (
        "https://contoso.webhook.office.com/webhookb2/6f1c2a3b-4d5e-6f70-8192-a3b4c5d6e7f8@9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4/IncomingWebhook/0a1b2c3d4e5f60718293a4b5c6d7e8f9/1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8",
        "contoso.webhook.office.com/webhookb2/***/IncomingWebhook/***/***",
    ),
    (
        "https://outlook.office.com/webhook/abc@def/IncomingWebhook/short/x",
        "outlook.office.com/webhook/***/IncomingWebhook/***/***",
    ),
    (
        "https://prod-12.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s3cr3t",
        "prod-12.westus.logic.azure.com/workflows/***/triggers/manual/paths/invoke",
    ),
    (
        "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abcDEFghiJKLmnoPQRstuVWX",
        "hooks.slack.com/services/***/***/***",
    ),
    (
        "https://discord.com/api/webhooks/123456789012345678/tok/slack",
        "discord.com/api/webhooks/***/***/slack",
    ),
    (
        "https://maker.ifttt.com/trigger/door_open/with/key/abcd",
        "maker.ifttt.com/trigger/door_open/with/key/***",
    ),
    // Matrix-style parameters inside a segment.
    (
        "https://matrix.example.org/_matrix/hook;token=hunter2;v=1",
        "matrix.example.org/_matrix/hook;token=***;v=***",
    ),
    // Elsewhere: by shape and entropy.
    (
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
        "api.telegram.org/***/sendMessage",
    ),
    (
        "https://n8n.example.com/webhook/6f1c2a3b-4d5e-6f70-8192-a3b4c5d6e7f8",
        "n8n.example.com/webhook/***",
    ),
    (
        "https://mm.example.com/hooks/xq7bn3kd9p4rfw2tyzs8mhc6ua",
        "mm.example.com/hooks/***",
    ),
    (
        "https://hook.eu1.make.com/abcdefghijklmnopqrstuvwxyzabcdef",
        "hook.eu1.make.com/***",
    ),
    (
        "https://example.com/in/qWeRtYuIoPaSdFgHjK",
        "example.com/in/***",
    ),
    // A password a person chose, in the path.
    ("https://example.com/hook/Pa55w0rd!", "example.com/hook/***"),
    (
        "https://example.com/hook/Pa55w0rd%21/run",
        "example.com/hook/***/***",
    ),
    // A password no shape rule knows, after a word that says a secret
    // follows (R33b-6); the words before stay.
    ("https://example.com/hook/hunter2", "example.com/hook/***"),
    (
        "https://example.com/api/v1/Token/hunter",
        "example.com/api/v1/Token/***",
    ),
    (
        "https://example.com/in/keys/abc/x",
        "example.com/in/keys/***/***",
    ),
    ("https://example.com/events/v2/", "example.com/events/v2/"),
    ("https://example.com/in/s3cr3t", "example.com/in/***"),
    ("https://example.com/in/hunter!2", "example.com/in/***"),
    // Readable paths stay readable.
    (
        "https://example.com/oauth2/callback/sha256/x86_64",
        "example.com/oauth2/callback/sha256/x86_64",
    ),
    (
        "https://example.com/api/v1/md-5/ipv6/2fa",
        "example.com/api/v1/md-5/ipv6/2fa",
    ),
    (
        "https://example.com/api/v2/hermes-events/WebhookReceiver",
        "example.com/api/v2/hermes-events/WebhookReceiver",
    ),
    (
        "https://example.com/releases/2024-01-01/notes",
        "example.com/releases/2024-01-01/notes",
    ),
    (
        "https://ci.example.com/job/deploy-production-cluster/build",
        "ci.example.com/job/deploy-production-cluster/build",
    ),
    ("https://hooks.zapier.com/", "hooks.zapier.com"),
    // R36-6: a marker however it is spelled: percent-encoded, with
    // parameters, with a file suffix, `_` for `-`, a plural.
    ("https://ex.invalid/ho%6Fk/hunter", "ex.invalid/ho%6Fk/***"),
    ("https://ex.invalid/%68ook/hunter", "ex.invalid/%68ook/***"),
    (
        "https://ex.invalid/hook;v=1/hunter",
        "ex.invalid/hook;v=***/***",
    ),
    ("https://ex.invalid/hook./hunter", "ex.invalid/hook./***"),
    (
        "https://ex.invalid/hook.php/hunter",
        "ex.invalid/hook.php/***",
    ),
    ("https://ex.invalid/HOOKS/hunter", "ex.invalid/HOOKS/***"),
    (
        "https://ex.invalid/api_key/hunter",
        "ex.invalid/api_key/***",
    ),
    (
        "https://ex.invalid/API-KEYS/hunter",
        "ex.invalid/API-KEYS/***",
    ),
    (
        "https://ex.invalid/access_token/hunter",
        "ex.invalid/access_token/***",
    ),
    (
        "https://ex.invalid/access-token/hunter",
        "ex.invalid/access-token/***",
    ),
    (
        "https://ex.invalid/accesstoken/hunter",
        "ex.invalid/accesstoken/***",
    ),
    (
        "https://ex.invalid/accessToken/hunter",
        "ex.invalid/accessToken/***",
    ),
    (
        "https://ex.invalid/passwords/hunter",
        "ex.invalid/passwords/***",
    ),
    // A marker as `key=value` in a segment: the value, and what follows.
    (
        "https://ex.invalid/x/token=hunter",
        "ex.invalid/x/token=***",
    ),
    (
        "https://ex.invalid/password=hunter/x",
        "ex.invalid/password=***/***",
    ),
    (
        "https://ex.invalid/Secret=hunter;v=1",
        "ex.invalid/Secret=***;v=***",
    ),
    ("https://ex.invalid/token%3Dhunter/x", "ex.invalid/***/***"),
    // R37-7: the secret after the marker word in the same segment.
    ("https://ex.invalid/hook;hunter", "ex.invalid/hook;***"),
    (
        "https://ex.invalid/hook;hunter;v=1/x",
        "ex.invalid/hook;***;v=***/***",
    ),
    ("https://ex.invalid/hook%2Fhunter", "ex.invalid/hook%2F***"),
    (
        "https://ex.invalid/hook%2fhunter/x",
        "ex.invalid/hook%2f***/***",
    ),
    ("https://ex.invalid/token:hunter", "ex.invalid/token:***"),
    (
        "https://ex.invalid/token%3Ahunter",
        "ex.invalid/token%3A***",
    ),
    // R37-8: encoded twice, a first `-` piece, camel case.
    (
        "https://ex.invalid/ho%256Fk/hunter",
        "ex.invalid/ho%256Fk/***",
    ),
    (
        "https://ex.invalid/hooks-v2/hunter",
        "ex.invalid/hooks-v2/***",
    ),
    (
        "https://ex.invalid/webHookToken/hunter",
        "ex.invalid/webHookToken/***",
    ),
    ("https://ex.invalid/x%3Btoken=hunter/y", "ex.invalid/***/y"),
    // Known hosts: the generic markers too, markers in any case, the host
    // with a trailing dot.
    (
        "https://hooks.slack.com/hook/hunter",
        "hooks.slack.com/hook/***",
    ),
    (
        "https://hooks.slack.com/Services/T0/B0/hunter",
        "hooks.slack.com/Services/***/***/***",
    ),
    (
        "https://hooks.slack.com./services/T0/B0/hunter",
        "hooks.slack.com./services/***/***/***",
    ),
    (
        "https://HOOKS.SLACK.COM/SERVICES/T0/B0/hunter",
        "hooks.slack.com/SERVICES/***/***/***",
    ),
    (
        "https://discord.com/api/Webhooks/1/hunter",
        "discord.com/api/Webhooks/***/***",
    ),
    (
        "https://discord.com/api/webhooks/1/hunter/Slack",
        "discord.com/api/webhooks/***/***/Slack",
    ),
    // R36-7: more marker words, and compounds ending in one or that are one
    // without their `-`.
    ("https://ex.invalid/auth/hunter", "ex.invalid/auth/***"),
    (
        "https://ex.invalid/incoming/hunter",
        "ex.invalid/incoming/***",
    ),
    (
        "https://ex.invalid/web-hook/hunter",
        "ex.invalid/web-hook/***",
    ),
    (
        "https://ex.invalid/Web_Hooks/hunter",
        "ex.invalid/Web_Hooks/***",
    ),
    (
        "https://ex.invalid/incoming-webhook/hunter",
        "ex.invalid/incoming-webhook/***",
    ),
    (
        "https://ex.invalid/x-api-key/hunter",
        "ex.invalid/x-api-key/***",
    ),
    (
        "https://ex.invalid/auth-token/hunter",
        "ex.invalid/auth-token/***",
    ),
    (
        "https://ex.invalid/authToken/hunter",
        "ex.invalid/authToken/***",
    ),
    // `user:pass@` written into a path segment.
    ("https://ex.invalid/u:hunter@x/y", "ex.invalid/***@x/y"),
    ("https://ex.invalid/u%3Ahunter@x/y", "ex.invalid/***@x/y"),
    (
        "https://ex.invalid/users/alice@example.org/x",
        "ex.invalid/users/alice@example.org/x",
    ),
    // Limits (module doc): a secret before the marker, or in the host name,
    // cannot be told from a path word or a host label, and is shown.
    ("https://ex.invalid/hunter/hook", "ex.invalid/hunter/hook"),
    ("https://hunter.ex.invalid/hook", "hunter.ex.invalid/hook"),
    // No marker: the path stays readable, the host is never one.
    (
        "https://ex.invalid/oauth/callback",
        "ex.invalid/oauth/callback",
    ),
    (
        "https://ex.invalid/api/webhook-receiver/events",
        "ex.invalid/api/webhook-receiver/events",
    ),
    (
        "https://ex.invalid/api/v1/events/",
        "ex.invalid/api/v1/events/",
    ),
    (
        "https://hooks.example.com/api/v1/events",
        "hooks.example.com/api/v1/events",
    ),
    (
        "https://ex.invalid/hookah/keyboard",
        "ex.invalid/hookah/keyboard",
    ),
];

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
