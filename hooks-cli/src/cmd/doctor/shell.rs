//! Doctor's shell-hook checks: executable, allowlisted, unchanged since
//! approval, and answering JSON on a synthetic payload (approved hooks only).

use hermes_hooks_cli::inventory::run::{
    format_seconds, record_spec_run, reply_field_problems, synthetic_payload,
};
use hermes_hooks_cli::inventory::{Kind, ShellHookRow};
use hermes_hooks_core::Event;
use hermes_hooks_core::display::escape as e;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_shell::{Drift, run_once, script_is_executable};

use super::Report;
use crate::fire::truncate;
use crate::output::hooks_command;
use crate::setup::Home;

const INDENT: &str = "      ";

/// Checks every configured shell hook.
/// `imported`: how many hooks `hooks_from:` imports (checked after these).
pub async fn check(home: &Home, rows: &[ShellHookRow], imported: usize, report: &mut Report) {
    if rows.is_empty() {
        let rest = if imported == 0 {
            " — nothing to check".to_owned()
        } else {
            crate::cmd::list::imported_note(imported).replace("listed below", "checked below")
        };
        report.line(format!(
            "No shell hooks configured in {}{rest}.\n",
            home.config_display()
        ));
        return;
    }
    report.line(format!(
        "Checking {} configured shell hook(s)...\n",
        rows.len()
    ));
    for row in rows {
        report.line(format!("  [{}] {}", row.spec.event, e(&row.spec.command)));
        check_one(row, report).await;
        report.line("");
    }
}

async fn check_one(row: &ShellHookRow, report: &mut Report) {
    let spec = &row.spec;
    let name = spec.command.as_str();
    let problem = |report: &mut Report, message: String| {
        report.problem(Kind::ShellHook, name, message, INDENT);
    };
    let executable = script_is_executable(&spec.command);
    if executable {
        report.line(format!("{INDENT}✓ script exists and is executable"));
    } else {
        problem(
            report,
            "script missing or not executable (chmod +x the file, or fix the path)".to_owned(),
        );
    }

    if row.allowlisted {
        report.line(format!(
            "{INDENT}✓ allowlisted (approved {})",
            e(row.approved_at.as_deref().unwrap_or("?"))
        ));
    } else {
        problem(
            report,
            format!(
                "not allowlisted — hook will NOT fire at runtime (review it, then run `{} \
                 approve '{}' --event {}`)",
                hooks_command(),
                spec.command,
                spec.event
            ),
        );
    }

    let changed = row.drift == Some(Drift::ContentChanged);
    if changed {
        problem(
            report,
            format!(
                "script content changed since approval (its SHA-256 differs from the one \
                 recorded) — it will NOT run until approved again: review it, then run `{} \
                 approve '{}' --event {}`",
                hooks_command(),
                spec.command,
                spec.event
            ),
        );
    } else if row.drift == Some(Drift::Unchanged) && row.mtime_at_approval.is_none() {
        report.line(format!("{INDENT}✓ script unchanged since approval"));
    }
    if let Some(approved) = row.mtime_at_approval.as_ref().filter(|_| !changed) {
        match row.drift {
            Some(Drift::Modified) => problem(
                report,
                format!(
                    "script modified since approval (was {approved}, now {}) — review the \
                     changes, then `hooks revoke` and `hooks approve` to refresh",
                    row.mtime_now.as_deref().unwrap_or("?")
                ),
            ),
            Some(Drift::Unchanged) => {
                report.line(format!("{INDENT}✓ script unchanged since approval"));
            }
            _ => {}
        }
    }

    if !row.allowlisted || changed {
        // Code nobody approved is never run here.
        let why = if changed {
            "its script changed since approval"
        } else {
            "not allowlisted yet"
        };
        report.line(format!(
            "{INDENT}ℹ skipped JSON smoke test — {why}. Approve the hook first \
             (`{hooks} approve`), then re-run `{hooks} doctor`.",
            hooks = hooks_command()
        ));
        return;
    }
    if !executable {
        return;
    }
    let event = Event::new(spec.event, synthetic_payload(spec.event, None));
    let (result, parsed) = run_once(spec, &event, &WireContext::current()).await;
    let source = format!("shell:{}", spec.command).into();
    report
        .runs
        .push(record_spec_run(spec, &source, &result, parsed.as_ref()));
    let elapsed = format_seconds(result.elapsed);
    let status = result.exit_code.map_or("?".to_owned(), |c| c.to_string());
    let stdout = result.stdout.trim();
    if result.timed_out {
        problem(
            report,
            format!(
                "timed out after {elapsed}s on synthetic payload (timeout={}s)",
                spec.timeout.as_secs()
            ),
        );
    } else if let Some(error) = &result.error {
        problem(report, format!("execution error: {error}"));
    } else if stdout.is_empty() {
        report.line(format!(
            "{INDENT}✓ ran clean with empty stdout (exit={status}, {elapsed}s) — hook is observer-only"
        ));
    } else if let Ok(reply) = serde_json::from_str::<serde_json::Value>(stdout) {
        // The reply against the generated schema of the event's merge rule.
        let wrong = reply_field_problems(spec.event, &reply);
        if wrong.is_empty() {
            report.line(format!(
                "{INDENT}✓ produced valid JSON on synthetic payload (exit={status}, {elapsed}s)"
            ));
        }
        for field in wrong {
            problem(
                report,
                format!("{field} on synthetic payload (exit={status}, {elapsed}s)"),
            );
        }
    } else {
        problem(
            report,
            format!(
                "stdout was not valid JSON (exit={status}, {elapsed}s): {}",
                truncate(stdout, 120)
            ),
        );
    }
}
