//! Red team round 74's holes, through the real binary: a fail-closed
//! guard whose matcher is written with characters that only look like
//! others (a Cyrillic `е`, fullwidth letters or bar, a zero-width space)
//! matched no tool, so it never ran and every call was allowed.

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
