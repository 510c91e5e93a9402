//! `hooks list`: what is configured and found in a Hermes home — shell hooks with
//! their consent and drift, outbound targets, plugins (native ones described by
//! their last trial load, with their ABI version, hooks and prompt sections), gateway
//! hooks with their handler's last trial import — and the config warnings, so a typo
//! shows where the user looks. It runs no hook or plugin code: what plugins
//! register comes from `doctor`'s cached trial loads. Every text from config is escaped.

use std::collections::BTreeMap;
use std::io::Write;

use hermes_hooks_cli::inventory::{
    GatewayRow, Inventory, NATIVE_TRUST_NOTE, OutboundRow, PluginKind, PluginRow, PluginState,
    Probe, ShellHookRow,
};
use hermes_hooks_core::config::Scope;
use hermes_hooks_core::display::escape as e;
use hermes_hooks_shell::Drift;

use crate::cli::ListArgs;
use crate::setup::Home;

/// Runs `hooks list`.
pub fn run(home: &Home, args: &ListArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    // Static: `list` runs no hook or plugin code (doctor's trial loads are cached).
    let inventory = Inventory::scan(home, &Probe::Static);
    if args.json {
        writeln!(out, "{}", inventory.to_json())?;
        return Ok(());
    }
    let imported = imported_count(&inventory);
    if inventory.shell_hooks.is_empty() && inventory.outbound.is_empty() && imported == 0 {
        writeln!(
            out,
            "No shell hooks or outbound webhooks configured in {}.",
            home.config_display()
        )?;
        writeln!(out, "See `hooks --help` or `hooks events` and the README")?;
        writeln!(out, "for the config schema and worked examples.")?;
        writeln!(out)?;
    } else {
        list_shell(home, &inventory.shell_hooks, imported, out)?;
        list_outbound(&inventory.outbound, out)?;
    }
    list_plugins(&inventory.plugins, out)?;
    list_gateway(&inventory.gateway_hooks, out)?;
    list_imported(&inventory, &home.project, out)?;
    if !inventory.warnings.is_empty() {
        writeln!(out, "Warnings ({}):\n", inventory.warnings.len())?;
        for warning in &inventory.warnings {
            writeln!(out, "  ⚠ {}", e(&warning.message))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// How many hooks `hooks_from:` imports (run or not), for the opening summary.
pub fn imported_count(inventory: &Inventory) -> usize {
    inventory.imported_hooks.len() + inventory.unsupported_hooks.len()
}

/// The imported hooks the opening line points to, when the home has any.
pub fn imported_note(imported: usize) -> String {
    if imported == 0 {
        String::new()
    } else {
        format!(
            "; {} imported from other agents' settings (hooks_from:), listed below",
            crate::fire::plural(imported, "hook", "hooks")
        )
    }
}

fn list_shell(
    home: &Home,
    rows: &[ShellHookRow],
    imported: usize,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if rows.is_empty() {
        writeln!(
            out,
            "No shell hooks configured in {}{}.\n",
            home.config_display(),
            imported_note(imported)
        )?;
        return Ok(());
    }
    let mut by_event: BTreeMap<&str, Vec<&ShellHookRow>> = BTreeMap::new();
    for row in rows {
        by_event
            .entry(row.spec.event.as_str())
            .or_default()
            .push(row);
    }
    writeln!(out, "Configured shell hooks ({} total):\n", rows.len())?;
    if let Some(managed) = home.config.managed_path() {
        writeln!(
            out,
            "  (entries marked `managed` come from the managed scope {}, which wins over {})\n",
            hermes_hooks_cli::show_path(managed),
            home.config_display()
        )?;
    }
    for (event, rows) in by_event {
        writeln!(out, "  [{event}]")?;
        for row in rows {
            let consent = if row.standing == hermes_hooks_shell::Standing::Unbound {
                "✗ approval has no binding: approve it again"
            } else if row.drift == Some(Drift::ContentChanged) {
                "✗ changed since approval"
            } else if row.allowlisted {
                "✓ allowed"
            } else {
                "✗ not allowlisted"
            };
            let matcher = row
                .spec
                .matcher
                .pattern()
                .map(|m| format!(" matcher='{}'", e(m)))
                .unwrap_or_default();
            let fail = if row.spec.fail_closed {
                ", fail_closed"
            } else {
                ""
            };
            // Only the managed scope is marked: it is the unusual, pinned case.
            let scope = if row.scope == Scope::Managed {
                ", managed"
            } else {
                ""
            };
            writeln!(
                out,
                "    - {}{matcher} (timeout={}s{fail}{scope}, {consent})",
                e(&row.spec.command),
                row.spec.timeout.as_secs()
            )?;
            if let Some(approved_at) = &row.approved_at {
                writeln!(out, "      approved_at: {}", e(approved_at))?;
            }
            if !row.spec.sandbox.is_none() {
                writeln!(out, "      {}", e(&row.sandbox().line()))?;
            }
            if row.drift == Some(Drift::ContentChanged) {
                writeln!(
                    out,
                    "      ⚠ script content changed since approval — it will not run until \
                     approved again (`hooks doctor` for details)"
                )?;
            }
            if row.drift == Some(Drift::Modified) {
                writeln!(
                    out,
                    "      ⚠ script modified since approval (was {}, now {}) — run `hooks doctor` \
                     to re-validate",
                    e(row.mtime_at_approval.as_deref().unwrap_or("?")),
                    e(row.mtime_now.as_deref().unwrap_or("?"))
                )?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

fn list_outbound(rows: &[OutboundRow], out: &mut dyn Write) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "Configured outbound webhooks ({} total):\n",
        rows.len()
    )?;
    for row in rows {
        let target = &row.target;
        let events: Vec<&str> = target.events.iter().map(|e| e.as_str()).collect();
        let matcher = target
            .matcher
            .pattern()
            .map(|m| format!(" matcher='{}'", e(m)))
            .unwrap_or_default();
        let signed = if target.is_signed() {
            "signed"
        } else {
            "UNSIGNED"
        };
        writeln!(out, "  - {}", e(&row.label()))?;
        writeln!(out, "      url:     {}", e(&row.url()))?;
        writeln!(
            out,
            "      events:  {}{matcher} (timeout={}s, {signed})",
            events.join(", "),
            target.timeout.as_secs()
        )?;
        writeln!(
            out,
            "      delivery: {} (concurrency={})",
            row.delivery(),
            target.concurrency
        )?;
        if let Some(nats) = &target.nats {
            let probe = probe_now(row);
            writeln!(
                out,
                "      nats:    subject={}.<event> stream={} ({probe})",
                e(&nats.subject),
                e(&nats.stream)
            )?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Whether a NATS target's server and stream answer, in words (at most 2 s;
/// `list` is synchronous, so the probe runs on this thread's runtime).
fn probe_now(row: &OutboundRow) -> String {
    use hermes_hooks_outbound::nats::Probe;
    let probe = tokio::task::block_in_place(|| {
        tokio::runtime::Handle::current().block_on(row.probe(std::time::Duration::from_secs(2)))
    });
    match probe {
        Some(Probe::StreamReady) => "server answers; stream ready".to_owned(),
        Some(Probe::StreamMissing) => {
            "server answers; stream missing, created at the first publish".to_owned()
        }
        Some(Probe::Unreachable(error)) => format!("server NOT answering: {}", e(&error)),
        _ => "not probed".to_owned(),
    }
}

fn list_plugins(rows: &[PluginRow], out: &mut dyn Write) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "Plugins ({} found):\n", rows.len())?;
    for row in rows {
        let state = match row.state {
            PluginState::NotInspected => "enabled",
            other => other.as_str(),
        };
        let mut head = format!("  - {} ({}, {state}", e(&row.key), row.kind.as_str());
        if let Some(version) = row.abi_version {
            head.push_str(&format!(", ABI v{version}"));
        }
        if row.required {
            head.push_str(", required");
        }
        head.push(')');
        match (&row.state, &row.reason) {
            (PluginState::Failed, Some(reason)) => head.push_str(&format!(": {}", e(reason))),
            (PluginState::Disabled | PluginState::NotInspected, Some(reason)) => {
                head.push_str(&format!(" — {}", e(reason)))
            }
            _ => {}
        }
        writeln!(out, "{head}")?;
        if row.name != row.key {
            writeln!(out, "      name:    {}", e(&row.name))?;
        }
        if row.state == PluginState::Loaded {
            let hooks = if row.hooks.is_empty() {
                "(none)".to_owned()
            } else {
                e(&row.hooks.join(", ")).into_owned()
            };
            writeln!(out, "      hooks:   {hooks}")?;
            let sections = if row.prompt_sections.is_empty() {
                "(none)".to_owned()
            } else {
                e(&row.prompt_sections.join(", ")).into_owned()
            };
            writeln!(out, "      prompt sections: {sections}")?;
        }
        if let Some(interpreter) = &row.interpreter {
            writeln!(out, "      interpreter: {}", e(interpreter))?;
        }
    }
    writeln!(out)?;
    if rows.iter().any(|row| row.kind == PluginKind::Native) {
        writeln!(out, "  Note: {NATIVE_TRUST_NOTE}\n")?;
    }
    Ok(())
}

fn list_gateway(rows: &[GatewayRow], out: &mut dyn Write) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "Gateway hooks ({} found):\n", rows.len())?;
    for row in rows {
        let state = match (&row.error, row.inspected) {
            (Some(error), _) => format!("failed: {}", e(error)),
            (None, true) => "loaded".to_owned(),
            (None, false) => "not inspected yet — run `hooks doctor` to trial-import it".to_owned(),
        };
        writeln!(
            out,
            "  - {} ({}, {state})",
            e(&row.info.name),
            row.info.handler.file_name()
        )?;
        writeln!(
            out,
            "      handler: {}",
            hermes_hooks_cli::show_path(&row.info.handler_path())
        )?;
        writeln!(out, "      events:  {}", e(&row.info.events.join(", ")))?;
        if let Some((_, interpreter)) = &row.interpreter {
            writeln!(out, "      interpreter: {}", e(interpreter))?;
        }
    }
    writeln!(out)?;
    Ok(())
}

fn list_imported(
    inventory: &Inventory,
    project: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (rows, unsupported) = (&inventory.imported_hooks, &inventory.unsupported_hooks);
    // A project that is the user's home has the user's own settings files.
    let home_is_project = hermes_hooks_core::home::user_home().as_deref() == Some(project);
    for file in &inventory.imported_disabled_by {
        let what = if home_is_project {
            "your own Claude Code hooks (~/.claude) are off, by your own settings file (the \
             project is your home folder); managed hooks still run"
        } else if file.starts_with(project) {
            "this project's Claude Code hooks are off (your own ~/.claude and managed hooks still run)"
        } else {
            "Claude Code hooks are off (yours and the project's)"
        };
        writeln!(
            out,
            "{what}: disableAllHooks is true in {}\n",
            hermes_hooks_cli::show_path(file)
        )?;
    }
    for file in inventory.full_power_sources() {
        writeln!(
            out,
            "UNSANDBOXED: {}: {}\n",
            hermes_hooks_cli::show_path(&file),
            hermes_hooks_shell::unsandboxed::FULL_POWER
        )?;
    }
    for guard in &inventory.shell_guards_down {
        writeln!(
            out,
            "BLOCKED: every {} call: {}\n",
            guard.event,
            e(&guard.block_reason())
        )?;
    }
    for guard in &inventory.imported_guards_down {
        let field = if guard.key.is_empty() {
            String::new()
        } else {
            format!(" {}", e(&guard.key))
        };
        writeln!(
            out,
            "BLOCKED: every {} call: a fail-closed {} hook cannot run: {}{field}: {}; {}\n",
            guard.event,
            guard.dialect,
            e(&hermes_hooks_cli::show_path(&guard.source)),
            e(&guard.reason),
            guard.fix
        )?;
    }
    if rows.is_empty() && unsupported.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "Imported hooks ({} found, hooks_from:):\n",
        rows.len() + unsupported.len()
    )?;
    for row in rows {
        let hook = &row.hook;
        let ours = hook.event().map_or_else(
            || hermes_hooks_cli::inventory::imported::NEVER_FIRED.to_owned(),
            |event| format!("→ {event}"),
        );
        let consent = match (hook.event(), row.allowlisted, &row.standing) {
            (None, ..) => String::new(),
            (Some(_), true, _) => ", ✓ allowed".to_owned(),
            (Some(_), false, standing) => format!(
                ", ✗ {}",
                standing
                    .why_not()
                    .unwrap_or_else(|| "not allowlisted".to_owned())
            ),
        };
        let consent = if hook.fail_closed && hook.event().is_some() && !row.allowlisted {
            format!("{consent} (fails closed: its tool calls are blocked until approved)")
        } else {
            consent
        };
        let clamped = hook
            .timeout_clamped_from
            .map(|asked| format!(" (asked {asked}s, clamped)"))
            .unwrap_or_default();
        let fail = if hook.fail_closed {
            ", fail_closed"
        } else {
            ""
        };
        writeln!(
            out,
            "  - [{} {}] {ours}: {}",
            hook.dialect,
            e(&hook.their_event),
            e(&hook.shown_command())
        )?;
        writeln!(
            out,
            "      {} {} ({} scope): {}, timeout={}s{clamped}{fail}{consent}",
            row.kind(),
            e(&hermes_hooks_cli::show_path(&hook.source)),
            hook.scope.as_str(),
            e(&hook.key),
            hook.timeout.as_secs()
        )?;
        if let Some(matcher) = hook.matcher.describe() {
            writeln!(out, "      matcher: '{}'", e(&matcher))?;
        }
        if let Some(condition) = &hook.condition {
            let rule = hermes_hooks_cli::inventory::imported::condition_text(condition);
            writeln!(out, "      if: {}", e(&rule))?;
        }
        if let Some(approved_at) = &row.approved_at {
            writeln!(out, "      approved_at: {}", e(approved_at))?;
        }
        if row.kind() == "command" && !hook.sandbox.is_none() {
            writeln!(out, "      {}", e(&row.sandbox().line()))?;
        }
    }
    for entry in unsupported {
        writeln!(
            out,
            "  - [{} {}] unsupported: {} hooks cannot run here{}",
            entry.dialect,
            e(&entry.their_event),
            e(&entry.kind),
            hermes_hooks_cli::inventory::imported::fails_closed_note(entry)
        )?;
        writeln!(
            out,
            "      {}: {}",
            e(&hermes_hooks_cli::show_path(&entry.source)),
            e(&entry.key)
        )?;
    }
    writeln!(out)?;
    Ok(())
}
