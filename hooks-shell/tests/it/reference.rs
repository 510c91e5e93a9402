//! Side-by-side with the Python reference, hermes-agent 0.20.1
//! (`HERMES_REFERENCE_PYTHON`, which `bash .ci/run` sets): stdout parsing,
//! config validation (event, command, matcher, timeout), the stdin document,
//! and `run_once` on fail-open hooks. Without the reference the test skips on
//! a developer's machine and fails in CI (`test_support::reference`).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_shell::{parse_config, parse_stdout, run_once};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::support::Home;

const DRIVER: &str = r#"
import json, sys
from agent import shell_hooks as s
cases = json.load(sys.stdin)
out = {"parse": [], "configs": [], "serialize": [], "runs": []}
for event, stdout in cases["parse"]:
    out["parse"].append(s._parse_response(event, stdout))
for hooks in cases["configs"]:
    specs = s.iter_configured_hooks({"hooks": hooks})
    out["configs"].append([{"event": x.event, "command": x.command, "matcher": x.matcher,
                            "timeout": x.timeout} for x in specs])
for event, payload in cases["serialize"]:
    out["serialize"].append(json.loads(s._serialize_payload(event, payload)))
for run in cases["runs"]:
    spec = s.ShellHookSpec(event=run["event"], command=run["command"], timeout=run["timeout"])
    out["runs"].append(s.run_once(spec, run["payload"])["parsed"])
json.dump(out, sys.stdout)
"#;

fn reference_python() -> Option<PathBuf> {
    test_support::reference::python()
}

fn parse_cases() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "pre_tool_call",
            r#"{"decision": "block", "reason": "nope"}"#,
        ),
        ("pre_tool_call", r#"{"action": "block", "message": "nope"}"#),
        (
            "pre_tool_call",
            r#"{"action": "block", "message": "a", "decision": "block", "reason": "b"}"#,
        ),
        ("pre_tool_call", r#"{"action": "block"}"#),
        ("pre_tool_call", r#"{"decision": "block"}"#),
        ("pre_tool_call", r#"{"action": "block", "message": ""}"#),
        (
            "pre_tool_call",
            r#"{"action": "block", "message": 42, "reason": "r"}"#,
        ),
        (
            "pre_tool_call",
            r#"{"action": "block", "message": "", "reason": "r"}"#,
        ),
        ("pre_tool_call", r#"{"decision": "allow"}"#),
        ("pre_tool_call", ""),
        ("pre_tool_call", "   "),
        ("pre_tool_call", "not json"),
        ("pre_tool_call", "[1, 2]"),
        ("pre_llm_call", r#"{"context": "env-note"}"#),
        ("pre_llm_call", r#"{"context": "  spaced  "}"#),
        ("pre_llm_call", r#"{"context": "   "}"#),
        ("pre_llm_call", r#"{"action": "block", "message": "x"}"#),
        ("subagent_stop", r#"{"context": "done"}"#),
        ("post_tool_call", r#"{"decision": "block", "reason": "x"}"#),
        (
            "pre_verify",
            r#"{"action": "continue", "message": " go on "}"#,
        ),
        (
            "pre_verify",
            r#"{"decision": "block", "reason": "run tests"}"#,
        ),
        ("pre_verify", r#"{"action": " Continue ", "message": "x"}"#),
        ("pre_verify", r#"{"action": "continue"}"#),
        ("pre_verify", r#"{"action": "stop", "message": "x"}"#),
    ]
}

fn config_cases() -> Vec<Value> {
    vec![
        json!({"pre_tool_call": [{"command": " /x/a.sh ", "matcher": " terminal ", "timeout": 30}]}),
        json!({"post_tool_call": [{"command": "x", "timeout": 9999}, {"command": "y", "timeout": "thirty"},
                                  {"command": "z", "timeout": 12.7}, {"command": "w", "timeout": "45"},
                                  {"command": "v", "timeout": 0}, {"command": "u", "timeout": true}]}),
        json!({"pre_llm_call": [{"command": "x", "matcher": "terminal"}, {"matcher": "y"}, {"command": "  "},
                                "bare string", {"command": "ok", "matcher": 5}]}),
        json!({"pre_tool_cal": [{"command": "typo"}], "on_session_start": {"command": "not a list"},
               "on_session_end": null, "subagent_stop": [{"command": "kept", "extra_key": 1}]}),
        json!({"pre_tool_call": [{"command": "x", "matcher": "   "}, {"command": "y", "matcher": "foo[bar"}]}),
    ]
}

fn serialize_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "pre_tool_call",
            json!({"tool_name": "terminal", "args": {"command": "ls"}, "session_id": "s1",
                                 "task_id": "t1", "tool_call_id": "c1"}),
        ),
        ("pre_tool_call", json!({"tool_name": "t", "args": [1, 2]})),
        (
            "subagent_stop",
            json!({"parent_session_id": "p", "child_role": null, "duration_ms": 5}),
        ),
        (
            "on_session_start",
            json!({"session_id": "s", "parent_session_id": "p", "model": "m"}),
        ),
        (
            "pre_llm_call",
            json!({"session_id": "", "user_message": "héllo ✓"}),
        ),
    ]
}

#[tokio::test]
async fn same_decisions_as_the_python_reference() {
    let Some(python) = reference_python() else {
        return;
    };
    let home = Home::new();
    let scripts = [
        (
            "block.sh",
            r#"cat >/dev/null; echo '{"decision": "block", "reason": "nope"}'"#,
        ),
        (
            "context.sh",
            r#"cat >/dev/null; echo '{"context": "env-note"}'"#,
        ),
        ("garbage.sh", "echo 'Traceback (most recent call last):'"),
        (
            "exit1.sh",
            r#"echo '{"action": "block", "message": "still"}'; exit 1"#,
        ),
        ("empty.sh", "cat >/dev/null"),
    ];
    let mut runs: Vec<(HookEvent, String, u64)> = scripts
        .iter()
        .map(|(name, body)| {
            let event = if *name == "context.sh" {
                HookEvent::PreLlmCall
            } else {
                HookEvent::PreToolCall
            };
            (event, home.sh(name, body), 5)
        })
        .collect();
    runs.push((HookEvent::PreToolCall, "/no/such/hook.sh".into(), 5));
    runs.push((HookEvent::PreToolCall, "sleep 30".into(), 1));
    let run_payload =
        json!({"tool_name": "terminal", "args": {"command": "ls"}, "session_id": "s"});

    let cases = json!({
        "parse": parse_cases(),
        "configs": config_cases(),
        "serialize": serialize_cases(),
        "runs": runs.iter().map(|(event, command, timeout)| json!({
            "event": event.as_str(), "command": command, "timeout": timeout, "payload": run_payload,
        })).collect::<Vec<_>>(),
    });
    let Some(reference) = run_reference(&python, &home, &cases).await else {
        eprintln!("reference Python could not run the driver: compared nothing");
        return;
    };

    for ((event, stdout), expected) in parse_cases().into_iter().zip(array(&reference["parse"])) {
        let event: HookEvent = event.parse().unwrap_or(HookEvent::PreToolCall);
        assert_eq!(
            parse_stdout(event, stdout).unwrap_or(Value::Null),
            *expected,
            "{event} {stdout}"
        );
    }
    for (hooks, expected) in config_cases().into_iter().zip(array(&reference["configs"])) {
        let config = home.config(json!({"hooks": hooks}));
        let ours: Vec<Value> = parse_config(&config)
            .specs
            .iter()
            .map(|spec| json!({"event": spec.event.as_str(), "command": spec.command,
                               "matcher": spec.matcher.pattern(), "timeout": spec.timeout.as_secs()}))
            .collect();
        assert_eq!(Value::Array(ours), *expected, "{hooks}");
    }
    let cwd = home.path().display().to_string();
    let wire = WireContext::new(cwd, "default");
    for ((event, payload), expected) in serialize_cases()
        .into_iter()
        .zip(array(&reference["serialize"]))
    {
        let bytes = hermes_hooks_shell::run::stdin_bytes(&Event::from_json(event, payload), &wire);
        let ours: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_eq!(ours, *expected, "{event}");
        let keys = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(&ours), keys(expected), "key order of {event}");
    }
    let event = Event::from_json("pre_tool_call", run_payload);
    for ((hook_event, command, timeout), expected) in runs.iter().zip(array(&reference["runs"])) {
        let mut spec = home.spec(*hook_event, command);
        spec.timeout = Duration::from_secs(*timeout);
        let event = Event::new(*hook_event, event.payload().clone());
        let (_, parsed) = run_once(&spec, &event, &wire).await;
        assert_eq!(parsed.unwrap_or(Value::Null), *expected, "{command}");
    }
    eprintln!(
        "compared {} parse, {} config, {} payload and {} run cases with the reference",
        parse_cases().len(),
        config_cases().len(),
        serialize_cases().len(),
        runs.len()
    );
}

fn array(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

async fn run_reference(python: &std::path::Path, home: &Home, cases: &Value) -> Option<Value> {
    let mut child = tokio::process::Command::new(python)
        .args(["-c", DRIVER])
        .current_dir(home.path())
        .env("HERMES_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    stdin.write_all(cases.to_string().as_bytes()).await.ok()?;
    drop(stdin);
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .ok()?
        .ok()?;
    if !output.status.success() {
        eprintln!(
            "reference driver failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return None;
    }
    serde_json::from_slice(&output.stdout).ok()
}
