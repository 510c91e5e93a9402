//! Discovery: `$HERMES_HOME/plugins/<name>/plugin.yaml` to loaded plugins.
//!
//! Opt-in like the reference: only plugins listed in `plugins.enabled` (by
//! key or manifest name) load, `plugins.disabled` always wins, and
//! `HERMES_SAFE_MODE` loads none. Every folder found is reported in
//! [`Discovery::found`] with its status; every problem is a warning naming
//! the file and the field, and the other plugins still load.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::{Config, ConfigWarning};

use crate::manifest::{Manifest, manifest_file, read_manifest, warning};
use crate::order::{OrderEntry, load_order};
use crate::plugin::NativePlugin;
use crate::settings::EnabledLists;

/// The plugins folder's name inside the Hermes home.
pub const PLUGINS_DIR: &str = "plugins";

/// Switches of one discovery run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// Load no plugin (plugins are still listed, with [`PluginStatus::SafeMode`]).
    pub safe_mode: bool,
}

impl DiscoverOptions {
    /// Options from the environment: `HERMES_SAFE_MODE`.
    pub fn from_env() -> Self {
        DiscoverOptions {
            safe_mode: hooks_core::home::safe_mode(),
        }
    }
}

/// The result of discovery.
#[derive(Debug, Default)]
pub struct Discovery {
    /// The loaded plugins, in load order (register their hooks in this order).
    pub plugins: Vec<Arc<NativePlugin>>,
    /// Every plugin folder found, sorted by key, loaded or not (for `hooks list`).
    pub found: Vec<PluginInfo>,
    /// Every problem met, naming the file and the field. They are logged at
    /// debug level only: reporting them is the caller's job (`hooks list`,
    /// `hooks doctor`, the host's startup log).
    pub warnings: Vec<ConfigWarning>,
}

/// One plugin folder and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// The plugin key: the folder name (`category/name` for a nested folder).
    pub key: String,
    /// The manifest name (the folder name when absent or unreadable).
    pub name: String,
    /// The plugin folder.
    pub dir: PathBuf,
    /// The manifest's `description`.
    pub description: String,
    /// The manifest's `version`.
    pub version: String,
    /// The resolved `library` path, when the manifest gives one.
    pub library: Option<PathBuf>,
    /// Whether config.yaml enables it (listed in `plugins.enabled`, not in `plugins.disabled`).
    pub enabled: bool,
    /// What happened to it.
    pub status: PluginStatus,
    /// The events it registers, when loaded.
    pub hooks: Vec<String>,
}

/// What discovery did with a plugin folder.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginStatus {
    /// Loaded; its hooks are in [`PluginInfo::hooks`].
    Loaded,
    /// Listed in `plugins.disabled`.
    Disabled,
    /// Not listed in `plugins.enabled` (plugins are opt-in).
    NotEnabled,
    /// `HERMES_SAFE_MODE` is on: nothing loads.
    SafeMode,
    /// A Python plugin (`__init__.py`, no `library`): this host loads native plugins only.
    Python,
    /// The manifest is unusable or lacks `library`.
    Invalid(String),
    /// The library could not be loaded or failed ABI validation.
    Failed(String),
}

impl fmt::Display for PluginStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginStatus::Loaded => f.write_str("loaded"),
            PluginStatus::Disabled => f.write_str("disabled via config"),
            PluginStatus::NotEnabled => f.write_str("not enabled in config"),
            PluginStatus::SafeMode => f.write_str("skipped (HERMES_SAFE_MODE)"),
            PluginStatus::Python => f.write_str("skipped (Python plugin; native plugins only)"),
            PluginStatus::Invalid(reason) => write!(f, "invalid: {reason}"),
            PluginStatus::Failed(reason) => write!(f, "failed to load: {reason}"),
        }
    }
}

/// Discovers and loads the plugins of `home`, reading `HERMES_SAFE_MODE`.
pub fn discover(home: &Path, config: &Config) -> Discovery {
    discover_with(home, config, DiscoverOptions::from_env())
}

/// Discovers and loads the plugins of `home` with explicit options.
pub fn discover_with(home: &Path, config: &Config, options: DiscoverOptions) -> Discovery {
    let mut discovery = Discovery::default();
    let lists = EnabledLists::from_config(config, &mut discovery.warnings);
    if options.safe_mode {
        tracing::info!("HERMES_SAFE_MODE=1 — plugin discovery skipped");
    }
    let plugins_dir = home.join(PLUGINS_DIR);
    // Candidates to load: index into `found` and the manifest.
    let mut candidates: Vec<(usize, Manifest)> = Vec::new();
    for folder in scan_folders(&plugins_dir) {
        let (info, manifest) = classify(folder, &lists, options, &mut discovery.warnings);
        if let Some(manifest) = manifest {
            candidates.push((discovery.found.len(), manifest));
        }
        discovery.found.push(info);
    }
    load_in_order(&plugins_dir, candidates, &mut discovery);
    tracing::debug!(
        found = discovery.found.len(),
        loaded = discovery.plugins.len(),
        warnings = discovery.warnings.len(),
        "plugin discovery complete"
    );
    for problem in &discovery.warnings {
        tracing::debug!(%problem, "plugin discovery warning");
    }
    discovery
}

/// A folder holding a manifest, with its key.
struct Folder {
    key: String,
    dir: PathBuf,
    manifest_file: PathBuf,
}

/// Plugin folders under `plugins_dir`, sorted by key: `<name>/plugin.yaml`, or
/// one level deeper under a category folder without a manifest (`<category>/<name>`).
fn scan_folders(plugins_dir: &Path) -> Vec<Folder> {
    let mut folders = Vec::new();
    for (name, dir) in sorted_subdirs(plugins_dir) {
        if let Some(manifest_file) = manifest_file(&dir) {
            folders.push(Folder {
                key: name,
                dir,
                manifest_file,
            });
            continue;
        }
        for (child, child_dir) in sorted_subdirs(&dir) {
            match manifest_file(&child_dir) {
                Some(manifest_file) => folders.push(Folder {
                    key: format!("{name}/{child}"),
                    dir: child_dir,
                    manifest_file,
                }),
                None => tracing::debug!(dir = %child_dir.display(), "no plugin.yaml; skipped"),
            }
        }
    }
    folders.sort_by(|a, b| a.key.cmp(&b.key));
    folders
}

/// The subdirectories of `dir` (symlinks followed, dot-folders skipped), sorted by name.
fn sorted_subdirs(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut subdirs: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .filter(|(name, path)| !name.starts_with('.') && path.is_dir())
        .collect();
    subdirs.sort();
    subdirs
}

/// Decides what to do with one folder; `Some(manifest)` means "load it".
fn classify(
    folder: Folder,
    lists: &EnabledLists,
    options: DiscoverOptions,
    warnings: &mut Vec<ConfigWarning>,
) -> (PluginInfo, Option<Manifest>) {
    let mut info = PluginInfo {
        name: folder
            .key
            .rsplit('/')
            .next()
            .unwrap_or(&folder.key)
            .to_owned(),
        key: folder.key,
        dir: folder.dir,
        description: String::new(),
        version: String::new(),
        library: None,
        enabled: false,
        status: PluginStatus::NotEnabled,
        hooks: Vec::new(),
    };
    let manifest = match read_manifest(&info.dir, &folder.manifest_file, warnings) {
        Ok(manifest) => manifest,
        Err(problem) => {
            info.enabled = lists.enables(&info.key, &info.name);
            info.status = PluginStatus::Invalid(problem.message.clone());
            warnings.push(problem);
            return (info, None);
        }
    };
    info.name = manifest.name.clone();
    info.description = manifest.description.clone();
    info.version = manifest.version.clone();
    info.library = manifest.library.clone();
    info.enabled = lists.enables(&info.key, &info.name);
    info.status = if lists.disables(&info.key, &info.name) {
        PluginStatus::Disabled
    } else if !info.enabled {
        PluginStatus::NotEnabled
    } else if options.safe_mode {
        PluginStatus::SafeMode
    } else if manifest.library.is_none() && info.dir.join("__init__.py").is_file() {
        warnings.push(warning(
            &manifest.file,
            "library",
            format!(
                "plugin '{}' is a Python plugin (__init__.py, no `library`); this host loads native plugins only; skipped",
                info.key
            ),
        ));
        PluginStatus::Python
    } else if manifest.library.is_none() {
        let message = "missing field `library` (the native library to load)".to_owned();
        warnings.push(warning(&manifest.file, "library", message.clone()));
        PluginStatus::Invalid(message)
    } else {
        return (info, Some(manifest));
    };
    (info, None)
}

/// Orders the candidates by `requires_plugins` and loads each library.
fn load_in_order(
    plugins_dir: &Path,
    candidates: Vec<(usize, Manifest)>,
    discovery: &mut Discovery,
) {
    let entries: Vec<OrderEntry> = candidates
        .iter()
        .map(|(index, manifest)| OrderEntry {
            key: discovery.found[*index].key.clone(),
            name: manifest.name.clone(),
            requires: manifest.requires_plugins.clone(),
        })
        .collect();
    let (order, order_warnings) = load_order(&entries);
    for problem in order_warnings {
        let file = problem
            .key
            .as_ref()
            .and_then(|key| {
                candidates
                    .iter()
                    .find(|(index, _)| discovery.found[*index].key == *key)
            })
            .map_or_else(
                || plugins_dir.to_owned(),
                |(_, manifest)| manifest.file.clone(),
            );
        discovery
            .warnings
            .push(warning(&file, "requires_plugins", problem.message));
    }
    for key in order {
        let Some((index, manifest)) = candidates
            .iter()
            .find(|(index, _)| discovery.found[*index].key == key)
        else {
            continue;
        };
        let Some(library) = &manifest.library else {
            continue;
        };
        let info = &mut discovery.found[*index];
        match NativePlugin::load_as(library, Some(&info.key), Some(&info.name)) {
            Ok(plugin) => {
                for hook in plugin.unknown_hooks() {
                    discovery.warnings.push(warning(
                        &manifest.file,
                        "library",
                        format!(
                            "plugin '{}' registered unknown hook '{hook}' (not in the event catalog); kept for forward compatibility",
                            info.key
                        ),
                    ));
                }
                tracing::debug!(plugin = %info.key, hooks = ?plugin.hooks(), "native plugin loaded");
                info.hooks = plugin.hooks().to_vec();
                info.status = PluginStatus::Loaded;
                discovery.plugins.push(Arc::new(plugin));
            }
            Err(error) => {
                let message = error.to_string();
                discovery.warnings.push(warning(
                    &manifest.file,
                    "library",
                    format!("plugin '{}' not loaded: {message}", info.key),
                ));
                info.status = PluginStatus::Failed(message);
            }
        }
    }
}
