//! `hooks test EVENT`: fire every configured shell hook for EVENT on a synthetic payload.
//!
//! Like the reference, it runs hooks that are not allowlisted yet (an explicit
//! user action) and goes through the production spawn-and-evaluate path.

use std::io::Write;

use hooks_core::wire::WireContext;
use hooks_core::{Event, Reply};
use hooks_shell::{RunResult, ShellHookSpec, parse_config, run_once, synthetic_payload};
use serde_json::{Value, json};

use crate::cli::TestArgs;
use crate::fire::truncate;
use crate::payload::{catalog_event, read_object};
use crate::setup::Home;

/// Runs `hooks test`.
pub async fn run(home: &Home, args: &TestArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let event_name = catalog_event(&args.event)?;
    let mut payload = synthetic_payload(event_name, args.for_tool.as_deref());
    if let Some(file) = &args.payload_file {
        payload.extend(read_object(file)?);
    }
    let event = Event::new(event_name, payload);

    let specs: Vec<ShellHookSpec> = parse_config(&home.config)
        .specs
        .into_iter()
        .filter(|spec| spec.event == event_name)
        .filter(|spec| match &args.for_tool {
            Some(tool) if event_name.meta().tool_matcher => spec.matches_tool(Some(tool)),
            _ => true,
        })
        .collect();

    if specs.is_empty() {
        if args.json {
            writeln!(
                out,
                "{}",
                json!({"event": args.event, "hooks": [], "outcome": null})
            )?;
            return Ok(());
        }
        writeln!(out, "No shell hooks configured for event: {}", args.event)?;
        if let Some(tool) = &args.for_tool {
            writeln!(out, "(with matcher filter --for-tool={tool})")?;
        }
        return Ok(());
    }

    let context = WireContext::current();
    let mut runs = Vec::with_capacity(specs.len());
    for spec in &specs {
        runs.push(run_once(spec, &event, &context).await);
    }
    let replies: Vec<Reply> = specs
        .iter()
        .zip(&runs)
        .filter_map(|(spec, (_, parsed))| {
            parsed
                .clone()
                .map(|value| Reply::new(format!("shell:{}", spec.command), value))
        })
        .collect();
    let outcome = hooks_core::merge::merge(&event, &replies);

    if args.json {
        let hooks: Vec<Value> = specs
            .iter()
            .zip(&runs)
            .map(|(spec, (result, parsed))| run_json(spec, result, parsed.as_ref()))
            .collect();
        let document = json!({
            "event": args.event,
            "hooks": hooks,
            "outcome": outcome.to_wire(),
        });
        writeln!(out, "{document}")?;
        return Ok(());
    }

    writeln!(
        out,
        "Firing {} hook(s) for event '{}':\n",
        specs.len(),
        args.event
    )?;
    for (spec, (result, parsed)) in specs.iter().zip(&runs) {
        writeln!(out, "  → {}", spec.command)?;
        print_run(result, parsed.as_ref(), out)?;
        writeln!(out)?;
    }
    match outcome.to_wire() {
        Some(wire) => writeln!(out, "Merged outcome: {wire}")?,
        None => writeln!(out, "Merged outcome: none — the hooks contribute nothing")?,
    }
    Ok(())
}

/// One hook's line in `--json` output (DESIGN.md fixes the keys).
fn run_json(spec: &ShellHookSpec, result: &RunResult, parsed: Option<&Value>) -> Value {
    json!({
        "command": spec.command,
        "matcher": spec.matcher.pattern(),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "elapsed_ms": result.elapsed.as_secs_f64() * 1000.0,
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
    let elapsed = hooks_shell::reply::format_seconds(result.elapsed);
    if let Some(error) = &result.error {
        writeln!(out, "      ✗ error: {error}")?;
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
            writeln!(out, "      stdout: {}", truncate(stdout, 400))?;
        }
        if !stderr.is_empty() {
            writeln!(out, "      stderr: {}", truncate(stderr, 400))?;
        }
    }
    match parsed {
        Some(parsed) => writeln!(out, "      parsed (Hermes wire shape): {parsed}"),
        None => writeln!(
            out,
            "      parsed: <none — hook contributed nothing to the dispatcher>"
        ),
    }
}
