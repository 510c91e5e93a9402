//! Python plugins in a real worker: registration, keyword narrowing, coroutines,
//! broken imports, `plugins.required`, unsupported `ctx` APIs, plain-data
//! gateway events, prompt sections, entry points and project plugins.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::interpreter::{InterpreterSource, PythonInterpreter};
use hermes_hooks_core::prompt::{PromptSections, SessionInfo};
use hermes_hooks_core::{Dispatcher, Event};
use hermes_hooks_plugin::{
    DiscoverOptions, PluginRegistration, PluginStatus, register_plugins_with,
};
use serde_json::{Value, json};

use crate::support::Home;

/// Whether `python3` runs here (a test that needs it skips without it, but fails in CI).
pub use test_support::python_available;

pub(crate) fn options() -> DiscoverOptions {
    DiscoverOptions::default().with_python(PythonInterpreter::new(
        PathBuf::from("python3"),
        InterpreterSource::Default,
    ))
}

pub(crate) struct Loaded {
    pub callbacks: Arc<Callbacks>,
    pub sections: PromptSections,
    pub registration: PluginRegistration,
}

pub(crate) fn register(
    home: &Home,
    config: &str,
    options: DiscoverOptions,
    timeout: Option<f64>,
) -> Loaded {
    let settings =
        PluginSettings::default().with_callback_timeout(timeout.map(Duration::from_secs_f64));
    let callbacks = Callbacks::new(settings);
    let sections = PromptSections::new();
    let registration = register_plugins_with(
        home.path(),
        &home.config(config),
        options,
        &callbacks,
        &sections,
    );
    Loaded {
        callbacks,
        sections,
        registration,
    }
}

pub(crate) fn python_plugin(home: &Home, folder: &str, code: &str) -> PathBuf {
    home.plugin(
        folder,
        &[
            ("plugin.yaml", &format!("name: {folder}\n")),
            ("__init__.py", code),
        ],
    )
}

pub(crate) fn fire(callbacks: &Callbacks, event: &str, payload: Value) -> Vec<Value> {
    let event = Event::from_json(event, payload);
    futures::executor::block_on(callbacks.dispatch(&event))
        .into_iter()
        .map(|reply| reply.value)
        .collect()
}

pub(crate) const GUARD: &str = r#"
import re
def guard(tool_name, args, **kwargs):
    if tool_name == "terminal" and re.search(r"rm\s+-rf?\s+/", args.get("command", "")):
        return {"action": "block", "message": "blocked: rm -rf / is not permitted"}
    return None
def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"#;

#[test]
fn a_guard_plugin_blocks_through_the_core() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "guard", GUARD);
    let loaded = register(&home, "plugins: {enabled: [guard]}", options(), Some(30.0));
    assert!(
        loaded.registration.warnings.is_empty(),
        "{:?}",
        loaded.registration.warnings
    );
    let info = &loaded.registration.plugins[0];
    assert_eq!(
        (
            info.status.as_str(),
            info.kind.as_str(),
            info.source.as_str()
        ),
        ("loaded", "python", "user")
    );
    let rm = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    assert_eq!(
        fire(&loaded.callbacks, "pre_tool_call", rm),
        [json!({"action": "block", "message": "blocked: rm -rf / is not permitted"})]
    );
    let ls = json!({"tool_name": "terminal", "args": {"command": "ls"}});
    assert!(fire(&loaded.callbacks, "pre_tool_call", ls).is_empty());
}

#[test]
fn callbacks_get_the_keywords_they_declare_and_coroutines_are_awaited() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "kw",
        r#"
import asyncio
def narrow(tool_name):
    return {"action": "block", "message": "narrow saw " + tool_name}
async def recall(user_message, **kwargs):
    await asyncio.sleep(0.01)
    return {"context": "async saw " + user_message + " " + kwargs["telemetry_schema_version"]}
def register(ctx):
    ctx.register_hook("pre_tool_call", narrow)
    ctx.register_hook("pre_llm_call", recall)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [kw]}", options(), Some(30.0));
    assert_eq!(
        fire(
            &loaded.callbacks,
            "pre_tool_call",
            json!({"tool_name": "x", "args": {}, "task_id": "t"})
        ),
        [json!({"action": "block", "message": "narrow saw x"})]
    );
    assert_eq!(
        fire(
            &loaded.callbacks,
            "pre_llm_call",
            json!({"user_message": "hi"})
        ),
        [json!({"context": "async saw hi hermes.observer.v1"})]
    );
}

#[test]
fn a_plugin_that_fails_to_import_is_failed_at_discovery_and_required_blocks() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "broken", "def register(ctx)\n    pass\n");
    python_plugin(&home, "fine", GUARD);
    let config = "plugins: {enabled: [broken, fine, ghost], required: [broken, absent]}";
    let loaded = register(&home, config, options(), Some(30.0));
    let broken = loaded
        .registration
        .plugins
        .iter()
        .find(|p| p.key == "broken")
        .expect("listed");
    assert!(
        matches!(&broken.status, PluginStatus::Failed(why) if why.contains("SyntaxError")),
        "{:?}",
        broken.status
    );
    assert!(broken.required);
    assert_eq!(loaded.registration.failures().count(), 1);
    let warnings: Vec<String> = loaded
        .registration
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Python plugin 'broken' (user) not loaded: SyntaxError")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("plugin 'ghost' is enabled but not installed")),
        "{warnings:?}"
    );
    let names: Vec<&str> = loaded
        .registration
        .blocking
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["absent", "broken"]);
    let replies = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "read_file", "args": {}}),
    );
    let messages: Vec<&str> = replies
        .iter()
        .filter_map(|r| r["message"].as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{replies:?}");
    assert!(messages[0].starts_with("required plugin 'absent' is not running (not installed)"));
    assert!(messages[1].starts_with("required plugin 'broken' is not running (failed to load: "));
}

#[test]
fn other_ctx_apis_warn_once_and_the_hooks_still_run() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "greedy",
        r#"
def register(ctx):
    ctx.register_tool("t", "set", {}, lambda **k: "")
    ctx.register_tool("u", "set", {}, lambda **k: "")
    ctx.register_command("c", lambda *a: None)
    llm = ctx.llm
    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "still here"})
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [greedy]}", options(), Some(30.0));
    let warnings: Vec<String> = loaded
        .registration
        .warnings
        .iter()
        .map(|w| w.message.clone())
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("plugin 'greedy' called ctx.register_tool()"),
        "{warnings:?}"
    );
    assert!(warnings[1].contains("ctx.register_command()"));
    assert!(warnings[2].contains("ctx.llm"));
    assert_eq!(
        fire(&loaded.callbacks, "pre_llm_call", json!({})),
        [json!({"context": "still here"})]
    );
}

#[test]
fn gateway_dispatch_events_read_as_objects() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "dms",
        r#"
def deny(event, **kwargs):
    if event.source.chat_type == "dm" and event["source"]["user_id"] != "owner":
        return {"action": "skip", "reason": "unauthorized-dm " + event.text}
def register(ctx):
    ctx.register_hook("pre_gateway_dispatch", deny)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [dms]}", options(), None);
    let payload = json!({"event": {"text": "hi", "source": {"chat_type": "dm", "user_id": "x"}}, "gateway": null, "session_store": null});
    assert_eq!(
        fire(&loaded.callbacks, "pre_gateway_dispatch", payload),
        [json!({"action": "skip", "reason": "unauthorized-dm hi"})]
    );
}

#[test]
fn sections_register_text_and_functions() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(
        &home,
        "rules",
        r#"
def board_rules(session_info):
    return f"Apply the worker rules for profile {session_info['profile_name']}."
def register(ctx):
    ctx.register_system_prompt_section("rules.worker", board_rules, position="after_memory", max_chars=4000)
    ctx.register_system_prompt_section("rules.fixed", "Be brief.")
"#,
    );
    python_plugin(
        &home,
        "badsection",
        "def register(ctx):\n    ctx.register_system_prompt_section('Bad Id', 'x')\n",
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [rules, badsection]}",
        options(),
        None,
    );
    let rules = loaded
        .registration
        .plugins
        .iter()
        .find(|p| p.key == "rules")
        .expect("listed");
    assert_eq!(rules.sections, ["rules.worker", "rules.fixed"]);
    let bad = loaded
        .registration
        .plugins
        .iter()
        .find(|p| p.key == "badsection")
        .expect("listed");
    assert!(
        bad.status
            .error()
            .is_some_and(|e| e.contains("ValueError: system prompt section id")),
        "{:?}",
        bad.status
    );
    let info = SessionInfo::default().with_profile_name("coder");
    let text = loaded
        .sections
        .render(&info)
        .text
        .expect("sections rendered");
    assert!(
        text.contains("Apply the worker rules for profile coder."),
        "{text}"
    );
    assert!(text.contains("Be brief."));
}

/// A `python3` wrapper that puts `site` on `PYTHONPATH` (where an entry point is installed).
fn python_with_path(home: &Home, site: &Path) -> PythonInterpreter {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = home.path().join("python-with-site");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nPYTHONPATH='{}' exec python3 \"$@\"\n",
            site.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    PythonInterpreter::new(wrapper, InterpreterSource::Environment)
}

#[test]
fn project_and_pip_installed_plugins_are_found() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let site = home.path().join("site");
    std::fs::create_dir_all(site.join("epguard-1.0.dist-info")).unwrap();
    std::fs::write(
        site.join("epguard-1.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: epguard\nVersion: 1.0\n",
    )
    .unwrap();
    std::fs::write(
        site.join("epguard-1.0.dist-info/entry_points.txt"),
        "[hermes_agent.plugins]\nep-guard = epguard_mod\n",
    )
    .unwrap();
    std::fs::write(
        site.join("epguard_mod.py"),
        GUARD.replace("blocked: rm", "ep blocked: rm"),
    )
    .unwrap();
    let project = home.path().join("project/.hermes/plugins");
    std::fs::create_dir_all(project.join("proj")).unwrap();
    std::fs::write(project.join("proj/plugin.yaml"), "name: proj\n").unwrap();
    std::fs::write(
        project.join("proj/__init__.py"),
        GUARD.replace("blocked: rm", "project blocked: rm"),
    )
    .unwrap();
    let options = DiscoverOptions::default()
        .with_project_dir(project)
        .with_python(python_with_path(&home, &site));
    let loaded = register(
        &home,
        "plugins: {enabled: [ep-guard, proj]}",
        options,
        Some(30.0),
    );
    let sources: Vec<(&str, &str, &str)> = loaded
        .registration
        .plugins
        .iter()
        .map(|p| (p.key.as_str(), p.source.as_str(), p.status.as_str()))
        .collect();
    assert_eq!(
        sources,
        [
            ("proj", "project", "loaded"),
            ("ep-guard", "entrypoint", "loaded")
        ]
    );
    let replies = fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}),
    );
    let messages: Vec<&str> = replies
        .iter()
        .filter_map(|r| r["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "ep blocked: rm -rf / is not permitted",
            "project blocked: rm -rf / is not permitted"
        ]
    );
}

#[test]
fn memory_providers_are_listed_but_left_to_their_own_discovery() {
    let home = Home::new();
    python_plugin(
        &home,
        "honcho",
        "from x import MemoryProvider\ndef register(ctx):\n    ctx.register_memory_provider(MemoryProvider())\n",
    );
    home.plugin(
        "declared",
        &[
            ("plugin.yaml", "name: declared\nkind: exclusive\n"),
            ("__init__.py", ""),
        ],
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [honcho, declared]}",
        options(),
        None,
    );
    assert!(
        loaded.registration.warnings.is_empty(),
        "{:?}",
        loaded.registration.warnings
    );
    let statuses: Vec<&str> = loaded
        .registration
        .plugins
        .iter()
        .map(|p| p.status.as_str())
        .collect();
    assert_eq!(statuses, ["skipped", "skipped"]);
    assert!(
        loaded.registration.interpreter.is_none(),
        "no worker for plugins that do not load"
    );
}
