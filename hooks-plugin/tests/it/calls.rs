//! Calling the SDK's example plugins through `NativePlugin`.

use std::sync::{Arc, OnceLock};

use hermes_hooks_core::prompt::{PromptSections, SessionInfo};
use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_plugin::{NativePlugin, NativePluginInfo, PluginCallError, inspect_native};
use serde_json::{Value, json};

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::config::PluginSettings;

use crate::support::{Home, example_library, raw_library};

fn guard() -> &'static NativePlugin {
    static PLUGIN: OnceLock<NativePlugin> = OnceLock::new();
    PLUGIN.get_or_init(|| {
        NativePlugin::load(&example_library("plugin-guard")).expect("plugin-guard loads")
    })
}

fn load(package: &str) -> NativePlugin {
    NativePlugin::load(&example_library(package)).expect("example plugin loads")
}

fn call(
    plugin: &NativePlugin,
    event: HookEvent,
    payload: Value,
) -> Result<Option<Value>, PluginCallError> {
    plugin.call(&Event::from_json(event, payload))
}

#[test]
fn identity_hooks_and_abi() {
    let plugin = guard();
    assert_eq!(plugin.name(), "plugin-guard");
    assert_eq!(plugin.key(), "plugin-guard");
    assert_eq!(plugin.declared_name(), "plugin-guard");
    assert_eq!(plugin.hooks(), ["pre_tool_call"]);
    assert_eq!(plugin.abi_version(), 1);
    assert_eq!(plugin.table_size(), hermes_hooks_plugin::abi::TABLE_SIZE);
    assert!(plugin.prompt_sections().is_empty());
    assert!(plugin.registers("pre_tool_call") && !plugin.registers("post_llm_call"));
    assert_eq!(plugin.unknown_hooks().count(), 0);
}

/// Issue 15 item 17: a JSON null in a typed field (as a host with no session
/// sends it) is the field being absent, not a payload the plugin cannot decode.
#[test]
fn a_null_field_reaches_a_typed_plugin_as_absent() {
    let reply = call(
        guard(),
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"},
               "session_id": null, "task_id": null, "tool_call_id": null}),
    );
    assert_eq!(
        reply,
        Ok(Some(
            json!({"action": "block", "message": "plugin-guard: refusing `rm -rf /`"})
        ))
    );
    let allowed = call(
        guard(),
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls"}, "session_id": null}),
    );
    assert_eq!(allowed, Ok(None));
}

#[test]
fn the_guard_blocks_rm_rf_on_terminal_only() {
    let plugin = guard();
    let reply = call(
        plugin,
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}),
    );
    assert_eq!(
        reply,
        Ok(Some(
            json!({"action": "block", "message": "plugin-guard: refusing `rm -rf /`"})
        ))
    );
    let harmless = json!({"tool_name": "terminal", "args": {"command": "ls -la"}});
    assert_eq!(call(plugin, HookEvent::PreToolCall, harmless), Ok(None));
    let other_tool = json!({"tool_name": "read_file", "args": {"command": "rm -rf /"}});
    assert_eq!(call(plugin, HookEvent::PreToolCall, other_tool), Ok(None));
}

#[test]
fn context_and_a_prompt_section_through_the_grown_table() {
    let plugin = Arc::new(load("plugin-context"));
    assert_eq!(
        call(
            &plugin,
            HookEvent::PreLlmCall,
            json!({"user_message": "hello there"})
        ),
        Ok(Some(
            json!({"context": "plugin-context: the user wrote 2 word(s); answer in kind."})
        ))
    );
    let sections = plugin.prompt_sections();
    assert_eq!(sections.len(), 1);
    assert_eq!(
        (
            sections[0].id.as_str(),
            sections[0].position.as_str(),
            sections[0].max_chars
        ),
        ("plugin-context.house-rules", "after_memory", 4000)
    );
    let registry = PromptSections::new();
    assert!(plugin.register_prompt_sections(&registry).is_empty());
    assert_renders_house_rules(&registry);
    // A second registration of the same id is the registry's duplicate error.
    let refused = plugin.register_prompt_sections(&registry);
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0]
            .to_string()
            .contains("already registered by plugin 'plugin-context'")
    );
}

#[test]
fn an_old_base_size_table_still_loads_without_sections() {
    let plugin = NativePlugin::load(&raw_library("unknown_hook")).expect("a base table loads");
    assert_eq!(
        plugin.table_size(),
        hermes_hooks_plugin::abi::TABLE_SIZE_BASE
    );
    assert!(plugin.prompt_sections().is_empty());
}

#[test]
fn the_redactor_masks_keys() {
    let plugin = load("plugin-redactor");
    let key = format!("sk-{}", "Z9".repeat(20));
    let reply = call(
        &plugin,
        HookEvent::TransformToolResult,
        json!({"tool_name": "terminal", "result": format!("key={key}")}),
    );
    assert_eq!(reply, Ok(Some(json!("key=[REDACTED]"))));
}

#[test]
fn a_panic_inside_the_plugin_is_an_error_and_the_host_lives_on() {
    let plugin = load("plugin-panics");
    for _ in 0..2 {
        match call(
            &plugin,
            HookEvent::PreToolCall,
            json!({"tool_name": "terminal"}),
        ) {
            Err(PluginCallError::Failed {
                plugin,
                event,
                status,
                message,
            }) => {
                assert_eq!(
                    (plugin.as_str(), event.as_str(), status),
                    ("plugin-panics", "pre_tool_call", 2)
                );
                assert!(message.contains("deliberately panicking"), "{message}");
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}

#[test]
fn a_reply_that_is_not_json_is_an_error_naming_the_plugin() {
    let plugin = NativePlugin::load(&raw_library("garbage_reply")).expect("loads");
    let message = call(&plugin, HookEvent::PreToolCall, json!({}))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.starts_with("plugin 'raw' replied to pre_tool_call with invalid JSON: "),
        "{message}"
    );
}

#[test]
fn a_payload_that_does_not_decode_is_the_callbacks_failure() {
    let error = guard().call_json("pre_tool_call", b"{not json").err();
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with(
            "plugin 'plugin-guard' failed on pre_tool_call (status 1): the pre_tool_call payload does not decode"
        ),
        "{message}"
    );
}

#[test]
fn inspect_describes_a_library() {
    let library = example_library("plugin-context");
    let info = inspect_native(&library).expect("inspects");
    assert_eq!(
        (info.name.as_str(), info.abi_version, info.hooks.as_slice()),
        ("plugin-context", 1, ["pre_llm_call".to_owned()].as_slice())
    );
    assert_eq!(info.prompt_sections[0].id, "plugin-context.house-rules");
    let json = serde_json::to_value(&info).expect("serialises");
    assert_eq!(json["library"], json!(library));
    let back: NativePluginInfo = serde_json::from_value(json).expect("deserialises");
    assert_eq!(back, info);
    let other = inspect_native(&example_library("plugin-other-abi")).err();
    let message = other.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("plugin ABI version 2 is not supported (this host speaks version 1)"));
}

#[test]
fn calls_from_many_threads_at_once() {
    // Sharing `&NativePlugin` across threads needs `Sync`, moving an
    // `Arc<NativePlugin>` needs `Send`: both are checked here at compile time.
    let shared = Arc::new(load("plugin-redactor"));
    let answered: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let plugin = Arc::clone(&shared);
                scope.spawn(move || {
                    (0..50)
                        .filter(|round| {
                            let result = format!("{worker}-{round} sk-{}", "a".repeat(32));
                            let event = Event::from_json(
                                HookEvent::TransformToolResult,
                                json!({"tool_name": "terminal", "result": result}),
                            );
                            let reply = plugin.call(&event).ok().flatten();
                            reply == Some(json!(format!("{worker}-{round} [REDACTED]")))
                        })
                        .count()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    });
    assert_eq!(answered, 200);
}

#[test]
fn register_plugins_puts_a_native_plugins_prompt_sections_in_the_registry() {
    let home = Home::new();
    let dir = home.plugin("plugin-context", &[]);
    let library = example_library("plugin-context");
    let file_name = library.file_name().expect("library file name").to_owned();
    std::fs::copy(&library, dir.join(&file_name)).expect("copy library");
    std::fs::write(
        dir.join("plugin.yaml"),
        format!(
            "name: plugin-context\nlibrary: {}\n",
            file_name.to_string_lossy()
        ),
    )
    .expect("write plugin.yaml");
    let config = home.config("plugins:\n  enabled: [plugin-context]\n");
    let callbacks = Callbacks::new(PluginSettings::default());
    let registry = PromptSections::new();
    let registration =
        hermes_hooks_plugin::register_plugins(home.path(), &config, &callbacks, &registry);
    assert!(
        registration.warnings.is_empty(),
        "{:?}",
        registration.warnings
    );
    assert_renders_house_rules(&registry);
}

/// Asserts that `registry` renders plugin-context's section for a coder on the CLI.
fn assert_renders_house_rules(registry: &PromptSections) {
    let info = SessionInfo::default()
        .with_profile_name("coder")
        .with_platform("cli");
    let rendered = registry.render(&info).text.unwrap_or_default();
    assert!(
        rendered.contains("House rules for profile coder on cli"),
        "{rendered}"
    );
}
