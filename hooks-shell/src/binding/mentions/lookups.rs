//! Where a word may point: as a path from each place it may be read from,
//! with the extensions loaders add, and the files a glob matches.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, PoisonError};

use super::{Kind, MAX_LOOKUPS, Names, read};

/// Extensions a loader adds to a name (`import check`, `require('./check')`,
/// `require "check"`, `use Check`): a word naming such a file without it.
const LOADED_EXTENSIONS: [&str; 15] = [
    "py", "pyc", "so", "zip", "egg", "js", "cjs", "mjs", "ts", "node", "json", "rb", "pm", "lua",
    "pl",
];

impl Names {
    /// Where `word` may point: as a path from each place it may be read
    /// from, with the extensions loaders add; existing first.
    pub(super) fn lookups(
        &mut self,
        word: &str,
        dir: Option<&Path>,
        only: Option<&Path>,
    ) -> Vec<(PathBuf, Option<Kind>)> {
        if self.lookups > MAX_LOOKUPS {
            return Vec::new();
        }
        // `~/project/tools/gc`, `$HOME/…`: the project may be under the
        // home folder (round 58, H58-7).
        let at_home = under_home(word);
        let word = at_home.as_deref().unwrap_or(word);
        let relative = word.trim_start_matches('/');
        let mut bases: Vec<PathBuf> = Vec::new();
        if word.starts_with('/') && only.is_none() {
            bases.push(PathBuf::from("/"));
        }
        match only {
            Some(place) => bases.push(place.to_path_buf()),
            None => {
                bases.extend([self.project.clone(), self.cwd.clone()]);
                bases.extend(dir.map(Path::to_path_buf));
                bases.extend(self.places.iter().cloned());
                bases.extend(self.tops.node_modules(&self.project));
            }
        }
        self.lookups += bases.len() as u64;
        let mut out = Vec::new();
        let mut spelled: Vec<PathBuf> = Vec::with_capacity(bases.len());
        for (index, base) in bases.iter().enumerate() {
            let absolute = index == 0 && word.starts_with('/') && only.is_none();
            let text = if absolute { word } else { relative };
            let joined = base.join(text);
            spelled.push(normalize(&joined));
            if text.contains("..") {
                // The kernel takes `..` after a link from where the link
                // leads (`tools -> scripts/ci`: `tools/../lib` is
                // `scripts/lib`; red team round 7, R7a-4).
                spelled.extend(physical(&joined, &self.project));
            }
        }
        for path in spelled {
            // A Python environment's file is bound with its environment
            // (`cd sub && ../.venv/bin/python`, R30-4; a `bin/` script the
            // hook's code runs, R30-17), build output or not.
            let environment = || self.tops.environment_of(&self.project, &path).is_some();
            let path = if self.excluded(&path) && !environment() {
                // Build output or installed packages, unless a link there
                // leads back into the project's own code (an npm workspace:
                // `node_modules/@acme/rules -> ../../packages/rules`).
                match self.linked_back(&path) {
                    Some(real) => real,
                    None => continue,
                }
            } else {
                path
            };
            if path == self.project {
                out.push((path, Some(Kind::Folder)));
                continue;
            }
            if !path.starts_with(&self.project) {
                continue;
            }
            let (Some(parent), Some(name)) =
                (path.parent(), path.file_name().and_then(|n| n.to_str()))
            else {
                continue;
            };
            let listing = self.listing(parent);
            match listing.get(name) {
                Some(kind) => out.push((path.clone(), Some(*kind))),
                None => out.push((path.clone(), None)),
            }
            for ext in LOADED_EXTENSIONS {
                let with = format!("{name}.{ext}");
                if listing.get(&with) == Some(&Kind::File) {
                    out.push((parent.join(with), Some(Kind::File)));
                }
            }
            if !name.contains('.') {
                // A Python extension module: `helper.cpython-311-x86_64-linux-gnu.so`.
                let prefix = format!("{name}.");
                for (entry, kind) in listing.iter() {
                    if *kind == Kind::File
                        && entry.starts_with(&prefix)
                        && (entry.ends_with(".so") || entry.ends_with(".pyd"))
                    {
                        out.push((parent.join(entry), Some(Kind::File)));
                    }
                }
            }
        }
        out
    }

    /// The files `pattern` matches (`*`, `?`, `[...]` in any part, `**`
    /// any folders) from each place a word is looked up in; `..` taken by
    /// name and where the kernel takes it (after a link, from where it
    /// leads).
    pub(super) fn glob(&mut self, pattern: &str, dir: Option<&Path>) -> Vec<PathBuf> {
        let mut files = self.glob_paths(pattern, dir);
        files.retain(|path| path.is_file());
        files
    }

    /// The files and folders `pattern` matches, as [`Self::glob`].
    pub(super) fn glob_paths(&mut self, pattern: &str, dir: Option<&Path>) -> Vec<PathBuf> {
        let mut bases = vec![self.project.clone(), self.cwd.clone()];
        bases.extend(dir.map(Path::to_path_buf));
        bases.extend(self.places.iter().cloned());
        bases.dedup();
        let mut matched = Vec::new();
        for base in bases {
            let mut current = vec![base];
            for part in pattern
                .trim_start_matches('/')
                .split('/')
                .filter(|p| !p.is_empty())
            {
                let mut next = Vec::new();
                // Each folder listed counts against the budget.
                self.lookups += current.len() as u64;
                for folder in &current {
                    if part == "**" {
                        next.extend(crate::binding::globbing::folders_below(folder));
                        continue;
                    }
                    if part == ".." || part == "." {
                        let joined = folder.join(part);
                        next.extend(physical(&joined, &self.project));
                        next.push(normalize(&joined));
                        continue;
                    }
                    let listing = self.listing(folder);
                    for name in listing.keys() {
                        if crate::binding::globbing::wildcard(part, name) {
                            next.push(folder.join(name));
                        }
                    }
                }
                next.truncate(1_000);
                current = next;
            }
            // A Python environment's file is bound with its environment
            // (`.venv/bin/pyth*3`: R31-2), build output or not.
            let kept = |p: &PathBuf| {
                !self.excluded(p) || self.tops.environment_of(&self.project, p).is_some()
            };
            matched.extend(
                current
                    .into_iter()
                    .filter(|p| p.starts_with(&self.project) && p.exists() && kept(p)),
            );
        }
        matched.sort();
        matched.dedup();
        matched
    }

    /// A folder's entries and their kinds, listed once per load.
    pub(super) fn listing(&mut self, folder: &Path) -> Arc<HashMap<String, Kind>> {
        let mut listings = self.listings.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            listings
                .entry(folder.to_path_buf())
                .or_insert_with(|| Arc::new(read::listing(folder))),
        )
    }
}

/// `path` as the kernel resolves its `..` (each part before one with its
/// links followed), spelled from `project` when it lies there; `None` when
/// it is the lexical spelling, lies outside or cannot be resolved.
fn physical(path: &Path, project: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out = std::fs::canonicalize(&out).ok()?;
                out.pop();
            }
            other => out.push(other),
        }
    }
    let real_project = std::fs::canonicalize(project).ok()?;
    let inside = match out.strip_prefix(&real_project) {
        Ok(rest) => project.join(rest),
        Err(_) => normalize(&out),
    };
    (inside.starts_with(project) && inside != normalize(path)).then_some(inside)
}

/// `path` with `.` and `..` resolved by name (no link is followed).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `word` with a leading `~/`, `$HOME/` or `${HOME}/` made the home
/// folder's absolute path.
fn under_home(word: &str) -> Option<String> {
    let rest = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|prefix| word.strip_prefix(prefix))?;
    let home = std::env::var_os("HOME")?;
    Some(Path::new(&home).join(rest).to_string_lossy().into_owned())
}
