//! Doctor's sandbox check: what this machine offers (Landlock ABI, user
//! namespaces, cgroups) and which hooks that affects. A hook whose profile
//! cannot be applied here is a problem: it blocks (fail-closed) or is
//! skipped (fail-open) every time it would run.

use hermes_hooks_cli::inventory::{Inventory, Kind};
use hermes_hooks_core::display::escape as e;
use hermes_hooks_process::sandbox::Support;
use hermes_hooks_shell::sandboxing::Effective;
use serde_json::{Value, json};

use super::Report;

/// Prints the machine's support, then every sandboxed hook's verdict.
pub async fn check(inventory: &Inventory, report: &mut Report) -> Value {
    let support = Support::detect();
    let cgroups = cgroups_contain().await;
    report.line(format!(
        "Sandbox support: {}; cgroups: {}",
        support.summary(),
        if cgroups {
            "each hook in a cgroup of its own"
        } else {
            "unavailable (hooks contained by subreaper, mark and pipe holders)"
        }
    ));
    let mut affected = Vec::new();
    let shell = inventory.shell_hooks.iter().map(|row| {
        (
            Kind::ShellHook,
            row.spec.command.clone(),
            row.spec.fail_closed,
            row.sandbox(),
        )
    });
    let imported = inventory
        .imported_hooks
        .iter()
        .filter(|row| row.kind() == "command")
        .map(|row| {
            (
                Kind::ImportedHook,
                row.hook.shown_command(),
                row.hook.fail_closed,
                row.sandbox(),
            )
        });
    for (kind, name, fail_closed, effective) in shell.chain(imported) {
        if effective.sandbox.is_none() {
            continue;
        }
        affected.push(verdict(report, kind, &name, fail_closed, &effective));
    }
    if affected.is_empty() {
        report.line("  (no hook runs in a sandbox)");
    }
    // Said, not counted: the configuration asks for it (red-team attack 28).
    let full_power = inventory.full_power_sources();
    for file in &full_power {
        report.line(format!(
            "  ⚠ {}: {}",
            hermes_hooks_cli::show_path(file),
            hermes_hooks_shell::unsandboxed::FULL_POWER
        ));
    }
    report.line("");
    json!({
        "landlock_abi": support.landlock_abi,
        "namespaces": support.namespaces.as_ref().err(),
        "built": support.built,
        "cgroups": cgroups,
        "hooks": affected,
        "unsandboxed_project_sources": full_power
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>(),
    })
}

fn verdict(
    report: &mut Report,
    kind: Kind,
    name: &str,
    fail_closed: bool,
    effective: &Effective,
) -> Value {
    let verdict = effective.verdict();
    let applies = verdict == "applied" || effective.sandbox.best_effort;
    if applies {
        report.line(format!(
            "  ✓ {} — {}: {}",
            e(name),
            effective.sandbox.name(),
            e(&verdict)
        ));
    } else {
        let fate = if fail_closed {
            "it blocks every call it guards"
        } else {
            "it is skipped, with a warning"
        };
        report.line(format!("  {}", e(name)));
        report.problem(
            kind,
            name,
            format!("sandbox {}: {verdict}; {fate}", effective.sandbox.name()),
            "      ",
        );
    }
    json!({"hook": name, "profile": effective.sandbox.name(), "verdict": verdict})
}

/// Whether a tree spawned now is contained by a cgroup of its own.
async fn cgroups_contain() -> bool {
    let mut command = hermes_hooks_process::Command::new("true");
    command.stdin(std::process::Stdio::null());
    match hermes_hooks_process::ChildTree::spawn(command) {
        Ok(mut tree) => {
            let contained = tree.in_cgroup();
            let _ = tree.wait().await;
            contained
        }
        Err(_) => false,
    }
}
