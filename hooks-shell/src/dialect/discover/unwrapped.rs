//! Hooks written without their `"hooks": {...}` wrapper: a hooks file
//! missing the key, or a settings file whose top-level keys are event names
//! (red-team B8: a fail-closed guard moved there must keep blocking).

#[allow(unused_imports)]
use super::*;

/// A hooks file (a plugin's `hooks/hooks.json`, Codex's or Cursor's
/// `hooks.json`, a file named by `path:`) without its top-level `hooks`
/// key, or a settings file whose top-level keys are event names: nothing is imported, loading warns, `doctor` fails, and any
/// fail-closed entry found at the top level (event names there: the shape
/// without the wrapper) blocks its event, as does what the file guarded at
/// its last good read.
pub(super) fn without_hooks_key(
    source: &Source,
    home: &Path,
    discovery: &mut Discovery,
    root: &Value,
) {
    let mut scratch = Discovery::default();
    let mut events = Vec::new();
    if let Value::Object(top) = root {
        let named: serde_json::Map<String, Value> = top
            .iter()
            .filter(|(key, _)| event_mapping(source.dialect, key).is_some())
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        events = named.keys().cloned().collect();
        read_events(source, home, &mut scratch, &named, &[]);
    }
    let guards = super::lost_guards::fail_closed_guards(&scratch, (0, 0), 0);
    let found = Some(super::lost_guards::events_of(&guards));
    let hint = if events.is_empty() {
        String::new()
    } else {
        format!(
            " (its top-level keys {} are event names: put them under \"hooks\": {{...}})",
            events.join(", ")
        )
    };
    let problem = format!("has no top-level \"hooks\" key{hint}");
    broken(source, home, discovery, problem, found);
}

/// Whether a top-level key of `root` is an event name of the dialect (hooks
/// written without their `"hooks": {...}` wrapper).
pub(super) fn has_event_keys(source: &Source, root: &Value) -> bool {
    root.as_object().is_some_and(|top| {
        top.keys()
            .any(|key| event_mapping(source.dialect, key).is_some())
    })
}
