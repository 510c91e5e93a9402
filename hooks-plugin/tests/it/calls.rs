//! Calling the example plugin's hooks through `NativePlugin`.

use std::sync::{Arc, OnceLock};

use hooks_core::{Event, HookEvent};
use hooks_plugin::{NativePlugin, PluginCallError};
use serde_json::{Value, json};

use crate::support::example_library;

fn plugin() -> &'static NativePlugin {
    static PLUGIN: OnceLock<NativePlugin> = OnceLock::new();
    PLUGIN.get_or_init(|| NativePlugin::load(example_library()).expect("example plugin loads"))
}

fn call(event: HookEvent, payload: Value) -> Result<Option<Value>, PluginCallError> {
    plugin().call(&Event::from_json(event, payload))
}

#[test]
fn identity_and_hooks_in_the_plugins_order() {
    let plugin = plugin();
    assert_eq!(plugin.name(), "example-plugin");
    assert_eq!(plugin.key(), "example-plugin");
    assert_eq!(plugin.declared_name(), "example-plugin");
    assert_eq!(
        plugin.hooks(),
        [
            "pre_tool_call",
            "pre_llm_call",
            "post_tool_call",
            "on_session_start"
        ]
    );
    assert!(plugin.registers("post_tool_call") && !plugin.registers("post_llm_call"));
    assert_eq!(plugin.unknown_hooks().count(), 0);
}

#[test]
fn pre_tool_call_blocks_rm_rf_on_terminal() {
    let reply = call(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "cd / && rm -rf --no-preserve-root /"}}),
    );
    assert_eq!(
        reply,
        Ok(Some(
            json!({"action": "block", "message": "example-plugin: refusing rm -rf"})
        ))
    );
    let harmless = call(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls -la"}}),
    );
    assert_eq!(harmless, Ok(None));
    let other_tool = call(
        HookEvent::PreToolCall,
        json!({"tool_name": "read_file", "args": {"command": "rm -rf /"}}),
    );
    assert_eq!(other_tool, Ok(None));
}

#[test]
fn pre_tool_call_modifies_write_file_args() {
    let reply = call(
        HookEvent::PreToolCall,
        json!({"tool_name": "write_file", "args": {"path": "a.txt", "content": "hi"}}),
    );
    assert_eq!(
        reply,
        Ok(Some(json!({
            "action": "modify",
            "args": {"path": "a.txt", "content": "hi", "checked_by": "example-plugin"}
        })))
    );
}

#[test]
fn pre_llm_call_adds_context_and_observers_reply_nothing() {
    assert_eq!(
        call(HookEvent::PreLlmCall, json!({"user_message": "hello"})),
        Ok(Some(
            json!({"context": "example-plugin: remember to be brief"})
        ))
    );
    assert_eq!(
        call(
            HookEvent::PostToolCall,
            json!({"tool_name": "terminal", "result": "ok"})
        ),
        Ok(None)
    );
    assert_eq!(
        call(HookEvent::OnSessionStart, json!({"panic": false})),
        Ok(None)
    );
}

#[test]
fn a_panic_inside_the_plugin_is_an_error_and_the_host_lives_on() {
    let reply = call(HookEvent::OnSessionStart, json!({"panic": true}));
    match reply {
        Err(PluginCallError::Failed {
            plugin,
            event,
            status,
            message,
        }) => {
            assert_eq!(
                (plugin.as_str(), event.as_str(), status),
                ("example-plugin", "on_session_start", 2)
            );
            assert!(message.contains("asked to panic"), "{message}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    // The same plugin keeps answering afterwards.
    assert!(matches!(
        call(HookEvent::PreLlmCall, json!({})),
        Ok(Some(_))
    ));
}

#[test]
fn a_reply_that_is_not_json_is_an_error_naming_the_plugin() {
    let reply = call(HookEvent::OnSessionStart, json!({"reply_garbage": true}));
    let message = reply.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message
            .starts_with("plugin 'example-plugin' replied to on_session_start with invalid JSON: "),
        "{message}"
    );
}

#[test]
fn a_plugin_error_names_the_plugin() {
    let error = plugin().call_json("pre_tool_call", b"{not json").err();
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with(
            "plugin 'example-plugin' failed on pre_tool_call (status 1): payload is not JSON"
        ),
        "{message}"
    );
}

#[test]
fn calls_from_many_threads_at_once() {
    // Sharing `&NativePlugin` across threads needs `Sync`, moving an
    // `Arc<NativePlugin>` needs `Send`: both are checked here at compile time.
    let shared: Arc<NativePlugin> =
        Arc::new(NativePlugin::load(example_library()).expect("example plugin loads"));
    let answered: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let plugin = Arc::clone(&shared);
                scope.spawn(move || {
                    (0..50)
                        .filter(|round| {
                            let path = format!("f{worker}-{round}");
                            let event = Event::from_json(
                                HookEvent::PreToolCall,
                                json!({"tool_name": "write_file", "args": {"path": path}}),
                            );
                            let reply = plugin.call(&event).ok().flatten();
                            reply.is_some_and(|reply| reply["args"]["path"] == json!(path))
                        })
                        .count()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    });
    assert_eq!(answered, 200);
}
