//! Snapshots of the human output of `test`, `emit`, `replay`, `events` and
//! `approve` on the example home, so a wording change shows up in review.
//! Temporary paths and timings are replaced by placeholders.

use crate::list_doctor_snapshots::fresh_example_home as example_home;
use crate::support::{TempHome, transcript};

fn snapshot(name: &str, home: &TempHome, args: &[&str]) {
    let run = home.hooks(args);
    let text = transcript(home, args, &run);
    insta::with_settings!({
        filters => vec![
            (r"elapsed=\d+\.\d+s", "elapsed=[T]s"),
            (r"\d+\.\d+ ms", "[T] ms"),
            // What this machine's kernel supports (doctor's last section).
            (r"Sandbox support: .*", "Sandbox support: [THIS MACHINE]"),
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
    // An allowed call says so, and which hooks ran, not "nothing (0 replies)".
    let payload = home.write(
        "ls.json",
        "{\"tool_name\": \"terminal\", \"args\": {\"command\": \"ls -la\"}}",
    );
    snapshot(
        "emit_pre_tool_call_allows",
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
    // The example's commands are `${HERMES_HOME}/agent-hooks/...`: the home's own path.
    let script = |name: &str| format!("{}/agent-hooks/{name}", home.hermes.display());
    snapshot("approve_typo", &home, &["approve", &script("block-rm-rf")]);
    snapshot(
        "revoke_log_tool",
        &home,
        &["revoke", &script("log-tool.sh")],
    );
    snapshot(
        "approve_log_tool_on_session_end",
        &home,
        &[
            "approve",
            &script("log-tool.sh"),
            "--event",
            "on_session_end",
        ],
    );
}

/// A home with no shell hooks of its own but one imported from Claude Code
/// settings: the opening line of `list` and `doctor` counts the import.
fn imported_only_home() -> TempHome {
    let home = TempHome::new();
    let settings = home.write(
        "claude-settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    home.config(&format!(
        "hooks_from:\n  - {{format: claude, path: \"{}\"}}\n",
        settings.display()
    ));
    home
}

#[test]
fn the_opening_summary_names_imported_hooks() {
    let home = imported_only_home();
    snapshot("list_imported_only", &home, &["list"]);
    snapshot("doctor_imported_only", &home, &["doctor"]);
}

#[test]
fn listen_on_a_taken_port_says_what_to_do() {
    let home = TempHome::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let port = taken.local_addr().expect("its address").port().to_string();
    let args = ["listen", "--port", port.as_str()];
    let run = home.hooks(&args);
    let text = transcript(&home, &args, &run).replace(&port, "[PORT]");
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("listen_port_taken", text);
    });
}

/// The consent prompt on a terminal (stdin a pty; the answers typed ahead)
/// names the file each hook comes from: config.yaml for the home's own
/// hooks, the Claude Code settings file for an imported one.
#[test]
fn the_consent_prompt_names_the_source_file() {
    use std::io::Write;
    let home = example_home();
    let payload = home.write(
        "rm.json",
        "{\"tool_name\": \"terminal\", \"args\": {\"command\": \"rm -rf /tmp/x\"}}",
    );
    let payload = payload.display().to_string();
    let args = ["emit", "pre_tool_call", "--payload-file", payload.as_str()];
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let mut typed = std::fs::File::from(pty.master);
    // "no", typed ahead: one answer per prompt (each of the home's five
    // unapproved hooks is asked about once, when it registers), and more
    // than enough (a missing answer would leave the prompt waiting).
    typed
        .write_all("n\n".repeat(16).as_bytes())
        .expect("type the answers");
    let output = crate::harness::command(&home, &args)
        .stdin(std::process::Stdio::from(pty.slave))
        .output()
        .expect("run hooks");
    drop(typed);
    let run = crate::support::Run(output);
    let text = transcript(&home, &args, &run);
    insta::with_settings!({
        filters => vec![(r"\d+\.\d+ ms", "[T] ms")],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("consent_prompt_names_source", text);
    });
}
