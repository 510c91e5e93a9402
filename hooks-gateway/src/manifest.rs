//! `HOOK.yaml`: reading one hook's manifest (name, description, events, enabled).
//!
//! Lenient like the reference where leniency is harmless (a missing `name` is the
//! folder name, a lone string in `events` is one event), strict where the hook
//! could not work (no events, not a mapping). Every problem becomes a
//! [`GatewayWarning`] naming the file and the field.

use std::path::Path;

use hermes_hooks_core::catalog::{HookEvent, gateway_event};
use serde_json::Value;

use crate::discovery::GatewayWarning;

/// The fields of a `HOOK.yaml` that the gateway uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) events: Vec<String>,
    pub(crate) enabled: bool,
}

/// Parses the text of `path` (a `HOOK.yaml` in the folder `dir_name`).
///
/// `Err` is the reason the hook is skipped; `notes` collects problems that did
/// not stop the hook from loading.
pub(crate) fn parse_manifest(
    path: &Path,
    text: &str,
    dir_name: &str,
    notes: &mut Vec<GatewayWarning>,
) -> Result<Manifest, GatewayWarning> {
    let document = hermes_hooks_yaml::parse(text)
        .map_err(|error| GatewayWarning::skip(path, None, format!("invalid HOOK.yaml: {error}")))?;
    let Value::Object(fields) = document else {
        return Err(GatewayWarning::skip(
            path,
            None,
            "invalid HOOK.yaml: expected a mapping with `name`, `description` and `events`",
        ));
    };

    let name = match fields.get("name") {
        None | Some(Value::Null) => dir_name.to_owned(),
        Some(Value::String(name)) if name.trim().is_empty() => dir_name.to_owned(),
        Some(Value::String(name)) => name.clone(),
        Some(scalar @ (Value::Number(_) | Value::Bool(_))) => scalar.to_string(),
        Some(_) => {
            return Err(GatewayWarning::skip(
                path,
                Some("name"),
                "`name` must be a string",
            ));
        }
    };

    let description = match fields.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => {
            notes.push(GatewayWarning::note(
                path,
                Some("description"),
                "`description` should be a string; using its YAML value as text",
            ));
            other.to_string()
        }
    };

    let enabled = match fields.get("enabled") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(flag)) => *flag,
        Some(Value::String(text)) => {
            notes.push(GatewayWarning::note(
                path,
                Some("enabled"),
                format!("`enabled` should be true or false, not the string {text:?}"),
            ));
            hermes_hooks_core::home::is_truthy_text(text)
        }
        Some(_) => {
            notes.push(GatewayWarning::note(
                path,
                Some("enabled"),
                "`enabled` should be true or false; treating the hook as enabled",
            ));
            true
        }
    };

    let events = parse_events(path, fields.get("events"), notes)?;
    Ok(Manifest {
        name,
        description,
        events,
        enabled,
    })
}

fn parse_events(
    path: &Path,
    value: Option<&Value>,
    notes: &mut Vec<GatewayWarning>,
) -> Result<Vec<String>, GatewayWarning> {
    let no_events = || GatewayWarning::skip(path, Some("events"), "no events declared");
    let items: Vec<&Value> = match value {
        None | Some(Value::Null) => return Err(no_events()),
        // A lone string is one event (the reference would iterate its characters).
        Some(single @ Value::String(_)) => vec![single],
        Some(Value::Array(items)) => items.iter().collect(),
        Some(_) => {
            return Err(GatewayWarning::skip(
                path,
                Some("events"),
                "`events` must be a list of event names",
            ));
        }
    };

    let mut events: Vec<String> = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let field = format!("events[{index}]");
        let Some(event) = item.as_str().map(str::trim).filter(|text| !text.is_empty()) else {
            notes.push(GatewayWarning::note(
                path,
                Some(&field),
                "an event name must be a non-empty string; entry ignored",
            ));
            continue;
        };
        if events.iter().any(|known| known == event) {
            notes.push(GatewayWarning::note(
                path,
                Some(&field),
                format!("'{event}' is declared twice; the handler runs once for it"),
            ));
            continue;
        }
        if let Some(problem) = event_name_problem(event) {
            notes.push(GatewayWarning::note(path, Some(&field), problem));
        }
        events.push(event.to_owned());
    }
    if events.is_empty() {
        return Err(no_events());
    }
    Ok(events)
}

/// Why `event` will probably never fire, if it looks wrong.
fn event_name_problem(event: &str) -> Option<String> {
    if event.parse::<HookEvent>().is_ok() {
        return Some(format!(
            "'{event}' is a plugin/shell hook event, not a gateway event; \
             gateway hooks never receive it (use a shell hook or a plugin)"
        ));
    }
    let Some((prefix, action)) = event.split_once(':') else {
        return Some(format!(
            "'{event}' is not a gateway event name (they look like `agent:start`); \
             it will never fire"
        ));
    };
    if action == "*" {
        return None;
    }
    if event.contains('*') || prefix.is_empty() {
        return Some(format!(
            "'{event}' is not a valid pattern: the only wildcard is `<namespace>:*`; \
             it is matched literally"
        ));
    }
    if gateway_event(event).is_none() {
        return Some(format!(
            "'{event}' is not a known gateway event; kept in case the host emits it"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn parse(text: &str) -> (Result<Manifest, GatewayWarning>, Vec<GatewayWarning>) {
        let mut notes = Vec::new();
        let path = PathBuf::from("/h/hooks/dir/HOOK.yaml");
        let result = parse_manifest(&path, text, "dir", &mut notes);
        (result, notes)
    }

    #[test]
    fn name_defaults_to_the_folder() {
        let (manifest, notes) = parse("events: [agent:start]\n");
        let manifest = manifest.expect("valid manifest");
        assert_eq!(manifest.name, "dir");
        assert_eq!(manifest.events, ["agent:start"]);
        assert!(manifest.enabled);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn a_lone_string_is_one_event() {
        let (manifest, _) = parse("name: x\nevents: command:*\n");
        assert_eq!(manifest.expect("valid").events, ["command:*"]);
    }

    #[test]
    fn non_mapping_and_bad_yaml_are_skipped() {
        for text in ["", "- a\n- b\n", "just text", "events: [a\n"] {
            let (result, _) = parse(text);
            let warning = result.expect_err(text);
            assert!(warning.skipped);
            assert!(warning.message.contains("invalid HOOK.yaml"), "{warning}");
        }
    }

    #[test]
    fn empty_or_missing_events_are_skipped_naming_the_field() {
        for text in ["name: x\n", "name: x\nevents: []\n", "events: [1, '']\n"] {
            let (result, _) = parse(text);
            let warning = result.expect_err(text);
            assert_eq!(warning.field.as_deref(), Some("events"), "{text}");
        }
    }

    #[test]
    fn suspicious_event_names_are_noted_but_kept() {
        let (manifest, notes) = parse(
            "events: [pre_tool_call, agent, 'agent*', 'foo:bar', agent:start, agent:start]\n",
        );
        let manifest = manifest.expect("valid");
        assert_eq!(
            manifest.events,
            ["pre_tool_call", "agent", "agent*", "foo:bar", "agent:start"]
        );
        let fields: Vec<_> = notes.iter().filter_map(|n| n.field.as_deref()).collect();
        assert_eq!(
            fields,
            [
                "events[0]",
                "events[1]",
                "events[2]",
                "events[3]",
                "events[5]"
            ]
        );
        assert!(notes.iter().all(|note| !note.skipped));
    }

    #[test]
    fn enabled_false_and_odd_values() {
        let (manifest, _) = parse("events: [agent:start]\nenabled: false\n");
        assert!(!manifest.expect("valid").enabled);
        let (manifest, notes) = parse("events: [agent:start]\nenabled: 'no'\n");
        assert!(!manifest.expect("valid").enabled);
        assert_eq!(notes[0].field.as_deref(), Some("enabled"));
    }

    #[test]
    fn a_structured_name_is_refused() {
        let (result, _) = parse("name: [a]\nevents: [agent:start]\n");
        assert_eq!(result.expect_err("skip").field.as_deref(), Some("name"));
    }
}
