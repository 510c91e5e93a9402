//! The tools the home's plugins say they give (red team round 16, R16-3):
//! each `plugin.yaml`'s `provides_tools`, the field Hermes reads to name a
//! plugin's tools. A native fail-closed guard naming one runs when that
//! tool is called, so it is not warned "NEVER RUNS".
//!
//! Only the user's own home counts (`<home>/plugins/<name>/` and one level
//! deeper under a category folder, as plugins are found): a declared name
//! only quiets the warning about a name no tool has, and never changes
//! which tools a guard is read as meant for.

use std::path::{Path, PathBuf};

use hermes_hooks_core::config::read_capped;
use serde_json::Value;

/// The most plugin folders looked at, so a home with a huge `plugins/`
/// tree costs a bounded read.
const MAX_FOLDERS: usize = 256;

/// The manifest file names a plugin folder may hold, in Hermes's order.
const MANIFEST_FILES: [&str; 2] = ["plugin.yaml", "plugin.yml"];

/// Every tool name a plugin folder of `home` declares in `provides_tools`,
/// sorted and unique. Unreadable or invalid manifests declare nothing
/// (the plugins' own loading reports them).
pub(crate) fn declared_plugin_tools(home: &Path) -> Vec<String> {
    let mut names: Vec<String> = plugin_manifests(&home.join("plugins"))
        .iter()
        .filter_map(|file| read_capped(file).ok())
        .filter_map(|text| hermes_hooks_core::yaml::parse(&text).ok())
        .flat_map(|manifest| provided(&manifest))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn provided(manifest: &Value) -> Vec<String> {
    let Some(Value::Array(tools)) = manifest.get("provides_tools") else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(Value::as_str)
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The manifests under `root`: `<name>/plugin.yaml`, or
/// `<category>/<name>/plugin.yaml` where `<category>` has none.
fn plugin_manifests(root: &Path) -> Vec<PathBuf> {
    let mut manifests = Vec::new();
    for dir in subdirs(root) {
        match manifest(&dir) {
            Some(file) => manifests.push(file),
            None => manifests.extend(subdirs(&dir).iter().filter_map(|d| manifest(d))),
        }
        if manifests.len() >= MAX_FOLDERS {
            manifests.truncate(MAX_FOLDERS);
            break;
        }
    }
    manifests
}

fn manifest(dir: &Path) -> Option<PathBuf> {
    MANIFEST_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .take(MAX_FOLDERS)
        .collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(home: &Path, folder: &str, manifest: &str) {
        let dir = home.join("plugins").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("plugin.yaml"), manifest).unwrap();
    }

    #[test]
    fn names_come_from_every_plugin_folder_and_category() {
        let home = tempfile::tempdir().unwrap();
        plugin(
            home.path(),
            "jira",
            "name: jira\nprovides_tools: [jira_create_ticket]\n",
        );
        plugin(
            home.path(),
            "platforms/a2a",
            "provides_tools:\n  - a2a_send\n  - ''\n",
        );
        plugin(home.path(), "broken", "provides_tools: [unclosed\n");
        plugin(home.path(), "none", "name: none\n");
        plugin(home.path(), ".hidden", "provides_tools: [hidden_tool]\n");
        assert_eq!(
            declared_plugin_tools(home.path()),
            ["a2a_send", "jira_create_ticket"]
        );
    }

    #[test]
    fn a_home_without_plugins_declares_nothing() {
        let home = tempfile::tempdir().unwrap();
        assert!(declared_plugin_tools(home.path()).is_empty());
    }
}
