//! `hooks list`: what is configured and found in a Hermes home — shell hooks with
//! their consent and drift, outbound targets, native plugins, gateway hooks — and
//! the config warnings, so a typo shows where the user looks.

use std::collections::BTreeMap;
use std::io::Write;

use hooks_shell::{Allowlist, Drift, ShellHookSpec, mtime_drift, parse_config, script_mtime_iso};

use crate::cli::ListArgs;
use crate::setup::Home;

/// Runs `hooks list`.
pub fn run(home: &Home, _args: &ListArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let shell = parse_config(&home.config);
    let outbound = hooks_outbound::parse_config(&home.config);
    let plugins = hooks_plugin::discover(&home.path, &home.config);
    let gateway = hooks_gateway::discover(&home.path);

    if shell.specs.is_empty() && outbound.targets.is_empty() {
        writeln!(
            out,
            "No shell hooks or outbound webhooks configured in {}.",
            home.config_display()
        )?;
        writeln!(out, "See `hooks --help` or `hooks events` and the README")?;
        writeln!(out, "for the config schema and worked examples.")?;
        writeln!(out)?;
    } else {
        list_shell(home, &shell.specs, out)?;
        list_outbound(&outbound.targets, out)?;
    }
    if !plugins.found.is_empty() {
        writeln!(out, "Native plugins ({} found):\n", plugins.found.len())?;
        for plugin in &plugins.found {
            writeln!(out, "  - {} ({})", plugin.key, plugin.status)?;
            if !plugin.hooks.is_empty() {
                writeln!(out, "      hooks:   {}", plugin.hooks.join(", "))?;
            }
        }
        writeln!(out)?;
    }
    if !gateway.hooks.is_empty() {
        writeln!(out, "Gateway hooks ({} found):\n", gateway.hooks.len())?;
        for hook in &gateway.hooks {
            writeln!(out, "  - {} ({})", hook.name, hook.handler_path().display())?;
            writeln!(out, "      events:  {}", hook.events.join(", "))?;
        }
        writeln!(out)?;
    }

    let warnings: Vec<String> = shell
        .warnings
        .iter()
        .chain(&outbound.warnings)
        .chain(&plugins.warnings)
        .map(ToString::to_string)
        .chain(gateway.warnings.iter().map(ToString::to_string))
        .collect();
    if !warnings.is_empty() {
        writeln!(out, "Warnings ({}):\n", warnings.len())?;
        for warning in warnings {
            writeln!(out, "  ⚠ {warning}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn list_shell(home: &Home, specs: &[ShellHookSpec], out: &mut dyn Write) -> anyhow::Result<()> {
    if specs.is_empty() {
        writeln!(
            out,
            "No shell hooks configured in {}.\n",
            home.config_display()
        )?;
        return Ok(());
    }
    let allowlist = Allowlist::in_home(&home.path);
    let mut by_event: BTreeMap<&str, Vec<&ShellHookSpec>> = BTreeMap::new();
    for spec in specs {
        by_event.entry(spec.event.as_str()).or_default().push(spec);
    }
    writeln!(out, "Configured shell hooks ({} total):\n", specs.len())?;
    for (event, specs) in by_event {
        writeln!(out, "  [{event}]")?;
        for spec in specs {
            let entry = allowlist.entry_for(event, &spec.command);
            let consent = if entry.is_some() {
                "✓ allowed"
            } else {
                "✗ not allowlisted"
            };
            let matcher = spec
                .matcher
                .pattern()
                .map(|m| format!(" matcher='{m}'"))
                .unwrap_or_default();
            let fail = if spec.fail_closed {
                ", fail_closed"
            } else {
                ""
            };
            writeln!(
                out,
                "    - {}{matcher} (timeout={}s{fail}, {consent})",
                spec.command,
                spec.timeout.as_secs()
            )?;
            let Some(approval) = entry else { continue };
            if let Some(approved_at) = &approval.approved_at {
                writeln!(out, "      approved_at: {approved_at}")?;
            }
            let now = script_mtime_iso(&spec.command);
            let was = approval.script_mtime_at_approval.as_deref();
            if mtime_drift(was, now.as_deref()) == Drift::Modified {
                writeln!(
                    out,
                    "      ⚠ script modified since approval (was {}, now {}) — run `hooks doctor` \
                     to re-validate",
                    was.unwrap_or("?"),
                    now.as_deref().unwrap_or("?")
                )?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

fn list_outbound(
    targets: &[hooks_outbound::TargetSpec],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "Configured outbound webhooks ({} total):\n",
        targets.len()
    )?;
    for target in targets {
        let events: Vec<&str> = target.events.iter().map(|e| e.as_str()).collect();
        let matcher = target
            .matcher
            .pattern()
            .map(|m| format!(" matcher='{m}'"))
            .unwrap_or_default();
        let signed = if target.is_signed() {
            "signed"
        } else {
            "UNSIGNED"
        };
        writeln!(out, "  - {}", target.label())?;
        writeln!(out, "      url:     {}", target.url)?;
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
