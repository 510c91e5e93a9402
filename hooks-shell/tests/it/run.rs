//! §7.1 15–17, 27–37, 63–82: real subprocesses and the evaluation rules,
//! plus every row of the doc's fail-open / fail-closed table and exit code 2.

use std::time::Duration;

use hermes_hooks_core::HookEvent::{self, PostToolCall, PreLlmCall, PreToolCall};
use hermes_hooks_shell::{RunResult, ShellHookSpec, evaluate, run_hook, run_once};
use serde_json::{Value, json};

use crate::support::{Home, context, event, tool_event};

fn ran(exit_code: i32, stdout: &str, stderr: &str) -> RunResult {
    RunResult::exited(exit_code, stdout, stderr)
}

fn block(message: &str) -> Option<Value> {
    Some(json!({"action": "block", "message": message}))
}

fn closed(home: &Home, event: HookEvent, command: &str) -> ShellHookSpec {
    let mut spec = home.spec(event, command);
    spec.fail_closed = true;
    spec
}

async fn stdin_seen_by_hook(payload_event: hermes_hooks_core::Event) -> Value {
    let home = Home::new();
    let out = home.path().join("stdin.json");
    let spec = home.spec(
        payload_event.hook().unwrap_or(PreToolCall),
        &format!("sh -c 'cat > {}'", out.display()),
    );
    let result = run_hook(&spec, &payload_event, &context()).await;
    assert_eq!(result.exit_code, Some(0), "{result:?}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap_or_default()).unwrap_or(Value::Null)
}

#[tokio::test]
async fn t15_t33_basic_pre_tool_call_schema_delivered() {
    let document = stdin_seen_by_hook(tool_event("terminal")).await;
    assert_eq!(
        document,
        json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal",
               "tool_input": {"command": "ls"}, "session_id": "s1", "cwd": "/work",
               "extra": {"task_id": "t1", "tool_call_id": "c1"}})
    );
}

#[tokio::test]
async fn t16_args_not_dict_becomes_null() {
    let document = stdin_seen_by_hook(event(
        "pre_tool_call",
        json!({"tool_name": "t", "args": [1]}),
    ))
    .await;
    assert_eq!(document["tool_input"], Value::Null);
}

#[tokio::test]
async fn t17_parent_session_id_used_when_no_session_id() {
    let document =
        stdin_seen_by_hook(event("subagent_stop", json!({"parent_session_id": "p"}))).await;
    assert_eq!(document["session_id"], json!("p"));
    assert_eq!(document["tool_name"], Value::Null);
}

#[tokio::test]
async fn t27_t71_timeout_returns_none_by_default() {
    let home = Home::new();
    let mut spec = home.spec(PostToolCall, "sleep 30");
    spec.timeout = Duration::from_secs(1);
    let (result, parsed) = run_once(&spec, &tool_event("terminal"), &context()).await;
    // Ended by the 1 s timeout, not the 30 s sleep: the record says so (no clock).
    assert!(result.timed_out, "{result:?}");
    assert_eq!(parsed, None);
}

#[tokio::test]
async fn t28_t74_malformed_json_stdout_fails_open() {
    let home = Home::new();
    let spec = home.spec(PreToolCall, "echo 'Traceback (most recent call last):'");
    let (_, parsed) = run_once(&spec, &tool_event("terminal"), &context()).await;
    assert_eq!(parsed, None);
}

#[tokio::test]
async fn t29_non_zero_exit_with_block_stdout_still_blocks() {
    let home = Home::new();
    let command = home.sh(
        "h.sh",
        r#"echo '{"decision": "block", "reason": "exit1"}'; exit 1"#,
    );
    let (result, parsed) = run_once(
        &home.spec(PreToolCall, &command),
        &tool_event("t"),
        &context(),
    )
    .await;
    assert_eq!(result.exit_code, Some(1));
    assert_eq!(parsed, block("exit1"));
}

#[tokio::test]
async fn t30_block_translation_end_to_end() {
    let home = Home::new();
    let command = home.sh(
        "h.sh",
        r#"cat >/dev/null; printf '{"decision": "block", "reason": "nope"}\n'"#,
    );
    let (_, parsed) = run_once(
        &home.spec(PreToolCall, &command),
        &tool_event("t"),
        &context(),
    )
    .await;
    assert_eq!(parsed, block("nope"));
}

#[tokio::test]
async fn t34_pre_llm_call_context_flows_through() {
    let home = Home::new();
    let command = home.sh("h.sh", r#"cat >/dev/null; echo '{"context": "env-note"}'"#);
    let event = event("pre_llm_call", json!({"session_id": "s"}));
    let (_, parsed) = run_once(&home.spec(PreLlmCall, &command), &event, &context()).await;
    assert_eq!(parsed, Some(json!({"context": "env-note"})));
}

#[tokio::test]
async fn t35_shlex_handles_paths_with_spaces() {
    let home = Home::new();
    std::fs::create_dir(home.path().join("dir with space")).ok();
    home.script("dir with space/h.sh", r#"echo '{"context": "spaced"}'"#);
    let command = format!("sh \"{}/dir with space/h.sh\"", home.path().display());
    let event = event("pre_llm_call", json!({}));
    let (_, parsed) = run_once(&home.spec(PreLlmCall, &command), &event, &context()).await;
    assert_eq!(parsed, Some(json!({"context": "spaced"})));
}

#[tokio::test]
async fn t36_t69_missing_binary_logged_not_raised() {
    let home = Home::new();
    let spec = home.spec(PreToolCall, "/nonexistent/hook-binary --x");
    let (result, parsed) = run_once(&spec, &tool_event("t"), &context()).await;
    assert_eq!(result.error.as_deref(), Some("command not found"));
    assert_eq!(parsed, None);
}

#[tokio::test]
async fn t37_non_executable_binary_logged_not_raised() {
    let home = Home::new();
    let path = home.path().join("plain.sh");
    std::fs::write(&path, "#!/bin/sh\necho '{}'\n").ok();
    let spec = home.spec(PreToolCall, &path.display().to_string());
    let (result, parsed) = run_once(&spec, &tool_event("t"), &context()).await;
    assert_eq!(result.error.as_deref(), Some("command not executable"));
    assert_eq!(parsed, None);
}

#[test]
fn t63_exit_2_blocks_with_stderr_message() {
    let home = Home::new();
    let spec = home.spec(PreToolCall, "h");
    assert_eq!(
        evaluate(&spec, &ran(2, "", "  policy violation\n")),
        block("policy violation")
    );
    let long = "x".repeat(1000);
    let parsed = evaluate(&spec, &ran(2, "", &long));
    assert_eq!(parsed, block(&"x".repeat(400)));
}

#[test]
fn t64_exit_2_blocks_with_default_message() {
    let home = Home::new();
    assert_eq!(
        evaluate(&home.spec(PreToolCall, "h"), &ran(2, "", "")),
        block("Blocked by shell hook.")
    );
}

#[test]
fn t65_exit_2_stdout_block_json_wins() {
    let home = Home::new();
    let parsed = evaluate(
        &home.spec(PreToolCall, "h"),
        &ran(2, r#"{"action": "block", "message": "json"}"#, "stderr"),
    );
    assert_eq!(parsed, block("json"));
}

#[test]
fn t66_exit_2_on_non_blocking_event_does_not_block() {
    let home = Home::new();
    assert_eq!(
        evaluate(&home.spec(PostToolCall, "h"), &ran(2, "", "err")),
        None
    );
    assert_eq!(
        evaluate(
            &home.spec(PreLlmCall, "h"),
            &ran(2, r#"{"context": "c"}"#, "err")
        ),
        Some(json!({"context": "c"}))
    );
}

#[test]
fn t67_other_nonzero_exit_still_parses_stdout() {
    let home = Home::new();
    assert_eq!(
        evaluate(
            &home.spec(PreToolCall, "h"),
            &ran(3, r#"{"action": "block", "message": "m"}"#, "")
        ),
        block("m")
    );
}

#[test]
fn t68_nonzero_exit_without_directive_is_none() {
    let home = Home::new();
    assert_eq!(
        evaluate(&home.spec(PreToolCall, "h"), &ran(1, "", "boom")),
        None
    );
}

#[test]
fn t70_spawn_error_fail_closed_blocks() {
    let home = Home::new();
    let result = RunResult::failed("command not found");
    assert_eq!(
        evaluate(&closed(&home, PreToolCall, "/x/gate.sh"), &result),
        block("hook /x/gate.sh failed closed: command not found")
    );
}

#[test]
fn t72_timeout_fail_closed_blocks() {
    let home = Home::new();
    let result = RunResult::timed_out();
    let mut spec = closed(&home, PreToolCall, "python hook.py");
    spec.timeout = Duration::from_secs(10);
    assert_eq!(
        evaluate(&spec, &result),
        block("hook python hook.py failed closed: timed out after 10s")
    );
    spec.timeout = Duration::from_millis(100);
    assert_eq!(
        evaluate(&spec, &result),
        block("hook python hook.py failed closed: timed out after 0.1s")
    );
}

#[test]
fn t73_unparseable_stdout_fail_closed_blocks() {
    let home = Home::new();
    for stdout in ["Traceback: boom", "[1, 2]", "\"text\""] {
        assert_eq!(
            evaluate(&closed(&home, PreToolCall, "h"), &ran(0, stdout, "")),
            block("hook h failed closed: unparseable stdout (expected a JSON object)"),
            "{stdout}"
        );
    }
}

#[test]
fn t75_t76_valid_noop_and_empty_stdout_pass_fail_closed() {
    let home = Home::new();
    let spec = closed(&home, PreToolCall, "h");
    assert_eq!(evaluate(&spec, &ran(0, "{}", "")), None);
    assert_eq!(
        evaluate(&spec, &ran(0, r#"{"decision": "allow"}"#, "")),
        None
    );
    assert_eq!(evaluate(&spec, &ran(0, "", "")), None);
}

#[test]
fn t77_fail_closed_on_non_blocking_event_still_fails_open() {
    let home = Home::new();
    let spec = closed(&home, PostToolCall, "h");
    let error = RunResult::failed("command not found");
    assert_eq!(evaluate(&spec, &error), None);
    assert_eq!(evaluate(&spec, &ran(0, "garbage", "")), None);
    assert_eq!(evaluate(&spec, &ran(1, "", "")), None);
}

#[test]
fn design_call_3_nonzero_exit_without_directive_blocks_when_fail_closed() {
    let home = Home::new();
    let spec = closed(&home, PreToolCall, "h");
    assert_eq!(
        evaluate(&spec, &ran(1, "", "")),
        block("hook h failed closed: exited with status 1")
    );
    assert_eq!(
        evaluate(&spec, &ran(1, "{}", "")),
        block("hook h failed closed: exited with status 1")
    );
    let killed = RunResult::killed(9);
    assert_eq!(
        evaluate(&spec, &killed),
        block("hook h failed closed: killed by signal 9")
    );
}

#[test]
fn a_failed_fail_closed_run_whose_answer_does_not_block_blocks() {
    // Red team 8 (R8-1): an EXIT trap's answer is no verdict of a guard that failed.
    let home = Home::new();
    let spec = closed(&home, PreToolCall, "h");
    for stdout in [
        r#"{"context": "guard starting"}"#,
        r#"{"decision": "allow"}"#,
    ] {
        assert_eq!(
            evaluate(&spec, &ran(1, stdout, "")),
            block("hook h failed closed: exited with status 1"),
            "{stdout}"
        );
    }
    let denied = ran(1, r#"{"decision": "block", "reason": "no rm"}"#, "");
    assert_eq!(evaluate(&spec, &denied), block("no rm"));
    let open = home.spec(PreToolCall, "h");
    assert_eq!(
        evaluate(&open, &ran(1, r#"{"context": "c"}"#, "")),
        evaluate(&open, &ran(0, r#"{"context": "c"}"#, "")),
        "a fail-open hook's JSON decides whatever its exit"
    );
}

#[tokio::test]
async fn t78_exit_2_script_blocks() {
    let home = Home::new();
    let command = home.sh(
        "h.sh",
        "echo 'policy violation: rm -rf is not permitted' >&2; exit 2",
    );
    let (result, parsed) = run_once(
        &home.spec(PreToolCall, &command),
        &tool_event("t"),
        &context(),
    )
    .await;
    assert_eq!(result.exit_code, Some(2));
    assert_eq!(parsed, block("policy violation: rm -rf is not permitted"));
}

#[tokio::test]
async fn t79_fail_closed_missing_command_blocks() {
    let home = Home::new();
    let spec = closed(&home, PreToolCall, "/nonexistent/gate");
    let (_, parsed) = run_once(&spec, &tool_event("t"), &context()).await;
    assert_eq!(
        parsed,
        block("hook /nonexistent/gate failed closed: command not found")
    );
}

#[tokio::test]
async fn t80_run_once_reflects_exit_2_block() {
    let home = Home::new();
    let (_, parsed) = run_once(
        &home.spec(PreToolCall, "sh -c 'exit 2'"),
        &tool_event("t"),
        &context(),
    )
    .await;
    assert_eq!(parsed, block("Blocked by shell hook."));
}

#[tokio::test]
async fn t81_run_once_reflects_fail_closed_timeout() {
    let home = Home::new();
    let mut spec = closed(&home, PreToolCall, "sleep 30");
    spec.timeout = Duration::from_secs(1);
    let (result, parsed) = run_once(&spec, &tool_event("t"), &context()).await;
    assert!(result.timed_out);
    assert_eq!(
        parsed,
        block("hook sleep 30 failed closed: timed out after 1s")
    );
}

#[tokio::test]
async fn t82_child_sees_its_home_and_the_profile() {
    let home = Home::new();
    let out = home.path().join("seen");
    let command = format!(
        "sh -c 'echo \"$HERMES_HOME\" > {}; cat >> {}'",
        out.display(),
        out.display()
    );
    let mut wire = context();
    wire.profile = "work".into();
    let result = run_hook(&home.spec(PreToolCall, &command), &tool_event("t"), &wire).await;
    assert_eq!(result.exit_code, Some(0));
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    let (first, document) = seen.split_once('\n').unwrap_or_default();
    assert_eq!(first, home.path().display().to_string());
    let document: Value = serde_json::from_str(document).unwrap_or(Value::Null);
    // Neither hermes-agent 0.20.1 nor the documentation has a `profile` key.
    assert_eq!(document.get("profile"), None, "{document}");
}

#[tokio::test]
async fn tilde_is_expanded_in_every_argument() {
    let home = Home::new();
    let command = "sh -c 'echo \"{\\\"context\\\": \\\"$1\\\"}\"' sh ~/x";
    let event = event("pre_llm_call", json!({}));
    let (_, parsed) = run_once(&home.spec(PreLlmCall, command), &event, &context()).await;
    let context_text = parsed
        .and_then(|p| p["context"].as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(
        context_text.ends_with("/x") && !context_text.starts_with('~'),
        "{context_text}"
    );
}

#[tokio::test]
async fn unparseable_command_is_an_error() {
    let home = Home::new();
    let (result, parsed) = run_once(
        &closed(&home, PreToolCall, "echo 'open"),
        &tool_event("t"),
        &context(),
    )
    .await;
    assert!(
        result
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("command 'echo 'open' cannot be parsed"))
    );
    assert!(parsed.is_some_and(|p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("failed closed: command"))
    }));
}

/// The doc's fail-open / fail-closed table, row by row, with real processes.
#[tokio::test]
async fn doc_fail_mode_table() {
    let home = Home::new();
    let not_executable = home.path().join("noexec.sh");
    std::fs::write(&not_executable, "#!/bin/sh\necho '{}'\n").ok();
    let rows: [(&str, String, bool); 5] = [
        ("command not found", "/nonexistent/hook".into(), true),
        (
            "command not executable",
            not_executable.display().to_string(),
            true,
        ),
        ("timeout", "sleep 30".into(), true),
        ("non-JSON stdout", "echo 'Traceback: boom'".into(), true),
        ("clean no-op JSON", "echo '{}'".into(), false),
    ];
    for (row, command, blocks_when_closed) in rows {
        let mut open = home.spec(PreToolCall, &command);
        open.timeout = Duration::from_secs(1);
        let (_, parsed) = run_once(&open, &tool_event("t"), &context()).await;
        assert_eq!(parsed, None, "fail-open row {row}");
        let mut closed = open.clone();
        closed.fail_closed = true;
        let (_, parsed) = run_once(&closed, &tool_event("t"), &context()).await;
        let message = parsed
            .as_ref()
            .and_then(|p| p["message"].as_str())
            .unwrap_or_default()
            .to_owned();
        assert_eq!(
            parsed.is_some(),
            blocks_when_closed,
            "fail-closed row {row}: {parsed:?}"
        );
        if blocks_when_closed {
            assert!(
                message.starts_with(&format!("hook {command} failed closed: ")),
                "{row}: {message}"
            );
        }
    }
}
