//! The folders a hook's code names (places later words are looked up in)
//! and their entry files: bound when the folder is named where code may
//! load it, not when shell code only names it quietly ([`super::quiet`]).

use std::path::{Path, PathBuf};

use super::{Kind, Names, quiet};

/// The files a folder's loaders run when the folder is named.
const ENTRY_FILES: [&str; 14] = [
    "__init__.py",
    "__main__.py",
    "index.js",
    "index.cjs",
    "index.mjs",
    "index.ts",
    "index.json",
    "index.node",
    "main.py",
    "package.json",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "pkgIndex.tcl",
];

/// What Tcl's `package require` reads in each folder under one on its
/// `auto_path` (red team round 8, R8-5: `lappend auto_path vendor; package
/// require acme` sources `vendor/acme/pkgIndex.tcl`, which sources
/// `acme.tcl`).
const PACKAGE_INDEX: &str = "pkgIndex.tcl";

impl Names {
    /// Makes `folder` a place, and each folder above it up to the project,
    /// by name and where its links lead (`cd scripts/ci && cd .. && . lib/x`,
    /// `cd -P tools && cd ..` with `tools -> scripts/ci`: red team round
    /// 7c, R7c-4); binds their entry files when `loads` (or a glob read
    /// where it may load may name one), now or when named so later.
    pub(super) fn add_place(&mut self, folder: PathBuf, loads: bool) {
        for place in self.with_parents(folder) {
            self.add_one_place(place, loads);
        }
    }

    /// `folder`, the folders above it, and where it really is (links
    /// followed) and the folders above that, inside the project.
    fn with_parents(&self, folder: PathBuf) -> Vec<PathBuf> {
        let mut folders = vec![folder.clone()];
        let real = std::fs::canonicalize(&folder).ok().and_then(|real| {
            let project = std::fs::canonicalize(&self.project).ok()?;
            Some(self.project.join(real.strip_prefix(&project).ok()?))
        });
        for start in std::iter::once(folder).chain(real) {
            let mut at = Some(start.as_path());
            while let Some(here) = at {
                if here == self.project || !here.starts_with(&self.project) {
                    break;
                }
                if !folders.iter().any(|known| known == here) {
                    folders.push(here.to_path_buf());
                }
                at = here.parent();
            }
        }
        folders
    }

    fn add_one_place(&mut self, folder: PathBuf, loads: bool) {
        if self.excluded(&folder) {
            return;
        }
        if !self.places.contains(&folder) {
            self.places.push(folder.clone());
            self.quiet_places.insert(folder.clone());
            // Words read before it was named are looked up in it too.
            let seen: Vec<_> = self
                .seen
                .iter()
                .chain(&self.seen_here)
                .map(|(key, reach)| (key.clone(), *reach))
                .collect();
            for ((word, dir), reach) in seen {
                self.word(&word, dir.as_deref(), Some(&folder), reach);
            }
        }
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let globbed = self
            .loading_globs
            .iter()
            .any(|glob| quiet::glob_may_name(glob, &name));
        if (loads || globbed || self.every_place_loads) && self.quiet_places.remove(&folder) {
            self.bind_entries(&folder);
        }
    }

    /// Notes `glob`, read where it may load what it matches: the quiet
    /// places it may name get their entry files bound.
    pub(super) fn loading_glob(&mut self, glob: String) {
        let named: Vec<PathBuf> = self
            .quiet_places
            .iter()
            .filter(|place| {
                place
                    .file_name()
                    .is_some_and(|name| quiet::glob_may_name(&glob, &name.to_string_lossy()))
            })
            .cloned()
            .collect();
        self.loading_globs.insert(glob);
        for place in named {
            self.quiet_places.remove(&place);
            self.bind_entries(&place);
        }
    }

    /// Binds the entry files of `folder`, and the package index of each
    /// folder in it.
    pub(super) fn bind_entries(&mut self, folder: &Path) {
        for entry in ENTRY_FILES {
            let path = folder.join(entry);
            if path.is_file() {
                self.add_file(path);
            }
        }
        let listing = self.listing(folder);
        for (name, kind) in listing.iter() {
            let index = folder.join(name).join(PACKAGE_INDEX);
            if *kind == Kind::Folder && index.is_file() {
                self.add_file(index);
            }
        }
    }

    /// Binds the entry files of every place, now and from now on: code
    /// read may change what a program's name runs.
    pub(super) fn load_every_place(&mut self) {
        self.every_place_loads = true;
        for place in std::mem::take(&mut self.quiet_places) {
            self.bind_entries(&place);
        }
    }
}
