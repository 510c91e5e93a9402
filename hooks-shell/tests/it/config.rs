//! §7.1 40–48, 57–62 and every row of the validation table (§3.1).

use std::time::Duration;

use hermes_hooks_core::HookEvent;
use hermes_hooks_shell::{ShellConfig, parse_config};
use serde_json::{Value, json};

use crate::support::Home;

fn parse(hooks: Value) -> ShellConfig {
    let home = Home::new();
    parse_config(&home.config(json!({ "hooks": hooks })))
}

fn warning_with<'a>(parsed: &'a ShellConfig, text: &str) -> &'a hermes_hooks_core::ConfigWarning {
    parsed
        .warnings
        .iter()
        .find(|warning| warning.message.contains(text))
        .unwrap_or_else(|| panic!("no warning containing {text:?} in {:?}", parsed.warnings))
}

#[test]
fn t40_valid_entry() {
    let parsed = parse(json!({"pre_tool_call": [
        {"matcher": "terminal", "command": "  /x/hook.sh --flag  ", "timeout": 30}]}));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let spec = &parsed.specs[0];
    assert_eq!(spec.event, HookEvent::PreToolCall);
    assert_eq!(spec.index, 0);
    assert_eq!(spec.command, "/x/hook.sh --flag");
    assert_eq!(spec.matcher.pattern(), Some("terminal"));
    assert_eq!(spec.timeout, Duration::from_secs(30));
    assert!(!spec.fail_closed);
}

#[test]
fn t41_unknown_event_skipped_with_did_you_mean() {
    let parsed = parse(json!({"pre_tool_cal": [{"command": "x"}]}));
    assert!(parsed.specs.is_empty());
    let warning = warning_with(&parsed, "did you mean 'pre_tool_call'?");
    assert_eq!(warning.key, "hooks.pre_tool_cal");
    assert!(
        warning
            .message
            .starts_with("unknown hook event 'pre_tool_cal' in hooks: config")
    );
    let parsed = parse(json!({"zzzzzzzzzz": [{"command": "x"}]}));
    let warning = warning_with(&parsed, "(valid: agent_loop_stopped, api_request_error,");
    assert!(warning.message.contains("unknown hook event 'zzzzzzzzzz'"));
}

#[test]
fn t42_missing_command_skipped_rest_kept() {
    let parsed = parse(
        json!({"pre_tool_call": [{"matcher": "x"}, {"command": "   "}, {"command": 5},
                                               {"command": "ok"}]}),
    );
    assert_eq!(parsed.specs.len(), 1);
    assert_eq!(parsed.specs[0].index, 3);
    let keys: Vec<_> = parsed.warnings.iter().map(|w| w.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "hooks.pre_tool_call[0].command",
            "hooks.pre_tool_call[1].command",
            "hooks.pre_tool_call[2].command"
        ]
    );
    assert!(
        parsed.warnings[0]
            .message
            .contains("hooks.pre_tool_call[0] is missing a non-empty 'command' field")
    );
}

#[test]
fn t43_timeout_clamped_to_max() {
    let parsed = parse(json!({"post_tool_call": [{"command": "x", "timeout": 9999}]}));
    assert_eq!(parsed.specs[0].timeout, Duration::from_secs(300));
    let warning = warning_with(
        &parsed,
        "hooks.post_tool_call[0].timeout=9999s exceeds max 300s; clamping",
    );
    assert_eq!(warning.key, "hooks.post_tool_call[0].timeout");
}

#[test]
fn t44_non_int_timeout_defaulted() {
    let parsed = parse(json!({"post_tool_call": [{"command": "x", "timeout": "thirty"}]}));
    assert_eq!(parsed.specs[0].timeout, Duration::from_secs(60));
    warning_with(
        &parsed,
        "hooks.post_tool_call[0].timeout must be an int (got 'thirty'); using default 60s",
    );
}

#[test]
fn timeout_follows_python_int() {
    for (raw, expected, warns) in [
        (json!(12.9), 12, false),
        (json!("45"), 45, false),
        (json!(true), 1, false),
        (json!(0), 60, true),
        (json!(-5), 60, true),
        (json!(false), 60, true),
        (json!(null), 60, true),
        (json!([1]), 60, true),
        (json!(300), 300, false),
        (json!(1), 1, false),
    ] {
        let parsed = parse(json!({"on_session_start": [{"command": "x", "timeout": raw}]}));
        assert_eq!(
            parsed.specs[0].timeout,
            Duration::from_secs(expected),
            "{raw}"
        );
        assert_eq!(
            !parsed.warnings.is_empty(),
            warns,
            "{raw}: {:?}",
            parsed.warnings
        );
    }
    let parsed = parse(json!({"on_session_start": [{"command": "x", "timeout": 0}]}));
    warning_with(
        &parsed,
        "hooks.on_session_start[0].timeout must be >=1; using default 60s",
    );
}

#[test]
fn t45_non_list_event_skipped() {
    let parsed =
        parse(json!({"pre_tool_call": {"command": "x"}, "on_session_start": [{"command": "y"}]}));
    assert_eq!(parsed.specs.len(), 1);
    let warning = warning_with(
        &parsed,
        "hooks.pre_tool_call must be a list of hook definitions; got dict",
    );
    assert_eq!(warning.key, "hooks.pre_tool_call");
}

#[test]
fn t46_none_or_non_mapping_hooks_block() {
    for hooks in [json!(null), json!("x"), json!([1, 2])] {
        assert!(parse(hooks).specs.is_empty());
    }
    let home = Home::new();
    assert!(parse_config(&home.config(json!({}))).specs.is_empty());
    // Null entries are skipped silently.
    let parsed = parse(json!({"pre_tool_call": null}));
    assert!(parsed.specs.is_empty() && parsed.warnings.is_empty());
}

#[test]
fn entry_not_a_mapping_is_skipped() {
    let parsed = parse(json!({"pre_tool_call": ["echo hi", {"command": "ok"}]}));
    assert_eq!(parsed.specs.len(), 1);
    let warning = warning_with(
        &parsed,
        "hooks.pre_tool_call[0] must be a mapping with a 'command' key; got str",
    );
    assert_eq!(warning.key, "hooks.pre_tool_call[0]");
}

#[test]
fn t47_non_tool_event_matcher_warns_and_drops() {
    let parsed = parse(json!({"pre_llm_call": [{"command": "x", "matcher": "terminal"}]}));
    assert_eq!(parsed.specs[0].matcher.pattern(), None);
    let warning = warning_with(
        &parsed,
        "hooks.pre_llm_call[0].matcher='terminal' will be ignored at runtime — the matcher field is only \
         honored for pre_tool_call / post_tool_call.  The hook will fire on every pre_llm_call event.",
    );
    assert_eq!(warning.key, "hooks.pre_llm_call[0].matcher");
}

#[test]
fn matcher_not_a_string_is_ignored() {
    let parsed = parse(json!({"pre_tool_call": [{"command": "x", "matcher": 5}]}));
    assert_eq!(parsed.specs[0].matcher.pattern(), None);
    warning_with(
        &parsed,
        "hooks.pre_tool_call[0].matcher must be a string regex; ignoring",
    );
}

#[test]
fn invalid_matcher_is_literal_with_a_warning() {
    let parsed = parse(json!({"pre_tool_call": [{"command": "x", "matcher": "foo[bar"}]}));
    assert!(parsed.specs[0].matcher.matches(Some("foo[bar")));
    let warning = warning_with(&parsed, "matcher 'foo[bar' is invalid");
    assert_eq!(warning.key, "hooks.pre_tool_call[0].matcher");
    assert!(warning.message.contains("treating as literal equality"));
}

#[test]
fn t48_python_only_event_refused() {
    let parsed = parse(json!({"transform_api_error_classification": [{"command": "x"}]}));
    assert!(parsed.specs.is_empty());
    let warning = warning_with(&parsed, "Python-plugin-only");
    assert!(
        warning
            .message
            .contains("registration is refused rather than silently ignored")
    );
}

#[test]
fn reserved_sections_and_unknown_keys_are_silent() {
    let parsed = parse(json!({
        "outbound": [{"url": "https://x"}],
        "output_spill": {"max": 1},
        "on_session_end": [{"command": "x", "colour": "blue"}],
    }));
    assert_eq!(parsed.specs.len(), 1);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

#[test]
fn t57_fail_closed_parsed() {
    let parsed = parse(json!({"pre_tool_call": [{"command": "x", "fail_closed": true}]}));
    assert!(parsed.specs[0].fail_closed);
}

#[test]
fn t58_fail_closed_defaults_false() {
    assert!(!parse(json!({"pre_tool_call": [{"command": "x"}]})).specs[0].fail_closed);
}

#[test]
fn t59_failclosed_camel_alias() {
    assert!(
        parse(json!({"pre_tool_call": [{"command": "x", "failClosed": true}]})).specs[0]
            .fail_closed
    );
}

#[test]
fn t60_canonical_wins_over_alias() {
    let parsed = parse(
        json!({"pre_tool_call": [{"command": "x", "fail_closed": false, "failClosed": true}]}),
    );
    assert!(!parsed.specs[0].fail_closed);
}

#[test]
fn t61_non_bool_warns_and_fails_closed() {
    // The reference reads it as false (fail open); a guard spelled oddly
    // still guards here, as an imported `failClosed` does (R33b-4).
    let parsed = parse(json!({"pre_tool_call": [{"command": "x", "fail_closed": "yes"}]}));
    assert!(parsed.specs[0].fail_closed);
    let warning = warning_with(
        &parsed,
        "fail_closed must be a boolean (got 'yes'); failing closed",
    );
    assert_eq!(warning.key, "hooks.pre_tool_call[0].fail_closed");
    let parsed = parse(json!({"post_tool_call": [{"command": "x", "fail_closed": "true"}]}));
    assert!(!parsed.specs[0].fail_closed);
    warning_with(&parsed, "using default false (fail open)");
}

#[test]
fn t62_fail_closed_on_non_blocking_event_warns_and_ignores() {
    let parsed = parse(json!({"post_tool_call": [{"command": "x", "fail_closed": true}]}));
    assert!(!parsed.specs[0].fail_closed);
    warning_with(
        &parsed,
        "hooks.post_tool_call[0].fail_closed=true will be ignored at runtime — fail_closed only applies \
         to blocking-capable events (pre_tool_call).",
    );
}

#[test]
fn warnings_name_the_config_file() {
    let home = Home::new();
    let parsed = parse_config(&home.config(json!({"hooks": {"nope": []}})));
    assert_eq!(parsed.warnings[0].file, home.path().join("config.yaml"));
}

#[test]
fn specs_carry_the_home() {
    let home = Home::new();
    let parsed =
        parse_config(&home.config(json!({"hooks": {"on_session_start": [{"command": "x"}]}})));
    assert_eq!(parsed.specs[0].home, home.path());
}

#[test]
fn t19_to_t26_matchers_on_specs() {
    let spec = |matcher: Value| {
        parse(json!({"pre_tool_call": [{"command": "x", "matcher": matcher}]}))
            .specs
            .remove(0)
    };
    // 19: no matcher fires for any tool (and for calls without a tool name).
    let any = spec(Value::Null);
    assert!(any.matches_tool(Some("terminal")) && any.matches_tool(None));
    // 20: a single name matches only itself.
    let single = spec(json!("terminal"));
    assert!(single.matches_tool(Some("terminal")) && !single.matches_tool(Some("read_file")));
    // 21: alternation is a full match.
    let alternation = spec(json!("terminal|file"));
    assert!(
        alternation.matches_tool(Some("file")) && !alternation.matches_tool(Some("terminal_extra"))
    );
    // 22: an invalid regex compares literally.
    let literal = spec(json!("foo[bar"));
    assert!(literal.matches_tool(Some("foo[bar")) && !literal.matches_tool(Some("foo")));
    // 23: with a matcher, a call without a tool name does not match.
    assert!(!single.matches_tool(None));
    // 24, 25: whitespace is trimmed.
    assert!(spec(json!(" terminal ")).matches_tool(Some("terminal")));
    assert!(spec(json!("terminal\n")).matches_tool(Some("terminal")));
    // 26: whitespace only means no matcher.
    assert!(spec(json!("   ")).matches_tool(None));
}

#[test]
fn a_fail_closed_guard_naming_a_dead_tool_guards_the_hermes_tool_meant() {
    // Red team round 14, R14-3: `Bash` never matched `terminal`, silently.
    for matcher in ["Bash", "Terminal", "termnal", "shell", "^Bash$"] {
        let parsed = parse(json!({"pre_tool_call": [
            {"command": "x", "matcher": matcher, "fail_closed": true}]}));
        assert!(parsed.specs[0].matches_tool(Some("terminal")), "{matcher}");
        assert!(
            !parsed.specs[0].matches_tool(Some("read_file")),
            "{matcher}"
        );
        let warning = warning_with(&parsed, "guards 'terminal' as meant");
        assert!(
            warning.message.contains("write 'terminal'"),
            "{}",
            warning.message
        );
        assert_eq!(warning.key, "hooks.pre_tool_call[0].matcher");
        assert!(
            warning
                .message
                .starts_with("hooks.pre_tool_call[0].matcher: ")
        );
    }
    // Fail open: as Hermes runs it, unread and unwarned.
    let parsed = parse(json!({"pre_tool_call": [{"command": "x", "matcher": "Bash"}]}));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert!(!parsed.specs[0].matches_tool(Some("terminal")));
    // Untold: said, and nothing blocked or widened.
    let parsed = parse(json!({"pre_tool_call": [
        {"command": "x", "matcher": "frobnicate", "fail_closed": true}]}));
    assert!(!parsed.specs[0].matches_tool(Some("terminal")));
    warning_with(&parsed, "this fail-closed guard NEVER RUNS");
}

#[test]
fn fail_closed_spelled_another_way_still_fails_closed() {
    for key in [
        "FailClosed",
        "fail-closed",
        "failclosed",
        "fail_\u{0441}losed",
        "f\u{0430}il_closed",
        "\u{ff46}\u{ff41}\u{ff49}\u{ff4c}_closed",
        "fail_close",
        "fial_closed",
    ] {
        let parsed = parse(json!({"pre_tool_call": [{"command": "x", key: true}]}));
        assert!(parsed.specs[0].fail_closed, "{key}");
        let warning = warning_with(&parsed, "read as fail_closed");
        assert_eq!(warning.key, format!("hooks.pre_tool_call[0].{key}"));
    }
    for key in ["fail_open", "closed", "failover", "timeout"] {
        let parsed = parse(json!({"pre_tool_call": [{"command": "x", key: true}]}));
        assert!(!parsed.specs[0].fail_closed, "{key}");
    }
}
