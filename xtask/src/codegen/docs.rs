//! Generates `hooks-core/docs/events.md`, the event reference (packaged with
//! hooks-core and shown in its rustdoc as `hermes_hooks_core::event_reference`).

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;

use super::schema::{EventDef, FieldDef, GatewayEventDef, Schema};
use super::{MARKDOWN_HEADER, ensure_file_contents, load_schema};

/// The generated file, relative to the workspace root.
pub const OUTPUT: &str = "hooks-core/docs/events.md";

/// Writes (or checks) the event reference.
pub fn generate(root: &Path, check: bool) -> Result<()> {
    let schema = load_schema(root)?;
    ensure_file_contents(root, OUTPUT, &render(&schema), check)
}

/// The whole document.
pub fn render(schema: &Schema) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{MARKDOWN_HEADER}\n");
    out.push_str("# Hook events\n\n");
    let _ = writeln!(
        out,
        "The catalog has {} plugin/shell events ({} from the user documentation, {} added by \
         current upstream code) and {} gateway events. This page is generated from \
         `hooks-core/schema/events.yaml`.\n",
        schema.events.len(),
        schema.events.iter().filter(|e| e.source == "doc").count(),
        schema
            .events
            .iter()
            .filter(|e| e.source == "upstream")
            .count(),
        schema.gateway_events.len()
    );
    out.push_str(
        "Every plugin event payload also carries `telemetry_schema_version: \
         \"hermes.observer.v1\"` (last key), except where noted. In the field tables a `?` \
         after a type means the value may be null; *optional* keys may be left out.\n\n",
    );
    out.push_str("## Plugin and shell events\n\n");
    out.push_str("| event | class | merge | run | source |\n|---|---|---|---|---|\n");
    for event in &schema.events {
        let _ = writeln!(
            out,
            "| [`{name}`](#{name}) | {} | `{}` | {} | {} |",
            event.class,
            event.merge,
            event.run,
            event.source,
            name = event.name
        );
    }
    out.push('\n');
    for event in &schema.events {
        render_event(&mut out, event);
    }
    out.push_str("## Gateway events\n\n");
    out.push_str(
        "Gateway hooks (`$HERMES_HOME/hooks/<name>/HOOK.yaml`) receive these with a context \
         dictionary. A handler for `namespace:*` also receives every `namespace:<action>` \
         event.\n\n",
    );
    for event in &schema.gateway_events {
        render_gateway_event(&mut out, event);
    }
    out
}

fn render_event(out: &mut String, event: &EventDef) {
    let _ = writeln!(out, "### `{}`\n", event.name);
    let _ = writeln!(out, "{}\n", event.fires);
    let _ = writeln!(out, "- class: {}", event.class);
    let _ = writeln!(out, "- merge rule: `{}`", event.merge);
    let _ = writeln!(out, "- run policy: {}", run_policy(&event.run));
    let _ = writeln!(out, "- fail mode: {}", fail_mode(&event.fail));
    let _ = writeln!(
        out,
        "- shell hooks: {}",
        if event.shell {
            "allowed"
        } else {
            "not allowed (in-process plugins only; refused when config is loaded)"
        }
    );
    let _ = writeln!(
        out,
        "- tool matcher: {}",
        if event.tool_matcher {
            "applies (`matcher:` is tested against `tool_name`)"
        } else {
            "does not apply"
        }
    );
    let _ = writeln!(
        out,
        "- source: {}",
        if event.source == "doc" {
            "the user documentation"
        } else {
            "current upstream code (not in the user documentation)"
        }
    );
    if !event.telemetry {
        out.push_str("- no `telemetry_schema_version` key\n");
    }
    out.push('\n');
    render_fields(out, &event.fields);
    let _ = writeln!(out, "**Privacy:** {}\n", event.privacy);
}

fn render_gateway_event(out: &mut String, event: &GatewayEventDef) {
    let _ = writeln!(out, "### `{}`\n", event.name);
    let _ = writeln!(out, "{}\n", event.fires);
    let _ = writeln!(
        out,
        "- replies: {}\n",
        if event.merge == "command_decision" {
            "decisions (`allow`, `deny`, `handled`, `rewrite`), merge rule `command_decision`"
        } else {
            "ignored"
        }
    );
    render_fields(out, &event.fields);
}

fn render_fields(out: &mut String, fields: &[FieldDef]) {
    if fields.is_empty() {
        out.push_str("No fields.\n\n");
        return;
    }
    out.push_str("| field | type | description |\n|---|---|---|\n");
    for field in fields {
        let optional = if field.optional { ", optional" } else { "" };
        let _ = writeln!(
            out,
            "| `{}` | `{}`{optional} | {} |",
            field.name,
            field.schema_type(),
            field.description.replace('|', "\\|")
        );
    }
    out.push('\n');
}

fn run_policy(run: &str) -> &'static str {
    match run {
        "bounded" => {
            "bounded: in-process callbacks run on a worker, cut off after \
             `plugins.hook_callback_timeout` (default 30 s)"
        }
        "caller_thread" => "on the caller's thread, serially, without a time limit",
        "queued" => {
            "queued: a bounded queue and worker per callback; the producer never waits and a \
             full queue drops its oldest event"
        }
        _ => "inline on the caller, without a time limit",
    }
}

fn fail_mode(fail: &str) -> &'static str {
    if fail == "closed" {
        "closed: a timed-out or still-running callback blocks the tool call"
    } else {
        "open: a failed or timed-out callback is skipped"
    }
}
