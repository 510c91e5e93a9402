//! `hooks events`: the event catalog.

use std::io::Write;

use hermes_hooks_core::catalog::{EVENTS, GATEWAY_EVENTS, RunPolicy};
use serde_json::json;

use crate::cli::EventsArgs;

/// Prints the catalog: plugin/shell events, then gateway events.
pub fn run(args: &EventsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.json {
        let events: Vec<_> = EVENTS
            .iter()
            .map(|meta| {
                json!({
                    "name": meta.name,
                    "class": meta.class.as_str(),
                    "merge": meta.merge.as_str(),
                    "run": run_label(meta.run),
                    "fail_closed": meta.fail == hermes_hooks_core::catalog::FailMode::Closed,
                    "shell": meta.shell,
                    "tool_matcher": meta.tool_matcher,
                    "fields": meta.fields.iter().map(|f| f.name).collect::<Vec<_>>(),
                })
            })
            .collect();
        let gateway: Vec<_> = GATEWAY_EVENTS
            .iter()
            .map(|meta| {
                json!({"name": meta.name, "merge": meta.merge.as_str(),
                               "fields": meta.fields.iter().map(|f| f.name).collect::<Vec<_>>()})
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({"events": events, "gateway_events": gateway})
        )?;
        return Ok(());
    }
    for line in LEGEND {
        writeln!(out, "{line}")?;
    }
    writeln!(out)?;
    writeln!(out, "Plugin and shell hook events ({}):", EVENTS.len())?;
    for meta in &EVENTS {
        let mut notes = vec![meta.class.as_str(), run_label(meta.run)];
        if meta.fail == hermes_hooks_core::catalog::FailMode::Closed {
            notes.push("fail-closed");
        }
        if !meta.shell {
            notes.push("in-process only");
        }
        if meta.tool_matcher {
            notes.push("matcher");
        }
        writeln!(out, "  {:<36} {}", meta.name, notes.join(", "))?;
        writeln!(out, "      {}", first_sentence(meta.fires))?;
    }
    writeln!(out)?;
    writeln!(out, "Gateway events ({}):", GATEWAY_EVENTS.len())?;
    for meta in &GATEWAY_EVENTS {
        writeln!(out, "  {}", meta.name)?;
        writeln!(out, "      {}", first_sentence(meta.fires))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Payload fields and replies of each event: `hooks events --json`, and docs/events.md."
    )?;
    Ok(())
}

/// What the words after each event name mean.
const LEGEND: &[&str] = &[
    "Legend:",
    "  observer          replies are ignored: the hook only watches",
    "  directive         replies steer the host (block, approve, modify, context, skip, ...)",
    "  transform         the first valid reply replaces a value (tool result, LLM output, ...)",
    "  inline            callbacks run on the agent's thread, unbounded",
    "  bounded           callbacks run on a worker, each bounded by plugins.hook_callback_timeout",
    "  queued            callbacks get the event through a queue; the agent never waits",
    "  caller thread     callbacks always run on the emitting thread, in order",
    "  fail-closed       a callback that fails, times out or is skipped blocks the call",
    "  in-process only   plugins and host closures only: shell hooks cannot take it",
    "  matcher           shell hooks may filter it by tool name (`matcher:`)",
];

/// The first sentence of a catalog description (up to the first `. `).
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

fn run_label(run: RunPolicy) -> &'static str {
    match run {
        RunPolicy::Inline => "inline",
        RunPolicy::Bounded => "bounded",
        RunPolicy::CallerThread => "caller thread",
        RunPolicy::Queued => "queued",
        _ => "other",
    }
}
