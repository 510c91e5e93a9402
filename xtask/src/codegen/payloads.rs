//! Generates `hooks-core/src/payloads/generated.rs`: one typed struct per plugin
//! event, its `HookPayload` impl and its conversion into an `Event`.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;

use super::schema::{EventDef, FieldDef, Schema};
use super::{camel_case, doc_lines, ensure_file_contents, load_schema, rust_file};

/// The generated file, relative to the workspace root.
pub const OUTPUT: &str = "hooks-core/src/payloads/generated.rs";

/// Writes (or checks) the payload structs.
pub fn generate(root: &Path, check: bool) -> Result<()> {
    let schema = load_schema(root)?;
    ensure_file_contents(root, OUTPUT, &rust_file(&render(&schema))?, check)
}

/// The payload source, before formatting.
pub fn render(schema: &Schema) -> String {
    let mut out = String::from(
        "use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{HookPayload, TELEMETRY_KEY, TELEMETRY_SCHEMA_VERSION};
use crate::catalog::HookEvent;
use crate::event::{Event, Payload};

",
    );
    for event in &schema.events {
        render_struct(&mut out, event);
    }
    out
}

fn render_struct(out: &mut String, event: &EventDef) {
    let ty = camel_case(&event.name);
    let _ = writeln!(
        out,
        "/// The payload of [`HookEvent::{ty}`] (`{}`).\n///",
        event.name
    );
    out.push_str(&doc_lines(&event.fires, ""));
    out.push_str("///\n");
    out.push_str(&doc_lines(&format!("Privacy: {}", event.privacy), ""));
    if !event.telemetry {
        out.push_str(
            "///\n/// Unlike other events, its [`Event`] carries no `telemetry_schema_version`.\n",
        );
    }
    out.push_str("#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]\n");
    out.push_str("#[serde(default)]\n");
    // The upstream catalog adds fields to events: outside hooks-core a payload
    // is built with `default()` and the `with_*` setters, so a new field is
    // not a breaking change.
    out.push_str("#[non_exhaustive]\n");
    let _ = writeln!(out, "pub struct {ty} {{");
    for field in &event.fields {
        out.push_str(&doc_lines(&field.description, "    "));
        if field.optional {
            out.push_str("    #[serde(skip_serializing_if = \"Option::is_none\")]\n");
        }
        // A JSON `null` where a plain field is expected decodes as absent (its
        // default), as Python plugins see `None`: one null field must not make
        // the whole payload undecodable.
        if null_as_default(field) {
            out.push_str("    #[serde(deserialize_with = \"super::null_as_default\")]\n");
        }
        let _ = writeln!(
            out,
            "    pub {}: {},",
            rust_ident(&field.name),
            rust_type(field)
        );
    }
    out.push_str("}\n\n");
    render_setters(out, &ty, event);

    let _ = writeln!(
        out,
        "impl HookPayload for {ty} {{
    const EVENT: HookEvent = HookEvent::{ty};

    fn decode_in_place<'de, D: serde::Deserializer<'de>>(deserializer: D, place: &mut Self) -> Result<(), D::Error> {{
        super::in_place::decode(deserializer, place)
    }}
}}
"
    );
    render_fields(out, &ty, event);
    // Payloads hold arguments, messages and results that may be secret, so
    // Debug names the struct only, like `Event`'s Debug shows keys only.
    let _ = writeln!(
        out,
        "impl std::fmt::Debug for {ty} {{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{
        f.debug_struct({ty:?}).finish_non_exhaustive()
    }}
}}
"
    );

    let capacity = event.fields.len() + usize::from(event.telemetry);
    let _ = writeln!(
        out,
        "impl From<{ty}> for Event {{
    fn from(payload: {ty}) -> Self {{
        let mut map = Payload::with_capacity({capacity});"
    );
    for field in &event.fields {
        let ident = rust_ident(&field.name);
        // `any` is already a `Value`; converting it again is noise clippy rejects.
        let is_value = field.base == "any";
        if field.optional {
            let value = if is_value {
                "value"
            } else {
                "Value::from(value)"
            };
            let _ = writeln!(
                out,
                "        if let Some(value) = payload.{ident} {{ map.insert({:?}.to_owned(), {value}); }}",
                field.name
            );
        } else {
            let value = if is_value && !field.nullable {
                format!("payload.{ident}")
            } else {
                format!("Value::from(payload.{ident})")
            };
            let _ = writeln!(
                out,
                "        map.insert({:?}.to_owned(), {value});",
                field.name
            );
        }
    }
    if event.telemetry {
        out.push_str(
            "        map.insert(TELEMETRY_KEY.to_owned(), Value::from(TELEMETRY_SCHEMA_VERSION));\n",
        );
    }
    let _ = writeln!(
        out,
        "        Event::new(HookEvent::{ty}, map)
    }}
}}
"
    );
}

/// The in-place decoder's view of the struct (`payloads/in_place.rs`): its
/// keys, one field decoded by index (with the same `null` rule as the serde
/// attributes above), one field reset by index.
fn render_fields(out: &mut String, ty: &str, event: &EventDef) {
    // The decoder marks the fields it saw in a `u64`.
    assert!(
        event.fields.len() <= 64,
        "{}: more than 64 fields",
        event.name
    );
    let names: Vec<String> = event
        .fields
        .iter()
        .map(|field| format!("{:?}", field.name))
        .collect();
    let _ = writeln!(
        out,
        "impl super::in_place::Fields for {ty} {{
    const NAMES: &'static [&'static str] = &[{}];

    fn field_index(key: &str) -> Option<usize> {{
        match key {{
{}
            _ => None,
        }}
    }}

    fn decode_field<'de, A: serde::de::MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {{
        match index {{",
        names.join(", "),
        names
            .iter()
            .enumerate()
            .map(|(index, name)| format!("            {name} => Some({index}),"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for (index, field) in event.fields.iter().enumerate() {
        let seed = if null_as_default(field) {
            "NullAsDefault"
        } else {
            "Plain"
        };
        let _ = writeln!(
            out,
            "            {index} => map.next_value_seed(super::in_place::{seed}(&mut self.{})),",
            rust_ident(&field.name)
        );
    }
    out.push_str(
        "            _ => map.next_value::<serde::de::IgnoredAny>().map(drop),
        }
    }

    fn reset_field(&mut self, index: usize) {
        match index {
",
    );
    for (index, field) in event.fields.iter().enumerate() {
        let _ = writeln!(
            out,
            "            {index} => super::in_place::InPlace::reset(&mut self.{}),",
            rust_ident(&field.name)
        );
    }
    out.push_str("            _ => {}\n        }\n    }\n}\n\n");
}

/// Whether a JSON `null` in this field decodes as absent: plain (not
/// nullable, optional or `any`) fields, as Python plugins see `None`.
fn null_as_default(field: &FieldDef) -> bool {
    !(field.nullable || field.optional || field.base == "any")
}

/// One `with_<field>` setter per field, so a host (or a test) builds a payload
/// as `PreToolCall::default().with_tool_name("terminal")`.
fn render_setters(out: &mut String, ty: &str, event: &EventDef) {
    let _ = writeln!(out, "impl {ty} {{");
    for field in &event.fields {
        let ident = rust_ident(&field.name);
        let wrapped = field.nullable || field.optional;
        let (param, value) = setter_param(field);
        let value = if wrapped {
            format!("Some({value})")
        } else {
            value
        };
        let _ = writeln!(out, "    /// Sets `{}`.\n    ///", field.name);
        out.push_str(&doc_lines(&field.description, "    "));
        let _ = writeln!(
            out,
            "    #[must_use]
    pub fn with_{}(mut self, value: {param}) -> Self {{
        self.{ident} = {value};
        self
    }}
",
            field.name
        );
    }
    out.push_str("}\n\n");
}

/// The setter's parameter type and the expression that stores it (unwrapped).
fn setter_param(field: &FieldDef) -> (&'static str, String) {
    match field.base.as_str() {
        "string" => ("impl Into<String>", "value.into()".to_owned()),
        "integer" => ("i64", "value".to_owned()),
        "number" => ("f64", "value".to_owned()),
        "boolean" => ("bool", "value".to_owned()),
        "object" => ("Map<String, Value>", "value".to_owned()),
        "array" => ("Vec<Value>", "value".to_owned()),
        _ => ("impl Into<Value>", "value.into()".to_owned()),
    }
}

/// The Rust type of a field: the base type, in `Option` when it may be null or absent.
fn rust_type(field: &FieldDef) -> String {
    let base = match field.base.as_str() {
        "string" => "String",
        "integer" => "i64",
        "number" => "f64",
        "boolean" => "bool",
        "object" => "Map<String, Value>",
        "array" => "Vec<Value>",
        _ => "Value",
    };
    if field.nullable || field.optional {
        format!("Option<{base}>")
    } else {
        base.to_owned()
    }
}

/// The field name as a Rust identifier, raw when it is a keyword.
fn rust_ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do",
        "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in",
        "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
        "return", "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe",
        "unsized", "use", "virtual", "where", "while", "yield",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}
