//! config.yaml text as Hermes reads it (PyYAML, YAML 1.1): how `fail_closed`
//! is spelled never makes a gate fail open, and an odd key elsewhere in the
//! file leaves the hooks working.

use hermes_hooks_core::{Config, Dispatcher};
use hermes_hooks_shell::{Consent, RegisterOptions, ShellHooks, parse_config};
use serde_json::Value;

use crate::support::{Home, context, tool_event};

/// Loads `text` as `<home>/config.yaml`, the way the CLI does.
fn load(home: &Home, text: &str) -> Config {
    std::fs::write(home.path().join("config.yaml"), text).expect("write config");
    Config::load(home.path()).unwrap_or_else(|error| panic!("{error}"))
}

async fn first_reply(config: &Config) -> Option<Value> {
    let registration = ShellHooks::register(
        config,
        RegisterOptions::new(Consent::accept_all())
            .with_context(context())
            .with_safe_mode(false)
            .with_queue_capacity(8),
    );
    let replies = registration.hooks.dispatch(&tool_event("terminal")).await;
    replies.into_iter().next().map(|reply| reply.value)
}

#[tokio::test]
async fn fail_closed_yes_blocks() {
    for spelling in ["yes", "Yes", "ON", "on", "True"] {
        let home = Home::new();
        let command = home.sh("fail.sh", "cat >/dev/null; echo oops >&2; exit 1");
        let config = load(
            &home,
            &format!(
                "hooks:\n  pre_tool_call:\n    - command: {command}\n      fail_closed: {spelling}\n"
            ),
        );
        let parsed = parse_config(&config);
        assert!(
            parsed.warnings.is_empty(),
            "{spelling}: {:?}",
            parsed.warnings
        );
        assert!(parsed.specs[0].fail_closed, "{spelling}");
        let reply = first_reply(&config).await;
        assert_eq!(
            reply.as_ref().and_then(|value| value["action"].as_str()),
            Some("block"),
            "fail_closed: {spelling} → {reply:?}"
        );
    }
}

#[test]
fn fail_closed_off_is_false_and_a_quoted_yes_fails_closed() {
    // YAML's `off` and `No` are false, as Hermes reads them; a quoted
    // `'yes'` is no boolean: the reference fails open, we fail closed
    // (docs/decisions/fail-closed-spelled-oddly.md).
    let home = Home::new();
    for (spelling, expected, warns) in [
        ("off", false, false),
        ("No", false, false),
        ("'yes'", true, true),
    ] {
        let config = load(
            &home,
            &format!("hooks:\n  pre_tool_call:\n    - command: x\n      fail_closed: {spelling}\n"),
        );
        let parsed = parse_config(&config);
        assert_eq!(parsed.specs[0].fail_closed, expected, "{spelling}");
        assert_eq!(
            !parsed.warnings.is_empty(),
            warns,
            "{spelling}: {:?}",
            parsed.warnings
        );
    }
}

#[tokio::test]
async fn duplicate_model_provider_leaves_hooks_working() {
    let home = Home::new();
    let command = home.sh(
        "deny.sh",
        r#"cat >/dev/null; echo '{"decision": "block", "reason": "no"}'"#,
    );
    let config = load(
        &home,
        &format!(
            "model:\n  provider: openrouter\n  provider: anthropic\n  max_tokens: 123456789012345678901234567890\n\
             hooks:\n  pre_tool_call:\n    - command: {command}\n"
        ),
    );
    let reply = first_reply(&config).await;
    assert_eq!(
        reply.as_ref().and_then(|value| value["action"].as_str()),
        Some("block")
    );
}

#[test]
fn out_of_range_numbers_are_rejected_by_their_key_only() {
    let home = Home::new();
    let config = load(
        &home,
        "hooks:\n  pre_tool_call:\n    - command: a\n      timeout: 123456789012345678901234567890\n\
         \x20   - command: b\n      timeout: !!float '1e400'\n    - command: c\n      timeout: 7\n",
    );
    let parsed = parse_config(&config);
    let commands: Vec<&str> = parsed
        .specs
        .iter()
        .map(|spec| spec.command.as_str())
        .collect();
    assert_eq!(commands, ["a", "b", "c"], "{:?}", parsed.warnings);
    assert_eq!(parsed.specs[2].timeout.as_secs(), 7);
    for (index, spec) in parsed.specs.iter().take(2).enumerate() {
        let key = format!("hooks.pre_tool_call[{index}].timeout");
        assert!(
            parsed
                .warnings
                .iter()
                .any(|w| w.key == key && w.file == config.path()),
            "no warning for {key}: {:?}",
            parsed.warnings
        );
        assert!(spec.timeout.as_secs() <= 300, "{:?}", spec.timeout);
    }
}
