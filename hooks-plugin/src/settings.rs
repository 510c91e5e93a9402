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
    /// Why `plugins.required` (or one of its entries) could not be read as
    /// names: the key and the reason. A guard list that cannot be read fails
    /// closed, so each of these blocks every `pre_tool_call`.
    unreadable_required: Vec<(String, String)>,
}

impl EnabledLists {
    /// Reads the lists; a list of the wrong type is ignored with a warning.
    /// `plugins.required` is a guard list: one name (a scalar) is a
    /// one-element list, and anything else that cannot be read as names is
    /// kept as [`Self::unreadable_required`] (it fails closed).
    pub fn from_config(config: &Config, warnings: &mut Vec<ConfigWarning>) -> Self {
        let mut unreadable_required = Vec::new();
        let required = read_names(
            config,
            "plugins.required",
            true,
            warnings,
            &mut unreadable_required,
        );
        EnabledLists {
            enabled: read_names(config, "plugins.enabled", false, warnings, &mut Vec::new()),
            disabled: read_names(config, "plugins.disabled", false, warnings, &mut Vec::new()),
            required,
            unreadable_required,
        }
    }

    /// The parts of `plugins.required` that could not be read as plugin
    /// names: the key (`plugins.required`, `plugins.required[2]`) and why.
    /// Each one blocks every `pre_tool_call` (a guard list that cannot be
    /// read never fails open).
    pub fn unreadable_required(&self) -> &[(String, String)] {
        &self.unreadable_required
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

/// Reads the list at `key`. A `guard` list (`plugins.required`) takes one
/// string as a one-element list, and what cannot be read blocks tool calls
/// rather than being ignored. What cannot be read is warned about and also
/// pushed to `unreadable` (key, reason), for the callers that fail closed on it.
fn read_names(
    config: &Config,
    key: &str,
    guard: bool,
    warnings: &mut Vec<ConfigWarning>,
    unreadable: &mut Vec<(String, String)>,
) -> BTreeSet<String> {
    let outcome = if guard {
        "every tool call is blocked until it is fixed"
    } else {
        "ignored"
    };
    let single;
    let items = match config.get(key) {
        None | Some(Value::Null) => return BTreeSet::new(),
        Some(Value::Array(items)) => items.as_slice(),
        Some(Value::String(name)) if guard => {
            single = [Value::String(name.clone())];
            &single[..]
        }
        Some(other) => {
            let reason = format!(
                "{key} must be a list of plugin names; got {}",
                json_type(other)
            );
            warnings.push(config.warning(key, format!("{reason}; {outcome}")));
            unreadable.push((key.to_owned(), reason));
            return BTreeSet::new();
        }
    };
    let mut names = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim).filter(|name| !name.is_empty()) {
            Some(name) => {
                names.insert(name.to_owned());
            }
            None => {
                let item_key = format!("{key}[{index}]");
                let reason = format!("{item_key} must be a plugin name; got {}", json_type(item));
                warnings.push(config.warning(&item_key, format!("{reason}; {outcome}")));
                unreadable.push((item_key, reason));
            }
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
        assert!(lists.unreadable_required().is_empty());
    }

    #[test]
    fn one_required_name_is_a_one_element_list() {
        let (lists, warnings) = lists("plugins: {required: guard}");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(lists.required().collect::<Vec<_>>(), ["guard"]);
        assert!(lists.unreadable_required().is_empty());
    }

    #[test]
    fn required_that_cannot_be_read_is_kept_to_fail_closed() {
        for (text, key) in [
            ("plugins: {required: {guard: true}}", "plugins.required"),
            ("plugins: {required: 3}", "plugins.required"),
            ("plugins: {required: true}", "plugins.required"),
            ("plugins: {required: [guard, [x]]}", "plugins.required[1]"),
            ("plugins: {required: [guard, '']}", "plugins.required[1]"),
        ] {
            let (lists, warnings) = lists(text);
            let keys: Vec<&str> = lists
                .unreadable_required()
                .iter()
                .map(|(key, _)| key.as_str())
                .collect();
            assert_eq!(keys, [key], "{text}");
            assert_eq!(warnings.len(), 1, "{text}");
            assert!(
                warnings[0].to_string().starts_with("/h/config.yaml: "),
                "{text}"
            );
        }
    }
}
