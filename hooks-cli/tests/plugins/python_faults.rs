//! Fault injection for the Python workers through the real `hooks` binary:
//! a worker that crashes and is restarted mid-session (with a plugin whose
//! registration order changes per process), coroutines that poison the event
//! loop, fd games on the protocol pipes, gateway handlers that close fds, and
//! a hung callback on an inline event. Each time the guard keeps guarding and
//! the run ends within its bound.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness;
use crate::support::TempHome;

/// Generous: the machine is shared.
const BOUND: Duration = Duration::from_secs(60);

/// A home with one Python plugin `name` (enabled) and `extra` config lines.
fn home_with_plugin(name: &str, code: &str, extra: &str) -> TempHome {
    let home = TempHome::new();
    home.write(
        &format!("plugins/{name}/plugin.yaml"),
        &format!("name: {name}\n"),
    );
    home.write(&format!("plugins/{name}/__init__.py"), code);
    home.config(&format!("plugins:\n  enabled: [{name}]\n{extra}"));
    home
}

/// `hooks replay` of `events` with `--json` (Python from `python3`): one
/// outcome per event, within the bound.
fn replay(home: &TempHome, events: &[(&str, Value)]) -> Vec<Value> {
    let lines: Vec<String> = events
        .iter()
        .map(|(event, payload)| json!({"event": event, "payload": payload}).to_string())
        .collect();
    let file = home.write("session.jsonl", &(lines.join("\n") + "\n"));
    let mut command = harness::command(home, &["replay", &file.to_string_lossy(), "--json"]);
    command
        .env("HERMES_HOOKS_PYTHON", "python3")
        .env_remove("HERMES_ENABLE_PROJECT_PLUGINS");
    let run = harness::within(command, BOUND).expect("hooks replay ended within its bound");
    let outcomes: Vec<Value> = run
        .stdout()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line.get("line").is_some())
        .map(|line| line["outcome"].clone())
        .collect();
    assert_eq!(outcomes.len(), events.len(), "{}", run.stderr());
    outcomes
}

fn rm_rf() -> (&'static str, Value) {
    (
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}),
    )
}

fn tool(name: &str) -> (&'static str, Value) {
    ("pre_tool_call", json!({"tool_name": name, "args": {}}))
}

/// Waits out the worker's restart throttle (1 s after its start) inside the session.
fn pause() -> (&'static str, Value) {
    ("pre_llm_call", json!({"user_message": "pause"}))
}

/// Registers from an order that flips after its first import (a `set` does
/// that per process), can kill its worker, and pauses on `pre_llm_call`.
const REORDERED_GUARD: &str = r#"
import os, time
FLAG = os.path.join(os.path.dirname(__file__), "imported-once")
def check(tool_name, args=None, **kwargs):
    if tool_name == "die":
        os._exit(3)
    if "rm -rf" in (args or {}).get("command", ""):
        return {"action": "block", "message": "guard: no rm -rf"}
    return None
def log(**kwargs):
    return None
def pause(**kwargs):
    time.sleep(1.3)
def register(ctx):
    hooks = [("pre_tool_call", check), ("post_tool_call", log), ("pre_llm_call", pause)]
    if os.path.exists(FLAG):
        hooks.reverse()
    open(FLAG, "w").close()
    for event, function in hooks:
        ctx.register_hook(event, function)
"#;

#[test]
fn a_crashed_worker_restarts_mid_session_and_the_guard_still_guards() {
    if !harness::python_available() {
        return;
    }
    let home = home_with_plugin("guard", REORDERED_GUARD, "");
    let outcomes = replay(&home, &[rm_rf(), pause(), tool("die"), rm_rf(), rm_rf()]);
    let guard = json!({"action": "block", "message": "guard: no rm -rf"});
    assert_eq!(outcomes[0], guard);
    assert_eq!(outcomes[2]["action"], "block", "the crash fails closed");
    assert_eq!(outcomes[3], guard, "after the restart: {outcomes:?}");
    assert_eq!(outcomes[4], guard);
    assert!(
        home.hermes.join("plugins/guard/imported-once").exists(),
        "the plugin ran"
    );
}

#[test]
fn coroutines_that_raise_system_exit_do_not_stop_the_session() {
    if !harness::python_available() {
        return;
    }
    let home = home_with_plugin(
        "poison",
        r#"
import asyncio
async def guard(tool_name, **kwargs):
    if tool_name == "exit":
        raise SystemExit(2)
    if tool_name == "interrupt":
        raise KeyboardInterrupt()
    return {"action": "block", "message": "async guard"}
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"#,
        "  hook_callback_timeout: 5\n",
    );
    let outcomes = replay(&home, &[tool("exit"), rm_rf(), tool("interrupt"), rm_rf()]);
    let guard = json!({"action": "block", "message": "async guard"});
    assert_eq!(outcomes[1], guard, "{outcomes:?}");
    assert_eq!(outcomes[3], guard, "{outcomes:?}");
}

#[test]
fn fd_games_do_not_reach_the_protocol_and_a_broken_one_is_restarted() {
    if !harness::python_available() {
        return;
    }
    let home = home_with_plugin(
        "fds",
        r#"
import os, time
def guard(tool_name, **kwargs):
    if tool_name == "close-low":
        for fd in range(3, 32):
            try:
                os.close(fd)
            except OSError:
                pass
    if tool_name == "close-all":
        os.closerange(3, 65536)
    return {"action": "block", "message": "fd guard"}
def pause(**kwargs):
    time.sleep(1.3)
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
    ctx.register_hook("pre_llm_call", pause)
"#,
        "",
    );
    let outcomes = replay(
        &home,
        &[
            tool("close-low"),
            rm_rf(),
            pause(),
            tool("close-all"),
            rm_rf(),
            rm_rf(),
        ],
    );
    let guard = json!({"action": "block", "message": "fd guard"});
    assert_eq!(outcomes[0], guard);
    assert_eq!(outcomes[1], guard, "after closing low fds: {outcomes:?}");
    assert_eq!(
        outcomes[3]["action"], "block",
        "the broken call fails closed"
    );
    assert_eq!(outcomes[4], guard, "restarted: {outcomes:?}");
    assert_eq!(outcomes[5], guard);
}

#[test]
fn a_hung_python_callback_on_an_inline_event_returns_within_its_deadline() {
    if !harness::python_available() {
        return;
    }
    let home = home_with_plugin(
        "sleeper",
        r#"
import time
def hang(**kwargs):
    time.sleep(600)
def register(ctx):
    ctx.register_hook("subagent_start", hang)
    ctx.register_hook("pre_gateway_dispatch", hang)
"#,
        "  hook_callback_timeout: 2\n",
    );
    for event in ["subagent_start", "pre_gateway_dispatch"] {
        let file = home.write("payload.json", "{}");
        let mut command = harness::command(
            &home,
            &["emit", event, "--payload-file", &file.to_string_lossy()],
        );
        command.env("HERMES_HOOKS_PYTHON", "python3");
        // A hang guard (the callback sleeps 600 s); the deadline is the
        // message below, which only the 2 s timeout gives.
        let run = harness::within(command, harness::HANG_GUARD);
        assert!(
            run.is_some(),
            "{event}: `hooks emit` waited for the callback"
        );
        let stderr = run.map(|run| run.stderr()).unwrap_or_default();
        assert!(stderr.contains("no answer within 2s"), "{event}: {stderr}");
    }
}

/// A gateway handler that closes fds: low ones reach nothing of the
/// protocol, and one that closes all of them gets its worker replaced.
#[test]
fn gateway_handlers_that_close_fds_keep_working() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    // `command:sync` comes last on the same lane and is awaited (within the
    // command bound): a barrier, so every queued event is handled before
    // replay's exit flush, whatever the load (the flush bound is 5 s).
    home.config("gateway_hooks:\n  command_timeout: 120\n");
    home.write(
        "hooks/fds/HOOK.yaml",
        "name: fds\nevents: [\"agent:start\", \"command:sync\"]\n",
    );
    home.write(
        "hooks/fds/handler.py",
        r#"
import os
def handle(event_type, context):
    if event_type != "agent:start":
        return None
    fault = context.get("fault")
    if fault == "close-low":
        for fd in range(3, 32):
            try:
                os.close(fd)
            except OSError:
                pass
    if fault == "close-all":
        os.closerange(3, 65536)
    with open(os.path.join(os.environ["HERMES_HOME"], "seen.txt"), "a") as f:
        f.write("%s %d\n" % (fault, os.getpid()))
"#,
    );
    let mut events: Vec<(&str, Value)> = ["close-low", "after-low", "close-all", "after-all"]
        .iter()
        .map(|fault| ("agent:start", json!({"fault": fault})))
        .collect();
    events.push(("command:sync", json!({"command": "sync"})));
    replay(&home, &events);
    let seen = std::fs::read_to_string(home.hermes.join("seen.txt")).unwrap_or_default();
    let pids: Vec<(&str, &str)> = seen
        .lines()
        .filter_map(|line| line.split_once(' '))
        .collect();
    let faults: Vec<&str> = pids.iter().map(|(fault, _)| *fault).collect();
    assert_eq!(
        faults,
        ["close-low", "after-low", "close-all", "after-all"],
        "{seen}"
    );
    assert_eq!(
        pids[0].1, pids[1].1,
        "the same worker after closing low fds: {seen}"
    );
    assert_ne!(
        pids[2].1, pids[3].1,
        "a new worker after closing all: {seen}"
    );
}
