//! Red team round 74's holes, through the real binary: a fail-closed
//! guard whose matcher is written with characters that only look like
//! others (a Cyrillic `е`, fullwidth letters or bar, a zero-width space)
//! matched no tool, so it never ran and every call was allowed; one whose
//! answer a process it started wrote after it exited was read as empty.

use serde_json::json;

/// A blocking guard's command.
const BLOCKS: &str = "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'";

#[test]
fn a_config_guard_whose_matcher_only_looks_like_a_tool_still_guards_it() {
    for matcher in ["t\u{435}rminal", "term\u{200b}inal", "\u{ff54}erminal"] {
        let (home, project) = crate::dialects::home_with("[]");
        let entry = json!([{"command": BLOCKS, "matcher": matcher, "fail_closed": true}]);
        home.config(&format!("hooks:\n  pre_tool_call: {entry}\n"));
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{matcher:?}: {emitted:#}"
        );
    }
}

#[test]
fn an_imported_guard_whose_matcher_only_looks_like_a_tool_still_guards_it() {
    for matcher in ["B\u{430}sh", "Read\u{ff5c}Bash", "Ba\u{ad}sh"] {
        let (home, project) = crate::dialects::home_with("[claude]");
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
            {"type": "command", "command": BLOCKS, "failClosed": true}
        ]}]}});
        crate::dialects::write(
            &home.user_home,
            ".claude/settings.json",
            &settings.to_string(),
        );
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{matcher:?}: {emitted:#}"
        );
    }
}

/// A guard whose block is written by a process it started and did not wait
/// for (`> >(sleep 1; cat)`) exits 0 first: the answer read was empty and
/// allowed. Its output was cut, so a fail-closed guard fails (R74-1).
#[test]
fn a_guard_whose_answer_comes_after_it_exits_blocks() {
    let late = "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"late\"}' > >(sleep 1; cat); exit 0";
    let command = format!("bash -c {}", shlex::try_quote(late).expect("quotable"));
    let (home, project) = crate::dialects::home_with("[claude]");
    crate::dialects::user_fail_closed_command(&home, &command);
    let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    let (home, project) = crate::dialects::home_with("[]");
    let entry = json!([{"command": command, "matcher": "terminal", "fail_closed": true}]);
    home.config(&format!("hooks:\n  pre_tool_call: {entry}\n"));
    let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// The managed scope's fail-closed guard vanished, without a word, when
/// `HERMES_MANAGED_DIR` later named another folder or none (R74-3): the
/// managed file read before is remembered, and its guards the scope read
/// now does not hold keep blocking until the variable is set back.
#[test]
fn a_managed_guard_left_behind_by_a_moved_managed_folder_keeps_blocking() {
    let (home, project) = crate::dialects::home_with("[]");
    let managed = home.user_home.join("managed-scope");
    let entry = json!([{"command": "bash -c \"cat >/dev/null; echo {}\"", "matcher": "terminal", "fail_closed": true}]);
    std::fs::write(
        managed.join("config.yaml"),
        format!("hooks:\n  pre_tool_call: {entry}\n"),
    )
    .expect("managed config");
    let action = |folder: Option<&std::path::Path>, accept: bool| {
        action_and_warnings(&home, &project, folder, accept)
    };
    let (first, warned) = action(Some(&managed), true);
    assert_eq!(first, "allow", "{warned}");
    let elsewhere = home.user_home.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("another folder");
    for folder in [Some(elsewhere.as_path()), None] {
        let (moved, warned) = action(folder, false);
        assert_eq!(moved, "block", "{folder:?}: {warned}");
        assert!(warned.contains("HERMES_MANAGED_DIR"), "{warned}");
    }
    assert_eq!(action(Some(&managed), false).0, "allow");
}

/// config.yaml giving a fail-closed guard's `matcher`, or the
/// `pre_tool_call` list, twice read the last only: `terminal` then
/// `read_file` let every terminal call through (R74-2). A matcher given
/// twice guards every call; a list given twice keeps the guards of the
/// last good read blocking.
#[test]
fn a_config_guard_whose_matcher_or_list_is_given_twice_keeps_blocking() {
    let guard = "bash -c \"cat >/dev/null; echo '{\\\"decision\\\":\\\"block\\\"}'\"";
    let (home, project) = crate::dialects::home_with("[]");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {guard:?}\n      matcher: terminal\n      matcher: read_file\n      fail_closed: true\n"
    ));
    let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");

    let (home, project) = crate::dialects::home_with("[]");
    let entry = |matcher: &str| {
        format!("    - command: {guard:?}\n      matcher: {matcher}\n      fail_closed: true\n")
    };
    home.config(&format!("hooks:\n  pre_tool_call:\n{}", entry("terminal")));
    let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n{}  pre_tool_call:\n{}",
        entry("terminal"),
        entry("read_file")
    ));
    let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// A user's settings file giving a fail-closed guard's `matcher` or `if`,
/// or `disableAllHooks`, twice read the last only: `Bash` then `Read`, or
/// `false` then `true`, let every Bash call through (R74-2). The guard
/// read before keeps blocking until the file gives the key once, and a
/// `disableAllHooks` given twice turns nothing off.
#[test]
fn an_imported_guard_whose_matcher_if_or_switch_is_given_twice_keeps_blocking() {
    let guard = format!("bash -c {}", shlex::try_quote(BLOCKS).expect("quotable"));
    let command = serde_json::to_string(&guard).expect("JSON string");
    let good = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[{{"type":"command","command":{command},"failClosed":true}}]}}]}}}}"#
    );
    for edited in [
        good.replace(
            r#""matcher":"Bash""#,
            r#""matcher":"Bash","matcher":"Read""#,
        ),
        good.replace(
            r#""failClosed":true"#,
            r#""failClosed":true,"if":"Bash(*)","if":"Read(*)""#,
        ),
        good.replacen(
            '{',
            r#"{"disableAllHooks":false,"disableAllHooks":true,"#,
            1,
        ),
    ] {
        let (home, project) = crate::dialects::home_with("[claude]");
        crate::dialects::write(&home.user_home, ".claude/settings.json", &good);
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
        crate::dialects::write(&home.user_home, ".claude/settings.json", &edited);
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{edited}: {emitted:#}"
        );
    }
}

/// The action and the warnings of an emit of `rm -rf /` with
/// `HERMES_MANAGED_DIR` set to `managed` (unset for `None`).
pub(crate) fn action_and_warnings(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    managed: Option<&std::path::Path>,
    accept: bool,
) -> (String, String) {
    let mut emit = crate::dialects::emit_terminal_command(home, project, None, "rm -rf /", accept);
    match managed {
        Some(folder) => emit.env("HERMES_MANAGED_DIR", folder),
        None => emit.env_remove("HERMES_MANAGED_DIR"),
    };
    let output = emit.output().expect("hooks runs");
    let emitted: serde_json::Value = serde_json::from_slice(&output.stdout).expect("emit --json");
    let action = emitted["outcome"]["action"].as_str().unwrap_or("allow");
    (
        action.to_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
