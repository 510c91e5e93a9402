//! Reading event names and payload files given on the command line.
//!
//! A payload file is a JSON object of the event's keyword arguments. It may
//! also be a document in the shape a shell hook reads on stdin
//! (`hook_event_name`, `tool_name`, `tool_input`, `session_id`, `cwd`, `extra`):
//! one captured from a hook, or the documentation's example. Such a document is
//! read back as the event it describes, so feeding a hook its own input does
//! what the host did.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use hermes_hooks_core::{HookEvent, Payload};
use serde_json::{Map, Value};

use crate::output;

/// The most a payload file (or stdin) may hold: 16 MiB. Beyond it the file is
/// refused before it is all read, so `/dev/zero` fails at once.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// An error that means "bad arguments": exit status 2 with this message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses a catalog event name, or fails with the valid names and the closest one.
pub fn catalog_event(name: &str) -> Result<HookEvent> {
    name.parse::<HookEvent>()
        .map_err(|_| unknown_event(name, false).into())
}

/// The "unknown event" error: the catalog events, and the gateway events too
/// when `gateway_too` (the command accepts them), with the closest name.
/// The Hermes event a Claude Code / Codex / Cursor event name maps to
/// (`PreToolUse` → `pre_tool_call`); `None` for any other name, or one Hermes never fires.
pub fn dialect_event(name: &str) -> Option<HookEvent> {
    use hermes_hooks_cli::inventory::run::{CLAUDE_EVENTS, CURSOR_EVENTS};
    CLAUDE_EVENTS
        .iter()
        .chain(CURSOR_EVENTS)
        .find(|row| row.theirs == name)
        .and_then(|row| row.ours)
}

fn unknown_event(name: &str, gateway_too: bool) -> UsageError {
    let mut catalog: Vec<&str> = hermes_hooks_core::catalog::VALID_HOOKS.to_vec();
    catalog.sort_unstable();
    let gateway: Vec<&str> = hermes_hooks_core::catalog::GATEWAY_EVENTS
        .iter()
        .map(|meta| meta.name)
        .collect();
    let candidates = catalog
        .iter()
        .chain(if gateway_too { &gateway[..] } else { &[] });
    let hint = closest(name, candidates.copied())
        .map(|s| format!(" (did you mean '{s}'?)"))
        .unwrap_or_default();
    let shown = hermes_hooks_core::display::escape(name);
    let mut message = format!(
        "Unknown event: '{shown}'{hint}\nValid events: {}",
        catalog.join(", ")
    );
    if gateway_too {
        message.push_str(&format!(
            "\nGateway events: {} (and command:<name>)",
            gateway.join(", ")
        ));
    }
    UsageError(message)
}

/// The candidate closest to `name` (Jaro-Winkler), if any is close enough to be a typo.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|candidate| (strsim::jaro_winkler(name, candidate), candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// Parses any event a host can emit: a catalog event or a known gateway event
/// (`command:<name>` included). Anything else is a usage error with a suggestion.
pub fn host_event_name(name: &str) -> Result<hermes_hooks_core::EventName> {
    if let Some(event) = dialect_event(name) {
        return Ok(hermes_hooks_core::EventName::Hook(event));
    }
    let parsed = hermes_hooks_core::EventName::parse(name);
    match &parsed {
        hermes_hooks_core::EventName::Hook(_) => Ok(parsed),
        hermes_hooks_core::EventName::Gateway(gateway)
            if hermes_hooks_core::catalog::gateway_event(gateway).is_some() =>
        {
            Ok(parsed)
        }
        _ => Err(unknown_event(name, true).into()),
    }
}

/// Reads a payload file (`-` is stdin) for `event`: a JSON object, at most
/// [`MAX_PAYLOAD_BYTES`]. A document in the shell-hook stdin shape is turned
/// back into the payload it was made from (with a note on stderr); one whose
/// `hook_event_name` is not `event` is an error.
pub fn read_payload(path: &Path, event: &str) -> Result<Payload> {
    let (label, text) = read_capped(path)?;
    let object = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => map,
        Ok(other) => bail!(UsageError(format!(
            "{label}: the payload must be a JSON object; got {}",
            hermes_hooks_core::config::json_type(&other)
        ))),
        Err(error) => bail!(UsageError(format!("{label}: invalid JSON: {error}"))),
    };
    if let Some((mapped, payload)) = claude_document(&object) {
        if mapped.as_str() != event {
            bail!(UsageError(format!(
                "{label}: this is a Claude Code stdin document for '{}' ({mapped}), but the event given is '{}'",
                hermes_hooks_core::display::escape(
                    object["hook_event_name"].as_str().unwrap_or("")
                ),
                hermes_hooks_core::display::escape(event)
            )));
        }
        output::note(&format!(
            "{label}: read as a Claude Code stdin document (tool_input → args, Claude names → Hermes names)"
        ));
        return Ok(payload);
    }
    let Some(named) = shell_document_event(&object) else {
        return Ok(object);
    };
    if named != event {
        bail!(UsageError(format!(
            "{label}: this is a shell-hook stdin document for '{}', but the event given is '{}'; \
             give the event it names, or remove its hook_event_name",
            hermes_hooks_core::display::escape(named),
            hermes_hooks_core::display::escape(event)
        )));
    }
    output::note(&format!(
        "{label}: read as a shell-hook stdin document (tool_input → args, extra → keyword arguments)"
    ));
    Ok(from_shell_document(object))
}

/// The path as shown in messages, and the file's text, refusing more than the cap.
fn read_capped(path: &Path) -> Result<(String, String)> {
    let stdin = path.as_os_str() == "-";
    let label = if stdin {
        "stdin".to_owned()
    } else {
        format!("payload file {}", path.display())
    };
    let mut bytes = Vec::new();
    let read = if stdin {
        std::io::stdin()
            .lock()
            .take(MAX_PAYLOAD_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_PAYLOAD_BYTES + 1).read_to_end(&mut bytes))
    };
    read.with_context(|| format!("Error reading {label}"))?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        bail!(UsageError(format!(
            "{label}: larger than {} MiB; a payload is a JSON object of keyword arguments",
            MAX_PAYLOAD_BYTES / (1024 * 1024)
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|error| UsageError(format!("{label}: not UTF-8 text: {error}")))?;
    Ok((label, text))
}

/// The top-level keys of the shell-hook stdin document and of a webhook body.
/// A document whose `hook_event_name` is a Claude Code (or Cursor) event, read as the Hermes event it maps to.
fn claude_document(object: &Map<String, Value>) -> Option<(HookEvent, Payload)> {
    let name = object.get("hook_event_name")?.as_str()?;
    dialect_event(name)?;
    hermes_hooks_shell::dialect::stdin::from_claude_document(object)
}

const DOCUMENT_KEYS: [&str; 9] = [
    "hook_event_name",
    "tool_name",
    "tool_input",
    "session_id",
    "cwd",
    // Written by releases before 0.20.1 conformance; still read back.
    "profile",
    "extra",
    "delivery_id",
    "timestamp",
];

/// The event a shell-hook stdin document names, if `object` is one: a string
/// `hook_event_name`, and no key the document does not have (a payload that
/// merely has a `hook_event_name` argument stays a payload).
fn shell_document_event(object: &Map<String, Value>) -> Option<&str> {
    let name = object.get("hook_event_name")?.as_str()?;
    object
        .keys()
        .all(|key| DOCUMENT_KEYS.contains(&key.as_str()))
        .then_some(name)
}

/// The payload a shell-hook document was written from: `tool_name` and
/// `session_id` as they are, `tool_input` as `args`, the keys of `extra` lifted
/// to the top. `cwd` and `profile` describe the host, not the event; a webhook's
/// `delivery_id` and `timestamp` describe the delivery: all four are dropped.
fn from_shell_document(mut document: Map<String, Value>) -> Payload {
    let mut payload = Payload::new();
    if let Some(Value::Object(extra)) = document.remove("extra") {
        payload.extend(extra);
    }
    match document.remove("tool_name") {
        None | Some(Value::Null) => {}
        Some(tool) => {
            payload.insert("tool_name".into(), tool);
        }
    }
    if let Some(Value::Object(args)) = document.remove("tool_input") {
        payload.insert("args".into(), Value::Object(args));
    }
    match document.remove("session_id") {
        Some(Value::String(id)) if id.is_empty() => {}
        None | Some(Value::Null) => {}
        Some(id) => {
            payload.insert("session_id".into(), id);
        }
    }
    payload
}

/// The event a host would emit: the payload plus, for catalog events that carry
/// it, `telemetry_schema_version` (the reference adds it to every callback's
/// kwargs). A `pre_tool_call` whose `args` is missing or not an object gets
/// `args: {}`, as hermes-agent 0.20.1's host passes it
/// (`_get_pre_tool_call_directive_details`), so hooks read `tool_input: {}`.
pub fn host_event(
    name: hermes_hooks_core::EventName,
    mut payload: Payload,
) -> hermes_hooks_core::Event {
    use hermes_hooks_core::payloads::{TELEMETRY_KEY, TELEMETRY_SCHEMA_VERSION};
    if let Some(hook) = name.hook()
        && hook.meta().telemetry
        && !payload.contains_key(TELEMETRY_KEY)
    {
        payload.insert(TELEMETRY_KEY.into(), Value::from(TELEMETRY_SCHEMA_VERSION));
    }
    if name.hook() == Some(HookEvent::PreToolCall)
        && !matches!(payload.get("args"), Some(Value::Object(_)))
    {
        payload.insert("args".into(), Value::Object(Map::new()));
    }
    hermes_hooks_core::Event::new(name, payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_hooks_core::wire::{WireContext, hook_document};
    use serde_json::json;

    #[test]
    fn a_shell_document_reads_back_as_its_event() {
        let payload: Payload = json!({
            "tool_name": "terminal",
            "args": {"command": "rm -rf /"},
            "session_id": "sess_abc123",
            "task_id": "t1",
            "tool_call_id": "c1",
        })
        .as_object()
        .cloned()
        .unwrap_or_default();
        let event = hermes_hooks_core::Event::new(HookEvent::PreToolCall, payload.clone());
        let document = hook_document(&event, &WireContext::current());
        assert_eq!(shell_document_event(&document), Some("pre_tool_call"));
        let back = from_shell_document(document);
        assert_eq!(Value::Object(back), Value::Object(payload.clone()));
    }

    #[test]
    fn a_host_passes_pre_tool_call_args_that_are_not_an_object_as_empty() {
        for args in [json!(["ls"]), json!("ls"), Value::Null] {
            let payload: Payload = json!({"tool_name": "terminal", "args": args})
                .as_object()
                .cloned()
                .unwrap_or_default();
            let event = host_event(HookEvent::PreToolCall.into(), payload);
            let document = hook_document(&event, &WireContext::current());
            assert_eq!(document["tool_input"], json!({}), "{args}");
        }
        let missing = host_event(HookEvent::PreToolCall.into(), Payload::new());
        assert_eq!(missing.payload()["args"], json!({}));
        // Other events keep what they were given (the reference's document: null).
        let post: Payload = json!({"tool_name": "t", "args": "x"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let event = host_event(HookEvent::PostToolCall.into(), post);
        assert_eq!(
            hook_document(&event, &WireContext::current())["tool_input"],
            Value::Null
        );
    }

    #[test]
    fn a_payload_with_other_keys_stays_a_payload() {
        let object = json!({"hook_event_name": "x", "user_message": "hi"});
        let object = object.as_object().cloned().unwrap_or_default();
        assert_eq!(shell_document_event(&object), None);
    }

    #[test]
    fn typos_find_catalog_and_gateway_events() {
        let message = unknown_event("agent:strat", true).0;
        assert!(message.contains("did you mean 'agent:start'"), "{message}");
        assert!(message.contains("Gateway events: "), "{message}");
        assert!(message.contains("on_session_end"), "{message}");
    }
}
