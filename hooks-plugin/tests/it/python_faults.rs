//! Faults of the shared Python worker: a restart that would rewire callbacks,
//! coroutines that raise SystemExit/KeyboardInterrupt, fd games on the
//! protocol pipes, a wedged worker, and a hung callback on an inline event.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::python::{fire, options, python_available, python_plugin, register};
use crate::support::Home;

/// Longer than the restart throttle (1 s).
const AFTER_RESTART_INTERVAL: Duration = Duration::from_millis(1200);
/// The bound of a hang guard (no speed check).
const HANG_GUARD: Duration = Duration::from_secs(120);

fn rm_rf() -> Value {
    json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}})
}

fn messages(replies: &[Value]) -> Vec<String> {
    replies
        .iter()
        .filter(|reply| reply["action"] == "block")
        .map(|reply| reply["message"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// A guard whose registration order comes from `order.txt` (as a `set` of
/// hooks would change it per process), and that can kill its worker.
const REORDERED_GUARD: &str = r#"
import os
HERE = os.path.dirname(__file__)
def check(tool_name, args=None, **kwargs):
    if tool_name == "die":
        os._exit(3)
    if "rm -rf" in (args or {}).get("command", ""):
        return {"action": "block", "message": "guard: rm -rf is not permitted"}
    return None
def log(**kwargs):
    return None
def register(ctx):
    hooks = [("pre_tool_call", check), ("post_tool_call", log), ("on_session_end", log)]
    with open(os.path.join(HERE, "order.txt")) as f:
        if f.read().strip() == "reversed":
            hooks.reverse()
    for event, function in hooks:
        ctx.register_hook(event, function)
"#;

#[test]
fn a_restarted_worker_never_points_a_guard_at_another_function() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let dir = python_plugin(&home, "guard", REORDERED_GUARD);
    std::fs::write(dir.join("order.txt"), "forward").unwrap();
    let loaded = register(&home, "plugins: {enabled: [guard]}", options(), Some(30.0));
    let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
    assert_eq!(blocked, ["guard: rm -rf is not permitted"]);
    // The next process registers in the other order; then the worker dies.
    std::fs::write(dir.join("order.txt"), "reversed").unwrap();
    let _ = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "die", "args": {}}),
    );
    std::thread::sleep(AFTER_RESTART_INTERVAL);
    for _ in 0..3 {
        let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
        assert_eq!(blocked, ["guard: rm -rf is not permitted"], "rewired");
    }
}

#[test]
fn a_plugin_that_registers_other_hooks_after_a_restart_fails_closed() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let dir = python_plugin(
        &home,
        "shifty",
        r#"
import os
HERE = os.path.dirname(__file__)
def check(tool_name, **kwargs):
    if tool_name == "die":
        os._exit(3)
    return {"action": "block", "message": "shifty: checked"}
def allow(**kwargs):
    return None
def register(ctx):
    second = os.path.exists(os.path.join(HERE, "second"))
    ctx.register_hook("pre_tool_call", allow if second else check)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [shifty]}", options(), Some(30.0));
    assert_eq!(
        messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf())),
        ["shifty: checked"]
    );
    std::fs::write(dir.join("second"), "").unwrap();
    let _ = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "die", "args": {}}),
    );
    std::thread::sleep(AFTER_RESTART_INTERVAL);
    let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert!(
        blocked[0].contains("Python plugin 'shifty' is not running")
            && blocked[0].contains("registered other hooks"),
        "{blocked:?}"
    );
}

#[test]
fn coroutines_raising_system_exit_or_keyboard_interrupt_break_nothing() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "poison",
        r#"
import asyncio
async def die_in_background():
    raise SystemExit(4)
async def guard(tool_name, **kwargs):
    if tool_name == "exit":
        raise SystemExit(1)
    if tool_name == "interrupt":
        raise KeyboardInterrupt()
    if tool_name == "background":
        asyncio.ensure_future(die_in_background())
        await asyncio.sleep(0.2)
    return {"action": "block", "message": "async guard ran"}
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [poison]}", options(), Some(3.0));
    for poison in ["exit", "interrupt", "background"] {
        let _ = fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": poison, "args": {}}),
        );
        // The guard's own answer, not its 3 s timeout's, is the proof.
        let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
        assert_eq!(blocked, ["async guard ran"], "after {poison}");
    }
}

#[test]
fn closing_low_fds_does_not_reach_the_protocol() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "fdgames",
        r#"
import os
def guard(tool_name, **kwargs):
    if tool_name == "close":
        for fd in range(3, 20):
            try:
                os.close(fd)
            except OSError:
                pass
    if tool_name == "dup":
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 3, 4):
            os.dup2(null, fd)
    return {"action": "block", "message": "fd guard ran"}
async def async_guard(**kwargs):
    return {"action": "block", "message": "async fd guard ran"}
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
    ctx.register_hook("pre_tool_call", async_guard)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [fdgames]}", options(), Some(5.0));
    for game in ["close", "dup"] {
        let _ = fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": game, "args": {}}),
        );
        for _ in 0..3 {
            let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
            // The event loop's fds (async_guard) are out of reach too.
            assert_eq!(
                blocked,
                ["fd guard ran", "async fd guard ran"],
                "after {game}"
            );
        }
    }
}

#[test]
fn a_plugin_that_closes_every_fd_gets_the_worker_restarted() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "closer",
        r#"
import os
def guard(tool_name, **kwargs):
    if tool_name == "closeall":
        os.closerange(3, 65536)
    return {"action": "block", "message": "closer ran"}
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [closer]}", options(), Some(5.0));
    let broken = messages(&fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "closeall", "args": {}}),
    ));
    assert_eq!(broken.len(), 1, "fails closed: {broken:?}");
    std::thread::sleep(AFTER_RESTART_INTERVAL);
    let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
    assert_eq!(blocked, ["closer ran"]);
}

#[test]
fn a_wedged_worker_is_found_by_its_health_check_and_restarted() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let dir = python_plugin(
        &home,
        "freezer",
        r#"
import os, signal
HERE = os.path.dirname(__file__)
def on_subagent(**kwargs):
    with open(os.path.join(HERE, "pid"), "w") as f:
        f.write(str(os.getpid()))
    flag = os.path.join(HERE, "freeze")
    if os.path.exists(flag):
        os.remove(flag)
        os.kill(os.getpid(), signal.SIGSTOP)
def guard(**kwargs):
    return {"action": "block", "message": "freezer ran"}
def register(ctx):
    ctx.register_hook("subagent_start", on_subagent)
    ctx.register_hook("pre_tool_call", guard)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [freezer]}", options(), Some(1.0));
    let pid = || std::fs::read_to_string(dir.join("pid")).unwrap_or_default();
    fire(&loaded.callbacks, "subagent_start", json!({}));
    let first = pid();
    assert!(!first.is_empty());
    // The whole worker stops: the call returns at its deadline, and the
    // health check (5 s) finds the worker wedged and kills it.
    std::fs::write(dir.join("freeze"), "").unwrap();
    // Returning at all is the proof (the worker stays stopped until killed);
    // the restart's poll below has a hang guard only.
    fire(&loaded.callbacks, "subagent_start", json!({}));
    let deadline = Instant::now() + HANG_GUARD;
    while pid() == first {
        assert!(Instant::now() < deadline, "never restarted");
        std::thread::sleep(Duration::from_millis(500));
        fire(&loaded.callbacks, "subagent_start", json!({}));
    }
    let blocked = messages(&fire(&loaded.callbacks, "pre_tool_call", rm_rf()));
    assert_eq!(blocked, ["freezer ran"]);
}

#[test]
fn a_hung_callback_on_an_inline_event_returns_within_the_callback_timeout() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let dir = python_plugin(
        &home,
        "sleeper",
        r#"
import os, time
def hang(**kwargs):
    time.sleep(120)
    open(os.path.join(os.path.dirname(__file__), "woke"), "w").close()
def register(ctx):
    ctx.register_hook("subagent_start", hang)
    ctx.register_hook("pre_gateway_dispatch", hang)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [sleeper]}", options(), Some(2.0));
    for event in ["subagent_start", "pre_gateway_dispatch"] {
        let replies = fire(&loaded.callbacks, event, json!({}));
        assert!(replies.is_empty(), "{replies:?}");
        // Returned while the callback still slept (order, not a clock).
        assert!(!dir.join("woke").exists(), "{event} waited for the hang");
    }
}
