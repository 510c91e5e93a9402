//! `hooks-core/schema/events.yaml`: the typed schema and its validation.
//!
//! Parsing happens in two steps so every error can name the event and the key:
//! the file is read into YAML values, then each event and each field is
//! deserialized on its own into a `deny_unknown_fields` struct whose keys are all
//! optional, and the presence and spelling of every key is checked by hand.

use std::collections::HashMap;

use serde::Deserialize;
use serde_yaml::Value;

/// The event classes, in schema spelling.
pub const CLASSES: &[&str] = &["observer", "transform", "directive"];
/// The merge rules a plugin/shell event may use.
pub const EVENT_MERGE_RULES: &[&str] = &[
    "ignore",
    "tool_gate",
    "context",
    "verify_continue",
    "gateway_dispatch",
    "transcription_fields",
    "first_string",
    "first_non_empty_string",
    "error_classification",
];
/// The merge rules a gateway event may use.
pub const GATEWAY_MERGE_RULES: &[&str] = &["ignore", "command_decision"];
/// The run policies.
pub const RUN_POLICIES: &[&str] = &["inline", "bounded", "caller_thread", "queued"];
/// The fail modes.
pub const FAIL_MODES: &[&str] = &["open", "closed"];
/// Where an event comes from.
pub const SOURCES: &[&str] = &["doc", "upstream"];
/// The field base types (a trailing `?` marks a nullable value).
pub const FIELD_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "object", "array", "any",
];
/// The key every event payload but the exempt ones carries.
pub const TELEMETRY_KEY: &str = "telemetry_schema_version";

/// A schema problem, naming the file, the event and the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("events.yaml: {0}")]
pub struct SchemaError(pub String);

/// The validated schema.
#[derive(Debug, Clone)]
pub struct Schema {
    /// Plugin/shell events in catalog order.
    pub events: Vec<EventDef>,
    /// Gateway events in table order.
    pub gateway_events: Vec<GatewayEventDef>,
}

/// One plugin/shell event.
#[derive(Debug, Clone)]
pub struct EventDef {
    pub name: String,
    pub source: String,
    pub class: String,
    pub merge: String,
    pub run: String,
    pub fail: String,
    pub shell: bool,
    pub tool_matcher: bool,
    pub telemetry: bool,
    pub fires: String,
    pub fields: Vec<FieldDef>,
    pub privacy: String,
}

/// One gateway event.
#[derive(Debug, Clone)]
pub struct GatewayEventDef {
    pub name: String,
    pub merge: String,
    pub fires: String,
    pub fields: Vec<FieldDef>,
}

/// One payload field.
#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    /// The base type, without the `?`.
    pub base: String,
    pub nullable: bool,
    pub optional: bool,
    pub description: String,
}

impl FieldDef {
    /// The schema spelling of the type (`string?`).
    pub fn schema_type(&self) -> String {
        if self.nullable {
            format!("{}?", self.base)
        } else {
            self.base.clone()
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    events: Vec<Value>,
    gateway_events: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: Option<String>,
    source: Option<String>,
    class: Option<String>,
    merge: Option<String>,
    run: Option<String>,
    fail: Option<String>,
    shell: Option<bool>,
    tool_matcher: Option<bool>,
    telemetry: Option<bool>,
    fires: Option<String>,
    fields: Option<Vec<Value>>,
    privacy: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGatewayEvent {
    name: Option<String>,
    merge: Option<String>,
    fires: Option<String>,
    fields: Option<Vec<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    description: Option<String>,
    optional: Option<bool>,
}

/// Parses and validates the schema text.
pub fn parse(text: &str) -> Result<Schema, SchemaError> {
    let raw: RawFile = serde_yaml::from_str(text).map_err(|e| SchemaError(serde_message(&e)))?;
    let mut events = Vec::with_capacity(raw.events.len());
    for (index, value) in raw.events.iter().enumerate() {
        events.push(parse_event(index, value)?);
    }
    let mut gateway_events = Vec::with_capacity(raw.gateway_events.len());
    for (index, value) in raw.gateway_events.iter().enumerate() {
        gateway_events.push(parse_gateway_event(index, value)?);
    }
    check_unique(events.iter().map(|e| e.name.as_str()), "event")?;
    check_unique(
        gateway_events.iter().map(|e| e.name.as_str()),
        "gateway event",
    )?;
    Ok(Schema {
        events,
        gateway_events,
    })
}

/// How an entry is named in messages before its `name` is known to be valid.
fn entry_label(kind: &str, index: usize, value: &Value) -> String {
    match value.get("name").and_then(Value::as_str) {
        Some(name) => format!("{kind} '{name}'"),
        None => format!("{kind} #{}", index + 1),
    }
}

fn parse_event(index: usize, value: &Value) -> Result<EventDef, SchemaError> {
    let at = entry_label("event", index, value);
    let raw: RawEvent = serde_yaml::from_value(value.clone())
        .map_err(|e| SchemaError(format!("{at}: {}", serde_message(&e))))?;
    let name = required(raw.name, &at, "name")?;
    if !is_snake_case(&name) {
        return Err(SchemaError(format!(
            "{at}: 'name' must be snake_case (lowercase letters, digits, '_')"
        )));
    }
    let class = one_of(required(raw.class, &at, "class")?, &at, "class", CLASSES)?;
    let merge = one_of(
        required(raw.merge, &at, "merge")?,
        &at,
        "merge",
        EVENT_MERGE_RULES,
    )?;
    // An observer's replies are ignored, and only observers ignore replies.
    if (class == "observer") != (merge == "ignore") {
        return Err(SchemaError(format!(
            "{at}: 'merge' is '{merge}' but 'class' is '{class}' (observers, and only observers, use 'ignore')"
        )));
    }
    let telemetry = raw.telemetry.unwrap_or(true);
    let fields = parse_fields(raw.fields, &at)?;
    Ok(EventDef {
        source: one_of(required(raw.source, &at, "source")?, &at, "source", SOURCES)?,
        run: one_of(required(raw.run, &at, "run")?, &at, "run", RUN_POLICIES)?,
        fail: one_of(required(raw.fail, &at, "fail")?, &at, "fail", FAIL_MODES)?,
        shell: required(raw.shell, &at, "shell")?,
        tool_matcher: required(raw.tool_matcher, &at, "tool_matcher")?,
        telemetry,
        fires: text(raw.fires, &at, "fires")?,
        privacy: text(raw.privacy, &at, "privacy")?,
        fields,
        name,
        class,
        merge,
    })
}

fn parse_gateway_event(index: usize, value: &Value) -> Result<GatewayEventDef, SchemaError> {
    let at = entry_label("gateway event", index, value);
    let raw: RawGatewayEvent = serde_yaml::from_value(value.clone())
        .map_err(|e| SchemaError(format!("{at}: {}", serde_message(&e))))?;
    let name = required(raw.name, &at, "name")?;
    let well_formed = name.split_once(':').is_some_and(|(namespace, action)| {
        is_snake_case(namespace) && (action == "*" || is_snake_case(action))
    });
    if !well_formed {
        return Err(SchemaError(format!(
            "{at}: 'name' must be 'namespace:action' or 'namespace:*'"
        )));
    }
    let merge = one_of(
        required(raw.merge, &at, "merge")?,
        &at,
        "merge",
        GATEWAY_MERGE_RULES,
    )?;
    Ok(GatewayEventDef {
        fires: text(raw.fires, &at, "fires")?,
        fields: parse_fields(raw.fields, &at)?,
        name,
        merge,
    })
}

fn parse_fields(raw: Option<Vec<Value>>, at: &str) -> Result<Vec<FieldDef>, SchemaError> {
    let raw = required(raw, at, "fields")?;
    let mut fields = Vec::with_capacity(raw.len());
    for (index, value) in raw.iter().enumerate() {
        let field_at = format!("{at}: {}", entry_label("field", index, value));
        let raw: RawField = serde_yaml::from_value(value.clone())
            .map_err(|e| SchemaError(format!("{field_at}: {}", serde_message(&e))))?;
        let name = required(raw.name, &field_at, "name")?;
        if !is_snake_case(&name) {
            return Err(SchemaError(format!(
                "{field_at}: 'name' must be snake_case"
            )));
        }
        if matches!(name.as_str(), "self" | "super" | "crate") {
            return Err(SchemaError(format!(
                "{field_at}: 'name' '{name}' cannot be a Rust field name"
            )));
        }
        if name == TELEMETRY_KEY {
            return Err(SchemaError(format!(
                "{field_at}: '{TELEMETRY_KEY}' is added by the generator; use 'telemetry' on the event"
            )));
        }
        let ty = required(raw.ty, &field_at, "type")?;
        let (base, nullable) = match ty.strip_suffix('?') {
            Some(base) => (base.to_owned(), true),
            None => (ty.clone(), false),
        };
        if !FIELD_TYPES.contains(&base.as_str()) {
            return Err(SchemaError(format!(
                "{field_at}: 'type' is '{ty}', expected one of: {} (with '?' when nullable)",
                FIELD_TYPES.join(", ")
            )));
        }
        fields.push(FieldDef {
            description: text(raw.description, &field_at, "description")?,
            optional: raw.optional.unwrap_or(false),
            name,
            base,
            nullable,
        });
    }
    check_unique(
        fields.iter().map(|f| f.name.as_str()),
        &format!("{at}: field"),
    )?;
    Ok(fields)
}

fn required<T>(value: Option<T>, at: &str, key: &str) -> Result<T, SchemaError> {
    value.ok_or_else(|| SchemaError(format!("{at}: missing '{key}'")))
}

/// A required prose key: present, and not blank.
fn text(value: Option<String>, at: &str, key: &str) -> Result<String, SchemaError> {
    let value = required(value, at, key)?;
    let value = value.trim();
    if value.is_empty() {
        return Err(SchemaError(format!("{at}: '{key}' is empty")));
    }
    Ok(value.to_owned())
}

fn one_of(value: String, at: &str, key: &str, allowed: &[&str]) -> Result<String, SchemaError> {
    if allowed.contains(&value.as_str()) {
        Ok(value)
    } else {
        Err(SchemaError(format!(
            "{at}: '{key}' is '{value}', expected one of: {}",
            allowed.join(", ")
        )))
    }
}

fn check_unique<'a>(names: impl Iterator<Item = &'a str>, kind: &str) -> Result<(), SchemaError> {
    let mut seen = HashMap::new();
    for (index, name) in names.enumerate() {
        if let Some(first) = seen.insert(name, index) {
            return Err(SchemaError(format!(
                "{kind} '{name}': duplicate 'name' (entries #{} and #{})",
                first + 1,
                index + 1
            )));
        }
    }
    Ok(())
}

fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// serde's message, with its Rust-flavoured "field" wording turned into the
/// schema's "key" wording so messages read the same as the hand-written ones.
fn serde_message(error: &serde_yaml::Error) -> String {
    let message = error.to_string();
    match message.strip_prefix("unknown field `") {
        Some(rest) => {
            let key = rest.split('`').next().unwrap_or(rest);
            format!("unknown key '{key}'")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests;
