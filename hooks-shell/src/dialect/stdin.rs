//! The stdin document of an imported hook, as its own tool sends it, and
//! back: a Claude Code stdin document read as the Hermes event it maps to.
//!
//! Documents are compact JSON on one line (guards often read only the first
//! line). Fields without a Hermes slot ride through the payload under their
//! own names, so a document Claude Code sent, given to `hooks emit`, reaches a
//! Claude hook as the same document.

use hermes_hooks_core::{Event, HookEvent, Payload};
use serde_json::{Map, Value, json};

use super::calls::{FILE_PATH_AS_GIVEN, guess_file_path, their_call, their_tool_of_event};
use super::events::{CLAUDE_EVENTS, CURSOR_EVENTS, EventMapping, our_args, our_tool};
use super::read_content::file_for_hook;
use super::{Dialect, ImportedHook};

/// The document `hook` reads for `event`, as one line of compact JSON.
pub fn stdin_document(hook: &ImportedHook, event: &Event) -> Vec<u8> {
    line(document(hook, event).0)
}

/// [`stdin_document`] for a run: `Err(why)` when `hook` fails closed and
/// the document cannot hold what the call acts on (Cursor's
/// `beforeReadFile` content over the cap or unreadable): such a hook must
/// not judge `""` (red-team R6-11), it fails and blocks.
pub fn stdin_for_run(hook: &ImportedHook, event: &Event) -> Result<Vec<u8>, String> {
    match document(hook, event) {
        (_, Some(why)) if hook.fail_closed => Err(format!(
            "its stdin cannot hold the file's whole content: {why}"
        )),
        (document, _) => Ok(line(document)),
    }
}

/// The document, and why a part of it is withheld, if one is.
fn document(hook: &ImportedHook, event: &Event) -> (Map<String, Value>, Option<String>) {
    match hook.dialect {
        Dialect::Claude => (claude_document(hook, event), None),
        Dialect::Codex => (codex_document(hook, event), None),
        Dialect::Cursor => cursor_document(hook, event),
    }
}

/// serde_json's compact form has no newline: one line whatever the strings
/// hold, ended by one (`while read line` loops miss an unterminated line).
fn line(document: Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(&Value::Object(document)).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn text<'a>(event: &'a Event, key: &str) -> Option<&'a str> {
    event.get(key).and_then(Value::as_str)
}

fn session_id(event: &Event) -> String {
    ["session_id", "parent_session_id", "session_key"]
        .into_iter()
        .filter_map(|key| text(event, key))
        .find(|id| !id.is_empty())
        .unwrap_or("")
        .to_owned()
}

fn cwd(hook: &ImportedHook, event: &Event) -> String {
    text(event, "cwd").map_or_else(
        || hook.project.to_string_lossy().into_owned(),
        str::to_owned,
    )
}

/// The arguments of the call, as the tool names them ([`their_call`]). A
/// relative `file_path` is made absolute against `cwd`, as Claude Code's
/// hooks expect: the file it names if Hermes's terminal is still there (a
/// `cd` in an earlier command moves it, and no hook is told); beside it,
/// `file_path_as_given` is the agent's own spelling
/// (docs/decisions/relative-paths-stay-relative.md).
fn tool_input(event: &Event, cwd: &str) -> Map<String, Value> {
    let mut input = match event.get("args") {
        Some(Value::Object(args)) => their_call(event.tool_name().unwrap_or(""), args).input,
        _ => match event.get("tool_input") {
            Some(Value::Object(input)) => input.clone(),
            _ => Map::new(),
        },
    };
    guess_file_path(&mut input, cwd);
    input
}

/// The tool's result, parsed when it is a JSON string (Hermes results always are).
fn tool_response(event: &Event) -> Value {
    match event.get("result") {
        Some(Value::String(result)) => {
            serde_json::from_str(result).unwrap_or_else(|_| Value::String(result.clone()))
        }
        Some(other) => other.clone(),
        None => event.get("tool_response").cloned().unwrap_or(Value::Null),
    }
}

fn claude_document(hook: &ImportedHook, event: &Event) -> Map<String, Value> {
    let mut doc = Map::new();
    let mut put = |key: &str, value: Value| {
        doc.insert(key.to_owned(), value);
    };
    put("session_id", session_id(event).into());
    put(
        "transcript_path",
        super::transcript::transcript_path(hook, event).into(),
    );
    put("cwd", cwd(hook, event).into());
    put(
        "permission_mode",
        text(event, "permission_mode").unwrap_or("default").into(),
    );
    put("hook_event_name", hook.their_event.as_str().into());
    let tool = their_tool_of_event(event).to_owned();
    let call_id = text(event, "tool_call_id")
        .or_else(|| text(event, "tool_use_id"))
        .unwrap_or("")
        .to_owned();
    match hook.their_event.as_str() {
        "PreToolUse" => {
            put("tool_name", tool.into());
            put("tool_input", tool_input(event, &cwd(hook, event)).into());
            put("tool_use_id", call_id.into());
        }
        "PostToolUse" => {
            put("tool_name", tool.into());
            put("tool_input", tool_input(event, &cwd(hook, event)).into());
            put("tool_response", tool_response(event));
            put("tool_use_id", call_id.into());
            put(
                "duration_ms",
                event.get("duration_ms").cloned().unwrap_or(json!(0)),
            );
        }
        "PostToolUseFailure" => {
            put("tool_name", tool.into());
            put("tool_input", tool_input(event, &cwd(hook, event)).into());
            put("tool_use_id", call_id.into());
            let error = text(event, "error_message")
                .or_else(|| text(event, "error"))
                .unwrap_or("");
            put("error", error.into());
            put(
                "is_interrupt",
                event.get("is_interrupt").cloned().unwrap_or(json!(false)),
            );
            put(
                "duration_ms",
                event.get("duration_ms").cloned().unwrap_or(json!(0)),
            );
        }
        "UserPromptSubmit" => {
            put(
                "prompt",
                text(event, "user_message")
                    .or_else(|| text(event, "prompt"))
                    .unwrap_or("")
                    .into(),
            );
        }
        "Stop" => {
            let again = event
                .get("attempt")
                .and_then(Value::as_i64)
                .is_some_and(|n| n > 0);
            put(
                "stop_hook_active",
                event
                    .get("stop_hook_active")
                    .cloned()
                    .unwrap_or(again.into()),
            );
            let last = text(event, "final_response")
                .or_else(|| text(event, "assistant_response"))
                .or_else(|| text(event, "last_assistant_message"));
            put("last_assistant_message", last.unwrap_or("").into());
        }
        "SessionStart" => {
            put("source", text(event, "source").unwrap_or("startup").into());
            if let Some(model) = text(event, "model") {
                put("model", model.into());
            }
        }
        "SessionEnd" => put("reason", text(event, "reason").unwrap_or("other").into()),
        "SubagentStart" | "SubagentStop" => {
            let id = text(event, "child_subagent_id")
                .or_else(|| text(event, "child_session_id"))
                .or_else(|| text(event, "agent_id"));
            put("agent_id", id.unwrap_or("").into());
            put("agent_type", agent_type(event).into());
            if hook.their_event == "SubagentStop" {
                put("stop_hook_active", false.into());
                let last =
                    text(event, "child_summary").or_else(|| text(event, "last_assistant_message"));
                put("last_assistant_message", last.unwrap_or("").into());
            }
        }
        "PermissionRequest" => {
            put("tool_name", "Bash".into());
            put(
                "tool_input",
                json!({"command": text(event, "command").unwrap_or(""), "description": text(event, "description").unwrap_or("")}),
            );
            put("permission_suggestions", json!([]));
        }
        _ => {}
    }
    passthrough(&mut doc, event);
    doc
}

fn agent_type(event: &Event) -> &str {
    text(event, "agent_type")
        .or_else(|| text(event, "child_role"))
        .unwrap_or("general-purpose")
}

/// Payload keys the Hermes event does not define (fields a replayed Claude
/// document carried) are passed on under their own names.
fn passthrough(doc: &mut Map<String, Value>, event: &Event) {
    let Some(hook_event) = event.hook() else {
        return;
    };
    let meta = hook_event.meta();
    for (key, value) in event.payload() {
        let hermes = meta.field(key).is_some()
            || matches!(
                key.as_str(),
                "telemetry_schema_version" | "args" | "tool_name" | "result"
            );
        if !hermes && !doc.contains_key(key) {
            doc.insert(key.clone(), value.clone());
        }
    }
}

/// Codex: exactly the fields of its generated input schemas (they allow no others).
fn codex_document(hook: &ImportedHook, event: &Event) -> Map<String, Value> {
    let claude = claude_document(hook, event);
    let mut doc = Map::new();
    let mut copy = |key: &str, fallback: Value| {
        doc.insert(key.to_owned(), claude.get(key).cloned().unwrap_or(fallback));
    };
    copy("session_id", json!(""));
    doc.insert(
        "transcript_path".into(),
        claude
            .get("transcript_path")
            .filter(|p| p.as_str() != Some(""))
            .cloned()
            .unwrap_or(Value::Null),
    );
    let mut copy = |key: &str, fallback: Value| {
        doc.insert(key.to_owned(), claude.get(key).cloned().unwrap_or(fallback));
    };
    copy("cwd", json!(""));
    copy("hook_event_name", json!(hook.their_event));
    if hook.their_event == "SessionEnd" {
        // Its schema has neither `model` nor `permission_mode`, and allows no
        // other key; `reason` is `clear` or `other`.
        let reason = match text(event, "reason") {
            Some("clear" | "new" | "reset") => "clear",
            _ => "other",
        };
        doc.insert("reason".into(), reason.into());
        return doc;
    }
    doc.insert("model".into(), text(event, "model").unwrap_or("").into());
    let mode = claude
        .get("permission_mode")
        .and_then(Value::as_str)
        .unwrap_or("default");
    let mode = if [
        "default",
        "acceptEdits",
        "plan",
        "dontAsk",
        "bypassPermissions",
    ]
    .contains(&mode)
    {
        mode
    } else {
        "default"
    };
    doc.insert("permission_mode".into(), mode.into());
    let turn = text(event, "turn_id").unwrap_or("").to_owned();
    let fields: &[&str] = match hook.their_event.as_str() {
        "PreToolUse" => &["tool_name", "tool_input", "tool_use_id"],
        "PermissionRequest" => &["tool_name", "tool_input", "turn_id"],
        "PostToolUse" => &[
            "tool_name",
            "tool_input",
            "tool_response",
            "tool_use_id",
            "turn_id",
        ],
        "UserPromptSubmit" => &["prompt", "turn_id"],
        "Stop" => &["stop_hook_active", "last_assistant_message", "turn_id"],
        "SubagentStart" => &["agent_id", "agent_type", "turn_id"],
        "SubagentStop" => &[
            "agent_id",
            "agent_transcript_path",
            "agent_type",
            "stop_hook_active",
            "last_assistant_message",
            "turn_id",
        ],
        "SessionStart" => &["source"],
        _ => &[],
    };
    for field in fields {
        let value = match *field {
            "turn_id" => Value::String(turn.clone()),
            // The sources Codex's schema names; anything else starts a session.
            "source" => match text(event, "source") {
                Some(source @ ("startup" | "resume" | "clear" | "compact" | "fork")) => {
                    source.into()
                }
                _ => "startup".into(),
            },
            // Codex's shell tools take only a command line.
            "tool_input"
                if hook.their_event == "PreToolUse"
                    && claude.get("tool_name") == Some(&json!("Bash")) =>
            {
                json!({"command": claude["tool_input"].get("command").cloned().unwrap_or(json!(""))})
            }
            _ => claude.get(*field).cloned().unwrap_or(Value::Null),
        };
        doc.insert((*field).to_owned(), value);
    }
    doc
}

fn cursor_document(hook: &ImportedHook, event: &Event) -> (Map<String, Value>, Option<String>) {
    let mut doc = Map::new();
    let mut withheld = None;
    let mut put = |key: &str, value: Value| {
        doc.insert(key.to_owned(), value);
    };
    let generation = text(event, "turn_id")
        .or_else(|| text(event, "tool_call_id"))
        .unwrap_or("");
    put("conversation_id", session_id(event).into());
    put("generation_id", generation.into());
    put("model", text(event, "model").unwrap_or("").into());
    put("hook_event_name", hook.their_event.as_str().into());
    put("cursor_version", super::CURSOR_VERSION.into());
    put("workspace_roots", json!([hook.project.to_string_lossy()]));
    put("user_email", Value::Null);
    let transcript = super::transcript::transcript_path(hook, event);
    put(
        "transcript_path",
        if transcript.is_empty() {
            Value::Null
        } else {
            transcript.into()
        },
    );
    let input = tool_input(event, &cwd(hook, event));
    let input_text = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    match hook.their_event.as_str() {
        "beforeShellExecution" => {
            put("command", input_text("command").into());
            put("cwd", cwd(hook, event).into());
        }
        "afterShellExecution" => {
            put("command", input_text("command").into());
            put("output", tool_response(event));
            put(
                "duration",
                event.get("duration_ms").cloned().unwrap_or(json!(0)),
            );
        }
        "beforeReadFile" => {
            // Cursor hands the file's content to the hook (its redaction
            // examples read it); a file we cannot read is "" as for Cursor.
            let file = file_for_hook(&input_text("file_path"), &cwd(hook, event), &hook.home);
            put("content", file.content.into());
            put("file_path", file.path.into());
            if let Some(given) = input.get(FILE_PATH_AS_GIVEN) {
                put(FILE_PATH_AS_GIVEN, given.clone());
            }
            put("attachments", json!([]));
            withheld = file.withheld;
        }
        "afterFileEdit" => {
            put("file_path", input_text("file_path").into());
            if let Some(given) = input.get(FILE_PATH_AS_GIVEN) {
                put(FILE_PATH_AS_GIVEN, given.clone());
            }
            put("edits", json!([]));
        }
        "preToolUse" | "postToolUse" | "postToolUseFailure" => {
            put("tool_name", their_tool_of_event(event).into());
            put("tool_input", input.into());
            put(
                "tool_use_id",
                text(event, "tool_call_id").unwrap_or("").into(),
            );
            put("cwd", cwd(hook, event).into());
            if hook.their_event != "preToolUse" {
                put("tool_output", tool_response(event));
            }
        }
        "beforeSubmitPrompt" => {
            put("prompt", text(event, "user_message").unwrap_or("").into());
            put("attachments", json!([]));
        }
        "stop" => {
            put("status", "completed".into());
            put(
                "loop_count",
                event.get("attempt").cloned().unwrap_or(json!(0)),
            );
        }
        "subagentStart" | "subagentStop" => put("subagent_type", agent_type(event).into()),
        _ => {}
    }
    (doc, withheld)
}

/// A Claude Code stdin document (`hook_event_name` one of its events) read as
/// the Hermes event it maps to: `(event, payload)`, or `None` when it is not
/// one or maps to no Hermes event. Every field without a Hermes slot is kept
/// under its own name.
pub fn from_claude_document(doc: &Map<String, Value>) -> Option<(HookEvent, Payload)> {
    let name = doc.get("hook_event_name")?.as_str()?;
    let mapping: EventMapping = CLAUDE_EVENTS
        .iter()
        .chain(CURSOR_EVENTS)
        .find(|row| row.theirs == name)
        .copied()?;
    let event = mapping.ours?;
    let mut payload = Payload::new();
    for (key, value) in doc {
        let slot = match (key.as_str(), value) {
            ("hook_event_name", _) => continue,
            ("tool_name", Value::String(tool)) => {
                payload.insert("tool_name".into(), our_tool(tool).into());
                continue;
            }
            // PermissionRequest's `tool_input` is what `pre_approval_request`
            // carries as `command` and `description` (the way back of
            // `claude_stdin`'s PermissionRequest arm).
            ("tool_input", Value::Object(input)) if event == HookEvent::PreApprovalRequest => {
                for field in ["command", "description"] {
                    if let Some(value) = input.get(field) {
                        payload.insert(field.into(), value.clone());
                    }
                }
                continue;
            }
            ("tool_input", Value::Object(input)) => {
                payload.insert("args".into(), our_args(input).into());
                continue;
            }
            ("tool_use_id", _) => "tool_call_id",
            ("tool_response", response) => {
                let text = response
                    .as_str()
                    .map_or_else(|| response.to_string(), str::to_owned);
                payload.insert("result".into(), text.into());
                continue;
            }
            ("prompt", _) if event == HookEvent::PreLlmCall => "user_message",
            ("last_assistant_message", _) if event == HookEvent::PreVerify => "final_response",
            ("error", _) if mapping.outcome == super::ToolOutcome::Failed => "error_message",
            _ => key.as_str(),
        };
        payload.insert(slot.to_owned(), value.clone());
    }
    if mapping.outcome == super::ToolOutcome::Failed {
        payload.entry("status").or_insert_with(|| "error".into());
    }
    Some((event, payload))
}
