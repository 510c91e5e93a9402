//! Discovery of hook folders (reference §7.6, tests 164–172) and its warnings.

use hermes_hooks_core::Payload;
use hermes_hooks_core::{Dispatcher, EventName};
use hermes_hooks_gateway::{
    GatewayHooks, GatewayOptions, HandlerError, HandlerKind, HookStatus, discover,
};

use crate::support::{Home, set_mode, write};

const HANDLE: &str = "def handle(e, c): pass\n";

fn skipped_paths(discovery: &hermes_hooks_gateway::Discovery) -> Vec<std::path::PathBuf> {
    discovery
        .warnings
        .iter()
        .filter(|w| w.skipped)
        .map(|w| w.path.clone())
        .collect()
}

#[test]
fn empty_registry() {
    let gateway = GatewayHooks::empty();
    assert_eq!(gateway.hooks().count(), 0);
    assert!(!gateway.interest(&EventName::parse("agent:start")));
    assert!(gateway.handlers_for("command:reset").is_empty());
}

#[test]
fn loads_valid_hook() {
    let home = Home::new();
    let dir = home.python_hook(
        "my-hook",
        r#"["agent:start"]"#,
        "def handle(event_type, context):\n    pass\n",
    );
    let (gateway, discovery) = home.gateway();
    assert_eq!(discovery.hooks.len(), 1, "{:?}", discovery.warnings);
    let hook = &discovery.hooks[0];
    assert_eq!(hook.name, "my-hook");
    assert_eq!(hook.description, "Test hook");
    assert_eq!(hook.events, ["agent:start"]);
    assert_eq!(hook.handler, HandlerKind::Python);
    assert_eq!(hook.dir, dir);
    assert_eq!(hook.handler_path(), dir.join("handler.py"));
    assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
    assert!(gateway.interest(&EventName::parse("agent:start")));
    assert!(!gateway.interest(&EventName::parse("agent:end")));
}

#[test]
fn skips_missing_hook_yaml() {
    let home = Home::new();
    let dir = home.hook_dir("bad-hook");
    write(&dir.join("handler.py"), HANDLE);
    let discovery = discover(home.path());
    assert!(discovery.hooks.is_empty());
    assert_eq!(skipped_paths(&discovery), [dir]);
    assert!(discovery.warnings[0].message.contains("HOOK.yaml"));
}

#[test]
fn skips_missing_handler_py() {
    let home = Home::new();
    let dir = home.hook_dir("bad-hook");
    write(
        &dir.join("HOOK.yaml"),
        "name: bad\nevents: ['agent:start']\n",
    );
    let discovery = discover(home.path());
    assert!(discovery.hooks.is_empty());
    assert_eq!(skipped_paths(&discovery), [dir]);
    assert!(discovery.warnings[0].message.contains("handler.py"));
}

#[test]
fn skips_no_events() {
    let home = Home::new();
    let dir = home.hook_dir("empty-hook");
    write(&dir.join("HOOK.yaml"), "name: empty\nevents: []\n");
    write(&dir.join("handler.py"), HANDLE);
    let discovery = discover(home.path());
    assert!(discovery.hooks.is_empty());
    let warning = &discovery.warnings[0];
    assert!(warning.skipped);
    assert_eq!(warning.path, dir.join("HOOK.yaml"));
    assert_eq!(warning.field.as_deref(), Some("events"));
    assert!(
        warning.to_string().contains("no events declared"),
        "{warning}"
    );
}

#[test]
fn skips_no_handle_function() {
    let home = Home::new();
    let dir = home.hook_dir("no-handle");
    write(
        &dir.join("HOOK.yaml"),
        "name: no-handle\nevents: ['agent:start']\n",
    );
    write(&dir.join("handler.py"), "def something_else(): pass\n");
    let discovery = discover(home.path());
    assert!(discovery.hooks.is_empty());
    let warning = &discovery.warnings[0];
    assert_eq!(warning.path, dir.join("handler.py"));
    assert!(warning.message.contains("no 'handle' function found"));
}

#[tokio::test]
async fn a_handle_missing_at_import_time_is_reported_on_first_use() {
    // The word `handle` appears, so discovery cannot rule it out; the worker does.
    let home = Home::new();
    home.python_hook(
        "late",
        "[agent:start]",
        "# handle is not defined here\nx = 1\n",
    );
    let (gateway, discovery) = home.gateway();
    assert_eq!(discovery.hooks.len(), 1);
    let result = gateway
        .call_hook("late", "agent:start", &Payload::new())
        .await;
    match result {
        Some(Err(HandlerError::Unloadable { reason, .. })) => {
            assert!(reason.contains("no 'handle' function found"), "{reason}")
        }
        other => panic!("expected Unloadable, got {other:?}"),
    }
    assert!(
        crate::support::emit(&gateway, "agent:start", serde_json::json!({}))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn an_import_error_keeps_the_hook_off_without_restarting_python() {
    let home = Home::new();
    let marker = home.path().join("imports.log");
    home.python_hook(
        "broken",
        "[agent:start]",
        "import os\nopen(os.environ['HERMES_HOME'] + '/imports.log', 'a').write('x')\n\
         import module_that_does_not_exist\ndef handle(e, c): return 1\n",
    );
    let (gateway, _) = home.gateway();
    for _ in 0..3 {
        let result = gateway
            .call_hook("broken", "agent:start", &Payload::new())
            .await;
        match result {
            Some(Err(HandlerError::Unloadable { reason, .. })) => {
                assert!(reason.contains("ModuleNotFoundError"), "{reason}")
            }
            other => panic!("expected Unloadable, got {other:?}"),
        }
    }
    assert_eq!(std::fs::read_to_string(marker).ok().as_deref(), Some("x"));
}

#[test]
fn nonexistent_hooks_dir() {
    let home = Home::new();
    let discovery = discover(&home.path().join("nonexistent"));
    assert!(discovery.hooks.is_empty());
    assert!(discovery.warnings.is_empty());
}

#[tokio::test]
async fn skips_disabled_hook() {
    let home = Home::new();
    let dir = home.hook_dir("off");
    write(
        &dir.join("HOOK.yaml"),
        "name: off\nevents: ['agent:start']\nenabled: false\n",
    );
    write(
        &dir.join("handler.py"),
        "import os\nopen(os.environ['HERMES_HOME'] + '/imported', 'w').write('x')\n\
         def handle(e, c): return 'ran'\n",
    );
    let (gateway, discovery) = home.gateway();
    assert!(discovery.hooks.is_empty());
    assert_eq!(discovery.warnings[0].field.as_deref(), Some("enabled"));
    assert!(!gateway.interest(&EventName::parse("agent:start")));
    assert!(
        crate::support::emit(&gateway, "agent:start", serde_json::json!({}))
            .await
            .is_empty()
    );
    assert!(
        !home.path().join("imported").exists(),
        "module was imported"
    );
}

#[test]
fn multiple_hooks() {
    let home = Home::new();
    home.python_hook("hook-b", r#"["session:start", "session:reset"]"#, HANDLE);
    home.python_hook("hook-a", r#"["agent:start"]"#, HANDLE);
    let discovery = discover(home.path());
    let names: Vec<_> = discovery.hooks.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["hook-a", "hook-b"], "sorted by folder");
    assert_eq!(
        discovery.hooks[1].events,
        ["session:start", "session:reset"]
    );
}

#[test]
fn broken_folders_are_skipped_and_the_rest_loads() {
    let home = Home::new();
    home.python_hook("good", "[agent:start]", HANDLE);
    let bad_yaml = home.hook_dir("bad-yaml");
    write(&bad_yaml.join("HOOK.yaml"), "events: [agent:start\n");
    write(&bad_yaml.join("handler.py"), HANDLE);
    let not_mapping = home.hook_dir("list");
    write(&not_mapping.join("HOOK.yaml"), "- agent:start\n");
    write(&not_mapping.join("handler.py"), HANDLE);
    let not_executable = home.hook_dir("plain");
    write(&not_executable.join("HOOK.yaml"), "events: [agent:start]\n");
    write(&not_executable.join("handler"), "#!/bin/sh\n");
    set_mode(&not_executable.join("handler"), 0o644);
    write(&home.hooks_dir().join("README.md"), "not a hook");

    let discovery = discover(home.path());
    let names: Vec<_> = discovery.hooks.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    assert_eq!(
        skipped_paths(&discovery),
        [
            home.hooks_dir().join("README.md"),
            bad_yaml.join("HOOK.yaml"),
            not_mapping.join("HOOK.yaml"),
            not_executable.join("handler"),
        ]
    );
    assert!(discovery.warnings[1].message.contains("invalid HOOK.yaml"));
}

#[test]
fn name_defaults_to_folder_and_odd_events_are_noted() {
    let home = Home::new();
    let dir = home.hook_dir("folder-name");
    write(
        &dir.join("HOOK.yaml"),
        "events: [agent:start, pre_tool_call]\n",
    );
    write(&dir.join("handler.py"), HANDLE);
    let discovery = discover(home.path());
    assert_eq!(discovery.hooks[0].name, "folder-name");
    let note = &discovery.warnings[0];
    assert!(!note.skipped);
    assert_eq!(note.field.as_deref(), Some("events[1]"));
    assert!(note.message.contains("not a gateway event"), "{note}");
}

#[test]
fn handler_py_takes_precedence_over_an_executable() {
    let home = Home::new();
    let dir = home.executable_hook("both", "[agent:start]", "echo 1\n");
    write(&dir.join("handler.py"), HANDLE);
    let discovery = discover(home.path());
    assert_eq!(discovery.hooks[0].handler, HandlerKind::Python);
    assert_eq!(discovery.warnings[0].path, dir.join("handler"));
    assert!(!discovery.warnings[0].skipped);
}

#[test]
fn a_syntax_error_is_reported_at_discovery_by_the_trial_import() {
    let home = Home::new();
    home.python_hook(
        "broken",
        "[agent:start]",
        "def handle(e, c)\n    return 1\n",
    );
    home.python_hook("fine", "[agent:start]", "def handle(e, c):\n    return 1\n");
    home.executable_hook("exe", "[agent:start]", "echo 1\n");
    let (_, discovery) = home.gateway();
    let status = |name: &str| {
        discovery
            .hooks
            .iter()
            .find(|hook| hook.name == name)
            .map(|hook| hook.status.clone())
    };
    let broken = status("broken").and_then(|s| s.error().map(str::to_owned));
    assert!(
        broken
            .as_deref()
            .is_some_and(|e| e.starts_with("SyntaxError")),
        "{broken:?}"
    );
    assert_eq!(status("fine"), Some(HookStatus::Ready));
    assert_eq!(status("exe"), Some(HookStatus::Unchecked));
    let warning = discovery
        .warnings
        .iter()
        .find(|w| w.path.ends_with("broken/handler.py"))
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        warning.contains("SyntaxError") && warning.contains("cannot be imported with"),
        "{warning}"
    );
    let python = discovery.python.as_ref().map(ToString::to_string);
    assert!(python.is_some(), "the interpreter is reported");
    let exe = discovery.hooks.iter().find(|h| h.name == "exe");
    assert!(exe.is_some_and(|hook| discovery.interpreter_for(hook).is_none()));
}

#[test]
fn discovery_alone_reads_files_and_the_check_can_be_run_later() {
    let home = Home::new();
    home.python_hook(
        "broken",
        "[agent:start]",
        "import no_such_module_xyz\ndef handle(e, c): pass\n",
    );
    let mut discovery = hermes_hooks_gateway::discover(home.path());
    assert_eq!(discovery.hooks[0].status, HookStatus::Unchecked);
    hermes_hooks_gateway::check_handlers(&mut discovery, &GatewayOptions::default());
    let error = discovery.hooks[0].status.error().unwrap_or_default();
    assert!(
        error.contains("No module named 'no_such_module_xyz'"),
        "{error}"
    );
}

#[tokio::test]
async fn a_hook_broken_at_discovery_stays_off() {
    let home = Home::new();
    home.python_hook("broken", "[command:*]", "def handle(e, c)\n    return 1\n");
    let (gateway, _) = home.gateway();
    let result = gateway
        .call_hook("broken", "command:x", &hermes_hooks_core::Payload::new())
        .await;
    assert!(
        matches!(
            result,
            Some(Err(hermes_hooks_gateway::HandlerError::Unloadable { .. }))
        ),
        "{result:?}"
    );
}
