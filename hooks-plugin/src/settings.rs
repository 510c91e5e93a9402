//! `plugins.enabled` / `plugins.disabled` / `plugins.required` from config.yaml.

use std::collections::BTreeSet;

use hermes_hooks_core::config::json_type;
use hermes_hooks_core::{Config, ConfigWarning};
use serde_json::Value;

/// The opt-in, opt-out and required lists; entries match a plugin key or manifest name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnabledLists {
    enabled: BTreeSet<String>,
    disabled: BTreeSet<String>,
    required: BTreeSet<String>,
}

impl EnabledLists {
    /// Reads the lists; a list of the wrong type is ignored with a warning.
    pub fn from_config(config: &Config, warnings: &mut Vec<ConfigWarning>) -> Self {
        EnabledLists {
            enabled: read_list(config, "plugins.enabled", warnings),
            disabled: read_list(config, "plugins.disabled", warnings),
            required: read_list(config, "plugins.required", warnings),
        }
    }

    /// Whether `plugins.required` lists the plugin: if it does not load, every
    /// `pre_tool_call` is blocked.
    pub fn requires(&self, key: &str, name: &str) -> bool {
        self.required.contains(key) || self.required.contains(name)
    }

    /// The names `plugins.required` lists.
    pub fn required(&self) -> impl Iterator<Item = &str> {
        self.required.iter().map(String::as_str)
    }

    /// The names `plugins.enabled` lists.
    pub fn enabled(&self) -> impl Iterator<Item = &str> {
        self.enabled.iter().map(String::as_str)
    }

    /// Whether `plugins.enabled` lists the plugin and `plugins.disabled` does not.
    pub fn enables(&self, key: &str, name: &str) -> bool {
        (self.enabled.contains(key) || self.enabled.contains(name)) && !self.disables(key, name)
    }

    /// Whether `plugins.disabled` lists the plugin (this always wins).
    pub fn disables(&self, key: &str, name: &str) -> bool {
        self.disabled.contains(key) || self.disabled.contains(name)
    }
}

fn read_list(config: &Config, key: &str, warnings: &mut Vec<ConfigWarning>) -> BTreeSet<String> {
    let items = match config.get(key) {
        None | Some(Value::Null) => return BTreeSet::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            warnings.push(config.warning(
                key,
                format!(
                    "{key} must be a list of plugin names; got {}; ignored",
                    json_type(other)
                ),
            ));
            return BTreeSet::new();
        }
    };
    let mut names = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim).filter(|name| !name.is_empty()) {
            Some(name) => {
                names.insert(name.to_owned());
            }
            None => warnings.push(config.warning(
                format!("{key}[{index}]"),
                format!("{key}[{index}] must be a plugin name; ignored"),
            )),
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn lists(text: &str) -> (EnabledLists, Vec<ConfigWarning>) {
        let config = Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), text)
            .expect("valid config");
        let mut warnings = Vec::new();
        (EnabledLists::from_config(&config, &mut warnings), warnings)
    }

    #[test]
    fn opt_in_by_key_or_name_and_disabled_wins() {
        let (lists, warnings) =
            lists("plugins: {enabled: [a, B, c], disabled: [c], required: [a, z]}");
        assert!(warnings.is_empty());
        assert!(lists.requires("a", "x") && lists.requires("q", "z") && !lists.requires("b", "B"));
        assert_eq!(lists.required().collect::<Vec<_>>(), ["a", "z"]);
        assert!(lists.enables("a", "x"));
        assert!(lists.enables("b", "B"));
        assert!(!lists.enables("c", "c"));
        assert!(lists.disables("c", "c"));
        assert!(!lists.enables("d", "d"));
    }

    #[test]
    fn missing_section_enables_nothing() {
        let (lists, warnings) = lists("");
        assert!(warnings.is_empty() && !lists.enables("a", "a"));
    }

    #[test]
    fn wrong_types_warn_with_the_key() {
        let (lists, warnings) = lists("plugins: {enabled: a, disabled: [1, b]}");
        assert!(!lists.enables("a", "a") && lists.disables("b", "b"));
        let keys: Vec<&str> = warnings.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(keys, ["plugins.enabled", "plugins.disabled[0]"]);
        assert!(
            warnings[0]
                .to_string()
                .starts_with("/h/config.yaml: plugins.enabled must be a list")
        );
    }
}
