//! The files of a project that a project hook's code names (red-team rounds
//! 5 and 6): `check.sh` running `"$CLAUDE_PROJECT_DIR/scripts/lint.sh"`,
//! `check.py` putting `lib` on its module path and importing `helper`,
//! `sh -c 'sh check.sh'`, `python3 -c "exec(open('check.py').read())"`, a
//! Makefile's `SHELL := tools/sh`, `$(shell sh gen/x.sh)`, `$(MAKE) -C sub`,
//! `load x.so`, an npm script's `node scripts/lint.js` requiring
//! `./helpers.js`.
//!
//! No reading of each language follows every way code reaches a file, so
//! this reads words: in the hook's command (and the values its settings'
//! `env` gives), every file of its hook tree, the files its command names
//! and the manifests its program reads. A word binds:
//!
//! - a **code file** it names (by extension or name, a `#!` line, the
//!   execute bit, ELF): as a path from the project, the working folder,
//!   the file's own folder or a folder named elsewhere (`lib` and `import
//!   helper` → `lib/helper.py`); a script's name without the extension a
//!   loader adds (`import check`, `require('./check')`); a dotted module
//!   (`pkg.mod`); a glob (`t*/x.sh`); and a Python file's compiled copies in
//!   `__pycache__`;
//! - **any file** it names where a shell runs or reads it as code or as a
//!   name: after `sh`, `bash`, `source`, `.`, an interpreter, `-f`, `exec`,
//!   inside `$( )` or backticks (`sh tools/lint.txt`, `. build.conf`,
//!   `$(cat which.txt)`);
//! - a **missing** code file named by a path (`scripts/extra.sh`): created
//!   later, it asks again;
//! - for a **folder** it names: the folder becomes a place later words are
//!   looked up in, and its entry files are bound (build files,
//!   `__init__.py`, `__main__.py`, `index.js`, ...), not the rest of it: a
//!   guard that says `src/` does not ask again after each edit of `src`.
//!
//! What is bound is read the same way in turn. A top-level entry whose name
//! no word can spell (a blank, a quote, `=`, `#`, parentheses) has its code
//! bound whole. A shell output redirection's target is written, not run:
//! never bound. Left out: a file under a top-level build-output folder
//! (`target/`, `node_modules/`, `dist/`...) that `.gitignore` ignores and
//! git's index does not track, in a git checkout: what the project's build
//! or install rewrites (`docs/decisions/code-a-project-hook-names.md`).

mod read;
mod tops;

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::BindError;
pub(crate) use read::is_code_file;
use tops::Tops;

/// Extensions a loader adds to a name (`import check`, `require('./check')`,
/// `require "check"`, `use Check`): a word naming such a file without it.
const LOADED_EXTENSIONS: [&str; 15] = [
    "py", "pyc", "so", "zip", "egg", "js", "cjs", "mjs", "ts", "node", "json", "rb", "pm", "lua",
    "pl",
];

/// The files a folder's loaders run when the folder is named.
const ENTRY_FILES: [&str; 11] = [
    "__init__.py",
    "__main__.py",
    "index.js",
    "index.cjs",
    "index.mjs",
    "index.ts",
    "main.py",
    "package.json",
    "Makefile",
    "makefile",
    "GNUmakefile",
];

/// The project files the hook's `command` text and the code under `seeds`
/// name (see the module documentation); files under `covered` (the hook
/// tree, bound whole) are read but not returned. A file in the set may be
/// missing (bound as missing). What the seeds name is read once per load or
/// run ([`super::TreeCache`]), however many hooks share them.
pub(crate) fn named_files(
    project: &Path,
    cwd: &Path,
    command: &str,
    seeds: &[PathBuf],
    covered: &[PathBuf],
) -> Result<BTreeSet<PathBuf>, BindError> {
    let mut key = vec![project.to_path_buf(), cwd.to_path_buf()];
    key.extend(seeds.iter().cloned());
    key.push(PathBuf::from("\0covered"));
    key.extend(covered.iter().cloned());
    let seeded = super::cache::cached_named(&key, || {
        let mut names = Names::new(project, cwd);
        for unspellable in names.tops.unspellable().to_vec() {
            for file in read::code_files_under(&unspellable) {
                names.add_file(file);
            }
        }
        for seed in seeds.iter().filter(|seed| inside(project, seed)) {
            for file in read::files_under(seed) {
                names.read(&file)?;
            }
        }
        names.drain()?;
        Ok(Arc::new(names))
    })?;
    let mut names = (*seeded).clone();
    names.text(command, None, true);
    names.drain()?;
    let mut files = names.files;
    files.retain(|file| !covered.iter().any(|root| file.starts_with(root)));
    Ok(files)
}

/// Whether `path` lies in `project` (by name).
fn inside(project: &Path, path: &Path) -> bool {
    normalize(path).starts_with(project)
}

/// What a file or folder is, as its folder lists it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    File,
    Folder,
}

/// What has been named so far, and how to go on.
#[derive(Clone, Debug)]
pub(crate) struct Names {
    project: PathBuf,
    cwd: PathBuf,
    tops: Arc<Tops>,
    /// Folders named so far, where words are looked up too.
    places: Vec<PathBuf>,
    files: BTreeSet<PathBuf>,
    /// Files bound and not read yet.
    queue: Vec<PathBuf>,
    /// Each word read and the folder of the file it was read in (looked up
    /// again in each folder named later).
    seen: BTreeSet<(String, Option<PathBuf>)>,
    /// Each folder's entries and their kinds (links followed).
    listings: HashMap<PathBuf, HashMap<String, Kind>>,
    read: read::Budget,
    /// Look-ups made, against [`MAX_LOOKUPS`].
    lookups: u64,
}

/// The most look-ups of words in folders one binding makes: past it the
/// hook's code names too much to read on every run, and it cannot be
/// approved (never a silent cut: a cap on the folders looked in let the
/// 65th go unbound).
const MAX_LOOKUPS: u64 = 20_000_000;

impl Names {
    fn new(project: &Path, cwd: &Path) -> Names {
        Names {
            project: project.to_path_buf(),
            cwd: cwd.to_path_buf(),
            tops: Arc::new(Tops::of(project)),
            places: Vec::new(),
            files: BTreeSet::new(),
            queue: Vec::new(),
            seen: BTreeSet::new(),
            listings: HashMap::new(),
            read: read::Budget::default(),
            lookups: 0,
        }
    }

    /// Reads every file bound and not read yet.
    fn drain(&mut self) -> Result<(), BindError> {
        while let Some(file) = self.queue.pop() {
            self.read(&file)?;
        }
        if self.lookups > MAX_LOOKUPS {
            return Err(BindError::TreeTooLarge(self.project.clone()));
        }
        Ok(())
    }

    /// Reads the words of the file at `path`.
    fn read(&mut self, path: &Path) -> Result<(), BindError> {
        let Some(text) = self.read.text(path)? else {
            return Ok(());
        };
        let shell = read::is_shell(path, &text);
        self.text(&text, path.parent(), shell);
        if !shell && read::loads_code(&text) {
            // It runs code it reads (`exec(open(...).read())`, `pickle`,
            // `require`): every file it names may be that code.
            self.any_file_named(&text, path.parent());
        }
        Ok(())
    }

    /// Binds every existing file a word of `text` names, whatever it is.
    fn any_file_named(&mut self, text: &str, dir: Option<&Path>) {
        for word in read::words(text) {
            for (path, kind) in self.lookups(&word, dir, None) {
                if kind == Some(Kind::File) {
                    self.add_file(path);
                }
            }
        }
    }

    /// Binds what the words of `text` (found in `dir`; shell code when
    /// `shell`) name.
    fn text(&mut self, text: &str, dir: Option<&Path>, shell: bool) {
        let text = read::without_written_targets(text);
        for word in read::run_or_read_words(&text) {
            if read::is_glob(&word) {
                for path in self.glob(&word, dir) {
                    self.add_file(path);
                }
                continue;
            }
            for (path, kind) in self.lookups(&word, dir, None) {
                if kind == Some(Kind::File) {
                    self.add_file(path);
                }
            }
        }
        for word in read::words(&text) {
            if !read::is_glob(&word) && self.seen.insert((word.clone(), dir.map(Path::to_path_buf)))
            {
                self.word(&word, dir, None);
            }
        }
        // In shell code a glob names what runs in a `for` loop's list (or
        // after a shell, above); elsewhere it is a formatter's operands
        // (`sed -i ... src/*.ts`) or a `case` pattern. Other code: any
        // glob but a `case` pattern.
        let listed = if shell {
            read::loop_lists(&text)
        } else {
            read::without_case_patterns(&text)
        };
        for word in read::words(&listed) {
            if read::is_glob(&word) {
                for path in self.glob(&word, dir) {
                    self.found(path, Some(Kind::File), &word);
                }
            }
        }
    }

    /// Binds what `word` names, looked up everywhere or only in `only`.
    fn word(&mut self, word: &str, dir: Option<&Path>, only: Option<&Path>) {
        let mut spellings = vec![word.to_owned()];
        if !word.contains('/')
            && let Some((first, rest)) = word.split_once('.')
            && !first.is_empty()
            && !rest.is_empty()
        {
            // `pkg.mod` (an import): `pkg/mod`.
            spellings.push(word.replace('.', "/"));
        }
        for spelling in spellings {
            for (path, kind) in self.lookups(&spelling, dir, only) {
                self.found(path, kind, word);
            }
        }
    }
    /// `path` (of `kind`, `None`: missing) named by `word`.
    fn found(&mut self, path: PathBuf, kind: Option<Kind>, word: &str) {
        match kind {
            Some(Kind::File) if is_code_file(&path) => self.add_file(path),
            Some(Kind::File) => {}
            Some(Kind::Folder) => self.add_place(path),
            None => {
                // A path computed on (`"plugins/" + name`): the folder it
                // starts in is a place words are looked up in.
                if word.contains('/') {
                    let mut ancestor = path.parent();
                    while let Some(folder) = ancestor {
                        if folder == self.project || !folder.starts_with(&self.project) {
                            break;
                        }
                        if folder.is_dir() {
                            self.add_place(folder.to_path_buf());
                            break;
                        }
                        ancestor = folder.parent();
                    }
                }
                let code = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    read::CODE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str())
                });
                if code && word.contains('/') && path.parent().is_some_and(Path::is_dir) {
                    self.add_file(path);
                }
            }
        }
    }

    /// Where `word` may point: as a path from each place it may be read
    /// from, with the extensions loaders add; existing first.
    fn lookups(
        &mut self,
        word: &str,
        dir: Option<&Path>,
        only: Option<&Path>,
    ) -> Vec<(PathBuf, Option<Kind>)> {
        if self.lookups > MAX_LOOKUPS {
            return Vec::new();
        }
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
        for (index, base) in bases.iter().enumerate() {
            let absolute = index == 0 && word.starts_with('/') && only.is_none();
            let text = if absolute { word } else { relative };
            let path = normalize(&base.join(text));
            if !path.starts_with(&self.project) || path == self.project || self.excluded(&path) {
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
                for (entry, kind) in &listing {
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

    /// The files `pattern` matches (`*`, `?`, `[...]` in any part).
    fn glob(&mut self, pattern: &str, dir: Option<&Path>) -> Vec<PathBuf> {
        let mut bases = vec![self.project.clone(), self.cwd.clone()];
        bases.extend(dir.map(Path::to_path_buf));
        let mut matched = Vec::new();
        for base in bases {
            let mut current = vec![base];
            for part in pattern
                .trim_start_matches('/')
                .split('/')
                .filter(|p| !p.is_empty())
            {
                let mut next = Vec::new();
                for folder in &current {
                    if part == ".." || part == "." {
                        next.push(normalize(&folder.join(part)));
                        continue;
                    }
                    let listing = self.listing(folder);
                    for name in listing.keys() {
                        if read::wildcard(part, name) {
                            next.push(folder.join(name));
                        }
                    }
                }
                next.truncate(1_000);
                current = next;
            }
            matched.extend(
                current
                    .into_iter()
                    .filter(|p| p.starts_with(&self.project) && p.is_file() && !self.excluded(p)),
            );
        }
        matched
    }

    fn listing(&mut self, folder: &Path) -> HashMap<String, Kind> {
        self.listings
            .entry(folder.to_path_buf())
            .or_insert_with(|| read::listing(folder))
            .clone()
    }

    fn add_file(&mut self, path: PathBuf) {
        if self.excluded(&path) || !self.files.insert(path.clone()) {
            return;
        }
        if path.is_file() {
            self.queue.push(path.clone());
        }
        if path.extension().is_some_and(|e| e == "py")
            && let (Some(parent), Some(stem)) = (path.parent(), path.file_stem())
        {
            // What Python runs in place of the source (PEP 3147, 552).
            let cache = parent.join("__pycache__");
            let prefix = format!("{}.", stem.to_string_lossy());
            for name in self.listing(&cache).keys() {
                if name.starts_with(&prefix) && name.ends_with(".pyc") {
                    self.add_file(cache.join(name));
                }
            }
        }
    }

    fn add_place(&mut self, folder: PathBuf) {
        if self.excluded(&folder) || self.places.contains(&folder) {
            return;
        }
        {
            self.places.push(folder.clone());
            // Words read before it was named are looked up in it too.
            let seen: Vec<_> = self.seen.iter().cloned().collect();
            for (word, dir) in seen {
                self.word(&word, dir.as_deref(), Some(&folder));
            }
        }
        for entry in ENTRY_FILES {
            let path = folder.join(entry);
            if path.is_file() {
                self.add_file(path);
            }
        }
    }

    /// Whether `path` is left out: under build output.
    fn excluded(&self, path: &Path) -> bool {
        self.tops.built_output(&self.project, path)
    }
}

/// `path` with `.` and `..` resolved by name (no link is followed).
fn normalize(path: &Path) -> PathBuf {
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

#[cfg(test)]
mod tests;
