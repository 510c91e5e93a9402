//! The Python worker's robustness: hung callbacks, plugin output, stray and
//! stale protocol lines, a worker that dies, a plugin that kills it at import.

use std::time::Duration;

use hermes_hooks_core::interpreter::{InterpreterSource, PythonInterpreter};
use hermes_hooks_plugin::{DiscoverOptions, PluginStatus};
use serde_json::json;

use crate::python::{GUARD, fire, options, python_available, python_plugin, register};
use crate::support::Home;

#[test]
fn a_hung_callback_does_not_hold_up_other_callbacks() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    // `woke` appears only when the hung call's sleep ends: the answers
    // below come before it (order, not a clock).
    let slow = python_plugin(
        &home,
        "slow",
        "import os, time\ndef hang(**kw):\n    time.sleep(60)\n    \
         open(os.path.join(os.path.dirname(__file__), 'woke'), 'w').close()\n\
         def register(ctx):\n    ctx.register_hook('pre_tool_call', hang)\n",
    );
    python_plugin(&home, "tguard", GUARD);
    let loaded = register(
        &home,
        "plugins: {enabled: [slow, tguard]}",
        options(),
        Some(1.0),
    );
    let replies = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "tool_call_id": "a"}),
    );
    // The hung one fails closed at its 1 s timeout; the guard still answers.
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert!(
        replies[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("timed out"),
        "{replies:?}"
    );
    assert_eq!(replies[1]["message"], "blocked: rm -rf / is not permitted");
    // The worker still answers the guard while the hung call sleeps on.
    let replies = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "tool_call_id": "b"}),
    );
    assert_eq!(
        replies.last().map(|r| &r["message"]),
        Some(&json!("blocked: rm -rf / is not permitted"))
    );
    assert!(
        !slow.join("woke").exists(),
        "answered only after the hang ended"
    );
}

#[test]
fn plugin_output_never_becomes_an_answer() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "noisy",
        r#"
import os, sys, json
def noisy(tool_name, **kwargs):
    for n in range(0, 64):
        line = json.dumps({"id": n, "ok": True, "result": {"action": "block", "message": "FORGED"}})
        print(line)
        sys.stdout.flush()
        os.write(1, (line + "\n").encode())
    return None
def register(ctx):
    ctx.register_hook("pre_tool_call", noisy)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [noisy]}", options(), Some(30.0));
    for _ in 0..3 {
        let replies = fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": "t", "args": {}}),
        );
        assert!(
            replies.is_empty(),
            "a printed line was taken as an answer: {replies:?}"
        );
    }
}

#[test]
fn a_dead_worker_is_restarted_and_its_plugins_reloaded() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "mortal",
        r#"
import os
calls = []
def count(tool_name, **kwargs):
    if tool_name == "die":
        os._exit(3)
    calls.append(tool_name)
    return {"action": "block", "message": "call %d" % len(calls)}
def register(ctx):
    ctx.register_hook("pre_tool_call", count)
"#,
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [mortal], required: [mortal]}",
        options(),
        Some(30.0),
    );
    let call = |tool: &str| {
        fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": tool, "args": {}}),
        )
    };
    assert_eq!(call("a")[0]["message"], "call 1");
    assert_eq!(call("b")[0]["message"], "call 2");
    let died = call("die");
    assert!(
        died[0]["message"].as_str().unwrap_or("").contains("raised"),
        "{died:?}"
    );
    std::thread::sleep(Duration::from_millis(1100));
    // Restarted: module state starts over.
    assert_eq!(call("c")[0]["message"], "call 1");
}

/// A stand-in worker that precedes every answer with a stale answer, a line
/// that is not JSON and an answer without an id.
const STRAY_WORKER: &str = r#"
import json, sys
def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
say({"id": 0, "ready": True, "executable": "stray", "version": "0"})
for line in sys.stdin:
    request = json.loads(line)
    rid = request["id"]
    forged = {"action": "block", "message": "FORGED"}
    say({"id": rid + 1000, "ok": True, "result": forged})
    sys.stdout.write("not json at all\n")
    say({"ok": True, "result": forged})
    if request["op"] == "load":
        result = {"hooks": [{"event": "pre_tool_call", "callback": "p#0", "name": "g"}],
                  "sections": [], "warnings": []}
    elif request["op"] == "entry_points":
        result = []
    else:
        result = None
    say({"id": rid, "ok": True, "result": result})
"#;

#[test]
fn stray_and_stale_lines_are_never_answers() {
    if !python_available() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    python_plugin(&home, "p", "def register(ctx): pass\n");
    let fake = home.path().join("stray.py");
    std::fs::write(&fake, STRAY_WORKER).unwrap();
    let wrapper = home.path().join("stray-python");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec python3 '{}'\n", fake.display()),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = DiscoverOptions::default().with_python(PythonInterpreter::new(
        wrapper,
        InterpreterSource::Environment,
    ));
    let loaded = register(&home, "plugins: {enabled: [p]}", options, Some(30.0));
    assert_eq!(loaded.registration.plugins[0].status, PluginStatus::Loaded);
    for call in 0..5 {
        let replies = fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": "x", "args": {}, "tool_call_id": format!("c{call}")}),
        );
        assert!(
            replies.is_empty(),
            "a stray line was taken as the answer: {replies:?}"
        );
    }
}

#[test]
fn a_plugin_that_kills_the_worker_at_import_fails_alone() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "a-killer", "import os\nos._exit(7)\n");
    python_plugin(&home, "b-guard", GUARD);
    let loaded = register(
        &home,
        "plugins: {enabled: [a-killer, b-guard]}",
        options(),
        Some(30.0),
    );
    let statuses: Vec<(&str, &str)> = loaded
        .registration
        .plugins
        .iter()
        .map(|p| (p.key.as_str(), p.status.as_str()))
        .collect();
    assert_eq!(statuses, [("a-killer", "failed"), ("b-guard", "loaded")]);
    let replies = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}),
    );
    assert_eq!(
        replies,
        [json!({"action": "block", "message": "blocked: rm -rf / is not permitted"})]
    );
}
