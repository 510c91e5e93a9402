//! The files of a project that a project hook's code names (red-team rounds
//! 5 and 6): `check.sh` running `"$CLAUDE_PROJECT_DIR/scripts/lint.sh"`,
//! `check.py` putting `lib` on its module path and importing `helper`, `sh
//! -c 'sh check.sh'`, `python3 -c "exec(open('check.py').read())"`, `SHELL
//! := tools/sh`, `$(shell sh gen/x.sh)`, `$(MAKE) -C sub`, `load x.so`.
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
//!   (`pkg.mod`, also in the project's `src` and what a development
//!   install's `.pth` names); a Perl module (`Acme::Check`); a folder an
//!   option joins (`-Ivendor` on a `#!` line or a compiler's command); a
//!   glob (`t*/x.sh`); and a Python file's compiled copies in `__pycache__`
//!   ([`spellings`]);
//! - **any file** it names where a shell runs or reads it as code or as a
//!   name: after `sh`, `bash`, `source`, `.`, an interpreter, `-f`, `exec`,
//!   inside `$( )` or backticks (`sh tools/lint.txt`, `. build.conf`,
//!   `$(cat which.txt)`);
//! - a **missing** code file named by a path (`scripts/extra.sh`): created
//!   later, it asks again;
//! - for a **folder** it names: the folder becomes a place later words are
//!   looked up in, and so does each folder above it up to the project, by
//!   name and where its links lead (`cd scripts/ci && cd .. && . lib/x`,
//!   `cd -P tools && cd ..` with `tools -> scripts/ci`: red team R7c-4);
//!   their entry files are bound (build files, `__init__.py`,
//!   `__main__.py`, `index.js`, ...), not the rest of them: a guard that
//!   says `src/` does not ask again after each edit of `src`. Entry files
//!   are not bound for a folder shell code names only in a comment or as
//!   an operand of a program that runs and prints nothing (`grep -q`,
//!   `test`; [`quiet`]).
//!
//! A `..` in a word or a glob is taken by name and where the kernel takes
//! it (after a link, from where the link leads); a trailing `dir/..` is
//! kept, and a word its quotes split (`"$D/tools/.."/lib/x`) is read
//! joined too. Words are read as written and as the program reads them
//! (red team round 8): shell code with its backslash-newlines joined,
//! `$'...'` decoded, brace lists expanded and `~+` read as `$PWD`
//! ([`spelled`], [`braces`]); other code with its string literals' escapes
//! decoded and adjacent literals joined ([`literals`]).
//!
//! A JavaScript or TypeScript file read binds the nearest `package.json`
//! (and Deno's and TypeScript's manifests) of its folder, read for what
//! their maps name ([`scopes`]: `import "#util"`); a folder on Tcl's
//! `auto_path` binds its packages' `pkgIndex.tcl`; code that runs git binds
//! the repository's configuration and what it runs ([`git_config`]; red
//! team round 8).
//!
//! What is bound is read in turn, as the language its `#!` line (else its
//! name) says and as the language of what runs it ([`language`], R7c-7): a
//! file a shell runs or sources is read as shell code, `make -f`'s file as
//! a makefile, and a file any program may run that is not code by its name
//! as shell code too (`sh tools/run.txt` running `/bin/sh stage2.dat`). A
//! top-level entry whose name no word can spell (a blank, a quote, `=`,
//! `#`, parentheses) has its code bound whole. A shell output
//! redirection's target is written, not run: never bound. Left out: a file
//! under a top-level build-output folder (`target/`, `node_modules/`...)
//! that `.gitignore` ignores and git's index does not track, in a git
//! checkout; a Python environment's files, read lightly (`environments.rs`).

mod braces;
pub(crate) use braces::expanded as brace_expanded;
pub(crate) use read::without_written_targets;
mod compiled;
mod entry_points;
mod environment_code;
mod environments;
mod git_config;
mod language;
pub(crate) mod literals;
mod lookups;
mod pickles;
mod places;
mod quiet;
mod read;
mod scopes;
mod settings;
mod settings_code;
mod shell_globs;
mod spelled;
mod spellings;
mod tops;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::BindError;
pub(crate) use git_config::{entries as git_settings, expand_home, pointed_at, runs_git};
pub(crate) use lookups::normalize;
pub(super) use quiet::Reach;
pub(crate) use read::{MAX_READ, is_code_file};
use tops::Tops;

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
        let mut names = Names::new(project, cwd).with_top_entry_points();
        for unspellable in names.tops.unspellable().to_vec() {
            for file in read::code_files_under(&unspellable) {
                names.add_file(file);
            }
        }
        for seed in seeds
            .iter()
            .filter(|seed| normalize(seed).starts_with(project))
        {
            if let Some(environment) = names.tops.environment_of(project, seed) {
                // By metadata (R27-1), and what the seed imports there read.
                names.add_environment_file(environment, seed.clone());
                // What the hook runs there is read (`.venv/Scripts/x`: R28b-3).
                names
                    .queue
                    .extend(seed.is_file().then(|| (seed.clone(), None)));
                continue;
            }
            for file in read::files_under(seed) {
                names.read(&file, None)?;
            }
        }
        names.drain()?;
        names.seen = Arc::new(std::mem::take(&mut names.seen_here));
        Ok(Arc::new(names))
    })?;
    let mut names = (*seeded).clone();
    names.text(command, None, Code::Shell);
    names.drain()?;
    let mut files = names.files;
    files.retain(|file| !covered.iter().any(|root| file.starts_with(root)));
    Ok(files)
}

/// What a file or folder is, as its folder lists it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    File,
    Folder,
}

/// Each folder's entries and their kinds, shared by the hooks of a load.
type Listings = HashMap<PathBuf, Arc<HashMap<String, Kind>>>;

/// Each word read and the folder of the file it was read in, with how far
/// it reaches what it names.
type Seen = BTreeMap<(String, Option<PathBuf>), Reach>;

/// How a text is read.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Code {
    /// Shell code (the command, a shell script): read for quiet words.
    Shell,
    /// A makefile or justfile: shell lines in a language of its own.
    Make,
    /// Any other code.
    Other,
}

/// What has been named so far, and how to go on.
#[derive(Clone, Debug)]
pub(crate) struct Names {
    project: PathBuf,
    cwd: PathBuf,
    tops: Arc<Tops>,
    /// Folders named so far, where words are looked up too.
    places: Vec<PathBuf>,
    /// The places whose entry files are not bound: named only by quiet
    /// words so far.
    quiet_places: BTreeSet<PathBuf>,
    /// The globs read where they may load what they match.
    loading_globs: BTreeSet<String>,
    /// Whether code read may change what a program's name runs: no word
    /// is quiet then.
    every_place_loads: bool,
    files: BTreeSet<PathBuf>,
    /// Files bound and not read yet, with the language what runs them
    /// reads them as ([`language`]).
    queue: Vec<(PathBuf, Option<Code>)>,
    /// The languages each file was read as.
    read_as: HashMap<PathBuf, Vec<Code>>,
    /// Each word read and the folder of the file it was read in (looked up
    /// again in each folder named later).
    /// Shared by the hooks of one load (read-only once the seeds are
    /// read; see [`named_files`]), and this hook's own.
    seen: Arc<Seen>,
    seen_here: Seen,
    /// Each folder's entries and their kinds (links followed).
    listings: Arc<Mutex<Listings>>,
    read: read::Budget,
    /// Where Python looks modules up in the project besides the places.
    module_roots: Arc<Vec<PathBuf>>,
    /// Look-ups made, against [`MAX_LOOKUPS`].
    lookups: u64,
    /// What has been read of the Python environments reached.
    environments: environments::Reading,
}

/// The most look-ups of words in folders one binding makes: past it the
/// hook's code names too much to read on every run, and it cannot be
/// approved (never a silent cut: a cap on the folders looked in let the
/// 65th go unbound).
pub(crate) const MAX_LOOKUPS: u64 = 4_000_000;

impl Names {
    fn new(project: &Path, cwd: &Path) -> Names {
        Names {
            project: project.to_path_buf(),
            cwd: cwd.to_path_buf(),
            tops: Arc::new(Tops::of(project)),
            places: Vec::new(),
            quiet_places: BTreeSet::new(),
            loading_globs: BTreeSet::new(),
            every_place_loads: false,
            files: BTreeSet::new(),
            queue: Vec::new(),
            read_as: HashMap::new(),
            seen: Arc::new(BTreeMap::new()),
            seen_here: BTreeMap::new(),
            listings: Arc::new(Mutex::new(HashMap::new())),
            read: read::Budget::default(),
            module_roots: Arc::new(super::python_sites::module_roots(project)),
            lookups: 0,
            environments: environments::Reading::default(),
        }
    }

    /// Reads every file bound and not read yet.
    fn drain(&mut self) -> Result<(), BindError> {
        loop {
            // Past the reading's budget (a project's `node_modules` read
            // name by name took minutes: round 65, U5), it stops: the hook
            // then cannot be approved.
            if crate::binding::shell::out_of_time() {
                break;
            }
            self.read_environments();
            let Some((file, how)) = self.queue.pop() else {
                break;
            };
            self.read(&file, how)?;
        }
        if self.lookups > MAX_LOOKUPS {
            return Err(BindError::ReadingTooLarge(self.project.clone()));
        }
        Ok(())
    }

    /// Reads the words of the file at `path` as the languages it says it
    /// is, and as `how` (what runs it reads it as), each once.
    fn read(&mut self, path: &Path, how: Option<Code>) -> Result<(), BindError> {
        let done = self.read_as.get(path);
        if done.is_some_and(|done| how.is_none_or(|how| done.contains(&how))) {
            return Ok(());
        }
        let Some(text) = self.read.text(path)? else {
            return Ok(());
        };
        let mut codes = match done {
            Some(_) => Vec::new(),
            None => language::codes_of(path, &text),
        };
        codes.extend(how);
        let done = self.read_as.entry(path.to_path_buf()).or_default();
        codes.sort();
        codes.dedup();
        codes.retain(|code| !done.contains(code));
        done.extend(&codes);
        for code in codes {
            self.text(&text, path.parent(), code);
        }
        self.archive_read(&text);
        self.metadata_read(&text);
        self.bind_scope_manifests(path);
        Ok(())
    }

    /// Binds what the words of `text` (found in `dir`, code of `code`) name,
    /// as written and as the program reads them: shell code as bash
    /// expands it ([`spelled`]), other code's string literals decoded
    /// ([`literals`]; red team round 8, R8-9, R8-10).
    fn text(&mut self, text: &str, dir: Option<&Path>, code: Code) {
        self.text_as_written(text, dir, code);
        let read_so = match code {
            Code::Shell | Code::Make => spelled::as_bash_reads(text),
            Code::Other => literals::decoded(text),
        };
        if let Some(read_so) = read_so {
            self.text_as_written(&read_so, dir, code);
        }
    }

    fn text_as_written(&mut self, text: &str, dir: Option<&Path>, code: Code) {
        let text = read::without_written_targets(text);
        // With the values git's settings in the text give (round 58).
        let words = settings::with_setting_values(language::run_or_read_words(&text, code), &text);
        for (word, how) in words {
            if read::is_glob(&word) {
                for path in self.glob(&word, dir) {
                    self.add_run_file(path, how);
                }
                continue;
            }
            for (path, kind) in self.lookups(&word, dir, None) {
                let missing_path =
                    kind.is_none() && word.contains('/') && path.parent().is_some_and(Path::is_dir);
                if kind == Some(Kind::File) || missing_path {
                    // Run or read by a shell; missing, it asks once made.
                    self.add_run_file(path, how);
                } else if path == self.project && how.is_some() {
                    self.bind_entries(&path);
                } else if kind == Some(Kind::Folder) && settings::names_hooks_path(&text) {
                    self.bind_hooks_folder(&path);
                }
            }
        }
        // Shell code may run any file it names (`"sh" f`); other code when
        // it runs programs or code it reads.
        let wide = code != Code::Other || read::loads_code(&text);
        let mut reading = match code {
            Code::Shell if !self.every_place_loads => quiet::Reading::shell(&text),
            _ => quiet::Reading::loading(&text),
        };
        if code != Code::Other
            && !self.every_place_loads
            && quiet::redefines_what_runs(reading.loading_part())
        {
            self.load_every_place();
            reading = quiet::Reading::loading(&text);
        }
        for (word, tier) in reading.words(&text) {
            let reach = match (tier, wide) {
                (quiet::Tier::Quiet, _) => Reach::Quiet,
                (quiet::Tier::Data, _) | (quiet::Tier::Loading, false) => Reach::Loads,
                (quiet::Tier::Loading, true) => Reach::AnyFile,
            };
            let key = (word.clone(), dir.map(Path::to_path_buf));
            let before = self.seen.get(&key).max(self.seen_here.get(&key));
            if read::is_glob(&word) || before.is_some_and(|before| *before >= reach) {
                continue;
            }
            self.seen_here.insert(key, reach);
            self.word(&word, dir, None, reach);
        }
        for glob in reading.loading_globs() {
            self.loading_glob(glob);
        }
        self.environment_globs(&text, dir, wide);
        self.text_globs(&text, dir, code, wide);
        self.after_words(&text, dir, code);
    }

    /// Binds what `word` names, looked up everywhere or only in `only`, as
    /// far as `reach`.
    fn word(&mut self, word: &str, dir: Option<&Path>, only: Option<&Path>, reach: Reach) {
        for spelling in spellings::spellings(word) {
            for (path, kind) in self.lookups(&spelling, dir, only) {
                self.found(path, kind, word, reach);
            }
        }
        if only.is_none() && spellings::is_module_name(word) {
            // `python3 -m acme.check` from a development install (R8-7).
            for root in Arc::clone(&self.module_roots).iter() {
                for (path, kind) in self.lookups(&word.replace('.', "/"), dir, Some(root)) {
                    self.found(path, kind, word, reach);
                }
            }
        }
        // What the project's code imports from an environment (R28c-6).
        if only.is_none() && dir.is_none_or(|dir| !self.in_environment(dir)) {
            self.environment_module(word, dir);
        }
    }
    /// `path` (of `kind`, `None`: missing) named by `word`, read as far as
    /// `reach`.
    fn found(&mut self, path: PathBuf, kind: Option<Kind>, word: &str, reach: Reach) {
        let loads = reach >= Reach::Loads;
        match kind {
            Some(Kind::File) if reach == Reach::AnyFile => self.add_run_file(path, None),
            Some(Kind::File) if is_code_file(&path) => self.add_file(path),
            Some(Kind::File) => {}
            // The project as a program (`node .`): its entry files (R25b-1).
            Some(Kind::Folder) if path == self.project && loads => self.bind_entries(&path),
            Some(Kind::Folder) if path == self.project => {}
            Some(Kind::Folder) if self.environment_package(&path) => {}
            Some(Kind::Folder) => self.add_place(path, loads),
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
                            // Not a folder named already (or looked in): a
                            // path from it names none of its entry files.
                            if !self.places.iter().any(|place| place == folder) {
                                self.add_place(folder.to_path_buf(), loads);
                            }
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

    /// Binds `path`, a file a program may run, read as `how` too; not
    /// known how, as shell code when its name and `#!` line do not say it
    /// is code ([`language`]).
    fn add_run_file(&mut self, path: PathBuf, how: Option<Code>) {
        let how = how.or_else(|| (!is_code_file(&path)).then_some(Code::Shell));
        self.add_file_as(path, how);
    }

    fn add_file(&mut self, path: PathBuf) {
        self.add_file_as(path, None);
    }

    /// Binds `path`, read as the languages it says it is and as `how`.
    fn add_file_as(&mut self, path: PathBuf, how: Option<Code>) {
        if let Some(environment) = self.tops.environment_of(&self.project, &path) {
            self.add_environment_file(environment, path);
            return;
        }
        if self.excluded(&path) {
            return;
        }
        let new = self.files.insert(path.clone());
        let read_so = |read_as: &HashMap<PathBuf, Vec<Code>>, how: Code| {
            read_as.get(&path).is_some_and(|done| done.contains(&how))
        };
        let new_way = how.is_some_and(|how| !read_so(&self.read_as, how));
        if (new || new_way) && path.is_file() {
            self.queue.push((path.clone(), how));
        }
        if !new {
            return;
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

    /// Where `path` (under build output) really is, when that is in the
    /// project and not build output itself.
    fn linked_back(&self, path: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok()?;
        let project = std::fs::canonicalize(&self.project).ok()?;
        let inside = self.project.join(real.strip_prefix(&project).ok()?);
        (!self.excluded(&inside)).then_some(inside)
    }

    /// Whether `path` is left out: under build output.
    fn excluded(&self, path: &Path) -> bool {
        self.tops.built_output(&self.project, path)
    }
}

#[cfg(test)]
mod tests;
