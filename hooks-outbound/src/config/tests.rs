//! Config validation tests: the reference's §7.4 cases 111–128 that apply.

use std::path::Path;

use serde_json::{Value, json};

use super::*;

fn config(root: Value) -> Config {
    Config::from_value(Path::new("/h"), root)
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn parse(root: Value) -> OutboundConfig {
    parse_config_with_env(&config(root), &no_env)
}

fn parse_one(entry: Value) -> OutboundConfig {
    parse(json!({"hooks": {"outbound": [entry]}}))
}

fn messages(parsed: &OutboundConfig) -> Vec<String> {
    parsed.warnings.iter().map(|w| w.message.clone()).collect()
}

// 111
#[test]
fn missing_block_is_empty() {
    for root in [
        json!({}),
        Value::Null,
        json!({"hooks": {}}),
        json!({"hooks": "x"}),
    ] {
        let parsed = parse(root.clone());
        assert!(parsed.targets.is_empty(), "{root}");
        assert!(parsed.warnings.is_empty(), "{root}");
    }
}

// 112
#[test]
fn non_list_outbound_is_empty_with_a_warning() {
    let parsed = parse(json!({"hooks": {"outbound": {"url": "https://x"}}}));
    assert!(parsed.targets.is_empty());
    assert_eq!(
        messages(&parsed),
        ["hooks.outbound must be a list of webhook targets; got mapping"]
    );
    assert_eq!(parsed.warnings[0].key, "hooks.outbound");
    assert_eq!(parsed.warnings[0].file, Path::new("/h/config.yaml"));
}

#[test]
fn non_mapping_entry_is_skipped() {
    let parsed = parse_one(json!("https://x"));
    assert!(parsed.targets.is_empty());
    assert_eq!(
        messages(&parsed),
        ["hooks.outbound[0] must be a mapping with 'url' and 'events' keys; got string"]
    );
}

// 113
#[test]
fn valid_entry_parses() {
    let parsed = parse_one(
        json!({"url": "https://ci.example.com/h", "events": ["on_session_end", "subagent_stop"],
        "name": "ci-notify", "timeout": 5}),
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let target = &parsed.targets[0];
    assert_eq!(target.url, "https://ci.example.com/h");
    assert_eq!(
        target.events,
        [HookEvent::OnSessionEnd, HookEvent::SubagentStop]
    );
    assert_eq!(target.name.as_deref(), Some("ci-notify"));
    assert_eq!(target.label(), "ci-notify");
    assert_eq!(target.timeout, Duration::from_secs(5));
    assert!(!target.is_signed());
    assert!(!target.standard_webhooks);
}

#[test]
fn label_falls_back_to_url() {
    let parsed = parse_one(json!({"url": "https://x.example/h", "events": ["on_session_end"]}));
    // Host and path only: a url can carry credentials, a label is shown everywhere.
    assert_eq!(parsed.targets[0].label(), "x.example/h");
    assert_eq!(parsed.targets[0].timeout, Duration::from_secs(10));
}

// 114
#[test]
fn missing_url_skipped() {
    for entry in [
        json!({"events": ["on_session_end"]}),
        json!({"url": "  ", "events": ["on_session_end"]}),
    ] {
        let parsed = parse_one(entry);
        assert!(parsed.targets.is_empty());
        assert_eq!(
            messages(&parsed),
            ["hooks.outbound[0] is missing a non-empty 'url'"]
        );
        assert_eq!(parsed.warnings[0].key, "hooks.outbound[0].url");
    }
}

// 115
#[test]
fn non_http_url_skipped() {
    // As shown: `passwd` marks a secret, so what comes before it is masked.
    for (url, shown) in [
        ("ftp://x/y", "ftp://x/y"),
        ("file:///etc/passwd", "file:///***/passwd"),
        ("x.example/h", "x.example/h"),
    ] {
        let parsed = parse_one(json!({"url": url, "events": ["on_session_end"]}));
        assert!(parsed.targets.is_empty(), "{url}");
        assert_eq!(
            messages(&parsed),
            [format!(
                "hooks.outbound[0].url must be http(s); got '{shown}' — skipped"
            )]
        );
    }
}

#[test]
fn unparseable_url_skipped() {
    let parsed = parse_one(json!({"url": "http://", "events": ["on_session_end"]}));
    assert!(parsed.targets.is_empty());
    assert!(messages(&parsed)[0].contains("is not a valid URL"));
}

#[test]
fn plain_http_warns_but_is_kept() {
    let parsed = parse_one(json!({"url": "http://127.0.0.1:9/h", "events": ["on_session_end"]}));
    assert_eq!(parsed.targets.len(), 1);
    assert_eq!(
        messages(&parsed),
        [
            "hooks.outbound[0].url uses plain http:// — payloads (including tool inputs) travel unencrypted. Prefer https."
        ]
    );
}

// 116
#[test]
fn unknown_events_filtered_known_kept() {
    let parsed = parse_one(
        json!({"url": "https://x", "events": ["on_session_end", "on_sesion_start", "bogus"]}),
    );
    assert_eq!(parsed.targets[0].events, [HookEvent::OnSessionEnd]);
    let messages = messages(&parsed);
    assert_eq!(messages.len(), 2);
    assert!(messages[0].starts_with(
        "hooks.outbound[0]: unknown event 'on_sesion_start' ignored (did you mean 'on_session_start'? valid: pre_tool_call, "
    ));
    assert!(messages[1].starts_with("hooks.outbound[0]: unknown event 'bogus' ignored (valid: "));
}

// 117
#[test]
fn all_unknown_events_skips_entry() {
    let parsed = parse_one(json!({"url": "https://x", "events": ["nope"]}));
    assert!(parsed.targets.is_empty());
    assert_eq!(
        messages(&parsed).last().map(String::as_str),
        Some("hooks.outbound[0] has no valid events — skipped")
    );
}

// 118
#[test]
fn empty_or_missing_events_skips_entry() {
    for entry in [
        json!({"url": "https://x", "events": []}),
        json!({"url": "https://x"}),
        json!({"url": "https://x", "events": "on_session_end"}),
    ] {
        let parsed = parse_one(entry);
        assert!(parsed.targets.is_empty());
        assert!(
            messages(&parsed)[0]
                .starts_with("hooks.outbound[0] needs a non-empty 'events' list (valid: ")
        );
    }
}

// 119
#[test]
fn timeout_clamped_silently() {
    for (given, expected) in [(9999, 60), (0, 1), (-5, 1), (30, 30)] {
        let parsed =
            parse_one(json!({"url": "https://x", "events": ["on_session_end"], "timeout": given}));
        assert_eq!(
            parsed.targets[0].timeout,
            Duration::from_secs(expected),
            "{given}"
        );
        assert!(parsed.warnings.is_empty());
    }
}

// 120 — timeouts are read with Python's int(), as shell hook timeouts are.
#[test]
fn bad_timeout_falls_back_to_default() {
    for (given, shown) in [
        (json!("soon"), "'soon'"),
        (json!([5]), "[5]"),
        (json!({}), "{}"),
    ] {
        let parsed =
            parse_one(json!({"url": "https://x", "events": ["on_session_end"], "timeout": given}));
        assert_eq!(parsed.targets[0].timeout, Duration::from_secs(10));
        assert_eq!(
            messages(&parsed),
            [format!(
                "hooks.outbound[0].timeout must be an int (got {shown}); using default 10s"
            )]
        );
        assert_eq!(parsed.warnings[0].key, "hooks.outbound[0].timeout");
    }
}

#[test]
fn timeout_accepts_what_python_int_accepts() {
    for (given, expected) in [
        (json!(2.5), 2),
        (json!(true), 1),
        (json!(" 30 "), 30),
        (json!("0"), 1),
    ] {
        let parsed =
            parse_one(json!({"url": "https://x", "events": ["on_session_end"], "timeout": given}));
        assert_eq!(
            parsed.targets[0].timeout,
            Duration::from_secs(expected),
            "{given}"
        );
        assert!(parsed.warnings.is_empty(), "{given}");
    }
}

// 121
#[test]
fn matcher_dropped_for_non_tool_events() {
    let parsed =
        parse_one(json!({"url": "https://x", "events": ["on_session_end"], "matcher": "terminal"}));
    assert!(matches!(parsed.targets[0].matcher, ToolMatcher::Any));
    assert_eq!(
        messages(&parsed),
        [
            "hooks.outbound[0].matcher='terminal' will be ignored — matcher is only honored for pre_tool_call / post_tool_call."
        ]
    );
}

// 122
#[test]
fn matcher_kept_for_tool_events() {
    let parsed = parse_one(
        json!({"url": "https://x", "events": ["post_tool_call", "on_session_end"], "matcher": "terminal|file"}),
    );
    let target = &parsed.targets[0];
    assert_eq!(target.matcher.pattern(), Some("terminal|file"));
    assert!(parsed.warnings.is_empty());
    assert!(target.wants(HookEvent::PostToolCall, Some("terminal")));
    assert!(!target.wants(HookEvent::PostToolCall, Some("browser")));
    // The matcher does not apply to the non-tool event of the same target.
    assert!(target.wants(HookEvent::OnSessionEnd, None));
    assert!(!target.wants(HookEvent::PreToolCall, Some("terminal")));
}

#[test]
fn non_string_matcher_is_ignored() {
    let parsed = parse_one(json!({"url": "https://x", "events": ["post_tool_call"], "matcher": 3}));
    assert!(matches!(parsed.targets[0].matcher, ToolMatcher::Any));
    assert_eq!(
        messages(&parsed),
        ["hooks.outbound[0].matcher must be a string regex; ignoring"]
    );
}

// 123
#[test]
fn secret_env_wins_over_literal() {
    let root = json!({"hooks": {"outbound": [{"url": "https://x", "events": ["on_session_end"],
        "secret_env": "HOOK_SECRET", "secret": "literal"}]}});
    let env = |name: &str| (name == "HOOK_SECRET").then(|| "from-env".to_owned());
    let parsed = parse_config_with_env(&config(root), &env);
    let secret = parsed.targets[0].secret.as_ref();
    assert_eq!(
        secret.map(|s| s.hermes_signature(b"x")),
        Some(crate::signing::hermes_signature(b"from-env", b"x"))
    );
}

#[test]
fn literal_secret_signs() {
    let parsed =
        parse_one(json!({"url": "https://x", "events": ["on_session_end"], "secret": "literal"}));
    assert!(parsed.targets[0].is_signed());
}

// 124
#[test]
fn unset_secret_env_means_unsigned() {
    let parsed = parse_one(json!({"url": "https://x", "events": ["on_session_end"],
        "secret_env": "MISSING_VAR", "secret": "literal"}));
    assert!(!parsed.targets[0].is_signed());
    assert_eq!(
        messages(&parsed),
        [
            "hooks.outbound[0].secret_env='MISSING_VAR' is not set in the environment — deliveries will be UNSIGNED"
        ]
    );
}

// 126, 127
#[test]
fn matcher_semantics_follow_the_shared_tool_matcher() {
    let any = parse_one(json!({"url": "https://x", "events": ["pre_tool_call"]}));
    assert!(any.targets[0].wants(HookEvent::PreToolCall, None));
    assert!(any.targets[0].wants(HookEvent::PreToolCall, Some("anything")));
    let full =
        parse_one(json!({"url": "https://x", "events": ["pre_tool_call"], "matcher": "terminal"}));
    assert!(!full.targets[0].wants(HookEvent::PreToolCall, Some("terminal_extra")));
    assert!(!full.targets[0].wants(HookEvent::PreToolCall, None));
}

// 128
#[test]
fn invalid_regex_falls_back_to_equality() {
    let parsed =
        parse_one(json!({"url": "https://x", "events": ["pre_tool_call"], "matcher": "foo[bar"}));
    assert!(parsed.targets[0].wants(HookEvent::PreToolCall, Some("foo[bar")));
    assert!(!parsed.targets[0].wants(HookEvent::PreToolCall, Some("foo")));
    let message = &messages(&parsed)[0];
    assert!(
        message.starts_with("hooks.outbound[0]: outbound webhook matcher 'foo[bar' is invalid ("),
        "{message}"
    );
    assert!(message.ends_with("— treating as literal equality"));
}

// 132: one delivery per url per event.
#[test]
fn same_url_and_event_is_wired_once() {
    let parsed = parse(json!({"hooks": {"outbound": [
        {"url": "https://x", "events": ["on_session_end"]},
        {"url": "https://x", "events": ["on_session_end", "subagent_stop"]},
        {"url": "https://x", "events": ["on_session_end"]},
    ]}}));
    assert_eq!(parsed.targets.len(), 2);
    assert_eq!(parsed.targets[1].events, [HookEvent::SubagentStop]);
    assert_eq!(parsed.warnings.len(), 2);
    assert!(parsed.warnings[0].message.contains("not wired twice"));
}

#[test]
fn standard_webhooks_flag() {
    let parsed = parse_one(
        json!({"url": "https://x", "events": ["on_session_end"], "standard_webhooks": true}),
    );
    assert!(parsed.targets[0].standard_webhooks);
    let parsed = parse_one(
        json!({"url": "https://x", "events": ["on_session_end"], "standard_webhooks": "yes"}),
    );
    assert!(!parsed.targets[0].standard_webhooks);
    assert!(messages(&parsed)[0].contains("standard_webhooks must be true or false"));
}

#[test]
fn debug_output_hides_the_secret() {
    let parsed = parse_one(
        json!({"url": "https://x", "events": ["on_session_end"], "secret": "very-secret-42"}),
    );
    assert!(!format!("{parsed:?}").contains("very-secret-42"));
}

#[test]
fn warnings_display_the_file() {
    let parsed = parse_one(json!({"url": "ftp://x", "events": ["on_session_end"]}));
    assert!(
        parsed.warnings[0]
            .to_string()
            .starts_with("/h/config.yaml: hooks.outbound[0].url")
    );
}

#[test]
fn delivery_mode_max_age_and_max_spool() {
    let parsed = parse_one(json!({"url": "https://x/h", "events": ["on_session_end"],
        "delivery": "durable", "max_age": "2h", "max_spool": 50}));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let target = &parsed.targets[0];
    assert_eq!(target.delivery, DeliveryMode::Durable);
    assert_eq!(target.max_age, Duration::from_secs(7200));
    assert_eq!(target.max_spool, 50);

    let parsed = parse_one(json!({"url": "https://x/h", "events": ["on_session_end"]}));
    assert_eq!(parsed.targets[0].delivery, DeliveryMode::BestEffort);
    assert_eq!(parsed.targets[0].max_age, DEFAULT_MAX_AGE);

    // A misspelt mode fails closed: durable, with a warning naming the key.
    let parsed = parse_one(json!({"url": "https://x/h", "events": ["on_session_end"],
        "delivery": "durabel", "max_age": -1, "max_spool": "lots"}));
    assert_eq!(parsed.targets[0].delivery, DeliveryMode::Durable);
    assert_eq!(parsed.targets[0].max_spool, DEFAULT_MAX_SPOOL);
    let keys: Vec<&str> = parsed.warnings.iter().map(|w| w.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "hooks.outbound[0].delivery",
            "hooks.outbound[0].max_age",
            "hooks.outbound[0].max_spool"
        ]
    );

    let parsed =
        parse_one(json!({"url": "https://x/h", "events": ["on_session_end"], "max_spool": 5}));
    assert_eq!(
        messages(&parsed),
        ["hooks.outbound[0].max_spool only applies to 'delivery: durable'; ignored"]
    );
}

#[test]
fn nats_targets_take_subject_stream_and_credentials_from_the_environment() {
    let env = |name: &str| match name {
        "NATS_TOKEN" => Some("t0ken".to_owned()),
        _ => None,
    };
    let config = config(json!({"hooks": {"outbound": [
        {"url": "nats://127.0.0.1:4222", "events": ["on_session_end"],
         "subject": "fleet.events", "stream": "FLEET", "token_env": "NATS_TOKEN"},
        {"url": "tls://bus:4222", "events": ["subagent_stop"], "subject": "bad.*", "stream": "a.b"},
        {"url": "nats://bus:4222", "events": ["on_session_end"], "user_env": "NOPE", "password_env": "NOPE"},
    ]}}));
    let parsed = parse_config_with_env(&config, &env);
    assert_eq!(parsed.targets.len(), 2, "{:?}", parsed.warnings);
    let nats = parsed.targets[0].nats.clone().expect("nats");
    assert_eq!(
        (nats.subject.as_str(), nats.stream.as_str()),
        ("fleet.events", "FLEET")
    );
    assert_eq!(
        nats.token.as_ref().map(NatsCredential::expose),
        Some("t0ken")
    );
    assert!(!format!("{:?}", parsed.targets[0].nats).contains("t0ken"));
    let defaults = parsed.targets[1].nats.clone().expect("nats");
    assert_eq!(defaults, NatsTarget::default());
    let all = messages(&parsed).join("\n");
    assert!(
        all.contains("hooks.outbound[1].subject must be a NATS subject"),
        "{all}"
    );
    assert!(
        all.contains("hooks.outbound[1].stream must be a stream name"),
        "{all}"
    );
    assert!(
        all.contains("hooks.outbound[2].user_env='NOPE' is not set"),
        "{all}"
    );
    assert!(!all.contains("plain http"), "{all}");
}
