//! The table of URLs and what `list` shows for each.

/// What `list` shows for each kind of webhook URL: (url, shown label).
pub(super) const TABLE: &[(&str, &str)] = &[
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
        "maker.ifttt.com/trigger/***/with/key/***",
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
        "ex.invalid/***/token=***",
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
    // Before a marker only well-known words stay (R36-7); the event name of
    // IFTTT's layout too is masked.
    ("https://ex.invalid/hunter/hook", "ex.invalid/***/hook"),
    // With a marker in the path, host labels that are no service words
    // (R36-7).
    ("https://hunter.ex.invalid/hook", "***.ex.invalid/hook"),
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
