//! Reading files for words: which files are code, the words of a text, the
//! words a shell runs or reads, and the bounded reads themselves.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::Kind;
use crate::binding::{BindError, MAX_TREE_BYTES};

/// File extensions of code a hook may run or load (scripts, sources a
/// runner runs directly, compiled modules, archives on a module path,
/// libraries, C and C++ headers and sources a hook may compile and run).
pub(super) const CODE_EXTENSIONS: [&str; 71] = [
    "sh", "bash", "zsh", "ksh", "csh", "tcsh", "fish", "bats", "py", "pyw", "pyc", "pth", "zip",
    "egg", "whl", "rb", "pl", "pm", "lua", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx",
    "coffee", "php", "inc", "mk", "tcl", "ps1", "psm1", "awk", "sed", "jq", "r", "jl", "go", "c",
    "rs", "java", "jar", "class", "kts", "groovy", "scala", "exs", "swift", "dart", "nim", "vim",
    "el", "so", "dylib", "node", "wasm", "cmake", "bzl", "star", "nix", "expect", "exp", "h", "hh",
    "hpp", "hxx", "cc", "cpp", "cxx",
];

/// File names of code without such an extension (build definitions and the
/// configuration that names what a program runs).
const CODE_NAMES: [&str; 24] = [
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
    "tox.toml",
    "deno.json",
    "deno.jsonc",
    "bunfig.toml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    "cmakelists.txt",
    "build",
    "workspace",
];

/// The most bytes read for words in one binding: past it the hook's code is
/// too large to read on every run, and it cannot be approved.
pub(crate) const MAX_READ: u64 = MAX_TREE_BYTES / 2;
/// The most files listed under one seed.
const MAX_SEED_FILES: usize = 20_000;

/// Whether the file at `path` is code: by its extension or name, a `#!`
/// line, the execute bit, or an ELF header.
pub(crate) fn is_code_file(path: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let extension = name.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("");
    if CODE_EXTENSIONS.contains(&extension)
        || CODE_NAMES.contains(&name.as_str())
        || metadata.permissions().mode() & 0o111 != 0
    {
        return true;
    }
    let mut head = [0u8; 4];
    let read = crate::fingerprint::open_to_read(path)
        .ok()
        .and_then(|mut file| file.read(&mut head).ok())
        .unwrap_or(0);
    (read >= 2 && head[..2] == *b"#!") || (read == 4 && head == *b"\x7fELF")
}

/// How much has been read for words, against [`MAX_READ`].
#[derive(Default, Clone, Debug)]
pub(super) struct Budget {
    bytes: u64,
}

impl Budget {
    /// The whole text of `path` (binary bytes read as text too: a program
    /// names files in its strings); `None` when it is not a readable file.
    pub(super) fn text(&mut self, path: &Path) -> Result<Option<String>, BindError> {
        use std::io::Read;
        let Ok(metadata) = std::fs::metadata(path) else {
            return Ok(None);
        };
        if !metadata.is_file() || metadata.len() == 0 {
            return Ok(None);
        }
        self.bytes += metadata.len();
        if self.bytes > MAX_READ {
            return Err(BindError::ReadingTooLarge(path.to_owned()));
        }
        let mut bytes = Vec::new();
        let Ok(file) = crate::fingerprint::open_to_read(path) else {
            return Ok(None);
        };
        if file.take(MAX_READ).read_to_end(&mut bytes).is_err() {
            return Ok(None);
        }
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pyc"))
        {
            text.push_str(&super::compiled::marshalled_strings(&bytes));
        }
        Ok(Some(text))
    }
}

/// Every file under `root` (itself when a file), links followed, `.git`
/// left out, bounded.
pub(super) fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(root, 0, &mut files, &|_| true);
    files
}

/// The code files under `root`.
pub(super) fn code_files_under(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(root, 0, &mut files, &is_code_file);
    files
}

fn collect(path: &Path, depth: usize, files: &mut Vec<PathBuf>, keep: &dyn Fn(&Path) -> bool) {
    if depth > 16 || files.len() >= MAX_SEED_FILES {
        return;
    }
    let Ok(metadata) = std::fs::metadata(path) else {
        return;
    };
    if metadata.is_file() {
        if keep(path) {
            files.push(path.to_owned());
        }
        return;
    }
    let Ok(listing) = std::fs::read_dir(path) else {
        return;
    };
    let mut names: Vec<_> = listing.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names.into_iter().filter(|n| n != ".git") {
        collect(&path.join(name), depth + 1, files, keep);
    }
}

/// A folder's entries and their kinds (links followed); empty when it
/// cannot be listed.
pub(super) fn listing(folder: &Path) -> HashMap<String, Kind> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return HashMap::new();
    };
    entries
        .flatten()
        .take(100_000)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let metadata = std::fs::metadata(entry.path()).ok()?;
            // A FIFO, a socket or a device is never read: opening one may
            // block for good (red-team 6b).
            let kind = if metadata.is_dir() {
                Kind::Folder
            } else if metadata.is_file() {
                Kind::File
            } else {
                return None;
            };
            Some((name, kind))
        })
        .collect()
}

/// `text` without the targets of shell output redirections (`> log`,
/// `>> "$DIR/run.log"`, `2>err`): files written, not run.
pub(crate) fn without_written_targets(text: &str) -> String {
    static WRITTEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(^|[^=\->])([0-9&]?>{1,2}\|?[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s;&|()<>]+)"#)
            .expect("valid regex")
    });
    // `tee [-a] log`: written too (a hook keeping its log).
    static TEE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(\btee(?:[ \t]+-[a-z-]+)*[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s;&|()<>]+)"#)
            .expect("valid regex")
    });
    let text = WRITTEN.replace_all(text, "$1$2");
    TEE.replace_all(&text, "$1").into_owned()
}

/// Whether `word` is a shell pattern.
pub(super) fn is_glob(word: &str) -> bool {
    word.contains(['*', '?', '['])
}

/// The lists of shell `for` / `select` loops in `text`, one per line.
pub(super) fn loop_lists(text: &str) -> String {
    static LOOP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:for|select)[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+in[ \t]+([^;\n]*)")
            .expect("valid regex")
    });
    LOOP.captures_iter(text)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without the patterns of shell `case` branches (`src/*|lib/*)`).
pub(super) fn without_case_patterns(text: &str) -> String {
    static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)(^[ \t]*|\bin[ \t]+|;;[ \t]*)\(?[^\s()]+\)").expect("valid regex")
    });
    PATTERN.replace_all(text, "$1").into_owned()
}

/// Calls that run code they read (Python, JavaScript, Ruby, Perl, Lua), or
/// run programs (`os.system`, `subprocess`, `child_process`, `spawn`,
/// `sys.executable`: a program such as `sh` given a file names; red team
/// round 7, R7b-4): a file that holds one binds every file it names,
/// whatever it is.
const LOADS_CODE: &str = r"\b(?:exec\w*|eval|compile|run_path|run_module|spec_from_file_location|load_source|import_module|__import__|pickle|marshal|dill|shelve|yaml\.load|unsafe_load|runInThisContext|runInNewContext|new Function|Function\(|require|dofile|loadfile|loadstring|do\s+FILE|instance_eval|class_eval|load|system|popen|Popen|subprocess|spawn\w*|child_process|SourceFileLoader|sys\.executable|execPath|Open3|qx|posix_spawn\w*|create_subprocess_\w+|timeit|cProfile|runsource|compileFunction|_compile|SOURCE_SUFFIXES|fileConfig|resolve_name|locate)\b";

/// `text` without quote characters and backslashes.
pub(super) fn without_quotes(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect()
}

/// Whether `text` (code other than a shell's) runs code it reads.
pub(super) fn loads_code(text: &str) -> bool {
    static LOADS: LazyLock<Regex> = LazyLock::new(|| Regex::new(LOADS_CODE).expect("valid regex"));
    LOADS.is_match(text)
}

/// The words of `text` that may name a path: runs of the characters a path
/// may hold, with `$NAME` / `${NAME}` taken out, also as their defaults
/// (`${D:-tools}`); and the modules a pickle in it names.
pub(super) fn words(text: &str) -> Vec<String> {
    let mut words = plain_words(text);
    // An expansion whose value the text cannot give (`${D#x}`, `$(or
    // $(D),x)`) before a path: any folder there, a glob (R32-1).
    if let Some(unknown) = unknown_folders(text) {
        words.extend(plain_words(&unknown));
    }
    words.extend(super::pickles::pickled_modules(text));
    words.extend(super::pickles::shelf_files(text));
    words.extend(crate::binding::globbing::recursive_globs(text));
    words
}

fn plain_words(text: &str) -> Vec<String> {
    let is_word = |c: char| c.is_alphanumeric() || "_./@+~%,:-${}*?[]".contains(c);
    text.split(|c: char| !is_word(c))
        .filter(|w| !w.is_empty())
        .flat_map(|raw| {
            // `"${D:-tools}/check.py"`: also as the default the shell gives
            // an unset variable (R31-1).
            match with_defaults(raw) {
                Some(defaulted) => [raw.to_owned(), defaulted],
                None => [raw.to_owned(), String::new()],
            }
        })
        .filter(|w| !w.is_empty())
        .flat_map(|raw| {
            let mut word = String::with_capacity(raw.len());
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
                    // `f"plugins.{name}"`: a brace ends a word.
                    '{' | '}' => word.push(' '),
                    c => word.push(c),
                }
            }
            word.split(' ')
                // A trailing `/..` is a folder's parent, not punctuation.
                .map(|piece| match piece.ends_with("/..") {
                    true => piece.to_owned(),
                    // `$(or $(D),tools)`: a list's comma ends a word.
                    false => (piece.trim_start_matches(','))
                        .trim_end_matches(['.', ',', ':'])
                        .to_owned(),
                })
                .filter(|w| !w.is_empty() && w != "." && w != ".." && w.len() <= 4096)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `word` with each `${NAME:-word}`, `${NAME-word}`, `${NAME:=word}` and
/// `${NAME=word}` written as its `word`, when it holds one.
fn with_defaults(word: &str) -> Option<String> {
    static DEFAULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\$?\{[A-Za-z_0-9]+(?:\[[^\]{}]*\])?:?[-=+?]([^{}$]*)\}")
            .expect("valid regex")
    });
    if !word.contains("${") || !DEFAULT.is_match(word) {
        return None;
    }
    // Inner ones first: `${D:-${E:-tools}}`.
    let mut word = word.to_owned();
    for _ in 0..4 {
        let next = DEFAULT.replace_all(&word, "$1").into_owned();
        if next == word {
            break;
        }
        word = next;
    }
    Some(word)
}

/// `word` with each expansion whose value the text cannot give, before a
/// `/` (`${D#x}/check.py`, `${D,,}/x`, `$(or $(D),tools)/x`), written as
/// `*`: the glob of any folder there. `None` when it holds none.
fn unknown_folders(word: &str) -> Option<String> {
    static UNKNOWN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\$?\{[^{}\s]*[^A-Za-z0-9_{}\s][^{}\s]*\}/|\$\$?\((?:[^()]|\([^()]*\))*\)/")
            .expect("valid regex")
    });
    if !word.contains("${") && !word.contains("$(") {
        return None;
    }
    let mut word = word.to_owned();
    let mut changed = false;
    for _ in 0..4 {
        let next = UNKNOWN.replace_all(&word, "*/").into_owned();
        if next == word {
            break;
        }
        (word, changed) = (next, true);
    }
    changed.then_some(word)
}
