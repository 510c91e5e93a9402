//! Hooks whose sandbox profile this build or machine cannot apply, said at
//! load: such a hook never runs (it is skipped each time, or blocks when it
//! fails closed), and a host that only reads [`crate::Host::warnings`] must
//! learn that before the first event, not from a run record it may not read.

use std::path::Path;

use hermes_hooks_shell::sandboxing::{Effective, imported_own_files, spec_own_files};
use hermes_hooks_shell::{ImportedHooks, ShellHooks};

use crate::warning::Warning;

/// One warning per imported hook whose profile cannot be applied here.
pub(super) fn imported(hooks: &ImportedHooks) -> Vec<Warning> {
    hooks
        .hooks()
        .iter()
        .filter_map(|hook| {
            let effective = Effective::of(
                &hook.sandbox,
                &hook.project,
                imported_own_files(hook),
                &hook.sandbox_secrets,
            );
            let message = message(&hook.key, &effective, hook.fail_closed)?;
            Some(Warning::new(
                "imported",
                Some(&hook.source),
                Some(&hook.key),
                message,
            ))
        })
        .collect()
}

/// One warning per config.yaml shell hook whose profile cannot be applied
/// here (its project: `project`).
pub(super) fn shell(hooks: &ShellHooks, config: &Path, project: &Path) -> Vec<Warning> {
    hooks
        .specs()
        .filter_map(|spec| {
            let own = spec_own_files(spec, project);
            let effective = Effective::of(&spec.sandbox, project, own, &spec.sandbox_secrets);
            let key = spec.key();
            let message = message(&key, &effective, spec.fail_closed)?;
            Some(Warning::new("shell", Some(config), Some(&key), message))
        })
        .collect()
}

/// What a hook whose profile cannot be applied does, or `None` when it can.
fn message(key: &str, effective: &Effective, fail_closed: bool) -> Option<String> {
    let verdict = effective.verdict();
    if !verdict.starts_with("cannot be applied") {
        return None;
    }
    let what = if fail_closed {
        "every call it guards is blocked (it fails closed)"
    } else {
        "it is skipped each time it would run"
    };
    Some(format!(
        "{key}: its sandbox profile '{}' {verdict}, so {what}; build with the `sandbox` \
         feature (Linux), or give its source a profile this machine can apply \
         (`hooks_sandbox:` in config.yaml, or `HostOptions::sandbox_*`)",
        effective.sandbox.name()
    ))
}
