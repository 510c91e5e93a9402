//! Where the runtime would treat the plugins differently from what the config
//! seems to say, as warnings naming file and key (`doctor` counts each one as
//! a problem): a `plugins.required` entry that will not be running (a typo, a
//! plugin not installed, not enabled, disabled, failed or under safe mode:
//! the runtime then blocks every tool call), a `plugins.enabled` entry no
//! plugin answers, and a registered hook name the catalog does not know.
//! Each names the nearest real name when one is close.

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_plugin::PluginInfo;
use hermes_hooks_plugin::settings::EnabledLists;

use super::plugins::{PluginRow, PluginState};
use crate::home::Home;

/// Appends the findings about `rows` (and the listing's `found`) to `warnings`.
pub fn plugins(
    home: &Home,
    rows: &[PluginRow],
    found: &[PluginInfo],
    warnings: &mut Vec<ConfigWarning>,
) {
    let mut ignored = Vec::new();
    let lists = EnabledLists::from_config(&home.config, &mut ignored);
    let names: Vec<&str> = rows
        .iter()
        .flat_map(|row| [row.key.as_str(), row.name.as_str()])
        .collect();
    let near = |name: &str| {
        closest_name(name, names.iter().copied())
            .map(|close| format!(" — did you mean '{close}'?"))
            .unwrap_or_default()
    };
    let matches = |row: &PluginRow, name: &str| row.key == name || row.name == name;
    let looked_up_entry_points = !warnings.iter().any(|w| {
        w.message
            .starts_with("cannot look for pip-installed plugins")
    });
    for name in lists.enabled() {
        if !rows.iter().any(|row| matches(row, name)) && looked_up_entry_points {
            warnings.push(home.config.warning(
                "plugins.enabled",
                format!(
                    "plugin '{name}' is enabled but not installed (no plugin folder or \
                     pip-installed entry point has that name){}",
                    near(name)
                ),
            ));
        }
    }
    for name in lists.required() {
        let row = rows.iter().find(|row| matches(row, name));
        let why = match row {
            None => Some(format!("not installed{}", near(name))),
            Some(row) => match row.state {
                PluginState::Disabled => {
                    Some(row.reason.clone().unwrap_or_else(|| "disabled".to_owned()))
                }
                // A failed one is reported with its failure (and "required").
                PluginState::Failed | PluginState::Loaded | PluginState::NotInspected => None,
            },
        };
        if let Some(why) = why {
            warnings.push(home.config.warning(
                "plugins.required",
                format!(
                    "required plugin '{name}' will not be running ({why}): every tool call \
                     is blocked until it loads"
                ),
            ));
        }
    }
    for row in rows {
        let file = found
            .iter()
            .find(|info| info.key == row.key)
            .map(|info| info.dir.join("plugin.yaml"))
            .unwrap_or_else(|| row.dir.clone());
        for hook in &row.hooks {
            if hook.parse::<hermes_hooks_core::HookEvent>().is_ok() {
                continue;
            }
            let close = hermes_hooks_core::catalog::suggest(hook)
                .map(|close| format!(" — did you mean '{close}'?"))
                .unwrap_or_default();
            warnings.push(file_warning(
                file.clone(),
                "register",
                format!(
                    "plugin '{}' registers unknown hook '{hook}' (not in the event catalog: it \
                     never fires){close}",
                    row.key
                ),
            ));
        }
        for message in &row.trial_warnings {
            let warning = file_warning(file.clone(), "", message.clone());
            if !warnings.iter().any(|w| w.message == warning.message)
                && !message.contains("registered unknown hook")
            {
                warnings.push(warning);
            }
        }
    }
}

fn file_warning(file: std::path::PathBuf, key: &str, message: String) -> ConfigWarning {
    ConfigWarning::new(file, key.to_owned(), message)
}

/// The name closest to `name`, if one is close enough to be a typo
/// (`rm_guard` → `rm-guard`).
pub fn closest_name<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let folded = |s: &str| s.to_ascii_lowercase().replace(['_', '-', ' '], "");
    candidates
        .filter(|candidate| *candidate != name)
        .map(|candidate| {
            let score = if folded(candidate) == folded(name) {
                1.0
            } else {
                strsim::jaro_winkler(name, candidate)
            };
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest_name;

    #[test]
    fn a_typo_finds_its_plugin_and_a_stranger_none() {
        let names = ["rm-guard", "memory-recall", "signoff"];
        assert_eq!(
            closest_name("rm_guard", names.into_iter()),
            Some("rm-guard")
        );
        assert_eq!(closest_name("rmguard", names.into_iter()), Some("rm-guard"));
        assert_eq!(closest_name("signof", names.into_iter()), Some("signoff"));
        assert_eq!(closest_name("webhooks", names.into_iter()), None);
    }
}
