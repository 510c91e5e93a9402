//! The entries of a project that a project hook's code names (red-team round
//! 5, F2, F3, F5): `check.sh` running `"$CLAUDE_PROJECT_DIR/scripts/lint.sh"`,
//! `check.py` putting `lib` on its module path, `sh -c 'sh check.sh'`,
//! `python3 -c "exec(open('check.py').read())"`, a Makefile's `SHELL :=
//! tools/sh`, `$(shell sh gen/x.sh)`, `$(MAKE) -C sub`, `load x.so`, an npm
//! script's `node scripts/lint.js` requiring `./helpers.js`.
//!
//! No reading of each language follows every way code reaches a file, so
//! this reads words: every word of the hook's command and of its code
//! (the files of its hook tree, the files its command names, the manifests
//! it runs) that names a top-level entry of the project (a folder or a file;
//! a path in it; a dotted module `pkg.mod`; a script's name without its
//! extension, as `import check` and `require('./check')` name `check.py` /
//! `check.js`) binds that whole entry, and what is bound is read the same
//! way in turn. A bare word counts only in code (a script, a makefile, a
//! manifest); in other files (settings, notes) only a path does.
//!
//! Only code counts as bound (a file by its extension or name, a `#!` line
//! or the execute bit): a top-level file that is not code is not bound, and
//! a folder's digest covers its code files only, so a hook that writes its
//! log or state next to its code does not ask again after every run.
//!
//! An entry the project's `.gitignore` ignores and git does not track
//! (`target/`, `node_modules/`, `dist/`: what a build or an install
//! writes) is not bound by a word: it is the output of the project's own
//! tools, rewritten on every build, and binding it would ask again after
//! each one (`docs/decisions/what-consent-does-not-bind.md`). An entry too
//! large to hash on every run cannot be bound, so the hook cannot be
//! approved (as a tool folder too large).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// File extensions of code a hook may run or load (scripts, sources a
/// runner runs directly, compiled modules and libraries).
const CODE_EXTENSIONS: [&str; 52] = [
    "sh", "bash", "zsh", "ksh", "fish", "bats", "py", "pyw", "pyc", "pth", "rb", "pl", "pm", "lua",
    "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "coffee", "php", "mk", "tcl", "ps1",
    "psm1", "awk", "sed", "jq", "r", "jl", "go", "rs", "java", "jar", "class", "kts", "groovy",
    "scala", "exs", "swift", "dart", "nim", "vim", "el", "so", "dylib", "node", "wasm", "cmake",
];

/// Extensions a loader adds to a name (`import check`, `require('./check')`,
/// `require "check"`, `use Check`): a word naming such a file without it.
const LOADED_EXTENSIONS: [&str; 12] = [
    "py", "pyc", "so", "js", "cjs", "mjs", "ts", "node", "rb", "pm", "lua", "pl",
];

/// File names of code without such an extension (build definitions and the
/// configuration that names what a program runs).
const CODE_NAMES: [&str; 21] = [
    "makefile",
    "gnumakefile",
    "justfile",
    "rakefile",
    "gemfile",
    "package.json",
    "taskfile.yml",
    "taskfile.yaml",
    "build.gradle",
    "cargo.toml",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "deno.json",
    "deno.jsonc",
    "bunfig.toml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    "cmakelists.txt",
];

/// The most bytes of one file read for words.
const MAX_READ: u64 = 1024 * 1024;
/// The most files read for words in one binding (past it, the entries are
/// too large to bind anyway: [`super::MAX_TREE_ENTRIES`]).
const MAX_FILES: usize = 20_000;
/// The most bytes read for words in one binding.
const MAX_BYTES: u64 = 2 * super::MAX_TREE_BYTES;

/// The top-level entries of `project` (absolute, sorted) that the hook's
/// `command` text or the code under `seeds` names, followed through what
/// those entries hold in turn. `covered` (the hook tree, the definitions
/// already bound) is read but never returned.
pub(crate) fn mentioned_entries(
    project: &Path,
    cwd: &Path,
    command: &str,
    seeds: &[PathBuf],
    covered: &[PathBuf],
) -> Vec<PathBuf> {
    let tops = Tops::of(project);
    if tops.names.is_empty() {
        return Vec::new();
    }
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut reader = Reader {
        tops: &tops,
        project,
        cwd,
        files_read: 0,
        bytes_read: 0,
    };
    reader.text(command, None, true, &mut found);
    let mut queue: Vec<PathBuf> = seeds
        .iter()
        .filter(|seed| inside(project, seed))
        .cloned()
        .collect();
    let mut seen: BTreeSet<PathBuf> = queue.iter().cloned().collect();
    let mut bound: Vec<PathBuf> = Vec::new();
    loop {
        while let Some(path) = queue.pop() {
            // The seeds are read whole; an entry found by name, its code
            // only (only that is bound: [`super::tree::code_sha256`]).
            let code_only = !seeds.contains(&path);
            let names = super::cache::cached_mentions(&path, cwd, || {
                let mut names = BTreeSet::new();
                reader.walk(&path, 0, code_only, &mut names);
                names
            });
            found.extend(names);
        }
        let mut grew = false;
        for name in &found {
            let entry = project.join(name);
            if !seen.insert(entry.clone())
                || (entry.is_file() && !is_code_file(&entry))
                || tops.built_output(project, &entry)
            {
                // A top-level file that is not code (a state file, notes)
                // is data: not bound, not read.
                continue;
            }
            bound.push(entry.clone());
            queue.push(entry);
            grew = true;
        }
        if !grew {
            break;
        }
    }
    bound.retain(|entry| !covered.contains(entry));
    bound.sort();
    bound
}

/// Whether `path` lies in `project` (by name).
fn inside(project: &Path, path: &Path) -> bool {
    normalize(path).starts_with(project)
}

/// The project's top-level entries.
struct Tops {
    /// Every name but `.git`.
    names: BTreeSet<String>,
    /// `(stem, name)` of each file a loader finds by its stem (`check` →
    /// `check.py`).
    stems: Vec<(String, String)>,
    /// The names the root `.gitignore` ignores.
    ignored: BTreeSet<String>,
}

impl Tops {
    fn of(project: &Path) -> Tops {
        let mut tops = Tops {
            names: BTreeSet::new(),
            stems: Vec::new(),
            ignored: BTreeSet::new(),
        };
        let Ok(listing) = std::fs::read_dir(project) else {
            return tops;
        };
        for entry in listing.flatten().take(100_000) {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name == ".git" {
                continue;
            }
            if let Some((stem, ext)) = name.rsplit_once('.')
                && !stem.is_empty()
                && LOADED_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
            {
                tops.stems.push((stem.to_owned(), name.clone()));
            }
            tops.names.insert(name);
        }
        let ignore = std::fs::read_to_string(project.join(".gitignore")).unwrap_or_default();
        for line in ignore.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let pattern = line.trim_start_matches("**/").trim_start_matches('/');
            let pattern = pattern.trim_end_matches('/');
            if pattern.is_empty() || pattern.contains('/') {
                continue;
            }
            for name in &tops.names {
                if crate::dialect::path_rule::matches(pattern, name) {
                    tops.ignored.insert(name.clone());
                }
            }
        }
        tops
    }

    /// The top-level name `path` (relative to `base`, or absolute) lies in.
    fn top_of(&self, project: &Path, base: &Path, path: &str) -> Option<String> {
        let full = normalize(&base.join(path));
        let inside = full.strip_prefix(project).ok()?;
        match inside.components().next()? {
            Component::Normal(top) => top.to_str().map(str::to_owned),
            _ => None,
        }
    }

    /// Whether `entry` is ignored by `.gitignore` and tracked by git in no
    /// file: what the project's tools write, not its code.
    fn built_output(&self, project: &Path, entry: &Path) -> bool {
        let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        if !self.ignored.contains(name) {
            return false;
        }
        if !project.join(".git").exists() {
            return true;
        }
        // Tracked anyway (`git add -f`): its files came with the repository.
        !super::git_index::tracks(project, name)
    }
}

struct Reader<'a> {
    tops: &'a Tops,
    project: &'a Path,
    cwd: &'a Path,
    files_read: usize,
    bytes_read: u64,
}

impl Reader<'_> {
    /// Reads every file under `path` (a file or a folder); its code files
    /// only when `code_only`.
    fn walk(&mut self, path: &Path, depth: usize, code_only: bool, found: &mut BTreeSet<String>) {
        if depth > 16 || self.files_read >= MAX_FILES || self.bytes_read > MAX_BYTES {
            return;
        }
        let Ok(metadata) = std::fs::metadata(path) else {
            return;
        };
        if metadata.is_dir() {
            let Ok(listing) = std::fs::read_dir(path) else {
                return;
            };
            let mut names: Vec<_> = listing.flatten().map(|e| e.file_name()).collect();
            names.sort();
            for name in names.into_iter().filter(|n| n != ".git") {
                self.walk(&path.join(name), depth + 1, code_only, found);
            }
            return;
        }
        if !metadata.is_file() || metadata.len() == 0 || (code_only && !is_code_file(path)) {
            return;
        }
        self.files_read += 1;
        self.bytes_read += metadata.len().min(MAX_READ);
        let Some(text) = read_text(path) else { return };
        let code = is_code(path, &text, &metadata);
        self.text(&text, path.parent(), code, found);
    }

    /// Adds the top-level names `text` names; bare words only when `code`.
    fn text(&self, text: &str, dir: Option<&Path>, code: bool, found: &mut BTreeSet<String>) {
        for word in words(text) {
            self.word(&word, dir, code, found);
        }
    }

    fn word(&self, word: &Word, dir: Option<&Path>, code: bool, found: &mut BTreeSet<String>) {
        let text = word.text.as_str();
        let pathlike = text.contains('/');
        let bases = [Some(self.project), Some(self.cwd), dir];
        let mut add = |name: String, exact: bool| {
            // A bare word names a folder or a file by its whole name; in
            // other text only a path does (or a file's whole name).
            if code || pathlike || (exact && name.contains('.')) {
                found.insert(name);
            }
        };
        // A word starting with `/` is absolute, or what follows a part cut
        // off (`$ROOT/lib`, `"$(dirname "$0")/../lib"`, `root + "/lib"`).
        let relative = text.trim_start_matches('/');
        if text.starts_with('/')
            && let Some(top) = self.tops.top_of(self.project, Path::new("/"), text)
        {
            add(top, false);
        }
        for base in bases.into_iter().flatten() {
            if let Some(top) = self.tops.top_of(self.project, base, relative) {
                if self.tops.names.contains(&top) {
                    add(top.clone(), top == relative.trim_start_matches("./"));
                }
                for (stem, name) in &self.tops.stems {
                    if *stem == top {
                        add(name.clone(), false);
                    }
                }
            }
        }
        // `pkg.mod` (an import) names the folder `pkg`.
        if !pathlike
            && code
            && let Some((first, _)) = text.split_once('.')
            && !first.is_empty()
            && self.tops.names.contains(first)
        {
            found.insert(first.to_owned());
        }
    }
}

/// A word of text that may name a path, with `$NAME` / `${NAME}` taken out.
struct Word {
    text: String,
}

/// The words of `text`: runs of characters a path may hold.
fn words(text: &str) -> Vec<Word> {
    let is_word = |c: char| c.is_alphanumeric() || "_./@+~%,:-${}".contains(c);
    text.split(|c: char| !is_word(c))
        .filter(|w| !w.is_empty())
        .filter_map(|raw| {
            let mut text = String::with_capacity(raw.len());
            let mut chars = raw.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '$' if chars.peek() == Some(&'{') => {
                        for c in chars.by_ref() {
                            if c == '}' {
                                break;
                            }
                        }
                    }
                    '$' => {
                        while chars
                            .peek()
                            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                        {
                            chars.next();
                        }
                    }
                    '{' | '}' => {}
                    c => text.push(c),
                }
            }
            let text = text.trim_end_matches(['.', ',', ':']).to_owned();
            (!text.is_empty() && text != "." && text != "..").then_some(Word { text })
        })
        .collect()
}

/// The file's text (its first [`MAX_READ`] bytes), `None` for a binary.
fn read_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    crate::fingerprint::open_to_read(path)
        .ok()?
        .take(MAX_READ)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// [`is_code`] of the file at `path`, reading its first bytes.
pub(crate) fn is_code_file(path: &Path) -> bool {
    use std::io::Read;
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    let mut head = [0u8; 2];
    let read = crate::fingerprint::open_to_read(path)
        .ok()
        .and_then(|mut file| file.read(&mut head).ok())
        .unwrap_or(0);
    let text = if read == 2 && head == *b"#!" {
        "#!"
    } else {
        ""
    };
    is_code(path, text, &metadata)
}

/// Whether a file is code: by its extension or name, a `#!` line, or the
/// execute bit ([`is_code_file`] also takes an ELF file as code).
fn is_code(path: &Path, text: &str, metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let extension = name.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("");
    CODE_EXTENSIONS.contains(&extension)
        || CODE_NAMES.contains(&name.as_str())
        || text.starts_with("#!")
        || metadata.permissions().mode() & 0o111 != 0
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
