//! Cursor hooks as Cursor runs them: `beforeReadFile` gets the file's
//! `content` (Cursor's redact-secrets example reads it), and replies in the
//! camelCase spelling of Cursor's current docs (`userMessage`,
//! `agentMessage`) keep their messages.

use hermes_hooks_core::{Outcome, ToolGate};
use serde_json::json;

use super::{World, emit};

/// `<project>/.cursor/hooks.json` with one hook for `event` running `script`.
fn cursor_hook(world: &World, event: &str, script: &str) {
    World::write(world.project(), ".cursor/hooks/hook.sh", script);
    World::write(
        world.project(),
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {event: [{"command": "bash hooks/hook.sh"}]}}).to_string(),
    );
}

#[tokio::test]
async fn before_read_file_hands_the_hook_the_files_content() {
    let world = World::new();
    let secret = World::write(world.project(), ".env", "API_KEY=sk-live-123\n");
    // Cursor's redact-secrets example: deny a read whose content holds a key.
    cursor_hook(
        &world,
        "beforeReadFile",
        "if grep -q 'sk-live' ; then echo '{\"permission\": \"deny\", \"agentMessage\": \"secret in file\"}'; \
         else echo '{\"permission\": \"allow\"}'; fi\n",
    );
    let bus = world.bus(json!(["cursor"]));
    let read = |path: &std::path::Path| {
        json!({"tool_name": "read_file", "args": {"path": path.to_string_lossy()},
               "session_id": "s1", "tool_call_id": "c1"})
    };
    let Outcome::Tool(ToolGate::Block { message, .. }) =
        emit(&bus, "pre_tool_call", read(&secret)).await
    else {
        panic!("a read of a file holding a key is denied");
    };
    assert_eq!(message, "secret in file");
    let plain = World::write(world.project(), "README.md", "hello\n");
    assert_eq!(
        emit(&bus, "pre_tool_call", read(&plain)).await,
        Outcome::Nothing
    );
}

#[tokio::test]
async fn camel_case_messages_are_kept() {
    let world = World::new();
    cursor_hook(
        &world,
        "beforeShellExecution",
        "cat >/dev/null; echo '{\"permission\": \"deny\", \"userMessage\": \"for the user\", \"agentMessage\": \"for the agent\"}'\n",
    );
    let bus = world.bus(json!(["cursor"]));
    let Outcome::Tool(ToolGate::Block { message, .. }) =
        emit(&bus, "pre_tool_call", super::bash_call("rm -rf /")).await
    else {
        panic!("denied");
    };
    assert_eq!(message, "for the agent");
    cursor_hook(
        &world,
        "beforeShellExecution",
        "cat >/dev/null; echo '{\"permission\": \"ask\", \"userMessage\": \"sure?\"}'\n",
    );
    let bus = world.bus(json!(["cursor"]));
    let outcome = emit(&bus, "pre_tool_call", super::bash_call("rm -rf /")).await;
    assert_eq!(
        outcome.to_wire().unwrap_or_default()["message"],
        "sure?",
        "{outcome:?}"
    );
}

#[tokio::test]
async fn cursor_hooks_see_cursor_version() {
    let world = World::new();
    let out = world.project().join("version.txt");
    cursor_hook(
        &world,
        "beforeShellExecution",
        &format!(
            "cat >/dev/null; printf '%s' \"$CURSOR_VERSION\" > '{}'\n",
            out.display()
        ),
    );
    let bus = world.bus(json!(["cursor"]));
    emit(&bus, "pre_tool_call", super::bash_call("ls")).await;
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(seen.starts_with("hermes-hooks "), "{seen:?}");
}
