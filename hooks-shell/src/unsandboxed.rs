//! A project's hooks configured to run without a sandbox
//! (`hooks_sandbox: {project: none}`, a `hooks_from:` entry's `sandbox:
//! none`, a host's override): an approved one runs as the user, beside the
//! user's own guards, with every right the user has. It can edit
//! `~/.claude/settings.json` or write into a running guard's stdout through
//! `/proc` (red-team round 5, attack 28). We do not pretend to contain it:
//! `list` and `doctor` say so per project file, and every run says so once
//! per process (a `tracing` warning, which `hooks emit` prints once).

use std::path::{Path, PathBuf};

use crate::dialect::{Handler, ImportedHook, Scope};

/// What a project's hook run without a sandbox can do, after the file it
/// comes from.
pub const FULL_POWER: &str = "project hooks run without a sandbox (sandbox: none, by \
     configuration): approved project code runs with your full power and can disable your own \
     guards (edit ~/.claude, write into a running guard's output); the default \
     `hooks_sandbox: {project: project}` contains it";

/// Whether `hook` is a command hook of the project the agent runs in
/// (sandboxed as a project's) whose profile says `none`.
pub fn runs_with_full_power(hook: &ImportedHook) -> bool {
    hook.sandbox_scope == Scope::Project
        && hook.sandbox.is_none()
        && matches!(hook.handler, Handler::Command { .. })
}

/// The project files whose command hooks run without a sandbox, each once,
/// in the order of `hooks`.
pub fn full_power_sources<'a>(hooks: impl IntoIterator<Item = &'a ImportedHook>) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = Vec::new();
    for hook in hooks.into_iter().filter(|hook| runs_with_full_power(hook)) {
        if !sources.contains(&hook.source) {
            sources.push(hook.source.clone());
        }
    }
    sources
}

/// Says, as a warning, that a project hook of `project` is about to run
/// with the user's full power (the same words for every hook of a project,
/// so a host that prints a warning once prints it once per project).
pub(crate) fn warn_before_run(project: &Path) {
    tracing::warn!("[hooks] {}: {FULL_POWER}", project.display());
}
