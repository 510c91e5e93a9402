//! The worker protocol's messages: requests out, answers in, stderr lines attributed.
//!
//! One JSON object per line; the shared line worker
//! ([`hermes_hooks_process::LineWorker`]) tags every request with an
//! `id` the answer repeats (the worker's `worker.py` docstring has the
//! message shapes).

use serde::Serialize;
use serde_json::{Map, Value};

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
#[non_exhaustive]
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

impl PluginSpec {
    /// A directory plugin `key` (also its name) from `source` (`user`,
    /// `project`) in folder `path`, imported as `hermes_plugins.<module>`;
    /// no version or description.
    pub fn directory(
        key: impl Into<String>,
        module: impl Into<String>,
        source: impl Into<String>,
        path: impl Into<String>,
    ) -> Self {
        let key = key.into();
        PluginSpec {
            name: key.clone(),
            key,
            module: module.into(),
            source: source.into(),
            path: path.into(),
            version: String::new(),
            description: String::new(),
        }
    }
}

/// An answer from the worker (the line worker matched it to its request by id).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// `ok: true`: the result (JSON `null` when the callback returned nothing usable).
    Ok(Value),
    /// `ok: false`: the Python exception's type and message.
    Raised { kind: String, message: String },
    /// Not an answer (no `ok` field).
    Garbage(String),
}

/// Reads one answer object.
pub(crate) fn parse_answer(mut message: Map<String, Value>) -> Answer {
    match message.get("ok") {
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
        _ => Answer::Garbage("no `ok` field".to_owned()),
    }
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

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn answers_are_results_or_exceptions() {
        assert_eq!(
            parse_answer(object(
                json!({"id": 7, "ok": true, "result": {"action": "block"}})
            )),
            Answer::Ok(json!({"action": "block"}))
        );
        assert_eq!(
            parse_answer(object(
                json!({"id": 3, "ok": false, "type": "KeyError", "error": "'x'"})
            )),
            Answer::Raised {
                kind: "KeyError".into(),
                message: "'x'".into()
            }
        );
        assert!(matches!(
            parse_answer(object(json!({"id": 1}))),
            Answer::Garbage(_)
        ));
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
}
