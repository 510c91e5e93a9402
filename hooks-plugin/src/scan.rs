//! Scanning plugin folders: manifests, kinds and enablement, before anything loads.
//!
//! Each root (user, then project) holds `<name>/plugin.yaml` folders, or one
//! level deeper under a category folder without a manifest
//! (`<category>/<name>`). A later root wins on a key collision, as in the
//! reference. A folder whose manifest names a `library` is a native plugin;
//! one with an `__init__.py` and no `library` is a Python plugin.

use std::path::{Path, PathBuf};

use crate::discover::{Discovery, PluginInfo, PluginKind, PluginSource, PluginStatus};
use crate::manifest::{manifest_file, read_manifest, warning};
use crate::python::PluginSpec;
use crate::settings::EnabledLists;

/// A plugin to load: where it is in [`Discovery::found`], what it requires, and how to load it.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub index: usize,
    pub requires: Vec<String>,
    /// The file warnings about it name (its manifest).
    pub file: PathBuf,
    pub load: Load,
}

/// How a candidate loads.
#[derive(Debug, Clone)]
pub(crate) enum Load {
    /// `NativePlugin::load` of this library.
    Native(PathBuf),
    /// Import and `register(ctx)` in the home's Python worker.
    Python(PluginSpec),
}

/// A folder holding a manifest, with its key and source.
struct Folder {
    key: String,
    dir: PathBuf,
    manifest_file: PathBuf,
    source: PluginSource,
}

/// Scans `roots` in order, records every plugin in `discovery.found` and
/// returns those to load (enabled, not disabled, not in safe mode).
pub(crate) fn scan(
    roots: &[(PluginSource, PathBuf)],
    lists: &EnabledLists,
    safe_mode: bool,
    discovery: &mut Discovery,
) -> Vec<Candidate> {
    let mut folders: Vec<Folder> = Vec::new();
    for (source, root) in roots {
        for folder in scan_root(root, *source) {
            if let Some(earlier) = folders.iter_mut().find(|f| f.key == folder.key) {
                tracing::debug!(key = %folder.key, "plugin {} overrides {}", folder.dir.display(), earlier.dir.display());
                *earlier = folder;
            } else {
                folders.push(folder);
            }
        }
    }
    folders.sort_by(|a, b| a.key.cmp(&b.key));
    let mut candidates = Vec::new();
    for folder in folders {
        let (info, candidate) = classify(folder, lists, safe_mode, discovery);
        if let Some(mut candidate) = candidate {
            candidate.index = discovery.found.len();
            candidates.push(candidate);
        }
        discovery.found.push(info);
    }
    candidates
}

/// Plugin folders under `root`, sorted by key.
fn scan_root(root: &Path, source: PluginSource) -> Vec<Folder> {
    let mut folders = Vec::new();
    for (name, dir) in sorted_subdirs(root) {
        if let Some(manifest_file) = manifest_file(&dir) {
            folders.push(Folder {
                key: name,
                dir,
                manifest_file,
                source,
            });
            continue;
        }
        for (child, child_dir) in sorted_subdirs(&dir) {
            match manifest_file(&child_dir) {
                Some(manifest_file) => folders.push(Folder {
                    key: format!("{name}/{child}"),
                    dir: child_dir,
                    manifest_file,
                    source,
                }),
                None => tracing::debug!(dir = %child_dir.display(), "no plugin.yaml; skipped"),
            }
        }
    }
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

/// The status of a plugin that is not loaded because of config or safe mode, if any.
pub(crate) fn gate(
    lists: &EnabledLists,
    key: &str,
    name: &str,
    safe_mode: bool,
) -> Option<PluginStatus> {
    if lists.disables(key, name) {
        Some(PluginStatus::Disabled)
    } else if !lists.enables(key, name) {
        Some(PluginStatus::NotEnabled)
    } else if safe_mode {
        Some(PluginStatus::SafeMode)
    } else {
        None
    }
}

/// Decides what to do with one folder; a candidate means "load it".
fn classify(
    folder: Folder,
    lists: &EnabledLists,
    safe_mode: bool,
    discovery: &mut Discovery,
) -> (PluginInfo, Option<Candidate>) {
    let python_files = folder.dir.join("__init__.py").is_file();
    let mut info = PluginInfo {
        name: folder
            .key
            .rsplit('/')
            .next()
            .unwrap_or(&folder.key)
            .to_owned(),
        kind: if python_files {
            PluginKind::Python
        } else {
            PluginKind::Native
        },
        source: folder.source,
        key: folder.key,
        dir: folder.dir,
        description: String::new(),
        version: String::new(),
        library: None,
        enabled: false,
        required: false,
        status: PluginStatus::NotEnabled,
        hooks: Vec::new(),
        sections: Vec::new(),
    };
    let manifest = match read_manifest(&info.dir, &folder.manifest_file, &mut discovery.warnings) {
        Ok(manifest) => manifest,
        Err(problem) => {
            info.enabled = lists.enables(&info.key, &info.name);
            info.required = lists.requires(&info.key, &info.name);
            info.status = PluginStatus::Invalid(problem.message.clone());
            discovery.warnings.push(problem);
            return (info, None);
        }
    };
    info.name = manifest.name.clone();
    info.description = manifest.description.clone();
    info.version = manifest.version.clone();
    info.library = manifest.library.clone();
    info.enabled = lists.enables(&info.key, &info.name);
    info.required = lists.requires(&info.key, &info.name);
    if manifest.library.is_some() {
        info.kind = PluginKind::Native;
    }
    // As in the reference: disabled first, then the plugins another discovery owns.
    if let Some(reason) =
        handled_elsewhere(&manifest, &info.dir).filter(|_| !lists.disables(&info.key, &info.name))
    {
        info.status = PluginStatus::Skipped(reason.to_owned());
        return (info, None);
    }
    // Checked before safe mode: a listing (safe mode on, loading off) must
    // not report an enabled plugin with nothing to load as one that would run.
    if manifest.library.is_none()
        && !python_files
        && gate(lists, &info.key, &info.name, false).is_none()
    {
        let message =
            "neither a `library` (a native plugin) nor an `__init__.py` (a Python plugin)"
                .to_owned();
        discovery
            .warnings
            .push(warning(&manifest.file, "library", message.clone()));
        info.status = PluginStatus::Invalid(message);
        return (info, None);
    }
    if let Some(status) = gate(lists, &info.key, &info.name, safe_mode) {
        info.status = status;
        return (info, None);
    }
    let load = match &manifest.library {
        Some(library) => Load::Native(library.clone()),
        None if python_files => Load::Python(PluginSpec {
            key: info.key.clone(),
            name: info.name.clone(),
            module: module_slug(&info.key, &info.name),
            source: info.source.as_str().to_owned(),
            path: info.dir.to_string_lossy().into_owned(),
            version: info.version.clone(),
            description: info.description.clone(),
        }),
        // Refused above: nothing to load.
        None => return (info, None),
    };
    let candidate = Candidate {
        index: 0,
        requires: manifest.requires_plugins,
        file: manifest.file,
        load,
    };
    (info, Some(candidate))
}

/// Why Hermes's general plugin loader leaves this plugin to another
/// discovery, as the reference does: `kind: exclusive` (memory providers) and
/// `kind: model-provider`, or with no `kind`, an `__init__.py` that looks like
/// one (the reference reads its first 8 KiB for the same markers).
fn handled_elsewhere(manifest: &crate::manifest::Manifest, dir: &Path) -> Option<&'static str> {
    const MEMORY: &str =
        "a memory provider (exclusive plugin), activated through `memory.provider`";
    const MODEL: &str = "a model provider, loaded by Hermes's provider discovery";
    match manifest.kind.as_deref() {
        Some("exclusive") => return Some(MEMORY),
        Some("model-provider") => return Some(MODEL),
        Some(_) => return None,
        None => {}
    }
    let mut head = Vec::new();
    let file = std::fs::File::open(dir.join("__init__.py")).ok()?;
    std::io::Read::read_to_end(&mut std::io::Read::take(file, 8192), &mut head).ok()?;
    let text = String::from_utf8_lossy(&head);
    if text.contains("register_memory_provider") || text.contains("MemoryProvider") {
        Some(MEMORY)
    } else if text.contains("register_provider") && text.contains("ProviderProfile") {
        Some(MODEL)
    } else {
        None
    }
}

/// The module a directory plugin imports as, under `hermes_plugins.`: the
/// reference's key (the manifest name for a top-level folder, `category/folder`
/// nested) with `/` as `__` and `-` as `_`, so plugins that import each other
/// by these names keep working.
fn module_slug(key: &str, name: &str) -> String {
    let reference_key = if key.contains('/') { key } else { name };
    reference_key.replace('/', "__").replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_slugs_follow_the_reference_key() {
        assert_eq!(
            module_slug("memory-recall", "memory-recall"),
            "memory_recall"
        );
        assert_eq!(module_slug("guard-dir", "rm-guard"), "rm_guard");
        assert_eq!(
            module_slug("image_gen/openai", "openai"),
            "image_gen__openai"
        );
    }
}
