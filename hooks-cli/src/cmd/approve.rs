//! `hooks approve COMMAND [--event EVENT]` and `hooks approve --all`: record
//! consent for configured shell hooks (and hooks imported with `hooks_from:`)
//! without running anything.
//!
//! The approval goes through the shell-hook allowlist API, so the file, its
//! format and its lock are the ones hermes-agent and every other `hooks`
//! command use. Only configured hooks can be approved: an allowlist entry for a
//! command nobody configured would approve whatever is configured under that
//! string later, unseen.

use std::io::Write;

use hermes_hooks_cli::inventory::ImportedRow;
use hermes_hooks_core::display::escape;
use hermes_hooks_shell::{Allowlist, ShellHookSpec, parse_config, still_approved};

use crate::cli::ApproveArgs;
use crate::fire::plural;
use crate::output;
use crate::payload::{UsageError, catalog_event, closest};
use crate::setup::Home;

/// Runs `hooks approve`.
pub fn run(home: &Home, args: &ApproveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut parsed = parse_config(&home.config);
    for warning in &parsed.warnings {
        output::warn_once(&warning.to_string());
    }
    // Hooks imported with `hooks_from:` are shell hooks to the allowlist, keyed
    // on their Hermes event and their command with the project substituted.
    let (imported, discovery) = ImportedRow::scan(home, &Allowlist::in_home(&home.path));
    for warning in &discovery.warnings {
        output::warn_once(&warning.to_string());
    }
    parsed.specs.extend(imported.iter().filter_map(|row| {
        let event = row.hook.event()?;
        Some(ShellHookSpec::new(
            event,
            row.hook.consent_command(),
            &home.path,
        ))
    }));
    let chosen = if args.all {
        if parsed.specs.is_empty() {
            writeln!(
                out,
                "No shell hooks configured in {} — nothing to approve.",
                home.config_display()
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "Approving every configured shell hook ({}):",
            plural(parsed.specs.len(), "hook", "hooks")
        )?;
        parsed.specs.iter().collect()
    } else {
        let command = args.command.as_deref().unwrap_or_default().trim();
        select(home, &parsed.specs, command, args.event.as_deref())?
    };

    let allowlist = Allowlist::in_home(&home.path);
    // An approval whose script's content changed since is approved again
    // (with the new hash), not reported as "already approved".
    let mut approved: Vec<(String, String)> = allowlist
        .approvals()
        .into_iter()
        .filter(|approval| still_approved(approval, &approval.command))
        .map(|approval| (approval.event, approval.command))
        .collect();
    let mut recorded = 0;
    for spec in chosen {
        let event = spec.event.as_str();
        let shown = escape(&spec.command);
        if approved
            .iter()
            .any(|(approved_event, command)| approved_event == event && *command == spec.command)
        {
            writeln!(out, "  [{event}] {shown}: already approved")?;
            continue;
        }
        // The error names the file; a file that does not parse is left as it is.
        allowlist.record(event, &spec.command)?;
        recorded += 1;
        approved.push((event.to_owned(), spec.command.clone()));
        writeln!(out, "  [{event}] {shown}: approved")?;
    }
    writeln!(
        out,
        "{} recorded in {}",
        plural(recorded, "approval", "approvals"),
        allowlist.path().display()
    )?;
    Ok(())
}

/// The configured hooks of `command` (under `event` if given); an error that
/// lists what is configured when there is none.
fn select<'a>(
    home: &Home,
    specs: &'a [ShellHookSpec],
    command: &str,
    event: Option<&str>,
) -> anyhow::Result<Vec<&'a ShellHookSpec>> {
    let of_command: Vec<&ShellHookSpec> = specs
        .iter()
        .filter(|spec| spec.command == command)
        .collect();
    if of_command.is_empty() {
        let mut configured: Vec<&str> = specs.iter().map(|spec| spec.command.as_str()).collect();
        configured.sort_unstable();
        configured.dedup();
        let hint = closest(command, configured.iter().copied())
            .map(|close| format!(" (did you mean '{}'?)", escape(close)))
            .unwrap_or_default();
        let listed = if configured.is_empty() {
            " none".to_owned()
        } else {
            configured
                .iter()
                .map(|command| format!("\n  {}", escape(command)))
                .collect()
        };
        return Err(UsageError(format!(
            "'{}' is not a configured shell hook command in {}{hint}\nConfigured commands:{listed}",
            escape(command),
            home.config_display()
        ))
        .into());
    }
    let Some(event) = event else {
        return Ok(of_command);
    };
    let event = catalog_event(event)?;
    let chosen: Vec<&ShellHookSpec> = of_command
        .iter()
        .copied()
        .filter(|spec| spec.event == event)
        .collect();
    if chosen.is_empty() {
        let mut events: Vec<&str> = of_command.iter().map(|spec| spec.event.as_str()).collect();
        events.dedup();
        return Err(UsageError(format!(
            "'{}' is not configured for {event}; it is configured for: {}",
            escape(command),
            events.join(", ")
        ))
        .into());
    }
    Ok(chosen)
}
