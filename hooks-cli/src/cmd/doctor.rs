//! `hooks doctor`: check every configured shell hook — executable, allowlisted,
//! unchanged since approval, and answering JSON on a synthetic payload.
//!
//! A hook that is not allowlisted is never run: doctor must not execute scripts a
//! freshly pulled config added before the user reviewed them.

use std::io::Write;

use hooks_core::Event;
use hooks_core::wire::WireContext;
use hooks_shell::{
    Allowlist, Drift, ShellHookSpec, mtime_drift, parse_config, run_once, script_is_executable,
    script_mtime_iso, synthetic_payload,
};

use crate::cli::DoctorArgs;
use crate::fire::truncate;
use crate::setup::Home;

/// Runs `hooks doctor`.
pub async fn run(home: &Home, _args: &DoctorArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let parsed = parse_config(&home.config);
    let mut problems = 0;
    if !parsed.warnings.is_empty() {
        writeln!(
            out,
            "Config warnings in {} ({}):",
            home.config_display(),
            parsed.warnings.len()
        )?;
        for warning in &parsed.warnings {
            writeln!(out, "  ⚠ {}", warning.message)?;
        }
        writeln!(out)?;
        problems += parsed.warnings.len();
    }
    if parsed.specs.is_empty() {
        writeln!(out, "No shell hooks configured — nothing to check.")?;
    } else {
        writeln!(
            out,
            "Checking {} configured shell hook(s)...\n",
            parsed.specs.len()
        )?;
        let allowlist = Allowlist::in_home(&home.path);
        for spec in &parsed.specs {
            writeln!(out, "  [{}] {}", spec.event, spec.command)?;
            problems += check_one(spec, &allowlist, out).await?;
            writeln!(out)?;
        }
    }
    writeln!(
        out,
        "Note: native plugins and gateway handlers are trusted code that runs with your \
         rights, without isolation; shell hooks run as separate processes."
    )?;
    if problems > 0 {
        writeln!(
            out,
            "{problems} issue(s) found.  Fix before relying on these hooks."
        )?;
    } else {
        writeln!(out, "All shell hooks look healthy.")?;
    }
    Ok(())
}

async fn check_one(
    spec: &ShellHookSpec,
    allowlist: &Allowlist,
    out: &mut dyn Write,
) -> anyhow::Result<usize> {
    let mut problems = 0;
    let executable = script_is_executable(&spec.command);
    if executable {
        writeln!(out, "      ✓ script exists and is executable")?;
    } else {
        problems += 1;
        writeln!(
            out,
            "      ✗ script missing or not executable (chmod +x the file, or fix the path)"
        )?;
    }

    let entry = allowlist.entry_for(spec.event.as_str(), &spec.command);
    match &entry {
        Some(approval) => writeln!(
            out,
            "      ✓ allowlisted (approved {})",
            approval.approved_at.as_deref().unwrap_or("?")
        )?,
        None => {
            problems += 1;
            writeln!(
                out,
                "      ✗ not allowlisted — hook will NOT fire at runtime (run with \
                 --accept-hooks once, or confirm at the TTY prompt)"
            )?;
        }
    }

    if let Some(approved) = entry
        .as_ref()
        .and_then(|e| e.script_mtime_at_approval.as_deref())
    {
        let now = script_mtime_iso(&spec.command);
        match mtime_drift(Some(approved), now.as_deref()) {
            Drift::Modified => {
                problems += 1;
                writeln!(
                    out,
                    "      ⚠ script modified since approval (was {approved}, now {}) — review \
                     changes, then `hooks revoke` + re-approve to refresh",
                    now.as_deref().unwrap_or("?")
                )?;
            }
            Drift::Unchanged => writeln!(out, "      ✓ script unchanged since approval")?,
            Drift::Unknown => {}
            // A kind of drift this build does not know: nothing certain to say.
            _ => {}
        }
    }

    if entry.is_none() {
        writeln!(
            out,
            "      ℹ skipped JSON smoke test — not allowlisted yet. Approve the hook first \
             (via TTY prompt or --accept-hooks), then re-run `hooks doctor`."
        )?;
    } else if executable {
        let event = Event::new(spec.event, synthetic_payload(spec.event, None));
        let (result, _) = run_once(spec, &event, &WireContext::current()).await;
        let elapsed = hooks_shell::reply::format_seconds(result.elapsed);
        let status = result.exit_code.map_or("?".to_owned(), |c| c.to_string());
        let stdout = result.stdout.trim();
        if result.timed_out {
            problems += 1;
            writeln!(
                out,
                "      ✗ timed out after {elapsed}s on synthetic payload (timeout={}s)",
                spec.timeout.as_secs()
            )?;
        } else if let Some(error) = &result.error {
            problems += 1;
            writeln!(out, "      ✗ execution error: {error}")?;
        } else if stdout.is_empty() {
            writeln!(
                out,
                "      ✓ ran clean with empty stdout (exit={status}, {elapsed}s) — hook is observer-only"
            )?;
        } else if serde_json::from_str::<serde_json::Value>(stdout).is_ok() {
            writeln!(
                out,
                "      ✓ produced valid JSON on synthetic payload (exit={status}, {elapsed}s)"
            )?;
        } else {
            problems += 1;
            writeln!(
                out,
                "      ✗ stdout was not valid JSON (exit={status}, {elapsed}s): {}",
                truncate(stdout, 120)
            )?;
        }
    }
    Ok(problems)
}
