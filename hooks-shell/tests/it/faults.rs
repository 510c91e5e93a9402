//! Badly behaved hooks: each gets the right decision, bounded by its timeout
//! (the result's record says which bound ended it, no clock), and leaves no
//! process behind.

use std::time::Duration;

use hermes_hooks_core::HookEvent::PreToolCall;
use hermes_hooks_shell::{ShellHookSpec, run_once};
use serde_json::{Value, json};

use crate::support::{Home, context, read_pid, tool_event, wait_gone};

/// The bound of a hang guard (no speed check): a run that never returns.
/// Whether a run ended at its timeout is `RunResult::timed_out`; a run that
/// waited for a hook's 30 s sleep would end without it.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// How long a killed process may take to disappear: a hang guard too.
const GONE_WITHIN: Duration = Duration::from_secs(60);

fn spec(home: &Home, command: &str, fail_closed: bool) -> ShellHookSpec {
    let mut spec = home.spec(PreToolCall, command);
    spec.timeout = Duration::from_secs(1);
    spec.fail_closed = fail_closed;
    spec
}

async fn fire(spec: &ShellHookSpec) -> (hermes_hooks_shell::RunResult, Option<Value>) {
    tokio::time::timeout(
        HANG_GUARD,
        run_once(spec, &tool_event("terminal"), &context()),
    )
    .await
    .expect("the run never returned")
}

fn message(parsed: &Option<Value>) -> &str {
    parsed
        .as_ref()
        .and_then(|p| p["message"].as_str())
        .unwrap_or_default()
}

#[tokio::test]
async fn sleeps_past_its_timeout() {
    let home = Home::new();
    let pid_file = home.path().join("pid");
    let command = home.sh(
        "slow.sh",
        &format!("echo $$ > {}; sleep 30", pid_file.display()),
    );
    for fail_closed in [false, true] {
        let (result, parsed) = fire(&spec(&home, &command, fail_closed)).await;
        assert!(result.timed_out, "{result:?}");
        assert_eq!(result.signal, Some(9));
        if fail_closed {
            assert!(
                message(&parsed).ends_with("failed closed: timed out after 1s"),
                "{parsed:?}"
            );
        } else {
            assert_eq!(parsed, None);
        }
        assert!(wait_gone(read_pid(&pid_file), GONE_WITHIN));
        std::fs::remove_file(&pid_file).ok();
    }
}

#[tokio::test]
async fn grandchild_holding_stdout_after_the_hook_exits() {
    let home = Home::new();
    let pid_file = home.path().join("grandchild");
    let command = home.sh(
        "fork.sh",
        &format!(
            r#"sleep 30 & echo $! > {}; echo '{{"decision": "block", "reason": "gc"}}'"#,
            pid_file.display()
        ),
    );
    let mut spec = spec(&home, &command, false);
    spec.timeout = Duration::from_secs(20);
    let (result, parsed) = fire(&spec).await;
    assert_eq!(result.exit_code, Some(0));
    // A run that waited on the grandchild's 30 s would end at the 20 s timeout.
    assert!(!result.timed_out, "waited on the grandchild: {result:?}");
    assert_eq!(parsed, Some(json!({"action": "block", "message": "gc"})));
    assert!(
        wait_gone(read_pid(&pid_file), GONE_WITHIN),
        "grandchild survived"
    );
}

#[tokio::test]
async fn grandchild_of_a_timed_out_hook_is_killed_too() {
    let home = Home::new();
    let pid_file = home.path().join("grandchild");
    let command = home.sh(
        "fork.sh",
        &format!("sleep 30 & echo $! > {}; sleep 30", pid_file.display()),
    );
    let (result, parsed) = fire(&spec(&home, &command, true)).await;
    assert!(result.timed_out, "{result:?}");
    assert!(message(&parsed).contains("timed out after 1s"));
    assert!(
        wait_gone(read_pid(&pid_file), GONE_WITHIN),
        "grandchild survived"
    );
}

#[tokio::test]
async fn prints_100_megabytes() {
    let home = Home::new();
    let command = "head -c 100000000 /dev/zero";
    let mut open = spec(&home, command, false);
    open.timeout = Duration::from_secs(20);
    let (result, parsed) = fire(&open).await;
    assert!(!result.timed_out, "{result:?}");
    assert!(result.stdout.len() <= hermes_hooks_shell::run::OUTPUT_CAP_BYTES);
    assert_eq!(parsed, None);
    let mut closed = open.clone();
    closed.fail_closed = true;
    let (result, parsed) = fire(&closed).await;
    assert_eq!(result.exit_code, Some(0));
    assert!(message(&parsed).ends_with("unparseable stdout (expected a JSON object)"));
}

#[tokio::test]
async fn prints_garbage() {
    let home = Home::new();
    let command = "printf 'Traceback (most recent call last):\\n  \\377\\376 boom'";
    let (_, parsed) = fire(&spec(&home, command, false)).await;
    assert_eq!(parsed, None);
    let (result, parsed) = fire(&spec(&home, command, true)).await;
    assert!(result.stdout.contains('\u{fffd}'), "lossy decoding");
    assert!(message(&parsed).ends_with("unparseable stdout (expected a JSON object)"));
}

#[tokio::test]
async fn closes_stdin_at_once_under_a_large_payload() {
    let home = Home::new();
    let big = "x".repeat(4 * 1024 * 1024);
    let event = hermes_hooks_core::Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"content": big}}),
    );
    let command = r#"sh -c 'exec 0<&-; echo "{\"action\": \"block\", \"message\": \"closed\"}"'"#;
    let mut spec = spec(&home, command, true);
    spec.timeout = Duration::from_secs(10);
    let (result, parsed) = run_once(&spec, &event, &context()).await;
    assert_eq!(result.error, None);
    assert_eq!(result.exit_code, Some(0));
    assert_eq!(
        parsed,
        Some(json!({"action": "block", "message": "closed"}))
    );
}

#[tokio::test]
async fn never_reads_stdin_and_hangs() {
    let home = Home::new();
    let big = "x".repeat(4 * 1024 * 1024);
    let event = hermes_hooks_core::Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "t", "args": {"c": big}}),
    );
    let (result, parsed) = tokio::time::timeout(
        HANG_GUARD,
        run_once(&spec(&home, "sleep 30", true), &event, &context()),
    )
    .await
    .expect("the run never returned");
    assert!(result.timed_out, "{result:?}");
    assert!(message(&parsed).contains("timed out"));
}

#[tokio::test]
async fn dies_by_a_signal() {
    let home = Home::new();
    let command = "sh -c 'kill -9 $$'";
    let (result, parsed) = fire(&spec(&home, command, false)).await;
    assert_eq!((result.exit_code, result.signal), (None, Some(9)));
    assert_eq!(parsed, None);
    let (_, parsed) = fire(&spec(&home, command, true)).await;
    assert_eq!(
        message(&parsed),
        "hook sh -c 'kill -9 $$' failed closed: killed by signal 9"
    );
    // A block printed before dying still counts.
    let command = r#"sh -c 'echo "{\"action\": \"block\", \"message\": \"m\"}"; kill -9 $$'"#;
    let (_, parsed) = fire(&spec(&home, command, false)).await;
    assert_eq!(message(&parsed), "m");
}

#[tokio::test]
async fn is_not_executable() {
    let home = Home::new();
    let path = home.path().join("gate.sh");
    std::fs::write(&path, "#!/bin/sh\necho '{}'\n").ok();
    let command = path.display().to_string();
    let (result, parsed) = fire(&spec(&home, &command, false)).await;
    assert_eq!(result.error.as_deref(), Some("command not executable"));
    assert_eq!(parsed, None);
    let (_, parsed) = fire(&spec(&home, &command, true)).await;
    assert_eq!(
        message(&parsed),
        format!("hook {command} failed closed: command not executable")
    );
}

#[tokio::test]
async fn does_not_exist() {
    let home = Home::new();
    let (result, parsed) = fire(&spec(&home, "/no/such/hook.sh", true)).await;
    assert_eq!(result.error.as_deref(), Some("command not found"));
    assert_eq!(
        message(&parsed),
        "hook /no/such/hook.sh failed closed: command not found"
    );
}

#[tokio::test]
async fn setsid_grandchild_of_a_timed_out_hook_is_killed_too() {
    let home = Home::new();
    let pid_file = home.path().join("grandchild");
    // `setsid` in a background job is not a group leader, so it calls setsid(2)
    // itself and execs sleep: `$!` is the pid of a process in its own session.
    let command = home.sh(
        "setsid.sh",
        &format!(
            "setsid sleep 30 & echo $! > {}; sleep 30",
            pid_file.display()
        ),
    );
    let (result, parsed) = fire(&spec(&home, &command, true)).await;
    assert!(result.timed_out, "{result:?}");
    assert!(message(&parsed).contains("timed out after 1s"));
    let grandchild = read_pid(&pid_file);
    let gone = wait_gone(grandchild, GONE_WITHIN);
    if !gone {
        // Do not leave it behind for the rest of the suite.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(grandchild),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(gone, "setsid grandchild {grandchild} survived the timeout");
}
