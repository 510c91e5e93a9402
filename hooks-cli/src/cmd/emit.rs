//! `hooks emit EVENT`: fire one event through every mechanism, as a host would,
//! wait for its webhook deliveries, and print the outcome.

use std::io::Write;

use hermes_hooks_core::display::escape;
use hermes_hooks_core::{EventName, HookEvent, Payload};
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

/// `emit --json` when the home's config cannot be read (`error` says why):
/// the document a host reads, with the error, and a `pre_tool_call` call
/// blocked, as the file may hold fail-closed guards that cannot be read now
/// (round 77, R77-U4: no JSON at all). The command still fails (status 2).
pub fn print_unread_config(
    args: &EmitArgs,
    error: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let event = host_event_name(&args.event)?;
    let guarded = matches!(event, EventName::Hook(HookEvent::PreToolCall));
    let outcome = guarded.then(|| {
        let message = format!(
            "hooks cannot read its config ({error}): every pre_tool_call call is BLOCKED until \
             it reads; `hooks doctor` shows what is wrong"
        );
        json!({"action": "block", "message": message})
    });
    let document = json!({
        "event": args.event,
        "outcome": outcome,
        "error": error,
        "replies": [],
        "deliveries": [],
        "runs": [],
    });
    writeln!(out, "{document}")?;
    Ok(())
}
