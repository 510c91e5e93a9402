//! A transcript file for Claude Code / Codex / Cursor hooks that read
//! `transcript_path` (Stop hooks that check the last answer, loggers).
//!
//! A payload that names a `transcript_path` keeps it. Otherwise, when the
//! event carries the conversation (`conversation_history`: `pre_llm_call`,
//! `post_llm_call`), it is written as a Claude Code transcript, one JSON line
//! per message (`{"type": "user" | "assistant", "message": {...}}`), to
//! `<HERMES_HOME>/plugin-data/claude/transcripts/<session>.jsonl`, replacing
//! the session's previous one. Events without the conversation (`pre_verify`,
//! `on_session_end`, ...) get that file when the session has one, else `""`.

use std::path::PathBuf;

use hermes_hooks_core::Event;
use serde_json::{Value, json};

use super::ImportedHook;

/// The transcript path to hand `hook` for `event` (`""`: none).
pub fn transcript_path(hook: &ImportedHook, event: &Event) -> String {
    if let Some(Value::String(given)) = event.get("transcript_path")
        && !given.is_empty()
    {
        return given.clone();
    }
    let Some(session) = event.get("session_id").and_then(Value::as_str) else {
        return String::new();
    };
    let path = file_for(hook, session);
    if let Some(Value::Array(history)) = event.get("conversation_history")
        && let Err(error) = write(&path, history)
    {
        tracing::warn!("cannot write the transcript {}: {error}", path.display());
        return String::new();
    }
    if path.is_file() {
        path.to_string_lossy().into_owned()
    } else {
        String::new()
    }
}

/// `<HERMES_HOME>/plugin-data/claude/transcripts/<session>.jsonl`, the
/// session id reduced to a safe file name.
fn file_for(hook: &ImportedHook, session: &str) -> PathBuf {
    let mut name: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        name.insert_str(0, "session");
    }
    hook.home
        .join("plugin-data")
        .join("claude")
        .join("transcripts")
        .join(format!("{name}.jsonl"))
}

/// Writes `history` (OpenAI-style messages) as Claude transcript lines,
/// through a temporary file renamed into place.
fn write(path: &std::path::Path, history: &[Value]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(path);
    std::fs::create_dir_all(folder)?;
    let mut text = String::new();
    for line in history.iter().filter_map(line_of) {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let temporary = path.with_extension("jsonl.tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

/// One message as a Claude transcript line; system messages are left out.
fn line_of(message: &Value) -> Option<Value> {
    let role = message.get("role")?.as_str()?;
    let content = message.get("content").cloned().unwrap_or(Value::Null);
    let text_blocks = |content: &Value| -> Vec<Value> {
        match content {
            Value::String(text) if !text.is_empty() => vec![json!({"type": "text", "text": text})],
            Value::Array(parts) => parts.clone(),
            _ => Vec::new(),
        }
    };
    match role {
        "user" => Some(json!({"type": "user", "message": {"role": "user", "content": content}})),
        "assistant" => {
            let mut blocks = text_blocks(&content);
            for call in message
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let function = call.get("function").unwrap_or(&Value::Null);
                let input = function
                    .get("arguments")
                    .and_then(Value::as_str)
                    .and_then(|text| serde_json::from_str::<Value>(text).ok())
                    .unwrap_or_else(|| json!({}));
                blocks.push(json!({"type": "tool_use", "id": call.get("id"),
                                   "name": function.get("name"), "input": input}));
            }
            Some(json!({"type": "assistant",
                        "message": {"role": "assistant", "content": blocks}}))
        }
        "tool" => Some(
            json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": content}
            ]}}),
        ),
        _ => None,
    }
}
