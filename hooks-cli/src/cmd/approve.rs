//! `hooks approve COMMAND [--event EVENT]` and `hooks approve --all`: record
//! consent for configured shell hooks (and hooks imported with `hooks_from:`)
//! without running anything.
//!
//! The approval goes through the shell-hook allowlist API, so the file, its
//! format and its lock are the ones hermes-agent and every other `hooks`
//! command use. Only configured hooks can be approved: an allowlist entry for a
//! command nobody configured would approve whatever is configured under that
//! string later, unseen.
//!
//! Each approval is bound to what the hook runs now (see
//! `hermes_hooks_shell::binding`): the project, every file it reaches, or its
//! whole hook tree; for an http hook its URL, headers and allowed env vars.
//! What is approved is printed first: the file it comes from and everything
//! it runs or sends.

use std::io::Write;

use hermes_hooks_cli::inventory::ImportedRow;
use hermes_hooks_cli::inventory::run::describe_subject;
use hermes_hooks_core::display::escape;
use hermes_hooks_shell::consent::FingerprintKey;
use hermes_hooks_shell::{
    Allowlist, AllowlistError, ShellHookSpec, Subject, parse_config, standing,
};

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
    let mut subjects: Vec<Subject> = parsed
        .specs
        .iter()
        .map(|spec| Subject::native(spec.event.as_str(), &spec.command, Some(home.config.path())))
        .collect();
    // How each hook is shown (an http hook's URL credentials masked): the
    // hint `hooks test` prints names the hook this way, so it selects too.
    let mut shown: Vec<String> = parsed.specs.iter().map(|s| s.command.clone()).collect();
    for row in &imported {
        let Some(event) = row.hook.event() else {
            continue;
        };
        parsed.specs.push(ShellHookSpec::new(
            event,
            row.hook.consent_command(),
            &home.path,
        ));
        subjects.push(row.hook.subject());
        shown.push(row.hook.shown_command());
    }
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
        select(home, &parsed.specs, &shown, command, args.event.as_deref())?
    };

    let allowlist = Allowlist::in_home(&home.path);
    let approvals = allowlist.approvals();
    // Masked header values' fingerprints, keyed per home.
    let key = FingerprintKey::of_allowlist(&allowlist);
    let mut recorded = 0;
    let mut refused = 0;
    let mut done: Vec<&Subject> = Vec::new();
    // Each hook tree hashed once for all the hooks, not once per hook.
    let _trees = hermes_hooks_shell::binding::TreeCache::new().enter();
    for spec in chosen {
        let Some(at) = parsed.specs.iter().position(|s| std::ptr::eq(s, spec)) else {
            continue;
        };
        let subject = &subjects[at];
        if done.contains(&subject) {
            continue;
        }
        done.push(subject);
        let event = spec.event.as_str();
        let shown = escape(&shown[at]);
        // An approval that no longer holds (changed, another project, no
        // binding) is approved again, not reported as "already approved".
        if standing(&approvals, subject).is_approved() {
            writeln!(out, "  [{event}] {shown}: already approved")?;
            continue;
        }
        // The error names the file; a file that does not parse is left as it
        // is. With `--all`, a hook that cannot be approved is reported and
        // the others are approved all the same (issue 27 audit, U1).
        let approval = match allowlist.record_subject(subject) {
            Ok(approval) => approval,
            Err(error @ AllowlistError::Unbindable { .. }) if args.all => {
                writeln!(out, "  [{event}] {shown}: not approved: {error}")?;
                refused += 1;
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        recorded += 1;
        writeln!(out, "  [{event}] {shown}: approved")?;
        write!(
            out,
            "{}",
            describe_subject(subject, approval.binding.as_ref(), &key)
        )?;
    }
    writeln!(
        out,
        "{} recorded in {}",
        plural(recorded, "approval", "approvals"),
        allowlist.path().display()
    )?;
    if refused > 0 {
        return Err(UsageError(format!(
            "{} could not be approved (see above)",
            plural(refused, "hook", "hooks")
        ))
        .into());
    }
    Ok(())
}

/// The configured hooks of `command` (under `event` if given); an error that
/// lists what is configured when there is none.
fn select<'a>(
    home: &Home,
    specs: &'a [ShellHookSpec],
    shown: &[String],
    command: &str,
    event: Option<&str>,
) -> anyhow::Result<Vec<&'a ShellHookSpec>> {
    let of_command: Vec<&ShellHookSpec> = specs
        .iter()
        .zip(shown)
        .filter(|(spec, shown)| spec.command == command || *shown == command)
        .map(|(spec, _)| spec)
        .collect();
    if of_command.is_empty() {
        let mut configured: Vec<&str> = shown.iter().map(String::as_str).collect();
        configured.sort_unstable();
        configured.dedup();
        let hint = closest(command, configured.iter().copied())
            .map(|close| {
                format!(
                    " (did you mean '{}'?)",
                    hermes_hooks_shell::shown_hook_command(close)
                )
            })
            .unwrap_or_default();
        let listed = if configured.is_empty() {
            " none".to_owned()
        } else {
            configured
                .iter()
                .map(|command| format!("\n  {}", hermes_hooks_shell::shown_hook_command(command)))
                .collect()
        };
        return Err(UsageError(format!(
            "'{}' is not a configured shell hook command in {}{hint}\nConfigured commands:{listed}",
            hermes_hooks_shell::shown_hook_command(command),
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
            hermes_hooks_shell::shown_hook_command(command),
            events.join(", ")
        ))
        .into());
    }
    Ok(chosen)
}
