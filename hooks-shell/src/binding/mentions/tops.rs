//! A project's top-level entries as naming sees them: those no word can
//! spell, the `node_modules` folder loaders look in, and build output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level folders a build or an install writes (left out when
/// `.gitignore` ignores them and git's index tracks nothing in them).
const BUILD_OUTPUT: [&str; 22] = [
    "target",
    "node_modules",
    "dist",
    "build",
    "out",
    ".venv",
    "venv",
    "__pycache__",
    ".next",
    ".nuxt",
    ".svelte-kit",
    "coverage",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".cache",
    ".parcel-cache",
    ".turbo",
    "_build",
];

/// The project's top-level entries.
#[derive(Debug)]
pub(super) struct Tops {
    /// Every name but `.git`.
    names: BTreeSet<String>,
    /// The [`BUILD_OUTPUT`] names that are build output here.
    output: BTreeSet<String>,
    /// The entries whose names no word can spell (not UTF-8 included).
    unspellable: Vec<PathBuf>,
    /// The Python environments (`pyvenv.cfg`, not committed): bound whole
    /// by metadata, never read ([`crate::binding::is_environment`]).
    pub(super) environments: Vec<PathBuf>,
    /// Folders below the top holding `pyvenv.cfg`, and whether each is an
    /// environment (told once: it reads git's index).
    nested: std::sync::Mutex<std::collections::HashMap<PathBuf, bool>>,
}

/// How deep below the project's top an environment is looked for
/// (`tools/.venv`, `services/api/.venv`: R28-8).
const ENVIRONMENT_DEPTH: usize = 4;

impl Tops {
    pub(super) fn of(project: &Path) -> Tops {
        let mut names = BTreeSet::new();
        let mut unspellable = Vec::new();
        let spellable = |c: char| c.is_alphanumeric() || "_.@+~%,:-".contains(c);
        if let Ok(listing) = std::fs::read_dir(project) {
            for entry in listing.flatten().take(100_000) {
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    unspellable.push(entry.path());
                    continue;
                };
                if name == ".git" {
                    continue;
                }
                if !name.chars().all(spellable) {
                    unspellable.push(entry.path());
                }
                names.insert(name);
            }
        }
        let ignore = std::fs::read_to_string(project.join(".gitignore")).unwrap_or_default();
        let git = project.join(".git").exists();
        let candidates: Vec<&String> = names
            .iter()
            .filter(|name| BUILD_OUTPUT.contains(&name.as_str()))
            .filter(|name| ignored(&ignore, name))
            .collect();
        // Only in a git checkout, and only what git does not track (a file
        // committed under an ignored name came with the repository); the
        // index is read once, and only when there is something to ask.
        let tracked = if git && !candidates.is_empty() {
            crate::binding::git_index::tracked_tops(project)
        } else {
            None
        };
        let output = match tracked {
            Some(tracked) => candidates
                .into_iter()
                .filter(|name| !tracked.contains(name.as_bytes()))
                .cloned()
                .collect(),
            None => BTreeSet::new(),
        };
        let environments = names
            .iter()
            .map(|name| project.join(name))
            .filter(|top| crate::binding::is_environment(top))
            .collect();
        Tops {
            names,
            output,
            unspellable,
            environments,
            nested: std::sync::Mutex::default(),
        }
    }

    /// The Python environment of `project` holding `path`, if any: a
    /// top-level one, or one a few folders down.
    pub(super) fn environment_of(&self, project: &Path, path: &Path) -> Option<PathBuf> {
        let holding = crate::binding::environment::holding(&self.environments, project, path);
        if holding.is_some() {
            return holding;
        }
        let inside = path.strip_prefix(project).ok()?;
        let mut folder = project.to_path_buf();
        let parts = inside.components().take(ENVIRONMENT_DEPTH);
        for (depth, part) in parts.enumerate() {
            folder.push(part);
            if depth == 0 || !folder.join("pyvenv.cfg").is_file() {
                continue;
            }
            let mut nested = self.nested.lock().unwrap_or_else(|e| e.into_inner());
            let found = *nested.entry(folder.clone()).or_insert_with(|| {
                crate::binding::environment::is_environment_in(&folder, project)
            });
            if found {
                return Some(folder);
            }
        }
        None
    }

    /// The top-level entries whose names no word can spell.
    pub(super) fn unspellable(&self) -> &[PathBuf] {
        &self.unspellable
    }

    /// `node_modules`, where `require("x")` looks (what is installed
    /// there is left out as build output; a link back into the project is
    /// followed).
    pub(super) fn node_modules(&self, project: &Path) -> Option<PathBuf> {
        self.names
            .contains("node_modules")
            .then(|| project.join("node_modules"))
    }

    /// Whether `path` lies under a top-level folder of build output.
    pub(super) fn built_output(&self, project: &Path, path: &Path) -> bool {
        let Ok(inside) = path.strip_prefix(project) else {
            return false;
        };
        inside
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .is_some_and(|top| self.output.contains(top))
    }
}

/// Whether the root `.gitignore` text ignores the top-level `name`.
fn ignored(ignore: &str, name: &str) -> bool {
    ignore.lines().map(str::trim).any(|line| {
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            return false;
        }
        let pattern = line.trim_start_matches("**/").trim_start_matches('/');
        let pattern = pattern.trim_end_matches('/');
        !pattern.is_empty()
            && !pattern.contains('/')
            && crate::dialect::path_rule::matches(pattern, name)
    })
}
