//! The worker protocol's messages: requests out, answers in, stderr lines attributed.
//!
//! One JSON object per line. Every request carries an `id` the answer repeats,
//! so a line that answers nothing pending is discarded, never taken as the
//! answer to another request (the worker's `worker.py` docstring has the
//! message shapes).

use serde::Serialize;
use serde_json::{Map, Value};

/// A request to the worker; `id` is filled in by the connection.
#[derive(Debug, Serialize)]
pub(crate) struct Envelope<'a, T: Serialize> {
    pub id: u64,
    pub op: &'a str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// The body of a `call` request: run one registered hook callback.
#[derive(Debug, Serialize)]
pub(crate) struct CallBody<'a> {
    pub callback: &'a str,
    pub event: &'a str,
    pub payload: &'a Map<String, Value>,
}

/// The body of a `section` request: compute one prompt section.
#[derive(Debug, Serialize)]
pub(crate) struct SectionBody<'a> {
    pub callback: &'a str,
    pub info: &'a hermes_hooks_core::prompt::SessionInfo,
}

/// The body of a `load` request: import one plugin and run its `register(ctx)`.
#[derive(Debug, Serialize)]
pub(crate) struct LoadBody<'a> {
    pub plugin: &'a PluginSpec,
}

/// A request without a body (`entry_points`).
#[derive(Debug, Serialize)]
pub(crate) struct NoBody {}

/// What the worker needs to import one Python plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginSpec {
    /// The plugin key (folder name, `category/name`, or the entry-point name).
    pub key: String,
    /// The manifest name: the callbacks' owner and what warnings name.
    pub name: String,
    /// The module slug under `hermes_plugins.` (directory plugins).
    pub module: String,
    /// `user`, `project` or `entrypoint`.
    pub source: String,
    /// The plugin folder, or the entry point's `module:attr` value.
    pub path: String,
    /// The manifest's `version`.
    pub version: String,
    /// The manifest's `description`.
    pub description: String,
}

/// An answer from the worker, matched to its request by id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// `ok: true`: the result (JSON `null` when the callback returned nothing usable).
    Ok(Value),
    /// `ok: false`: the Python exception's type and message.
    Raised { kind: String, message: String },
}

/// A line read from the worker's protocol output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// An answer to request `id`.
    Answer { id: u64, answer: Answer },
    /// The start-up line: the interpreter's path and version.
    Ready { executable: String, version: String },
    /// Not a protocol message (it is logged and discarded).
    Garbage(String),
}

/// Parses one protocol line.
pub(crate) fn parse_line(line: &[u8]) -> Incoming {
    let garbage = |why: &str| Incoming::Garbage(why.to_owned());
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
        return garbage("not a JSON object");
    };
    if message.get("ready") == Some(&Value::Bool(true)) {
        let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or("").to_owned();
        return Incoming::Ready {
            executable: text(message.get("executable")),
            version: text(message.get("version")),
        };
    }
    let Some(id) = message.get("id").and_then(Value::as_u64) else {
        return garbage("no request id");
    };
    let answer = match message.get("ok") {
        Some(Value::Bool(true)) => Answer::Ok(message.remove("result").unwrap_or(Value::Null)),
        Some(Value::Bool(false)) => {
            let text = |key: &str, default: &str| {
                message
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or(default)
                    .to_owned()
            };
            Answer::Raised {
                kind: text("type", "Error"),
                message: text("error", "unknown error"),
            }
        }
        _ => return garbage("no `ok` field"),
    };
    Incoming::Answer { id, answer }
}

/// Splits a worker stderr line into the plugin that wrote it (when the worker
/// knew) and the text: the worker prefixes lines with `\x01<plugin>\x02`.
pub(crate) fn attribute_stderr(line: &str) -> (Option<&str>, &str) {
    if let Some(rest) = line.strip_prefix('\u{1}')
        && let Some((plugin, text)) = rest.split_once('\u{2}')
    {
        return (Some(plugin), text);
    }
    (None, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_carry_their_id() {
        assert_eq!(
            parse_line(br#"{"id": 7, "ok": true, "result": {"action": "block"}}"#),
            Incoming::Answer {
                id: 7,
                answer: Answer::Ok(json!({"action": "block"}))
            }
        );
        assert_eq!(
            parse_line(br#"{"id": 3, "ok": false, "type": "KeyError", "error": "'x'"}"#),
            Incoming::Answer {
                id: 3,
                answer: Answer::Raised {
                    kind: "KeyError".into(),
                    message: "'x'".into()
                }
            }
        );
    }

    #[test]
    fn lines_without_an_id_are_garbage() {
        for line in [
            &br#"{"ok": true, "result": 1}"#[..],
            b"hello",
            b"[1]",
            br#"{"id": 1}"#,
            br#"{"id": -1, "ok": true}"#,
        ] {
            assert!(matches!(parse_line(line), Incoming::Garbage(_)), "{line:?}");
        }
    }

    #[test]
    fn stderr_lines_name_their_plugin() {
        assert_eq!(
            attribute_stderr("\u{1}guard\u{2}hello"),
            (Some("guard"), "hello")
        );
        assert_eq!(attribute_stderr("plain"), (None, "plain"));
        assert_eq!(attribute_stderr("\u{1}broken"), (None, "\u{1}broken"));
    }

    #[test]
    fn requests_are_one_flat_object() {
        let payload = Map::from_iter([("tool_name".to_owned(), json!("terminal"))]);
        let body = CallBody {
            callback: "guard#0",
            event: "pre_tool_call",
            payload: &payload,
        };
        let line = serde_json::to_value(Envelope {
            id: 9,
            op: "call",
            body: &body,
        })
        .unwrap();
        assert_eq!(
            line,
            json!({"id": 9, "op": "call", "callback": "guard#0", "event": "pre_tool_call",
                   "payload": {"tool_name": "terminal"}})
        );
    }
}
