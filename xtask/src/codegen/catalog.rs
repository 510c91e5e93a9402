//! Generates `hooks-core/src/catalog/generated.rs`: `HookEvent`, `VALID_HOOKS`,
//! `EVENTS` and `GATEWAY_EVENTS`.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;

use super::schema::{EventDef, FieldDef, GatewayEventDef, Schema};
use super::{camel_case, ensure_file_contents, load_schema, rust_file};

/// The generated file, relative to the workspace root.
pub const OUTPUT: &str = "hooks-core/src/catalog/generated.rs";

/// Writes (or checks) the catalog file.
pub fn generate(root: &Path, check: bool) -> Result<()> {
    let schema = load_schema(root)?;
    ensure_file_contents(root, OUTPUT, &rust_file(&render(&schema))?, check)
}

/// The catalog source, before formatting.
pub fn render(schema: &Schema) -> String {
    let mut out = String::new();
    out.push_str(
        "use super::{EventClass, EventMeta, EventSource, FailMode, FieldMeta, GatewayEventMeta, MergeRule, RunPolicy};\n\n",
    );
    render_enum(&mut out, &schema.events);
    render_lookup(&mut out, &schema.events);
    out.push_str("/// The catalog entries, indexed by [`HookEvent::index`].\n");
    out.push_str("pub static EVENTS: [EventMeta; EVENT_COUNT] = [\n");
    for event in &schema.events {
        render_event_meta(&mut out, event);
    }
    out.push_str("];\n\n");
    let _ = writeln!(
        out,
        "/// The gateway events, `command:*` last.\npub static GATEWAY_EVENTS: [GatewayEventMeta; {}] = [",
        schema.gateway_events.len()
    );
    for event in &schema.gateway_events {
        render_gateway_meta(&mut out, event);
    }
    out.push_str("];\n");
    out
}

fn render_enum(out: &mut String, events: &[EventDef]) {
    out.push_str("/// Every plugin/shell hook event of the catalog.\n");
    out.push_str("///\n");
    out.push_str("/// Non-exhaustive: upstream adds events, and a new one must not break a\n");
    out.push_str("/// downstream `match`.\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n");
    out.push_str("#[non_exhaustive]\n");
    out.push_str("pub enum HookEvent {\n");
    for event in events {
        let _ = writeln!(
            out,
            "    /// `{}`: {}",
            event.name,
            first_sentence(&event.fires)
        );
        let _ = writeln!(out, "    {},", camel_case(&event.name));
    }
    out.push_str("}\n\n");
    let _ = writeln!(
        out,
        "/// The number of catalog events.\npub const EVENT_COUNT: usize = {};\n",
        events.len()
    );
    out.push_str(
        "/// Every catalog event name, in catalog order.\npub const VALID_HOOKS: &[&str] = &[\n",
    );
    for event in events {
        let _ = writeln!(out, "    {:?},", event.name);
    }
    out.push_str("];\n\n");
}

fn render_lookup(out: &mut String, events: &[EventDef]) {
    out.push_str("impl HookEvent {\n");
    out.push_str("    /// Every catalog event, in catalog order.\n");
    out.push_str("    pub const ALL: [HookEvent; EVENT_COUNT] = [\n");
    for event in events {
        let _ = writeln!(out, "        HookEvent::{},", camel_case(&event.name));
    }
    out.push_str(
        "    ];

    /// The event name.
    pub const fn as_str(self) -> &'static str {
        self.meta().name
    }

    /// The position of the event in [`HookEvent::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The catalog entry of the event.
    pub const fn meta(self) -> &'static EventMeta {
        &EVENTS[self as usize]
    }
}

impl std::str::FromStr for HookEvent {
    type Err = crate::catalog::UnknownEvent;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
",
    );
    for event in events {
        let _ = writeln!(
            out,
            "            {:?} => Ok(HookEvent::{}),",
            event.name,
            camel_case(&event.name)
        );
    }
    out.push_str(
        "            _ => Err(crate::catalog::UnknownEvent(name.to_owned())),
        }
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

",
    );
}

fn render_event_meta(out: &mut String, event: &EventDef) {
    let _ = writeln!(
        out,
        "EventMeta {{ name: {name:?}, class: EventClass::{class}, merge: MergeRule::{merge}, \
         run: RunPolicy::{run}, fail: FailMode::{fail}, shell: {shell}, tool_matcher: {matcher}, \
         telemetry: {telemetry}, source: EventSource::{source}, fires: {fires:?}, fields: &[",
        name = event.name,
        class = camel_case(&event.class),
        merge = camel_case(&event.merge),
        run = camel_case(&event.run),
        fail = camel_case(&event.fail),
        shell = event.shell,
        matcher = event.tool_matcher,
        telemetry = event.telemetry,
        source = camel_case(&event.source),
        fires = event.fires,
    );
    render_fields(out, &event.fields);
    let _ = writeln!(out, "], privacy: {:?} }},", event.privacy);
}

fn render_gateway_meta(out: &mut String, event: &GatewayEventDef) {
    let _ = writeln!(
        out,
        "GatewayEventMeta {{ name: {:?}, merge: MergeRule::{}, fires: {:?}, fields: &[",
        event.name,
        camel_case(&event.merge),
        event.fires
    );
    render_fields(out, &event.fields);
    out.push_str("] },\n");
}

fn render_fields(out: &mut String, fields: &[FieldDef]) {
    for field in fields {
        let _ = writeln!(
            out,
            "FieldMeta {{ name: {:?}, ty: {:?}, optional: {}, description: {:?} }},",
            field.name,
            field.schema_type(),
            field.optional,
            field.description
        );
    }
}

/// The first sentence of a description, for one-line enum docs.
fn first_sentence(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line,
    }
}
