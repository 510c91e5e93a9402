//! Reading event names and payload files given on the command line.

use std::path::Path;

use anyhow::{Context, Result, bail};
use hooks_core::{HookEvent, Payload};
use serde_json::Value;

/// An error that means "bad arguments": exit status 2 with this message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses a catalog event name, or fails with the list of valid names.
pub fn catalog_event(name: &str) -> Result<HookEvent> {
    name.parse::<HookEvent>().map_err(|_| {
        let mut valid: Vec<&str> = hooks_core::catalog::VALID_HOOKS.to_vec();
        valid.sort_unstable();
        let hint = hooks_core::catalog::suggest(name)
            .map(|s| format!(" (did you mean '{s}'?)"))
            .unwrap_or_default();
        UsageError(format!(
            "Unknown event: '{name}'{hint}\nValid events: {}",
            valid.join(", ")
        ))
        .into()
    })
}

/// Reads a JSON file that must hold an object.
pub fn read_object(path: &Path) -> Result<Payload> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("Error reading payload file {}", path.display()))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => bail!(
            "{}: the payload must be a JSON object; got {}",
            path.display(),
            hooks_core::config::json_type(&other)
        ),
        Err(error) => bail!("{}: invalid JSON: {error}", path.display()),
    }
}

/// Parses any event a host can emit: a catalog event or a known gateway event
/// (`command:<name>` included). Anything else is a usage error with a suggestion.
pub fn host_event_name(name: &str) -> Result<hooks_core::EventName> {
    let parsed = hooks_core::EventName::parse(name);
    match &parsed {
        hooks_core::EventName::Hook(_) => Ok(parsed),
        hooks_core::EventName::Gateway(gateway)
            if hooks_core::catalog::gateway_event(gateway).is_some() =>
        {
            Ok(parsed)
        }
        _ => catalog_event(name).map(hooks_core::EventName::Hook),
    }
}

/// The event a host would emit: the payload plus, for catalog events that carry
/// it, `telemetry_schema_version` (the reference adds it to every callback's kwargs).
pub fn host_event(name: hooks_core::EventName, mut payload: Payload) -> hooks_core::Event {
    use hooks_core::payloads::{TELEMETRY_KEY, TELEMETRY_SCHEMA_VERSION};
    if let Some(hook) = name.hook()
        && hook.meta().telemetry
        && !payload.contains_key(TELEMETRY_KEY)
    {
        payload.insert(TELEMETRY_KEY.into(), Value::from(TELEMETRY_SCHEMA_VERSION));
    }
    hooks_core::Event::new(name, payload)
}
