//! The bus with no mechanisms.

use hermes_hooks_core::{Event, HookEvent, Hooks, Outcome};
use serde_json::json;

#[tokio::test]
async fn an_empty_bus_hooks_nothing() {
    let hooks = Hooks::empty();
    for event in HookEvent::ALL {
        assert!(!hooks.is_hooked(event), "{event}");
    }
    let event = Event::from_json(HookEvent::PreToolCall, json!({"tool_name": "terminal"}));
    assert_eq!(hooks.emit(&event).await, Outcome::Nothing);
}
