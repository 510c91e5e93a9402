//! The synthetic payloads `hooks test` and `hooks doctor` fire: the same
//! keyword arguments the host passes at runtime, per event.

use hermes_hooks_core::{HookEvent, Payload};
use serde_json::{Value, json};

/// The reference's built-in payload for `event`, with `tool_name` set to
/// `for_tool` when given. Events without a built-in payload get
/// `{"session_id": "test-session"}`.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn synthetic_payload(event: HookEvent, for_tool: Option<&str>) -> Payload {
    let mut payload = match built_in(event) {
        Value::Object(payload) => payload,
        _ => Payload::new(),
    };
    if let Some(tool) = for_tool {
        payload.insert("tool_name".into(), Value::String(tool.to_owned()));
    }
    payload
}

fn built_in(event: HookEvent) -> Value {
    match event {
        HookEvent::PreToolCall => json!({
            "tool_name": "terminal",
            "args": {"command": "echo hello"},
            "session_id": "test-session",
            "task_id": "test-task",
            "tool_call_id": "test-call",
        }),
        HookEvent::PostToolCall => json!({
            "tool_name": "terminal",
            "args": {"command": "echo hello"},
            "session_id": "test-session",
            "task_id": "test-task",
            "tool_call_id": "test-call",
            "result": "{\"output\": \"hello\"}",
            "duration_ms": 42,
        }),
        HookEvent::PreLlmCall => json!({
            "session_id": "test-session",
            "user_message": "What is the weather?",
            "conversation_history": [],
            "is_first_turn": true,
            "model": "gpt-4",
            "platform": "cli",
        }),
        HookEvent::PostLlmCall => json!({
            "session_id": "test-session",
            "model": "gpt-4",
            "platform": "cli",
        }),
        HookEvent::PreVerify => json!({
            "session_id": "test-session",
            "platform": "cli",
            "model": "gpt-4",
            "coding": true,
            "attempt": 0,
            "final_response": "All done — the change is applied.",
            "changed_paths": ["src/app.tsx"],
        }),
        HookEvent::PreApiRequest => json!({
            "session_id": "test-session",
            "task_id": "test-task",
            "platform": "cli",
            "model": "claude-sonnet-4-6",
            "provider": "anthropic",
            "base_url": "https://api.anthropic.com",
            "api_mode": "anthropic_messages",
            "api_call_count": 1,
            "message_count": 4,
            "tool_count": 12,
            "approx_input_tokens": 2048,
            "request_char_count": 8192,
            "max_tokens": 4096,
        }),
        HookEvent::PostApiRequest => json!({
            "session_id": "test-session",
            "task_id": "test-task",
            "platform": "cli",
            "model": "claude-sonnet-4-6",
            "provider": "anthropic",
            "base_url": "https://api.anthropic.com",
            "api_mode": "anthropic_messages",
            "api_call_count": 1,
            "api_duration": 1.234,
            "finish_reason": "stop",
            "message_count": 4,
            "response_model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 2048, "output_tokens": 512},
            "assistant_content_chars": 1200,
            "assistant_tool_call_count": 0,
        }),
        HookEvent::SubagentStop => json!({
            "parent_session_id": "parent-sess",
            "child_role": null,
            "child_summary": "Synthetic summary for hooks test",
            "child_status": "completed",
            "duration_ms": 1234,
        }),
        // on_session_start/_end/_finalize/_reset and every other event.
        _ => json!({"session_id": "test-session"}),
    }
}
