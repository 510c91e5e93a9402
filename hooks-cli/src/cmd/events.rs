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
    }
    writeln!(out)?;
    writeln!(out, "Gateway events ({}):", GATEWAY_EVENTS.len())?;
    for meta in &GATEWAY_EVENTS {
        writeln!(out, "  {}", meta.name)?;
    }
    Ok(())
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
