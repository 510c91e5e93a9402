//! `hooks test`: the reference's CLI cases (§7.5) and the `--json` shape this crate's README documents.

use serde_json::json;

use crate::support::{TempHome, captured};

const BLOCKER: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"decision\": \"block\", \"reason\": \"nope\"}'\n";

#[test]
fn fires_a_real_subprocess_and_parses_the_block() {
    let home = TempHome::new();
    home.only_hook("pre_tool_call", "block.sh", BLOCKER);
    let text = home.hooks(&["test", "pre_tool_call"]).ok();
    assert!(text.contains("\"action\":\"block\""), "{text}");
    assert!(text.contains("\"message\":\"nope\""), "{text}");
}

#[test]
fn json_output_has_the_documented_shape_and_the_merged_outcome() {
    let home = TempHome::new();
    let script = home.script("block.sh", BLOCKER);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n",
        script.display()
    ));
    let document = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(document["event"], "pre_tool_call");
    let hook = &document["hooks"][0];
    for key in [
        "command",
        "matcher",
        "exit_code",
        "timed_out",
        "elapsed_ms",
        "stdout",
        "stderr",
        "error",
        "parsed",
    ] {
        assert!(hook.get(key).is_some(), "missing {key} in {hook}");
    }
    assert_eq!(hook["matcher"], "terminal");
    assert_eq!(hook["exit_code"], 0);
    assert_eq!(
        document["outcome"],
        json!({"action": "block", "message": "nope"})
    );
}

#[test]
fn exit_code_two_blocks_with_stderr() {
    let home = TempHome::new();
    home.only_hook(
        "pre_tool_call",
        "deny.sh",
        "#!/bin/sh\necho 'policy violation' >&2\nexit 2\n",
    );
    let document = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(
        document["outcome"],
        json!({"action": "block", "message": "policy violation"})
    );
}

#[test]
fn fail_closed_timeout_shows_the_failed_closed_block() {
    let home = TempHome::new();
    let script = home.script("slow.sh", "#!/bin/sh\nsleep 5\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      timeout: 1\n      fail_closed: true\n",
        script.display()
    ));
    let document = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(document["hooks"][0]["timed_out"], true);
    let message = document["outcome"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with(&format!(
            "hook {} failed closed: timed out after 1s",
            script.display()
        )),
        "{message}"
    );
}

#[test]
fn for_tool_filters_by_matcher() {
    let home = TempHome::new();
    let script = home.script("block.sh", BLOCKER);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n",
        script.display()
    ));
    let text = home
        .hooks(&["test", "pre_tool_call", "--for-tool", "write_file"])
        .ok();
    assert!(
        text.contains("No shell hooks configured for event: pre_tool_call"),
        "{text}"
    );
    assert!(text.contains("--for-tool=write_file"), "{text}");
}

#[test]
fn unknown_event_is_a_usage_error_with_the_valid_list() {
    let home = TempHome::new();
    let run = home.hooks(&["test", "pre_tool_cal"]);
    assert_eq!(run.code(), Some(2));
    assert!(
        run.stderr().contains("Unknown event: 'pre_tool_cal'"),
        "{}",
        run.stderr()
    );
    assert!(
        run.stderr().contains("did you mean 'pre_tool_call'"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("Valid events:"), "{}", run.stderr());
}

#[test]
fn synthetic_payload_matches_the_production_shape() {
    let home = TempHome::new();
    let capture = home.capturing_hook("subagent_stop");
    home.hooks(&["test", "subagent_stop"]).ok();
    let stdin: serde_json::Value = captured(&capture);
    let keys: Vec<&str> = stdin
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "hook_event_name",
            "tool_name",
            "tool_input",
            "session_id",
            "cwd",
            "extra"
        ]
    );
    assert_eq!(stdin["session_id"], "parent-sess");
    assert_eq!(stdin["tool_name"], serde_json::Value::Null);
}

#[test]
fn unreadable_payload_file_exits_two() {
    let home = TempHome::new();
    let run = home.hooks(&[
        "test",
        "pre_tool_call",
        "--payload-file",
        "/nonexistent/payload.json",
    ]);
    assert_eq!(run.code(), Some(2));
    assert!(
        run.stderr().contains("/nonexistent/payload.json"),
        "{}",
        run.stderr()
    );
}

#[test]
fn payload_file_is_merged_into_the_synthetic_payload() {
    let home = TempHome::new();
    let capture = home.capturing_hook("pre_tool_call");
    let payload = home.write(
        "payload.json",
        r#"{"args": {"command": "rm -rf /"}, "turn_id": "t9"}"#,
    );
    home.hooks(&[
        "test",
        "pre_tool_call",
        "--payload-file",
        payload.to_str().unwrap_or_default(),
    ])
    .ok();
    let stdin: serde_json::Value = captured(&capture);
    assert_eq!(stdin["tool_input"], json!({"command": "rm -rf /"}));
    assert_eq!(stdin["extra"]["turn_id"], "t9");
}
