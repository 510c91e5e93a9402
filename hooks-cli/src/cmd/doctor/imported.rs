//! Doctor's checks of hooks imported with `hooks_from:`, as it checks shell
//! hooks: runnable, allowlisted, answering on a synthetic payload (approved
//! hooks only); an event Hermes never fires and an unsupported handler type
//! are problems (configured, but they will not work as written).

use hermes_hooks_cli::inventory::imported::NEVER_FIRED;
use hermes_hooks_cli::inventory::run::{format_seconds, run_imported_once, synthetic_payload};
use hermes_hooks_cli::inventory::{ImportedRow, Inventory, Kind};
use hermes_hooks_core::Event;
use hermes_hooks_core::display::escape as e;
use hermes_hooks_shell::dialect::Handler;
use hermes_hooks_shell::script_is_executable;

use super::Report;
use crate::output::hooks_command;

const INDENT: &str = "      ";

/// Checks every imported hook (nothing when `hooks_from:` imports none).
pub async fn check(inventory: &Inventory, report: &mut Report) {
    let (rows, unsupported) = (&inventory.imported_hooks, &inventory.unsupported_hooks);
    if rows.is_empty() && unsupported.is_empty() {
        return;
    }
    report.line(format!(
        "Checking {} imported hook(s) (hooks_from:)...\n",
        rows.len() + unsupported.len()
    ));
    for row in rows {
        let hook = &row.hook;
        report.line(format!(
            "  [{} {}] {}",
            hook.dialect,
            e(&hook.their_event),
            e(&hook.shown_command())
        ));
        check_one(row, report).await;
        report.line("");
    }
    for entry in unsupported {
        report.line(format!(
            "  [{} {}] {}",
            entry.dialect,
            e(&entry.their_event),
            e(&entry.key)
        ));
        report.problem(
            Kind::ImportedHook,
            &entry.key,
            format!(
                "{}: '{}' hooks cannot run here (only command and http); it never runs{}",
                entry.source.display(),
                entry.kind,
                hermes_hooks_cli::inventory::imported::fails_closed_note(entry)
            ),
            INDENT,
        );
        report.line("");
    }
}

async fn check_one(row: &ImportedRow, report: &mut Report) {
    let hook = &row.hook;
    let name = hook.shown_command();
    let problem = |report: &mut Report, message: String| {
        report.problem(Kind::ImportedHook, &name, message, INDENT);
    };
    let Some(event) = hook.event() else {
        problem(
            report,
            format!(
                "{} event '{}' — {NEVER_FIRED}; it never runs",
                hook.dialect, hook.their_event
            ),
        );
        return;
    };
    report.line(format!("{INDENT}✓ runs on {event}"));
    if let Some(asked) = hook.timeout_clamped_from {
        report.line(format!(
            "{INDENT}ℹ timeout {asked}s clamped to {}s",
            hook.timeout.as_secs()
        ));
    }
    let runnable = match &hook.handler {
        Handler::Command { .. } => {
            let line = without_redirections(&name);
            let ok = script_is_executable(&line) || !line.contains('/');
            if ok {
                report.line(format!("{INDENT}✓ command found"));
            } else {
                problem(
                    report,
                    "script missing or not executable (chmod +x the file, or fix the path)"
                        .to_owned(),
                );
            }
            ok
        }
        _ => true,
    };
    if !row.allowlisted {
        let why = match &row.standing {
            hermes_hooks_shell::Standing::NotApproved => "not allowlisted".to_owned(),
            standing => standing
                .why_not()
                .unwrap_or_else(|| "not allowlisted".to_owned()),
        };
        let effect = if hook.fail_closed {
            "it fails closed: the tool calls it matches are BLOCKED at runtime"
        } else {
            "hook will NOT fire at runtime"
        };
        problem(
            report,
            format!(
                "{why} — {effect} (review it, then run `{hooks} approve '{name}' --event {event}`)",
                hooks = hooks_command()
            ),
        );
        report.line(format!(
            "{INDENT}ℹ skipped the smoke test — not allowlisted yet."
        ));
        return;
    }
    report.line(format!(
        "{INDENT}✓ allowlisted (approved {})",
        e(row.approved_at.as_deref().unwrap_or("?"))
    ));
    if !runnable {
        return;
    }
    let probe = Event::new(event, synthetic_payload(event, None));
    let (result, replies) = run_imported_once(hook, &probe).await;
    let elapsed = format_seconds(result.elapsed);
    if result.timed_out {
        problem(
            report,
            format!("timed out after {elapsed}s on a synthetic payload"),
        );
    } else if let Some(error) = &result.error {
        problem(report, format!("execution error: {error}"));
    } else {
        let status = result.exit_code.map_or("?".to_owned(), |c| c.to_string());
        let answer = replies
            .first()
            .map_or("no decision".to_owned(), ToString::to_string);
        report.line(format!(
            "{INDENT}✓ ran on a synthetic payload (exit={status}, {elapsed}s): {}",
            e(&answer)
        ));
    }
}

/// `command` without its redirections (`>/dev/null`, `2>&1`, `< in.json`):
/// the words that name what it runs. `cat >/dev/null`, the usual first line
/// of a Claude Code guard, read `>/dev/null` as a missing script (sweep 58,
/// U58-1).
fn without_redirections(command: &str) -> String {
    let Some(words) = shlex::split(command) else {
        return command.to_owned();
    };
    let mut kept: Vec<String> = Vec::new();
    let mut target_next = false;
    for word in words {
        if std::mem::take(&mut target_next) {
            continue;
        }
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if operator.starts_with(['>', '<']) {
            // `>` alone: its target is the next word.
            target_next = operator.trim_start_matches(['>', '<', '|']).is_empty();
            continue;
        }
        kept.push(word);
    }
    shlex::try_join(kept.iter().map(String::as_str)).unwrap_or_else(|_| kept.join(" "))
}

#[cfg(test)]
mod tests {
    use super::without_redirections;

    #[test]
    fn redirections_are_not_the_script() {
        assert_eq!(without_redirections("cat >/dev/null"), "cat");
        assert_eq!(without_redirections("echo hi 2>/dev/null"), "echo hi");
        assert_eq!(without_redirections("echo hi > /dev/null"), "echo hi");
        assert_eq!(without_redirections("cat </dev/null"), "cat");
        assert_eq!(
            without_redirections("python3 ~/x.py 2>&1 >>/tmp/log"),
            "python3 '~/x.py'"
        );
    }
}
