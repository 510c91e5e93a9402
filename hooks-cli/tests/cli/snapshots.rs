//! Snapshots of the human output of `test`, `emit`, `replay`, `events` and
//! `approve` on the example home, so a wording change shows up in review.
//! Temporary paths and timings are replaced by placeholders.

use crate::support::{TempHome, example_home, transcript};

fn snapshot(name: &str, home: &TempHome, args: &[&str]) {
    let run = home.hooks(args);
    let text = transcript(home, args, &run);
    insta::with_settings!({
        filters => vec![
            (r"elapsed=\d+\.\d+s", "elapsed=[T]s"),
            (r"\d+\.\d+ ms", "[T] ms"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn test_on_the_example_home() {
    let home = example_home();
    snapshot(
        "test_pre_tool_call_not_approved",
        &home,
        &["test", "pre_tool_call", "--for-tool", "terminal"],
    );
    let payload = home.write(
        "rm.json",
        "{\"tool_name\": \"terminal\", \"args\": {\"command\": \"rm -rf /\"}}",
    );
    home.hooks(&["approve", "--all"]).ok();
    snapshot(
        "test_pre_tool_call_blocks",
        &home,
        &[
            "test",
            "pre_tool_call",
            "--payload-file",
            &payload.display().to_string(),
        ],
    );
    snapshot("test_pre_llm_call", &home, &["test", "pre_llm_call"]);
    snapshot("test_no_hooks", &home, &["test", "on_session_start"]);
}

#[test]
fn emit_on_the_example_home() {
    let home = example_home();
    snapshot(
        "emit_pre_llm_call_not_approved",
        &home,
        &["emit", "pre_llm_call"],
    );
    home.hooks(&["approve", "--all"]).ok();
    snapshot("emit_pre_llm_call", &home, &["emit", "pre_llm_call"]);
    let payload = home.write(
        "rm.json",
        "{\"tool_name\": \"terminal\", \"args\": {\"command\": \"rm -rf /tmp/x\"}}",
    );
    snapshot(
        "emit_pre_tool_call_blocks",
        &home,
        &[
            "emit",
            "pre_tool_call",
            "--payload-file",
            &payload.display().to_string(),
        ],
    );
    snapshot("emit_command_reset", &home, &["emit", "command:reset"]);
}

#[test]
fn replay_on_the_example_home() {
    let home = example_home();
    home.hooks(&["approve", "--all"]).ok();
    let session = home.write(
        "session.jsonl",
        concat!(
            "{\"event\": \"gateway:startup\"}\n",
            "{\"event\": \"pre_llm_call\", \"payload\": {\"user_message\": \"hi\"}}\n",
            "{\"event\": \"pre_tool_call\", \"payload\": {\"tool_name\": \"terminal\", \"args\": {\"command\": \"ls\"}}}\n",
            "{\"event\": \"pre_tool_call\", \"payload\": {\"tool_name\": \"terminal\", \"args\": {\"command\": \"rm -rf /\"}}}\n",
            "{\"event\": \"command:reset\"}\n",
        ),
    );
    snapshot(
        "replay_session",
        &home,
        &["replay", &session.display().to_string()],
    );
}

#[test]
fn events_catalog() {
    let home = example_home();
    snapshot("events", &home, &["events"]);
}

#[test]
fn approve_on_the_example_home() {
    let home = example_home();
    snapshot("approve_all", &home, &["approve", "--all"]);
    snapshot("approve_all_again", &home, &["approve", "--all"]);
    snapshot(
        "approve_typo",
        &home,
        &["approve", "~/.hermes/agent-hooks/block-rm-rf"],
    );
    snapshot(
        "revoke_log_tool",
        &home,
        &["revoke", "~/.hermes/agent-hooks/log-tool.sh"],
    );
    snapshot(
        "approve_log_tool_on_session_end",
        &home,
        &[
            "approve",
            "~/.hermes/agent-hooks/log-tool.sh",
            "--event",
            "on_session_end",
        ],
    );
}
