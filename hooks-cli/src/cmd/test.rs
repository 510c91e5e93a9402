//! `hooks test EVENT`: fire every configured shell hook for EVENT on a synthetic payload.
//!
//! Imported hooks (Claude Code, Codex, Cursor files: a repository's code
//! among them) obey consent exactly as a host does: one that is not approved
//! for what it runs now (never approved, changed since, approved in another
//! project or without a binding) is not run; it is shown as skipped, with why
//! and what to run. The user's own `config.yaml` hooks run as the reference's
//! `hermes hooks test` runs them, marked "not allowlisted" where a host would
//! not run them yet. `--accept-hooks` records the approvals first and runs
//! them all (see docs/decisions/consent-binds-to-what-runs.md).

use std::io::Write;

use hermes_hooks_core::display::escape;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Event, HookRun, Reply, RunStatus};
use hermes_hooks_shell::{Allowlist, RunResult, ShellHookSpec, parse_config, run_once};
use serde_json::{Value, json};

use hermes_hooks_cli::inventory::ImportedRow;
use hermes_hooks_cli::inventory::run::{
    format_seconds, our_tool, record_spec_run, run_imported_recorded, sandbox_denials,
    synthetic_payload,
};
use hermes_hooks_shell::dialect::dispatch::applies;

use crate::cli::TestArgs;

mod consent;
mod guards_down;

use crate::fire::{millis, plural, runs_json, truncate};
use crate::output;
use crate::payload::{catalog_event, dialect_event, read_payload};
use crate::setup::Home;
use consent::{consent, consent_imported};

/// Runs `hooks test`. `accept` is `--accept-hooks`.
pub async fn run(
    home: &Home,
    accept: bool,
    args: &TestArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // Claude Code / Codex / Cursor event and tool names are taken too
    // (`hooks test PreToolUse --for-tool Bash`): then only imported hooks of that event run.
    let (event_name, theirs) = match catalog_event(&args.event) {
        Ok(event) => (event, None),
        Err(error) => match dialect_event(&args.event) {
            Some(event) => (event, Some(args.event.as_str())),
            None => return Err(error),
        },
    };
    // With their event name, their tool name too (`Bash` → `terminal`); with ours, as given.
    let for_tool = args.for_tool.as_deref().map(|tool| {
        if theirs.is_some() {
            our_tool(tool)
        } else {
            tool
        }
    });
    let mut payload = synthetic_payload(event_name, for_tool);
    if let Some(file) = &args.payload_file {
        payload.extend(read_payload(file, event_name.as_str())?);
    }
    let event = Event::new(event_name, payload);

    let config = parse_config(&home.config);
    let specs: Vec<ShellHookSpec> = (config.specs.iter())
        .filter(|spec| spec.event == event_name && theirs.is_none())
        .filter(|spec| match for_tool {
            Some(tool) if event_name.meta().tool_matcher => spec.matches_tool(Some(tool)),
            _ => true,
        })
        .cloned()
        .collect();
    let (imported_rows, discovery) = ImportedRow::scan(home, &Allowlist::in_home(&home.path));
    let mut down = guards_down::of(&discovery, &config, event_name);
    let imported: Vec<ImportedRow> = imported_rows
        .into_iter()
        .filter(|row| row.hook.event() == Some(event_name))
        .filter(|row| theirs.is_none_or(|name| row.hook.their_event == name))
        .filter(|row| for_tool.is_none() || applies(&row.hook, &event))
        .collect();

    if specs.is_empty() && imported.is_empty() && down.is_empty() {
        if args.json {
            writeln!(
                out,
                "{}",
                json!({"event": args.event, "hooks": [], "outcome": null, "runs": []})
            )?;
            return Ok(());
        }
        writeln!(out, "No shell hooks configured for event: {}", args.event)?;
        if let Some(tool) = &args.for_tool {
            writeln!(out, "(with matcher filter --for-tool={tool})")?;
        }
        return Ok(());
    }

    // Imported hooks run only when approved (as in a host); the others are listed as skipped.
    let allowlisted = consent(home, accept, &specs);
    let imported_allowed = consent_imported(home, accept, &imported);
    let mut skipped: Vec<consent::Skipped> = Vec::new();
    let hint = |command: &str| {
        format!(
            "{} approve '{command}' --event {event_name}",
            output::hooks_command()
        )
    };
    // A config.yaml hook reaching the folder it runs in (`sh tools/g.sh`,
    // `make -s lint`) runs that folder's code: like an imported hook, only
    // once approved there (sweep 59, H1).
    let (specs, allowlisted): (Vec<ShellHookSpec>, Vec<(bool, String)>) = specs
        .into_iter()
        .zip(allowlisted)
        .filter_map(|(spec, (allowed, why))| {
            if allowed || !consent::reaches_folder(home, &spec) {
                return Some((spec, (allowed, why)));
            }
            let source = format!("shell:{}", spec.command);
            let shown = hermes_hooks_shell::shown_hook_command(&spec.command);
            let withheld = (source, shown.as_str(), why.as_str(), hint(&shown));
            consent::withhold(spec.blocks_on_failure(), withheld, &mut skipped, &mut down);
            None
        })
        .unzip();
    // The user's own config.yaml hooks run as the reference's `hooks test`
    // runs them, marked "not allowlisted" when they are not (the user wrote
    // them and asked to test them); imported hooks, a repository's code among
    // them, run only once approved.
    let native_pending = allowlisted.iter().filter(|(allowed, _)| !*allowed).count();
    let imported: Vec<ImportedRow> = imported
        .into_iter()
        .zip(&imported_allowed)
        .filter_map(|(row, (allowed, why))| match why {
            _ if *allowed => Some(row),
            why => {
                let command = row.hook.shown_command();
                let source = format!("{}:{command}", row.hook.dialect);
                let blocks =
                    row.hook.fail_closed && event_name == hermes_hooks_core::HookEvent::PreToolCall;
                let withheld = (source, command.as_str(), why.as_str(), hint(&command));
                consent::withhold(blocks, withheld, &mut skipped, &mut down);
                None
            }
        })
        .collect();
    let allowlisted: Vec<bool> = allowlisted.iter().map(|(allowed, _)| *allowed).collect();
    let imported_allowed: Vec<bool> = vec![true; imported.len()];
    let skipped_records: Vec<HookRun> = skipped
        .iter()
        .map(|(source, _, why, hint)| {
            HookRun::new(
                "shell",
                source.clone(),
                event.name(),
                RunStatus::Skipped(why.clone()),
            )
            .diagnostic(format!(
                "not run: {why}; review it, then run `{hint}` (or use --accept-hooks)"
            ))
        })
        .collect();
    let context = WireContext::current();
    let mut runs = Vec::with_capacity(specs.len());
    for spec in &specs {
        runs.push(run_once(spec, &event, &context).await);
    }
    let imported_runs = futures_join(&imported, &event).await;
    let replies: Vec<Reply> = specs
        .iter()
        .zip(&runs)
        .filter_map(|(spec, (_, parsed))| {
            parsed
                .clone()
                .map(|value| Reply::new(format!("shell:{}", spec.command), value))
        })
        .chain(
            imported
                .iter()
                .zip(&imported_runs)
                .flat_map(|(row, (_, values, _))| {
                    let source = format!("{}:{}", row.hook.dialect, row.hook.shown_command());
                    values
                        .iter()
                        .map(move |value| Reply::new(source.clone(), value.clone()))
                }),
        )
        .chain(down.iter().map(guards_down::GuardDown::reply))
        .collect();
    let outcome = hermes_hooks_core::merge::merge(&event, &replies);
    // Imported hooks' records are the dispatcher's own (mechanism `imported`).
    let records: Vec<HookRun> = specs
        .iter()
        .zip(&runs)
        .map(|(spec, (result, parsed))| record(spec, result, parsed.as_ref()))
        .chain(imported_runs.iter().map(|(_, _, run)| run.clone()))
        .chain(skipped_records.iter().cloned())
        .chain(down.iter().map(|guard| guard.record(&event)))
        .collect();

    if args.json {
        let hooks: Vec<Value> = specs
            .iter()
            .zip(&runs)
            .zip(&allowlisted)
            .map(|((spec, (result, parsed)), allowed)| {
                let mut line = run_json(spec, result, parsed.as_ref());
                line["allowlisted"] = Value::Bool(*allowed);
                sandbox_json(&mut line, result, args.explain);
                line
            })
            .chain(
                imported
                    .iter()
                    .zip(&imported_runs)
                    .zip(&imported_allowed)
                    .map(|((row, (result, values, _)), allowed)| {
                        let mut line = imported_json(row, result, values, *allowed);
                        sandbox_json(&mut line, result, args.explain);
                        line
                    }),
            )
            .chain(skipped.iter().map(|(source, command, why, hint)| {
                json!({"command": command, "source": source, "allowlisted": false,
                       "skipped": why, "approve_with": hint})
            }))
            .chain(down.iter().map(guards_down::GuardDown::json))
            .collect();
        let document = json!({
            "event": args.event,
            "hooks": hooks,
            "outcome": outcome.to_wire(),
            "runs": runs_json(&records),
        });
        writeln!(out, "{document}")?;
        return Ok(());
    }

    writeln!(
        out,
        "Firing {} for event '{}':\n",
        // Every hook listed below: run, blocked in place, or skipped (round 77, R77-U3).
        plural(
            specs.len() + imported.len() + down.len() + skipped.len(),
            "hook",
            "hooks"
        ),
        args.event
    )?;
    for guard in &down {
        let blocked = output::paint(output::Stream::Stdout, "31", "blocked");
        writeln!(
            out,
            "  → {}
      {blocked}: {}
",
            escape(&guard.source),
            escape(&guard.message)
        )?;
    }
    for (_, command, why, hint) in &skipped {
        writeln!(
            out,
            "  → {}",
            hermes_hooks_shell::shown_hook_command(command)
        )?;
        writeln!(
            out,
            "      {}: {} — review it, then run `{}` (or use --accept-hooks)\n",
            output::paint(output::Stream::Stdout, "33", "skipped"),
            escape(why),
            escape(hint)
        )?;
    }
    for (((spec, (result, parsed)), allowed), record) in
        specs.iter().zip(&runs).zip(&allowlisted).zip(&records)
    {
        writeln!(
            out,
            "  → {}",
            hermes_hooks_shell::shown_hook_command(&spec.command)
        )?;
        if !allowed {
            writeln!(
                out,
                "      {}: would not run at runtime until approved \
                 ({} approve {} --event {})",
                output::paint(output::Stream::Stdout, "33", "not allowlisted"),
                output::hooks_command(),
                hermes_hooks_shell::shown_hook_command(&spec.command),
                spec.event
            )?;
        }
        print_run(result, parsed.as_ref(), out)?;
        print_sandbox(result, args.explain, out)?;
        print_record(record, out)?;
        writeln!(out)?;
    }
    for ((row, (result, values, record)), allowed) in
        imported.iter().zip(&imported_runs).zip(&imported_allowed)
    {
        let hook = &row.hook;
        writeln!(
            out,
            "  → [{} {}] {}",
            hook.dialect,
            escape(&hook.their_event),
            escape(&hook.shown_command())
        )?;
        if !allowed {
            writeln!(
                out,
                "      {}: would not run at runtime until approved \
                 ({} approve '{}' --event {})",
                output::paint(output::Stream::Stdout, "33", "not allowlisted"),
                output::hooks_command(),
                escape(&hook.shown_command()),
                event_name
            )?;
        }
        print_run(result, values.first(), out)?;
        print_sandbox(result, args.explain, out)?;
        print_record(record, out)?;
        writeln!(out)?;
    }
    let pending = skipped.len() + native_pending;
    let label = if native_pending > 0 {
        "Merged outcome once approved"
    } else if pending > 0 {
        "Merged outcome of the approved hooks"
    } else {
        "Merged outcome"
    };
    match outcome.to_wire() {
        Some(wire) => writeln!(out, "{label}: {}", escape(&wire.to_string()))?,
        None => writeln!(out, "{label}: none — the hooks contribute nothing")?,
    }
    if pending > 0 {
        writeln!(
            out,
            "({} not allowlisted yet: at runtime a hook runs only once approved for what it runs now, \
             with `hooks approve` or --accept-hooks)",
            plural(pending, "hook", "hooks")
        )?;
    }
    Ok(())
}

/// The run record of one hook run by `test` (the hook's `allowlisted` flag
/// stays in its `hooks` entry: `test` runs it either way).
fn record(spec: &ShellHookSpec, result: &RunResult, parsed: Option<&Value>) -> HookRun {
    let source = format!("shell:{}", spec.command).into();
    record_spec_run(spec, &source, result, parsed)
}

/// The status of a run record and its diagnostics, one line each.
fn print_record(record: &HookRun, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "      status: {}", escape(&record.status.to_string()))?;
    for line in &record.diagnostics {
        writeln!(out, "      ! {}", escape(line))?;
    }
    Ok(())
}

/// Runs each imported hook once, in parallel as at runtime: the run, its
/// replies and its record.
async fn futures_join(
    rows: &[ImportedRow],
    event: &Event,
) -> Vec<(RunResult, Vec<Value>, HookRun)> {
    let mut runs = Vec::with_capacity(rows.len());
    let handles: Vec<_> = rows
        .iter()
        .map(|row| {
            let (hook, event) = (row.hook.clone(), event.clone());
            let source = format!("{}:{}", hook.dialect, hook.shown_command());
            let task = tokio::spawn(async move { run_imported_recorded(&hook, &event).await });
            (task, source)
        })
        .collect();
    for (handle, source) in handles {
        runs.push(handle.await.unwrap_or_else(|error| {
            // The run panicked (a bug): said in its record, never dropped.
            let failure = format!("the run panicked: {error}");
            let run = HookRun::new("imported", source, event.name(), RunStatus::Failed)
                .diagnostic(failure.clone());
            let result = RunResult::failed(failure);
            (result, Vec::new(), run)
        }));
    }
    runs
}

/// One imported hook's line in `--json` output: the shell keys plus its format and events.
fn imported_json(row: &ImportedRow, result: &RunResult, values: &[Value], allowed: bool) -> Value {
    let hook = &row.hook;
    json!({
        "command": hook.shown_command(),
        "matcher": hook.matcher.describe(),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "elapsed_ms": millis(result.elapsed),
        "stdout": result.stdout,
        "stderr": result.stderr,
        "error": result.error,
        "parsed": values.first(),
        "allowlisted": allowed,
        "format": hook.dialect.as_str(),
        "source": hook.source.display().to_string(),
        "their_event": hook.their_event,
    })
}

/// Adds `sandbox` (the profile it ran in, or null) and, with `--explain`,
/// `denied` (what its stderr shows the sandbox denied) to a `--json` line.
fn sandbox_json(line: &mut Value, result: &RunResult, explain: bool) {
    line["sandbox"] = json!(result.sandbox);
    if explain {
        line["denied"] = json!(sandbox_denials(result));
    }
}

/// The run's sandbox, and with `--explain` what it was denied.
fn print_sandbox(result: &RunResult, explain: bool, out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(profile) = &result.sandbox {
        writeln!(out, "      sandbox: {}", escape(profile))?;
    }
    if explain {
        let denied = sandbox_denials(result);
        if denied.is_empty() {
            writeln!(out, "      denied by the sandbox: nothing seen on stderr")?;
        }
        for line in denied {
            writeln!(out, "      denied by the sandbox: {}", escape(&line))?;
        }
    }
    Ok(())
}

/// One hook's line in `--json` output (the keys are a stable interface).
fn run_json(spec: &ShellHookSpec, result: &RunResult, parsed: Option<&Value>) -> Value {
    json!({
        "command": spec.command,
        "matcher": spec.matcher.pattern(),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "elapsed_ms": millis(result.elapsed),
        "stdout": result.stdout,
        "stderr": result.stderr,
        "error": result.error,
        "parsed": parsed,
    })
}

/// Prints one run the way `hermes hooks test` does.
pub fn print_run(
    result: &RunResult,
    parsed: Option<&Value>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let elapsed = format_seconds(result.elapsed);
    if let Some(error) = &result.error {
        writeln!(out, "      ✗ error: {}", escape(error))?;
    } else if result.timed_out {
        writeln!(out, "      ✗ timed out after {elapsed}s")?;
    } else {
        let status = match (result.exit_code, result.signal) {
            (Some(code), _) => code.to_string(),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "?".to_owned(),
        };
        writeln!(out, "      exit={status}  elapsed={elapsed}s")?;
        let stdout = result.stdout.trim();
        let stderr = result.stderr.trim();
        if !stdout.is_empty() {
            writeln!(out, "      stdout: {}", escape(&truncate(stdout, 400)))?;
        }
        if !stderr.is_empty() {
            writeln!(out, "      stderr: {}", escape(&truncate(stderr, 400)))?;
        }
    }
    match parsed {
        Some(parsed) => writeln!(
            out,
            "      parsed (Hermes wire shape): {}",
            escape(&parsed.to_string())
        ),
        None => writeln!(
            out,
            "      parsed: <none — hook contributed nothing to the dispatcher>"
        ),
    }
}
