//! Plugins see Hermes's module API in the worker: `hermes_cli.plugins` over
//! the hooks registered there, as hermes-agent 0.20.1 offers it. The plugin
//! below is shaped like agentsfence 0.2.0a9's guard: on every call it checks
//! that its own callback is in `iter_hook_callbacks("pre_tool_call")` and
//! blocks everything when it is not (before the view existed, that registry
//! was missing and every tool call was blocked).

use serde_json::json;

use crate::python::{fire, options, python_available, python_plugin, register};
use crate::support::Home;

/// agentsfence's self-check, reduced: the registry lookup happens at call
/// time, a failed lookup blocks (fail closed), `rm -rf` is blocked.
const FENCE: &str = r#"
import re

def _conflict(own):
    from hermes_cli.plugins import has_middleware, iter_hook_callbacks
    callbacks = iter_hook_callbacks("pre_tool_call")
    if own not in callbacks:
        raise RuntimeError("enforcement hook is missing from Hermes' registry")
    foreign = [cb for cb in callbacks if cb != own]
    if foreign:
        return "another pre_tool_call hook: " + ", ".join(cb.__qualname__ for cb in foreign)
    if has_middleware("tool_execution"):
        return "tool execution middleware"
    return None

class Fence:
    def on_pre_tool_call(self, tool_name, args, **kwargs):
        try:
            conflict = _conflict(self.on_pre_tool_call)
        except Exception as exc:
            return {"action": "block", "message": "fence failed closed: %s" % exc}
        if conflict:
            return {"action": "block", "message": "fence: " + conflict}
        if re.search(r"\brm\s+-rf\b", (args or {}).get("command", "")):
            return {"action": "block", "message": "fence: rm -rf"}
        return None

def register(ctx):
    fence = Fence()
    ctx.register_hook("pre_tool_call", fence.on_pre_tool_call)
"#;

#[test]
fn an_agentsfence_shaped_guard_finds_itself_in_the_registry() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "fence", FENCE);
    let loaded = register(&home, "plugins: {enabled: [fence]}", options(), Some(30.0));
    assert!(
        loaded.registration.warnings.is_empty(),
        "{:?}",
        loaded.registration.warnings
    );
    let read = json!({"tool_name": "read_file", "args": {"path": "README.md"}});
    assert_eq!(
        fire(&loaded.callbacks, "pre_tool_call", read),
        Vec::<serde_json::Value>::new(),
        "read_file is allowed"
    );
    let rm = json!({"tool_name": "terminal", "args": {"command": "rm -rf build"}});
    assert_eq!(
        fire(&loaded.callbacks, "pre_tool_call", rm),
        [json!({"action": "block", "message": "fence: rm -rf"})]
    );
}

#[test]
fn the_registry_holds_every_plugins_hooks_in_order_and_invoke_hook_runs_them() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "fence", FENCE);
    python_plugin(
        &home,
        "second",
        r#"
def rewrite(tool_name, **kwargs):
    return None

def probe(**kwargs):
    import hermes_cli.plugins as plugins
    manager = plugins.get_plugin_manager()
    assert manager is plugins.get_plugin_manager()
    names = [cb.__qualname__ for cb in manager.iter_hook_callbacks("pre_tool_call")]
    ran = plugins.invoke_hook("on_session_start", session_id="s1")
    return {"context": "%s | %s | %s | %s" % (
        names, plugins.has_hook("pre_llm_call"), plugins.has_hook("nothing"), ran)}

def echo(session_id, **kwargs):
    return "started " + session_id + " " + kwargs["telemetry_schema_version"]

def register(ctx):
    ctx.register_hook("pre_tool_call", rewrite)
    ctx.register_hook("pre_llm_call", probe)
    ctx.register_hook("on_session_start", echo)
"#,
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [fence, second]}",
        options(),
        Some(30.0),
    );
    let replies = fire(
        &loaded.callbacks,
        "pre_llm_call",
        json!({"user_message": "hi", "session_id": "s1"}),
    );
    assert_eq!(
        replies,
        [
            json!({"context": "['Fence.on_pre_tool_call', 'rewrite'] | True | False | \
                             ['started s1 hermes.observer.v1']"})
        ]
    );
    // The fence sees the second plugin's hook, as it would in Hermes, and refuses.
    let read = json!({"tool_name": "read_file", "args": {"path": "README.md"}});
    assert_eq!(
        fire(&loaded.callbacks, "pre_tool_call", read),
        [json!({"action": "block", "message": "fence: another pre_tool_call hook: rewrite"})]
    );
}

#[test]
fn a_plugin_whose_register_fails_leaves_nothing_in_the_registry() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "broken",
        r#"
def hook(**kwargs):
    return None
def register(ctx):
    ctx.register_hook("pre_tool_call", hook)
    raise RuntimeError("half registered")
"#,
    );
    python_plugin(
        &home,
        "count",
        r#"
from hermes_cli.plugins import iter_hook_callbacks
def count(**kwargs):
    return {"context": str(len(iter_hook_callbacks("pre_tool_call")))}
def register(ctx):
    ctx.register_hook("pre_llm_call", count)
"#,
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [broken, count]}",
        options(),
        Some(30.0),
    );
    assert_eq!(
        fire(
            &loaded.callbacks,
            "pre_llm_call",
            json!({"user_message": "x"})
        ),
        [json!({"context": "0"})]
    );
}
