//! `hooks list`, `hooks doctor`, `hooks revoke`, `hooks events`: the reference's
//! CLI cases (§7.5) plus the config warnings shown where the user looks. What
//! `list` and `doctor` check beyond shell hooks is in `list_doctor_all.rs`.

use crate::support::TempHome;

const OK_HOOK: &str = "#!/bin/sh\ncat >/dev/null\necho '{}'\n";

#[test]
fn empty_config_says_nothing_is_configured() {
    let home = TempHome::new();
    let text = home.hooks(&["list"]).ok();
    assert!(
        text.contains("No shell hooks or outbound webhooks configured"),
        "{text}"
    );
}

#[test]
fn list_shows_hooks_by_event_with_consent_status() {
    let home = TempHome::new();
    let allowed = home.script("allowed.sh", OK_HOOK);
    let other = home.script("other.sh", OK_HOOK);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {a}\n      matcher: terminal\n      fail_closed: true\n  on_session_start:\n    - command: {o}\n",
        a = allowed.display(),
        o = other.display()
    ));
    home.write(
        "shell-hooks-allowlist.json",
        &format!(r#"{{"approvals": [{{"event": "pre_tool_call", "command": "{}", "approved_at": "2026-01-01T00:00:00Z"}}]}}"#, allowed.display()),
    );
    let text = home.hooks(&["list"]).ok();
    assert!(text.contains("[pre_tool_call]"), "{text}");
    assert!(text.contains("[on_session_start]"), "{text}");
    assert!(text.contains("✓ allowed"), "{text}");
    assert!(text.contains("✗ not allowlisted"), "{text}");
    assert!(text.contains("matcher='terminal'"), "{text}");
    assert!(text.contains("fail_closed"), "{text}");
    assert!(text.contains(&allowed.display().to_string()), "{text}");
}

#[test]
fn list_shows_config_warnings_with_a_suggestion() {
    let home = TempHome::new();
    home.only_hook("pre_tool_cal", "ok.sh", OK_HOOK);
    let text = home.hooks(&["list"]).ok();
    assert!(text.contains("did you mean 'pre_tool_call'"), "{text}");
    assert!(text.contains("config.yaml"), "{text}");
}

#[test]
fn list_shows_outbound_targets_signed_or_not_and_never_the_secret() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  outbound:\n    - name: ci\n      url: https://ci.example.com/hook\n      events: [on_session_end]\n      secret: super-secret-value\n    - url: https://x.example.com/\n      events: [post_tool_call]\n      matcher: terminal\n",
    );
    let text = home.hooks(&["list"]).ok();
    assert!(
        text.contains("Configured outbound webhooks (2 total)"),
        "{text}"
    );
    assert!(text.contains("signed"), "{text}");
    assert!(text.contains("UNSIGNED"), "{text}");
    assert!(!text.contains("super-secret-value"), "{text}");
}

#[test]
fn list_shows_each_targets_concurrency_and_a_durable_one_is_one_at_a_time() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  outbound:\n    - name: fast\n      url: https://fast.example.com/hook\n      events: [on_session_end]\n      concurrency: 16\n    - name: kept\n      url: https://kept.example.com/hook\n      events: [on_session_end]\n      delivery: durable\n      concurrency: 8\n    - name: plain\n      url: https://plain.example.com/hook\n      events: [on_session_end]\n",
    );
    let listed = home.hooks(&["list", "--json"]).json();
    let outbound = &listed["outbound"];
    assert_eq!(outbound[0]["concurrency"], 16, "{listed}");
    // The spool sends a durable target's rows one at a time: the key is ignored, said so.
    assert_eq!(outbound[1]["concurrency"], 1, "{listed}");
    assert_eq!(outbound[2]["concurrency"], 4, "the default: {listed}");
    let warnings = listed["warnings"].to_string();
    assert!(
        warnings.contains("hooks.outbound[1].concurrency only applies to 'delivery: best_effort'"),
        "{warnings}"
    );
    assert!(warnings.contains("config.yaml"), "{warnings}");
    let text = home.hooks(&["list"]).ok();
    assert!(
        text.contains("delivery: best_effort (concurrency=16)"),
        "{text}"
    );
    assert!(text.contains("delivery: durable (concurrency=1)"), "{text}");
}

#[test]
fn doctor_flags_a_missing_exec_bit() {
    let home = TempHome::new();
    let script = home.write("noexec.sh", OK_HOOK);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n",
        script.display()
    ));
    let text = home.hooks(&["doctor"]).problems();
    assert!(text.contains("not executable"), "{text}");
}

#[test]
fn doctor_flags_unallowlisted_and_does_not_run_it() {
    let home = TempHome::new();
    let sentinel = home.hermes.join("ran");
    home.only_hook(
        "pre_tool_call",
        "s.sh",
        &format!("#!/bin/sh\ntouch {}\n", sentinel.display()),
    );
    let text = home.hooks(&["doctor"]).problems();
    assert!(text.contains("not allowlisted"), "{text}");
    assert!(text.contains("hooks approve"), "{text}");
    assert!(text.contains("skipped JSON smoke test"), "{text}");
    assert!(!sentinel.exists(), "doctor ran an unapproved hook");
}

fn approve(home: &TempHome, event: &str, command: &str, mtime: &str) {
    home.write(
        "shell-hooks-allowlist.json",
        &format!(
            r#"{{"approvals": [{{"event": "{event}", "command": "{command}", "approved_at": "2026-01-01T00:00:00Z", "script_mtime_at_approval": "{mtime}"}}]}}"#
        ),
    );
}

#[test]
fn doctor_flags_invalid_json() {
    let home = TempHome::new();
    let script = home.only_hook(
        "pre_tool_call",
        "garbage.sh",
        "#!/bin/sh\ncat >/dev/null\necho not json\n",
    );
    approve(
        &home,
        "pre_tool_call",
        &script.display().to_string(),
        "2999-01-01T00:00:00Z",
    );
    let text = home.hooks(&["doctor"]).problems();
    assert!(text.contains("not valid JSON"), "{text}");
}

#[test]
fn doctor_flags_mtime_drift() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "drift.sh", OK_HOOK);
    approve(
        &home,
        "pre_tool_call",
        &script.display().to_string(),
        "2000-01-01T00:00:00Z",
    );
    let text = home.hooks(&["doctor"]).problems();
    assert!(text.contains("modified since approval"), "{text}");
}

#[test]
fn doctor_passes_a_clean_script() {
    let home = TempHome::new();
    home.only_hook("pre_tool_call", "clean.sh", OK_HOOK);
    home.hooks(&["--accept-hooks", "emit", "on_session_finalize"])
        .ok();
    let accepted = home.hooks(&["--accept-hooks", "emit", "pre_tool_call"]);
    accepted.ok();
    let text = home.hooks(&["doctor"]).ok();
    assert!(text.contains("No problems found"), "{text}");
}

#[test]
fn revoke_removes_the_entry_then_reports_none() {
    let home = TempHome::new();
    approve(&home, "pre_tool_call", "/x/hook.sh", "2026-01-01T00:00:00Z");
    let text = home.hooks(&["revoke", "/x/hook.sh"]).ok();
    assert!(text.contains("Removed 1"), "{text}");
    let text = home.hooks(&["revoke", "/x/hook.sh"]).ok();
    assert!(text.contains("No allowlist entry"), "{text}");
}

#[test]
fn events_lists_the_whole_catalog() {
    let home = TempHome::new();
    let document = home.hooks(&["events", "--json"]).json();
    assert_eq!(document["events"].as_array().map(Vec::len), Some(41));
    assert_eq!(
        document["gateway_events"].as_array().map(Vec::len),
        Some(11)
    );
}

#[test]
fn a_broken_config_file_is_an_error_naming_it() {
    let home = TempHome::new();
    home.config("hooks: [unclosed\n");
    let run = home.hooks(&["list"]);
    assert_eq!(run.code(), Some(2));
    assert!(run.stderr().contains("config.yaml"), "{}", run.stderr());
}

#[test]
fn bad_arguments_exit_two() {
    let home = TempHome::new();
    assert_eq!(home.hooks(&["frobnicate"]).code(), Some(2));
}

#[test]
fn the_opening_summary_counts_imported_hooks() {
    let home = TempHome::new();
    let settings = home.write(
        "claude-settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    home.config(&format!(
        "hooks_from:\n  - {{format: claude, path: \"{}\"}}\n",
        settings.display()
    ));
    let list = home.hooks(&["list"]).ok();
    assert!(
        !list.contains("No shell hooks or outbound webhooks configured"),
        "{list}"
    );
    assert!(
        list.contains("; 1 hook imported from other agents' settings (hooks_from:), listed below."),
        "{list}"
    );
    let doctor = home.hooks(&["doctor"]).stdout();
    assert!(
        doctor.contains(
            "; 1 hook imported from other agents' settings (hooks_from:), checked below."
        ) && !doctor.contains("nothing to check"),
        "{doctor}"
    );
}

/// A home whose config names `~/.hermes/...` checked somewhere else (the
/// example home used in place): doctor ends with a note saying why its
/// files are not found and what to do; checked at `~/.hermes`, it does not.
#[test]
fn doctor_notes_a_home_written_for_dot_hermes_checked_elsewhere() {
    let home = TempHome::new();
    let config = "hooks:\n  pre_tool_call:\n    - command: \"~/.hermes/agent-hooks/guard.sh\"\n";
    home.config(config);
    let at_home = home.hooks(&["doctor"]).problems();
    assert!(
        !at_home.contains("names files under ~/.hermes/"),
        "{at_home}"
    );

    let elsewhere = home.user_home.join("project/hermes-home");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("config.yaml"), config).expect("write config");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hooks"))
        .arg("--home")
        .arg(&elsewhere)
        .arg("doctor")
        .env("HOME", &home.user_home)
        .env("HERMES_MANAGED_DIR", home.user_home.join("managed-scope"))
        .env_remove("HERMES_HOME")
        .env_remove("HERMES_ACCEPT_HOOKS")
        .output()
        .expect("run hooks");
    let run = crate::support::Run(output);
    let text = run.problems();
    assert!(
        text.contains("config.yaml names files under ~/.hermes/ (1 line)")
            && text.contains("Copy this home to ~/.hermes")
            && text.contains("cargo xtask demo"),
        "{text}"
    );
}
