//! `hooks doctor`: check everything a home configures — shell hooks (executable,
//! allowlisted, unchanged since approval, answering JSON), outbound targets (URL,
//! secret), plugins (each enabled one trial-loaded in a child process of its
//! own, all at once, each bounded by `--timeout`), and gateway hooks
//! (manifest, trial import of `handler.py` with the interpreter that will run
//! it, under the same bound), and every way the runtime would treat the
//! config differently from what it says. Exits 1 when it finds a problem.
//!
//! A hook that is not allowlisted is never run: doctor must not execute scripts a
//! freshly pulled config added before the user reviewed them.

mod elsewhere;
mod imported;
mod sandbox;
mod shell;

use std::io::Write;

use hermes_hooks_cli::inventory::{
    Inventory, Kind, NATIVE_TRUST_NOTE, PluginKind, PluginRow, PluginState, Probe, Trials, Warning,
};
use hermes_hooks_core::display::escape as e;
use serde_json::json;

use crate::cli::DoctorArgs;
use crate::setup::Home;

/// The error `doctor` ends with when it found problems: the command exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0} problem(s) found")]
pub struct ProblemsFound(pub usize);

/// One problem: what it is about and what is wrong.
#[derive(Debug, Clone)]
pub struct Problem {
    kind: Kind,
    name: String,
    message: String,
}

/// What the checks found: lines for people, problems for both.
#[derive(Default)]
pub struct Report {
    lines: Vec<String>,
    problems: Vec<Problem>,
    /// The run records of the hooks doctor ran (the shell smoke tests).
    runs: Vec<hermes_hooks_core::HookRun>,
}

impl Report {
    /// A line of the human report.
    fn line(&mut self, text: impl Into<String>) {
        self.lines.push(text.into());
    }

    /// A problem, with its line (`✗ message`) at `indent`.
    fn problem(&mut self, kind: Kind, name: &str, message: impl Into<String>, indent: &str) {
        let message = message.into();
        self.lines.push(format!("{indent}✗ {}", e(&message)));
        self.problems.push(Problem {
            kind,
            name: name.to_owned(),
            message,
        });
    }
}

/// Runs `hooks doctor`.
pub async fn run(home: &Home, args: &DoctorArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    // Every trial load in its own child process, all at once, under one bound.
    let probe = Probe::Trial(Trials::current_exe(args.timeout)?);
    let inventory = tokio::task::block_in_place(|| Inventory::scan(home, &probe));
    let mut report = Report::default();
    let imported = crate::cmd::list::imported_count(&inventory);
    shell::check(home, &inventory.shell_hooks, imported, &mut report).await;
    imported::check(&inventory, &mut report).await;
    check_outbound(&inventory, &mut report);
    durable::check(home, &inventory, &mut report).await;
    check_plugins(&inventory.plugins, &mut report);
    check_gateway(&inventory, &mut report);
    check_warnings(&inventory, &mut report);
    let sandbox = sandbox::check(&inventory, &mut report).await;

    let problems = report.problems.len();
    if args.json {
        let document = json!({
            "ok": problems == 0,
            "problems": report.problems.iter().map(|p| json!({
                "kind": p.kind.as_str(),
                "name": p.name,
                "message": p.message,
            })).collect::<Vec<_>>(),
            "runs": crate::fire::runs_json(&report.runs),
            "sandbox": sandbox,
        });
        writeln!(out, "{document}")?;
    } else {
        for line in &report.lines {
            writeln!(out, "{line}")?;
        }
        if problems > 0 {
            writeln!(
                out,
                "{problems} problem(s) found. Fix them before relying on these hooks."
            )?;
            if let Some(note) = elsewhere::note(home) {
                writeln!(out, "\n{note}")?;
            }
        } else {
            writeln!(
                out,
                "No problems found: everything configured looks healthy."
            )?;
        }
    }
    if problems > 0 {
        out.flush()?;
        return Err(ProblemsFound(problems).into());
    }
    Ok(())
}

mod durable;

/// What hooks-outbound (as Hermes) says of every `http://` target.
const PLAIN_HTTP_WARNING: &str = "uses plain http://";

fn check_outbound(inventory: &Inventory, report: &mut Report) {
    if inventory.outbound.is_empty() {
        return;
    }
    report.line(format!(
        "Checking {} outbound webhook target(s)...\n",
        inventory.outbound.len()
    ));
    for row in &inventory.outbound {
        report.line(format!("  - {} ({})", e(&row.label()), e(&row.url())));
        let label = row.label();
        let own: Vec<&Warning> = inventory
            .warnings
            .iter()
            .filter(|w| w.kind == Kind::Outbound && w.name == label)
            .collect();
        for warning in own {
            if row.is_loopback_http() && warning.message.contains(PLAIN_HTTP_WARNING) {
                // Loopback never crosses a network: said, not counted.
                report.line(
                    "      ℹ plain http:// to this machine (loopback): payloads never leave it",
                );
                continue;
            }
            report.problem(Kind::Outbound, &label, warning.message.clone(), "      ");
        }
        if row.target.is_signed() {
            report.line("      ✓ URL valid; deliveries are signed");
        } else {
            report.line("      ℹ URL valid; deliveries are UNSIGNED");
        }
        report.line("");
    }
}

fn check_plugins(rows: &[PluginRow], report: &mut Report) {
    if rows.is_empty() {
        return;
    }
    report.line(format!("Checking {} plugin(s)...\n", rows.len()));
    for row in rows {
        report.line(format!("  - {} ({})", e(&row.key), row.kind.as_str()));
        match (row.state, row.kind) {
            (PluginState::Loaded, PluginKind::Native) => report.line(format!(
                "      ✓ loads in a child process: ABI v{}, hooks: {}",
                row.abi_version.unwrap_or_default(),
                e(&row.hooks.join(", "))
            )),
            (PluginState::Loaded, PluginKind::Python) => {
                report.line(format!("      ✓ registers: {}", e(&row.hooks.join(", "))));
            }
            (PluginState::Disabled, _) => report.line(format!(
                "      - {}",
                e(row.reason.as_deref().unwrap_or("disabled"))
            )),
            // Failed, or a state this build does not know: not proven to run.
            _ => {
                let required = if row.required {
                    " (required: every pre_tool_call is blocked)"
                } else {
                    ""
                };
                report.problem(
                    Kind::Plugin,
                    &row.key,
                    format!(
                        "plugin '{}': {}{required}",
                        row.key,
                        row.error().unwrap_or("failed")
                    ),
                    "      ",
                );
            }
        }
        if let Some(interpreter) = &row.interpreter {
            report.line(format!("      interpreter: {}", e(interpreter)));
        }
    }
    report.line("");
    if rows.iter().any(|row| row.kind == PluginKind::Native) {
        report.line(format!("Note: {NATIVE_TRUST_NOTE}\n"));
    }
}

fn check_gateway(inventory: &Inventory, report: &mut Report) {
    if inventory.gateway_hooks.is_empty() {
        return;
    }
    report.line(format!(
        "Checking {} gateway hook(s)...\n",
        inventory.gateway_hooks.len()
    ));
    for row in &inventory.gateway_hooks {
        report.line(format!(
            "  - {} ({})",
            e(&row.info.name),
            row.info.handler.file_name()
        ));
        match (&row.error, &row.interpreter) {
            (Some(error), _) => report.problem(
                Kind::GatewayHook,
                &row.info.name,
                format!("gateway hook '{}': {error}", row.info.name),
                "      ",
            ),
            (None, Some((_, interpreter))) => report.line(format!(
                "      ✓ handler.py imports with {}",
                e(interpreter)
            )),
            (None, None) => report.line("      ✓ handler is executable"),
        }
    }
    report.line("");
}

/// Every other warning met while reading the home is a problem too: each is
/// something configured that does not work as written.
fn check_warnings(inventory: &Inventory, report: &mut Report) {
    let failed_plugins: Vec<&str> = inventory
        .plugins
        .iter()
        .filter(|row| row.state == PluginState::Failed)
        .map(|row| row.key.as_str())
        .collect();
    let targets: Vec<String> = inventory.outbound.iter().map(|row| row.label()).collect();
    let rest: Vec<&Warning> = inventory
        .warnings
        .iter()
        // A registered target's warnings were shown under it.
        .filter(|w| !(w.kind == Kind::Outbound && targets.contains(&w.name)))
        // A failed plugin's warning repeats the failure already counted.
        .filter(|w| !(w.kind == Kind::Plugin && failed_plugins.contains(&w.name.as_str())))
        // An unsupported imported handler was counted under the imported hooks.
        .filter(|w| {
            !(w.kind == Kind::ImportedHook
                && inventory
                    .unsupported_hooks
                    .iter()
                    .any(|u| w.name == format!("{}.type", u.key)))
        })
        .collect();
    if rest.is_empty() {
        return;
    }
    report.line(format!("Config warnings ({}):", rest.len()));
    for warning in rest {
        report.problem(warning.kind, &warning.name, warning.message.clone(), "  ");
    }
    report.line("");
}
