//! `hooks list`: what is configured and found in a Hermes home — shell hooks with
//! their consent and drift, outbound targets, plugins (native ones described by
//! a child process, with their ABI version, hooks and prompt sections), gateway
//! hooks with their handler's trial import — and the config warnings, so a typo
//! shows where the user looks. Every text from config is escaped.

use std::collections::BTreeMap;
use std::io::Write;

use hermes_hooks_cli::inspect::ChildInspector;
use hermes_hooks_cli::inventory::{
    GatewayRow, Inventory, NATIVE_TRUST_NOTE, OutboundRow, PluginKind, PluginRow, PluginState,
    ShellHookRow,
};
use hermes_hooks_core::display::escape as e;
use hermes_hooks_shell::Drift;

use crate::cli::ListArgs;
use crate::setup::Home;

/// Runs `hooks list`.
pub fn run(home: &Home, args: &ListArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let inventory = Inventory::scan(home, &ChildInspector::current_exe()?);
    if args.json {
        writeln!(out, "{}", inventory.to_json())?;
        return Ok(());
    }
    if inventory.shell_hooks.is_empty() && inventory.outbound.is_empty() {
        writeln!(
            out,
            "No shell hooks or outbound webhooks configured in {}.",
            home.config_display()
        )?;
        writeln!(out, "See `hooks --help` or `hooks events` and the README")?;
        writeln!(out, "for the config schema and worked examples.")?;
        writeln!(out)?;
    } else {
        list_shell(home, &inventory.shell_hooks, out)?;
        list_outbound(&inventory.outbound, out)?;
    }
    list_plugins(&inventory.plugins, out)?;
    list_gateway(&inventory.gateway_hooks, out)?;
    list_imported(&inventory, out)?;
    if !inventory.warnings.is_empty() {
        writeln!(out, "Warnings ({}):\n", inventory.warnings.len())?;
        for warning in &inventory.warnings {
            writeln!(out, "  ⚠ {}", e(&warning.message))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn list_shell(home: &Home, rows: &[ShellHookRow], out: &mut dyn Write) -> anyhow::Result<()> {
    if rows.is_empty() {
        writeln!(
            out,
            "No shell hooks configured in {}.\n",
            home.config_display()
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
    for (event, rows) in by_event {
        writeln!(out, "  [{event}]")?;
        for row in rows {
            let consent = if row.allowlisted {
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
            writeln!(
                out,
                "    - {}{matcher} (timeout={}s{fail}, {consent})",
                e(&row.spec.command),
                row.spec.timeout.as_secs()
            )?;
            if let Some(approved_at) = &row.approved_at {
                writeln!(out, "      approved_at: {}", e(approved_at))?;
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
    }
    writeln!(out)?;
    Ok(())
}

fn list_plugins(rows: &[PluginRow], out: &mut dyn Write) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "Plugins ({} found):\n", rows.len())?;
    for row in rows {
        let mut head = format!(
            "  - {} ({}, {}",
            e(&row.key),
            row.kind.as_str(),
            row.state.as_str()
        );
        if let Some(version) = row.abi_version {
            head.push_str(&format!(", ABI v{version}"));
        }
        if row.required {
            head.push_str(", required");
        }
        head.push(')');
        match (&row.state, &row.reason) {
            (PluginState::Failed, Some(reason)) => head.push_str(&format!(": {}", e(reason))),
            (PluginState::Disabled, Some(reason)) => head.push_str(&format!(" — {}", e(reason))),
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
        let state = match &row.error {
            Some(error) => format!("failed: {}", e(error)),
            None => "loaded".to_owned(),
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

fn list_imported(inventory: &Inventory, out: &mut dyn Write) -> anyhow::Result<()> {
    let (rows, unsupported) = (&inventory.imported_hooks, &inventory.unsupported_hooks);
    for file in &inventory.imported_disabled_by {
        writeln!(
            out,
            "Claude Code hooks are off: disableAllHooks is true in {}\n",
            hermes_hooks_cli::show_path(file)
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
        let consent = match (hook.event(), row.allowlisted) {
            (None, _) => "",
            (Some(_), true) => ", ✓ allowed",
            (Some(_), false) => ", ✗ not allowlisted",
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
            e(&hook.consent_command())
        )?;
        writeln!(
            out,
            "      {} {}: {}, timeout={}s{clamped}{fail}{consent}",
            row.kind(),
            e(&hermes_hooks_cli::show_path(&hook.source)),
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
    }
    for entry in unsupported {
        writeln!(
            out,
            "  - [{} {}] unsupported: {} hooks cannot run here",
            entry.dialect,
            e(&entry.their_event),
            e(&entry.kind)
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
