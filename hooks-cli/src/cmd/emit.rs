//! `hooks emit EVENT`: fire one event through every mechanism, as a host would,
//! wait for its webhook deliveries, and print the outcome.

use std::io::Write;

use hermes_hooks_core::Payload;
use hermes_hooks_core::display::escape;
use serde_json::json;

use crate::cli::EmitArgs;
use crate::fire::{deliveries_json, fire, runs_json, runs_text};
use crate::payload::{host_event, host_event_name, read_payload};
use crate::setup::{Home, Mechanisms};

/// Runs `hooks emit`.
pub async fn run(
    home: &Home,
    accept: bool,
    args: &EmitArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let name = host_event_name(&args.event)?;
    let payload = match &args.payload_file {
        Some(file) => read_payload(file, name.as_str())?,
        None => Payload::new(),
    };
    let mechanisms = Mechanisms::register(home, accept);
    mechanisms.print_warnings();
    let fired = fire(&mechanisms.hooks, host_event(name, payload)).await;
    let deliveries = mechanisms.finish().await;

    if args.json {
        let mut document = json!({
            "event": args.event,
            "outcome": fired.outcome_wire(),
            "replies": fired.replies_json(),
            // Deliveries still pending at the flush bound are listed too, as
            // `abandoned`: left out, they would read as "no target wanted it".
            "deliveries": deliveries_json(&deliveries),
            "runs": runs_json(&fired.runs),
        });
        // The list is capped; the totals count every delivery.
        for (key, value) in deliveries.summary_json() {
            document[key] = value;
        }
        writeln!(out, "{document}")?;
        return Ok(());
    }
    writeln!(out, "{}: {}", args.event, fired.outcome_text())?;
    for reply in &fired.replies {
        writeln!(
            out,
            "  reply from {}: {}",
            escape(&reply.source),
            escape(&reply.value.to_string())
        )?;
    }
    for line in runs_text(&fired.runs, "  ") {
        writeln!(out, "{line}")?;
    }
    for delivery in &deliveries.list {
        writeln!(out, "  webhook {}", escape(&delivery.to_text()))?;
    }
    if !deliveries.is_empty() {
        writeln!(out, "  {}", deliveries.totals_text())?;
    }
    if let Some(wire) = fired.outcome.to_wire() {
        writeln!(
            out,
            "outcome (Hermes wire shape): {}",
            escape(&wire.to_string())
        )?;
    }
    Ok(())
}
