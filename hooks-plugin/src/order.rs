//! Plugin load order: alphabetical by key, then `requires_plugins` first.
//!
//! Matches the reference (`resolve_plugin_load_order`, #64165): plugins are
//! sorted by key; a plugin another one requires loads first; the order is
//! built in generations (everything whose requirements are loaded, sorted,
//! then the next generation), so ties stay alphabetical. A dependency cycle
//! is warned about and the whole order falls back to alphabetical; a missing
//! dependency is warned about and ignored, never dropping the dependent.

use std::collections::{BTreeMap, BTreeSet};

/// One plugin to order: its key, its manifest name and what it requires.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OrderEntry {
    /// The plugin key (folder name, `category/name` for nested folders).
    pub key: String,
    /// The manifest name (requirements may name it instead of the key).
    pub name: String,
    /// Keys or names of plugins that must load first.
    pub requires: Vec<String>,
}

impl OrderEntry {
    /// A plugin to order: its key, manifest name and `requires_plugins`.
    pub fn new(key: impl Into<String>, name: impl Into<String>, requires: Vec<String>) -> Self {
        OrderEntry {
            key: key.into(),
            name: name.into(),
            requires,
        }
    }
}

/// A problem met while ordering: a missing or self dependency, or a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OrderWarning {
    /// The plugin whose `requires_plugins` is at fault; `None` for a cycle.
    pub key: Option<String>,
    /// What is wrong and what was done about it.
    pub message: String,
}

/// The load order of `entries` as keys, and the warnings met on the way.
pub fn load_order(entries: &[OrderEntry]) -> (Vec<String>, Vec<OrderWarning>) {
    let mut warnings = Vec::new();
    let keys: BTreeSet<&str> = entries.iter().map(|entry| entry.key.as_str()).collect();
    // The first key (alphabetically) with a given name answers for that name.
    let mut by_name: BTreeMap<&str, &str> = BTreeMap::new();
    for key in &keys {
        if let Some(entry) = entries.iter().find(|entry| entry.key == *key) {
            by_name.entry(entry.name.as_str()).or_insert(key);
        }
    }
    let mut requirements: BTreeMap<&str, BTreeSet<&str>> =
        keys.iter().map(|key| (*key, BTreeSet::new())).collect();
    for entry in entries {
        for required in &entry.requires {
            let resolved = keys
                .get(required.as_str())
                .copied()
                .or_else(|| by_name.get(required.as_str()).copied());
            match resolved {
                None => warnings.push(OrderWarning {
                    key: Some(entry.key.clone()),
                    message: format!(
                        "plugin {} requires plugin '{required}', which is not enabled or installed; loading it anyway",
                        entry.key
                    ),
                }),
                Some(resolved) if resolved == entry.key => warnings.push(OrderWarning {
                    key: Some(entry.key.clone()),
                    message: format!(
                        "plugin {} declares a dependency on itself; ignoring",
                        entry.key
                    ),
                }),
                Some(resolved) => {
                    if let Some(set) = requirements.get_mut(entry.key.as_str()) {
                        set.insert(resolved);
                    }
                }
            }
        }
    }

    let mut ordered: Vec<String> = Vec::with_capacity(keys.len());
    let mut loaded: BTreeSet<&str> = BTreeSet::new();
    while loaded.len() < keys.len() {
        let generation: Vec<&str> = requirements
            .iter()
            .filter(|(key, required)| !loaded.contains(*key) && required.is_subset(&loaded))
            .map(|(key, _)| *key)
            .collect();
        if generation.is_empty() {
            let stuck: Vec<&str> = keys
                .iter()
                .filter(|key| !loaded.contains(*key))
                .copied()
                .collect();
            warnings.push(OrderWarning {
                key: None,
                message: format!(
                    "plugin dependency cycle among {}; falling back to alphabetical load order for all plugins",
                    stuck.join(", ")
                ),
            });
            return (keys.iter().map(|key| (*key).to_owned()).collect(), warnings);
        }
        for key in generation {
            loaded.insert(key);
            ordered.push(key.to_owned());
        }
    }
    (ordered, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, requires: &[&str]) -> OrderEntry {
        OrderEntry {
            key: key.to_owned(),
            name: key.to_uppercase(),
            requires: requires.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    fn order(entries: &[OrderEntry]) -> Vec<String> {
        load_order(entries).0
    }

    #[test]
    fn no_edges_is_alphabetical() {
        assert_eq!(
            order(&[entry("ccc", &[]), entry("aaa", &[]), entry("bbb", &[])]),
            ["aaa", "bbb", "ccc"]
        );
    }

    #[test]
    fn required_plugins_load_first_in_generations() {
        // b requires a: generation one is [a, c], then [b] (the reference's graphlib order).
        assert_eq!(
            order(&[entry("b", &["a"]), entry("a", &[]), entry("c", &[])]),
            ["a", "c", "b"]
        );
        assert_eq!(
            order(&[entry("a", &["z"]), entry("z", &["m"]), entry("m", &[])]),
            ["m", "z", "a"]
        );
    }

    #[test]
    fn requirements_may_name_the_manifest_name() {
        assert_eq!(order(&[entry("a", &["B"]), entry("b", &[])]), ["b", "a"]);
    }

    #[test]
    fn cycles_fall_back_to_alphabetical_with_a_warning() {
        let (keys, warnings) =
            load_order(&[entry("c", &[]), entry("b", &["a"]), entry("a", &["b"])]);
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].message.contains("cycle among a, b"),
            "{warnings:?}"
        );
        assert_eq!(warnings[0].key, None);
    }

    #[test]
    fn missing_and_self_dependencies_warn_but_keep_the_plugin() {
        let (keys, warnings) = load_order(&[entry("a", &["ghost", "a"]), entry("b", &[])]);
        assert_eq!(keys, ["a", "b"]);
        assert!(warnings[0].message.contains("requires plugin 'ghost'"));
        assert!(warnings[1].message.contains("dependency on itself"));
        assert_eq!(warnings[1].key.as_deref(), Some("a"));
    }
}
