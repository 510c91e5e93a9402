//! Inputs: payload files (stdin, the cap, the shell-hook stdin shape), homes
//! that do not exist, unknown events, and config text shown escaped.

use std::time::Duration;

use serde_json::json;

use crate::harness::{command, with_stdin, within};
use crate::support::{TempHome, captured};

#[test]
fn payload_file_dash_reads_stdin() {
    let home = TempHome::new();
    let capture = home.capturing_hook("pre_llm_call");
    let run = with_stdin(
        command(&home, &["test", "pre_llm_call", "--payload-file", "-"]),
        br#"{"user_message": "from stdin"}"#,
    );
    run.ok();
    assert_eq!(captured(&capture)["extra"]["user_message"], "from stdin");
}

#[test]
fn a_payload_file_past_the_cap_is_refused_naming_it() {
    let home = TempHome::new();
    home.capturing_hook("pre_llm_call");
    let mut big = vec![b' '; 16 * 1024 * 1024];
    big.extend_from_slice(b"{}");
    let path = home.hermes.join("big.json");
    std::fs::write(&path, big).expect("write");
    let run = home.hooks(&[
        "emit",
        "pre_llm_call",
        "--payload-file",
        path.to_str().unwrap_or(""),
    ]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("big.json"), "{}", run.stderr());
    assert!(run.stderr().contains("16 MiB"), "{}", run.stderr());
}

#[test]
fn stdin_past_the_cap_is_refused_too() {
    let home = TempHome::new();
    home.capturing_hook("pre_llm_call");
    let big = vec![b' '; 16 * 1024 * 1024 + 10];
    let run = with_stdin(
        command(&home, &["test", "pre_llm_call", "--payload-file", "-"]),
        &big,
    );
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("stdin"), "{}", run.stderr());
}

#[test]
fn dev_zero_fails_fast_in_bounded_memory() {
    let home = TempHome::new();
    home.capturing_hook("pre_llm_call");
    // 1 GiB of address space: reading /dev/zero whole would exceed it and abort.
    let mut shell = std::process::Command::new("sh");
    let inner = command(
        &home,
        &["emit", "pre_llm_call", "--payload-file", "/dev/zero"],
    );
    let program = inner.get_program().to_owned();
    shell
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$@\"")
        .arg("sh")
        .arg(program)
        .args(inner.get_args())
        .env("HOME", &home.user_home);
    let run = within(shell, Duration::from_secs(60)).expect("hooks kept reading /dev/zero");
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("/dev/zero"), "{}", run.stderr());
    assert!(run.stderr().contains("16 MiB"), "{}", run.stderr());
}

/// The documentation's stdin example for a shell hook (the shell hooks section).
const DOC_STDIN: &str = r#"{
  "hook_event_name": "pre_tool_call",
  "tool_name":       "terminal",
  "tool_input":      {"command": "rm -rf /"},
  "session_id":      "sess_abc123",
  "cwd":             "/home/user/project",
  "extra":           {"task_id": "...", "tool_call_id": "..."}
}"#;

/// The documentation's block-rm-rf hook, as written there (it reads `tool_input`).
const DOC_BLOCK_RM_RF: &str = r#"#!/usr/bin/env bash
payload="$(cat -)"
cmd=$(echo "$payload" | jq -r '.tool_input.command // empty')
if echo "$cmd" | grep -qE 'rm[[:space:]]+-rf?[[:space:]]+/'; then
  printf '{"decision": "block", "reason": "blocked: rm -rf / is not permitted"}\n'
else
  printf '{}\n'
fi
"#;

fn have_jq() -> bool {
    std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn the_docs_stdin_example_as_a_payload_blocks_with_the_docs_hook() {
    if !have_jq() {
        eprintln!("skipped: jq is not installed (the documentation's hook uses it)");
        return;
    }
    let home = TempHome::new();
    let script = home.script("block-rm-rf.sh", DOC_BLOCK_RM_RF);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: {}\n",
        script.display()
    ));
    let payload = home.write("stdin-example.json", DOC_STDIN);
    let path = payload.to_str().unwrap_or_default();
    let blocked = json!({"action": "block", "message": "blocked: rm -rf / is not permitted"});

    let run = home.hooks(&["test", "pre_tool_call", "--payload-file", path, "--json"]);
    assert_eq!(run.json()["outcome"], blocked);
    assert!(
        run.stderr().contains("shell-hook stdin document"),
        "{}",
        run.stderr()
    );

    let run = home.hooks(&[
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--payload-file",
        path,
        "--json",
    ]);
    assert_eq!(run.json()["outcome"], blocked);
}

#[test]
fn a_shell_document_reads_back_as_the_same_event() {
    let home = TempHome::new();
    let capture = home.capturing_hook("pre_tool_call");
    let payload = home.write("doc.json", DOC_STDIN);
    home.hooks(&[
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--payload-file",
        payload.to_str().unwrap_or_default(),
    ])
    .ok();
    let seen = captured(&capture);
    assert_eq!(seen["tool_name"], "terminal");
    assert_eq!(seen["tool_input"], json!({"command": "rm -rf /"}));
    assert_eq!(seen["session_id"], "sess_abc123");
    assert_eq!(seen["extra"]["task_id"], "...");
    assert_eq!(seen["extra"].get("hook_event_name"), None, "{seen}");
    assert_eq!(seen["extra"].get("tool_input"), None, "{seen}");
}

#[test]
fn a_shell_document_for_another_event_is_an_error() {
    let home = TempHome::new();
    home.capturing_hook("post_tool_call");
    let payload = home.write("doc.json", DOC_STDIN);
    let run = home.hooks(&[
        "test",
        "post_tool_call",
        "--payload-file",
        payload.to_str().unwrap_or_default(),
    ]);
    assert_eq!(run.code(), Some(2), "{}", run.stdout());
    let stderr = run.stderr();
    assert!(
        stderr.contains("'pre_tool_call'") && stderr.contains("'post_tool_call'"),
        "{stderr}"
    );
}

#[test]
fn a_home_that_does_not_exist_warns_readers_and_stops_writers() {
    let home = TempHome::new();
    let missing = home.user_home.join("no-such-home");
    let missing = missing.to_str().unwrap_or_default();
    let hooks = |args: &[&str]| {
        crate::support::Run(
            std::process::Command::new(env!("CARGO_BIN_EXE_hooks"))
                .arg("--home")
                .arg(missing)
                .args(args)
                .env("HOME", &home.user_home)
                .env_remove("HERMES_HOME")
                .output()
                .expect("run"),
        )
    };
    let run = hooks(&["test", "pre_tool_call"]);
    assert_eq!(run.code(), Some(0));
    assert!(run.stderr().contains("does not exist"), "{}", run.stderr());
    for args in [&["approve", "--all"][..], &["revoke", "x"]] {
        let run = hooks(args);
        assert_eq!(run.code(), Some(2), "{args:?}: {}", run.stdout());
        assert!(run.stderr().contains("does not exist"), "{}", run.stderr());
        assert!(
            !std::path::Path::new(missing).exists(),
            "{args:?} created the home"
        );
    }
}

#[test]
fn unknown_events_list_gateway_events_and_suggest_the_closest() {
    let home = TempHome::new();
    let run = home.hooks(&["emit", "agent:strat"]);
    assert_eq!(run.code(), Some(2));
    let stderr = run.stderr();
    assert!(stderr.contains("did you mean 'agent:start'"), "{stderr}");
    assert!(
        stderr.contains("Gateway events:") && stderr.contains("session:start"),
        "{stderr}"
    );
    assert!(stderr.contains("pre_tool_call"), "{stderr}");
}

#[test]
fn config_text_is_shown_escaped_by_test_emit_and_replay() {
    let home = TempHome::new();
    // The reply carries an ESC too (JSON-escaped, so it parses).
    let script = home.script(
        "ok.sh",
        "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n{\"context\": \"x\\u001b[2Ky\"}\nEOF\n",
    );
    home.config(&format!(
        "hooks:\n  pre_llm_call:\n    - command: \"{} \\e[2K\"\n",
        script.display()
    ));
    let session = home.write(
        "session.jsonl",
        "{\"event\": \"pre_llm_call\", \"payload\": {\"tool_name\": \"t\\u001b[31m\"}}\n",
    );
    let session = session.to_str().unwrap_or_default();
    for args in [
        &["test", "pre_llm_call"][..],
        &["--accept-hooks", "emit", "pre_llm_call"],
        &["replay", session],
    ] {
        let run = home.hooks(args);
        let stdout = run.ok();
        assert!(
            !stdout.contains('\u{1b}'),
            "{args:?} printed a raw ESC:\n{stdout}"
        );
        assert!(stdout.contains("\\e[2K"), "{args:?}:\n{stdout}");
    }
}
