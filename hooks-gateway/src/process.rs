//! What the gateway adds to hooks-core's process supervisor (which spawns,
//! bounds and kills every handler process and its whole tree, and runs the
//! Python workers' line protocol): showing handler stderr as warnings.

pub(crate) use hermes_hooks_process::{RunLimits, run};

/// Shows one stderr line of `hook` as a warning, escaped for the terminal.
pub(crate) fn log_stderr_line(hook: &str, bytes: &[u8], truncated: bool) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\r');
    if text.trim().is_empty() {
        return;
    }
    let text = hermes_hooks_core::display::escape(text);
    let more = if truncated { " [line truncated]" } else { "" };
    tracing::warn!(target: "hermes_hooks_gateway::handler", hook = %hook, "[hooks] {hook}: {text}{more}");
}
