//! The lines `hooks test --explain` shows for a sandboxed run.

/// What a run was denied, for `hooks test --explain`: one line per denial
/// its stderr shows (see [`hermes_hooks_process::sandbox::denials`]),
/// or why it did not run. Empty for a run outside a sandbox that ran.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn explain(result: &crate::run::RunResult) -> Vec<String> {
    if result.sandbox_unavailable {
        return vec![result.error.clone().unwrap_or_default()];
    }
    if result.sandbox.is_none() {
        return Vec::new();
    }
    hermes_hooks_process::sandbox::denials(&result.stderr)
        .into_iter()
        .map(|denial| format!("{}: {}", denial.kind, denial.line))
        .collect()
}
