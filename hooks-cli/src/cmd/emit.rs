//! `hooks emit EVENT`: fire one event through every mechanism, as a host would,
//! wait for its webhook deliveries, and print the outcome.

use std::io::Write;

use hooks_core::Event;
use hooks_core::Payload;
use hooks_core::display::escape;
use hooks_outbound::Outbound;
use hooks_outbound::outbound::SHUTDOWN_FLUSH_TIMEOUT;
use serde_json::{Value, json};

use crate::cli::EmitArgs;
use crate::fire::{deliveries_json, fire};
use crate::payload::{host_event, host_event_name, read_payload};
use crate::setup::{Delivery, Home, Mechanisms};

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
    let abandoned = abandoned(mechanisms.outbound(), &fired.event, &deliveries);

    if args.json {
        let document = json!({
            "event": args.event,
            "outcome": fired.outcome_wire(),
            "replies": fired.replies_json(),
            "deliveries": all_deliveries(&deliveries, &abandoned),
        });
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
    for delivery in &deliveries {
        writeln!(out, "  webhook {}", escape(&delivery.to_text()))?;
    }
    for delivery in &abandoned {
        writeln!(
            out,
            "  webhook {} {} abandoned (still pending after the {} s bound)",
            escape(&delivery.target),
            delivery.event,
            SHUTDOWN_FLUSH_TIMEOUT.as_secs()
        )?;
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

/// A delivery of this event that had not finished when the flush bound ran out.
struct Abandoned {
    target: String,
    event: String,
}

/// The deliveries of `event` that have no report: every target that wants the
/// event gets one delivery (or a `dropped` report), so a wanting target
/// without a report for it was still queued or in flight when we stopped
/// waiting. Listed rather than left out, so "abandoned" never reads as "no target".
fn abandoned(outbound: Option<&Outbound>, event: &Event, finished: &[Delivery]) -> Vec<Abandoned> {
    let (Some(outbound), Some(hook)) = (outbound, event.name().hook()) else {
        return Vec::new();
    };
    let name = event.name().as_str();
    outbound
        .targets()
        .filter(|target| target.wants(hook, event.tool_name()))
        .filter(|target| {
            !finished
                .iter()
                .any(|delivery| delivery.0.target == target.label() && delivery.0.event == name)
        })
        .map(|target| Abandoned {
            target: target.label().to_owned(),
            event: name.to_owned(),
        })
        .collect()
}

/// The finished deliveries' reports, then the abandoned ones in the same shape
/// with the outcome `{"kind": "abandoned"}` (nothing is known of their attempts).
fn all_deliveries(finished: &[Delivery], abandoned: &[Abandoned]) -> Value {
    let mut all = match deliveries_json(finished) {
        Value::Array(all) => all,
        _ => Vec::new(),
    };
    all.extend(abandoned.iter().map(|delivery| {
        json!({
            "target": delivery.target,
            "event": delivery.event,
            "delivery_id": null,
            "attempts": null,
            "status": null,
            "outcome": {"kind": "abandoned"},
            "elapsed_ms": null,
        })
    }));
    Value::Array(all)
}
