//! `hooks spool`: what the durable spool of a home holds (pending deliveries
//! and dead letters), and `retry` / `purge` for operators.

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use hermes_hooks_core::display::escape;
use hermes_hooks_outbound::spool::{Spool, SpoolRow, SpoolTable, spool_path};
use serde_json::json;

use crate::cli::{SpoolAction, SpoolArgs};
use crate::payload::UsageError;
use crate::setup::Home;

/// Runs `hooks spool`.
pub fn run(home: &Home, args: &SpoolArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let path = spool_path(&home.path);
    let shown = hermes_hooks_cli::show_path(&path);
    // Listing never creates a spool; changing one needs it to exist.
    if !path.exists() {
        if let Some(action) = &args.action
            && matches!(
                action,
                SpoolAction::Retry {
                    delivery_id: Some(_),
                    ..
                }
            )
        {
            return Err(UsageError(format!("no spool at {shown}")).into());
        }
        if args.json {
            let empty = json!({"spool": shown, "exists": false, "pending": [], "dead": []});
            writeln!(out, "{empty}")?;
        } else {
            writeln!(
                out,
                "no spool at {shown} (no durable delivery was ever made)"
            )?;
        }
        return Ok(());
    }
    let spool = Spool::open(&path).context("opening the durable spool")?;
    match &args.action {
        None => list(&spool, &shown, args.json, out),
        Some(SpoolAction::Retry { delivery_id, all }) => {
            let id = if *all { None } else { delivery_id.as_deref() };
            let count = spool.retry(id)?;
            if count == 0
                && let Some(id) = id
            {
                return Err(UsageError(format!(
                    "no delivery {} in {shown} (or it is being sent right now)",
                    escape(id)
                ))
                .into());
            }
            if args.json {
                writeln!(out, "{}", json!({"spool": shown, "retried": count}))?;
            } else {
                writeln!(out, "{count} delivery(ies) due now")?;
            }
            Ok(())
        }
        Some(SpoolAction::Purge { dead }) => {
            let count = spool.purge(*dead)?;
            if args.json {
                writeln!(out, "{}", json!({"spool": shown, "purged": count}))?;
            } else {
                let what = if *dead {
                    "dead letter(s)"
                } else {
                    "delivery(ies)"
                };
                writeln!(out, "purged {count} {what}")?;
            }
            Ok(())
        }
    }
}

fn list(spool: &Spool, shown: &str, as_json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let pending = spool.list(SpoolTable::Pending)?;
    let dead = spool.list(SpoolTable::Dead)?;
    if as_json {
        let now = now_ms();
        // The numbers `hooks deliver --metrics` serves, per target.
        let targets: Vec<serde_json::Value> = spool
            .stats()?
            .iter()
            .map(|target| {
                json!({
                    "target": target.target,
                    "pending": target.pending,
                    "in_flight": target.in_flight,
                    "dead": target.dead,
                    "oldest_pending_age_seconds": target
                        .oldest_created_ms
                        .map_or(0.0, |oldest| (now - oldest).max(0) as f64 / 1000.0),
                })
            })
            .collect();
        let document = json!({
            "spool": shown,
            "exists": true,
            "pending": pending.iter().map(row_json).collect::<Vec<_>>(),
            "dead": dead.iter().map(row_json).collect::<Vec<_>>(),
            "targets": targets,
        });
        writeln!(out, "{document}")?;
        return Ok(());
    }
    writeln!(
        out,
        "{shown}: {} pending, {} dead",
        pending.len(),
        dead.len()
    )?;
    let now = now_ms();
    for row in pending.iter().chain(&dead) {
        let when = match row.state {
            SpoolTable::Pending if row.next_attempt_ms <= now => "due now".to_owned(),
            SpoolTable::Pending => format!("next in {}", since(row.next_attempt_ms - now)),
            SpoolTable::Dead => format!("died {} ago", since(now - row.next_attempt_ms)),
        };
        let state = match row.state {
            SpoolTable::Pending => "pending",
            SpoolTable::Dead => "dead",
        };
        writeln!(
            out,
            "  {state:<7} {} {} {} attempts={} {when}{}",
            escape(&row.target),
            escape(&row.event),
            escape(&row.delivery_id),
            row.attempts,
            row.last_error
                .as_deref()
                .map(|error| format!(" last_error={}", escape(error)))
                .unwrap_or_default()
        )?;
    }
    Ok(())
}

/// One row for `--json`: its fields, with the times as ISO 8601 too.
fn row_json(row: &SpoolRow) -> serde_json::Value {
    let mut value = serde_json::to_value(row).unwrap_or_default();
    let key = match row.state {
        SpoolTable::Pending => "next_attempt",
        SpoolTable::Dead => "died",
    };
    value[key] = json!(iso(row.next_attempt_ms));
    value["created"] = json!(iso(row.created_ms));
    value
}

/// UTC ISO 8601, as the bodies' `timestamp`.
fn iso(ms: i64) -> String {
    let at = UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    hermes_hooks_outbound::request::iso_timestamp(at)
}

fn since(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    match seconds {
        0..=119 => format!("{seconds}s"),
        120..=7199 => format!("{}m", seconds / 60),
        _ => format!("{}h", seconds / 3600),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
