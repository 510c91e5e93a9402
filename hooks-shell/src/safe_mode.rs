//! `HERMES_SAFE_MODE=1` turns every shell hook off on purpose; the user's
//! own fail-closed guards going with them must not be silent (the same
//! warning imported guards get).

use hermes_hooks_core::Config;

use crate::config::parse_config;

/// The warning for `config`'s fail-closed `pre_tool_call` hooks that safe
/// mode turns off, or `None` when there are none.
pub fn guards_off_warning(config: &Config) -> Option<String> {
    let guards = parse_config(config)
        .specs
        .iter()
        .filter(|spec| spec.blocks_on_failure())
        .count();
    (guards > 0).then(|| {
        format!(
            "HERMES_SAFE_MODE=1: {guards} fail-closed hook(s) of config.yaml are off; tool calls \
             they guard run unguarded"
        )
    })
}

/// Logs that shell-hook registration is skipped, and [`guards_off_warning`]
/// (a warning, on stderr for the CLI).
pub(crate) fn skip_registration(config: &Config) {
    tracing::info!("HERMES_SAFE_MODE=1 — shell-hook registration skipped");
    if let Some(warning) = guards_off_warning(config) {
        tracing::warn!("{warning}");
    }
}
