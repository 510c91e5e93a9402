//! `hooks doctor`: how each outbound target delivers — best effort or through
//! the durable spool (and what the spool holds) — and, for NATS targets,
//! whether the server and the stream answer.

use std::time::Duration;

use hermes_hooks_core::display::escape as e;
use hermes_hooks_outbound::DeliveryMode;
use hermes_hooks_outbound::nats::Probe;
use hermes_hooks_outbound::spool::{Spool, spool_path};

use super::Report;
use crate::setup::Home;
use hermes_hooks_cli::inventory::{Inventory, Kind};

/// How long a NATS server may take to answer the doctor.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Adds the delivery section (nothing without outbound targets).
pub async fn check(home: &Home, inventory: &Inventory, report: &mut Report) {
    if inventory.outbound.is_empty() {
        return;
    }
    report.line(format!(
        "Checking how {} outbound target(s) deliver...\n",
        inventory.outbound.len()
    ));
    let mut spool_checked = false;
    for row in &inventory.outbound {
        let label = row.label();
        match row.target.delivery {
            DeliveryMode::Durable => report.line(format!(
                "  - {}: durable (spooled until a 2xx; max_age {}s, max_spool {})",
                e(&label),
                row.target.max_age.as_secs(),
                row.target.max_spool
            )),
            _ => report.line(format!(
                "  - {}: best_effort (in memory, one retry)",
                e(&label)
            )),
        }
        if row.target.delivery == DeliveryMode::Durable && !spool_checked {
            spool_checked = true;
            check_spool(home, &label, report);
        }
        match row.probe(PROBE_TIMEOUT).await {
            Some(Probe::StreamReady) => report.line("      ✓ NATS server answers; stream ready"),
            Some(Probe::StreamMissing) => report.line(
                "      ℹ NATS server answers; the stream is missing and is created at the first publish",
            ),
            Some(Probe::Unreachable(error)) => report.problem(
                Kind::Outbound,
                &label,
                format!("NATS server not answering: {error}"),
                "      ",
            ),
            _ => {}
        }
    }
    report.line("");
}

/// The spool's health (writable, size, free space) and counts; a spool that
/// cannot be written, a nearly full disk and dead letters are problems.
fn check_spool(home: &Home, label: &str, report: &mut Report) {
    let path = spool_path(&home.path);
    let shown = hermes_hooks_cli::show_path(&path);
    let folder = path.parent().unwrap_or(&path);
    let free = free_bytes(if folder.exists() { folder } else { &home.path });
    if let Some(free) = free
        && free < LOW_SPACE
    {
        report.problem(
            Kind::Outbound,
            label,
            format!(
                "only {} free where the spool lives: durable deliveries are held in memory, then lost (spool_failed)",
                bytes(free)
            ),
            "      ",
        );
    }
    if !path.exists() {
        report.line(format!("      ℹ spool {shown} not created yet"));
        return;
    }
    let size: u64 = ["", "-wal"]
        .iter()
        .filter_map(|suffix| {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            std::fs::metadata(name).ok().map(|meta| meta.len())
        })
        .sum();
    let opened = Spool::open(&path);
    let written = opened
        .as_ref()
        .map_err(ToString::to_string)
        .and_then(|spool| spool.probe_write().map_err(|error| error.to_string()));
    match written {
        Ok(()) => report.line(format!(
            "      ✓ spool {shown}: writable, {}, {} free",
            bytes(size),
            free.map_or_else(|| "?".to_owned(), bytes)
        )),
        Err(error) => report.problem(
            Kind::Outbound,
            label,
            format!("the durable spool cannot be written: {error}"),
            "      ",
        ),
    }
    match opened.and_then(|spool| spool.counts()) {
        Ok((pending, 0)) => {
            report.line(format!("      ✓ spool {shown}: {pending} pending, 0 dead"))
        }
        Ok((pending, dead)) => {
            report.line(format!("      ℹ spool {shown}: {pending} pending"));
            report.problem(
                Kind::Outbound,
                label,
                format!("{dead} dead letter(s) in the spool — see `hooks spool`, then `hooks spool retry` or `purge --dead`"),
                "      ",
            );
        }
        Err(error) => report.problem(
            Kind::Outbound,
            label,
            format!("the durable spool cannot be read: {error}"),
            "      ",
        ),
    }
}

/// Below this much free space the spool is about to fail.
const LOW_SPACE: u64 = 1 << 20;

/// The bytes free to an unprivileged writer on `folder`'s file system.
fn free_bytes(folder: &std::path::Path) -> Option<u64> {
    let stat = nix::sys::statvfs::statvfs(folder).ok()?;
    Some(stat.blocks_available().saturating_mul(stat.fragment_size()))
}

fn bytes(count: u64) -> String {
    match count {
        0..1024 => format!("{count} B"),
        1024..1_048_576 => format!("{:.1} KiB", count as f64 / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1} MiB", count as f64 / 1_048_576.0),
        _ => format!("{:.1} GiB", count as f64 / 1_073_741_824.0),
    }
}
