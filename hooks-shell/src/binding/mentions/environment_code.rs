//! The code of a Python environment a hook reaches, read for two things
//! only (red team round 28c, R28c-1 to R28c-7): the modules it imports
//! there, read in turn, and the project's files it names by a path
//! (`runpy.run_path('/p/tools/boot.py')`, `'tools/boot.py'`), bound as
//! any the hook's own code names. Installed code (all of pytest, pip's
//! vendored packages) is too much to look every word up in every folder,
//! as the project's code is ([`super::Names::read`]); a name alone
//! (`'boot.py'` joined to a computed folder) is not followed.
//!
//! A compiled file (`.pyc`) is read for its marshalled strings
//! ([`super::compiled`]); another binary (an extension module) for the
//! project's path spelled in it. Past [`MAX_FILES`] or [`MAX_BYTES`] the
//! environments' code is too much to read on every run: the whole project
//! is bound by what each entry is instead, and any change asks again.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Kind, Names, normalize, read};

/// The most files of environments read for one hook.
pub(super) const MAX_FILES: usize = 10_000;

/// The most bytes of environments read for one hook.
pub(super) const MAX_BYTES: u64 = 64 << 20;

impl Names {
    /// Queues `path`, a file of an environment, to be read, with the
    /// compiled copies Python may run in its place (an unchecked `.pyc`:
    /// PEP 552); past the budget, binds the whole project instead.
    pub(super) fn read_environment_file(&mut self, path: PathBuf) {
        if self.environments.overflowed || self.environments.files.contains(&path) {
            return;
        }
        let Ok(metadata) = std::fs::metadata(&path) else {
            return;
        };
        let Some(real) = self.real_in_project(&path) else {
            return; // `.venv/bin/python -> /usr/bin/python3.12`: installed
        };
        // One file by two names (`lib64 -> lib`, a linked folder) is read
        // once.
        let reading = &mut self.environments;
        reading.files.insert(path.clone());
        if !reading.real_files.insert(real) {
            return;
        }
        if metadata.is_dir() {
            self.environment_package(&path);
            return;
        }
        let reading = &mut self.environments;
        reading.bytes += metadata.len();
        if reading.real_files.len() > MAX_FILES || reading.bytes > MAX_BYTES {
            self.environment_unread();
            return;
        }
        reading.pending.push(path.clone());
        if path.extension().is_some_and(|e| e == "py")
            && let (Some(parent), Some(stem)) = (path.parent(), path.file_stem())
        {
            let cache = parent.join("__pycache__");
            let prefix = format!("{}.", stem.to_string_lossy());
            let compiled: Vec<PathBuf> = (self.listing(&cache).keys())
                .filter(|name| name.starts_with(&prefix) && name.ends_with(".pyc"))
                .map(|name| cache.join(name))
                .collect();
            for file in compiled {
                self.read_environment_file(file);
            }
        }
    }

    /// Binds every entry of the project by what it is: an environment's
    /// code that runs cannot all be read (too much of it, an archive).
    pub(super) fn environment_unread(&mut self) {
        self.environments.overflowed = true;
        self.environments.pending.clear();
        let whole = crate::binding::environment::whole_project(&self.project);
        self.files.insert(whole);
    }

    /// Binds every entry of the project by what it is when `text`, a
    /// project file the hook's code names, is a zip archive (`python3
    /// app.pyz`, `PYTHONPATH=vendor.zip`) or compressed (gzip, bzip2, xz,
    /// zstd: a pickle in `gzip.open`, R32-10), or is code unpickling data
    /// it decodes (`pickle.loads(base64.b64decode(…))`): the code or the
    /// module names it holds cannot be read cheaply (R30-7). A zip is known as
    /// Python knows one: a local header first, or an end record in the
    /// last 64 KiB (a Python script with a zip appended runs the zip's
    /// `__main__`: R32-3).
    pub(super) fn archive_read(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let tail = &bytes[bytes.len().saturating_sub(65_558)..];
        let end_record = || tail.windows(4).any(|four| four == b"PK\x05\x06");
        // Each magic as lossy reading writes it (`\u{fffd}` for a byte
        // that is not UTF-8).
        let compressed = ["\u{1f}\u{fffd}", "\u{fffd}7zXZ\0", "(\u{fffd}/\u{fffd}"]
            .iter()
            .any(|magic| text.starts_with(magic))
            || text.starts_with("BZh") && text.get(4..10) == Some("1AY&SY");
        let opaque = compressed || super::pickles::unpickles_decoded(text);
        if text.starts_with("PK\u{3}\u{4}") || end_record() || opaque {
            let whole = crate::binding::environment::whole_project(&self.project);
            self.files.insert(whole);
        }
    }

    /// Reads every file of an environment queued and not read yet.
    pub(super) fn read_environments(&mut self) {
        while let Some(path) = self.environments.pending.pop() {
            self.read_environment_code(&path);
        }
    }

    /// Reads `path`, a file of an environment: the modules its words may
    /// import, and the project files its paths name.
    fn read_environment_code(&mut self, path: &Path) {
        let mut bytes = Vec::new();
        let Ok(file) = crate::fingerprint::open_to_read(path) else {
            return;
        };
        if file.take(MAX_BYTES).read_to_end(&mut bytes).is_err() {
            return;
        }
        if bytes.starts_with(b"PK\x03\x04") {
            // A zip on the module path (an `.egg`): its modules are
            // compressed, unread.
            self.environment_unread();
            return;
        }
        let dir = path.parent();
        let compiled = path.extension().is_some_and(|e| e == "pyc");
        let text = if compiled {
            super::compiled::marshalled_strings(&bytes)
        } else if bytes.starts_with(b"\x7fELF") {
            printable_runs(&bytes)
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let imported = from_imports(&text);
        let mut words = tokens(&text);
        words.extend(imported.iter().map(String::as_str));
        self.environment_modules(&words, dir);
        self.own_files_named(&words, dir);
        let mut paths: Vec<&str> = (words.into_iter())
            .filter(|word| word.contains('/') || code_name(Path::new(word)))
            .collect();
        paths.sort_unstable();
        paths.dedup();
        for word in paths {
            self.environment_path(word, dir);
        }
    }

    /// Reads the files of `dir`, an environment's folder, that `words`
    /// name alone (`'data.bin'` given to `zipimport`, `'libx.so'` to
    /// `ctypes`): an archive binds the whole project (R30-6).
    fn own_files_named(&mut self, words: &[&str], dir: Option<&Path>) {
        let Some(dir) = dir.filter(|dir| self.in_environment(dir)) else {
            return;
        };
        let listing = self.listing(dir);
        let named = words.iter().filter(|word| !word.contains('/'));
        let named = named.filter(|word| listing.get(**word) == Some(&Kind::File));
        let files: Vec<PathBuf> = named.map(|word| dir.join(word)).collect();
        for file in files {
            self.read_environment_file(file);
        }
    }

    /// Binds the project file or folder `word`, read in the environment's
    /// folder `dir`, names: as a path from the root, the working folder,
    /// the project and `dir`. A file of an environment is read as its code.
    fn environment_path(&mut self, word: &str, dir: Option<&Path>) {
        let mut candidates = Vec::new();
        if word.starts_with('/') {
            candidates.push(PathBuf::from(word));
        } else {
            let mut bases = vec![self.cwd.clone(), self.project.clone()];
            bases.extend(dir.map(Path::to_path_buf));
            for base in bases {
                if self.may_hold(&base, word) {
                    candidates.push(base.join(word));
                }
            }
        }
        for candidate in candidates {
            let path = self.spelled_from_project(&normalize(&candidate));
            if !path.starts_with(&self.project) || path == self.project {
                continue;
            }
            if self.in_environment(&path) {
                // A folder put on the module path by its path
                // (`sys.path.insert`, `site.addsitedir`), or a file run.
                match path.is_dir() {
                    true if word.starts_with('/') => self.add_site(path),
                    true => {}
                    false => self.read_environment_file(path),
                }
                continue;
            }
            if self.excluded(&path) {
                continue;
            }
            if path.is_dir() {
                self.add_place(path.clone(), true);
                self.add_project_root(path);
            } else if path.is_file() {
                self.add_run_file(path, None);
            } else if path.parent().is_some_and(Path::is_dir) && code_name(&path) {
                self.add_file(path); // missing: created later, it asks again
            }
        }
    }

    /// Whether `word`, a relative path of more than one part, may name an
    /// entry of `base`: its first part is there (most words with a `/` in
    /// installed code name nothing, and a listing is cheaper than stats).
    fn may_hold(&mut self, base: &Path, word: &str) -> bool {
        let mut parts = Path::new(word).components();
        match (parts.next(), parts.next()) {
            (Some(std::path::Component::Normal(first)), Some(_)) => {
                (self.listing(base)).contains_key(first.to_string_lossy().as_ref())
            }
            _ => true,
        }
    }

    /// `path`, links followed, when it lies in the project.
    fn real_in_project(&self, path: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok()?;
        real.starts_with(self.real_project()?).then_some(real)
    }

    /// The project's folder, links followed.
    fn real_project(&self) -> Option<&Path> {
        let real = &self.environments.real_project;
        real.get_or_init(|| std::fs::canonicalize(&self.project).ok())
            .as_deref()
    }

    /// `path` spelled from the project as it is named here, when it lies
    /// in the project's real folder (links followed).
    fn spelled_from_project(&self, path: &Path) -> PathBuf {
        match self.real_project().map(|real| path.strip_prefix(real)) {
            Some(Ok(rest)) if !path.starts_with(&self.project) => self.project.join(rest),
            _ => path.to_path_buf(),
        }
    }
}

/// The runs of `bytes` that are text (a compiled program's strings), each
/// on a line of its own.
fn printable_runs(bytes: &[u8]) -> String {
    let text = |byte: &u8| *byte >= 0x80 || *byte == b'\t' || (0x20..0x7f).contains(byte);
    let runs = bytes.split(|byte| !text(byte)).filter(|run| run.len() >= 3);
    let mut out = String::new();
    for run in runs {
        out.push('\n');
        out.push_str(&String::from_utf8_lossy(run));
    }
    // Wide strings (`L"python3 tools/boot.py"`) too: UTF-16LE and
    // UTF-32LE (R30-9).
    for width in [2, 4] {
        for offset in 0..width.min(bytes.len()) {
            wide_runs(&bytes[offset..], width, &mut out);
        }
    }
    out
}

/// Appends to `out` the runs of `bytes` that are ASCII text `width` bytes
/// a character, little-endian, each on a line of its own.
fn wide_runs(bytes: &[u8], width: usize, out: &mut String) {
    let mut run = String::new();
    let mut end = |run: &mut String| {
        if run.len() >= 3 {
            out.push('\n');
            out.push_str(run);
        }
        run.clear();
    };
    for unit in bytes.chunks_exact(width) {
        match unit.split_first() {
            Some((first, rest)) if (0x20..0x7f).contains(first) && rest.iter().all(|b| *b == 0) => {
                run.push(char::from(*first));
            }
            _ => end(&mut run),
        }
    }
    end(&mut run);
}

/// The distinct words of `text` that may name a module or a path
/// (`acme.cli`, `.sibling`, `/p/tools/boot.py`, `tools/x.sh`), as
/// `import` statements and string literals hold them.
fn tokens(text: &str) -> Vec<&str> {
    let in_word = |c: char| c.is_alphanumeric() || "_./-~+@%:,".contains(c);
    let words = text.split(|c: char| !in_word(c));
    let mut seen = foldhash::HashSet::default();
    words
        .filter(|word| !word.is_empty() && seen.insert(*word))
        .collect()
}

/// The modules `from a import b, c` may import besides `a`: `a.b`,
/// `a.c` (a submodule imported by its name alone: R29-1), and `.b` for
/// `from . import b`.
fn from_imports(text: &str) -> Vec<String> {
    static FROM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let pattern = r"\bfrom[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(?:\(([^)]*)\)|([\w \t,]+))";
        regex::Regex::new(pattern).expect("the pattern compiles")
    });
    let mut modules = Vec::new();
    for found in FROM.captures_iter(text) {
        let package = &found[1];
        let joint = if package.is_empty() || package.ends_with('.') {
            ""
        } else {
            "."
        };
        let names = found.get(2).or_else(|| found.get(3));
        let names = names.map(|names| names.as_str()).unwrap_or_default();
        for name in names
            .split(',')
            .filter_map(|name| name.split_whitespace().next())
        {
            modules.push(format!("{package}{joint}{name}"));
        }
    }
    modules
}

/// Whether `path` is named as code (`.py`, `.sh`, ...).
fn code_name(path: &Path) -> bool {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    extension.is_some_and(|e| read::CODE_EXTENSIONS.contains(&e.as_str()))
}

#[cfg(test)]
mod tests {
    use super::from_imports;

    #[test]
    fn a_binary_is_read_for_its_narrow_and_wide_strings() {
        let mut elf = b"\x7fELF\0\0python3 tools/a.py\0\0".to_vec();
        elf.extend("\0tools/b.py\0".encode_utf16().flat_map(u16::to_le_bytes));
        elf.push(0);
        elf.extend(
            "tools/c.py"
                .chars()
                .flat_map(|c| u32::from(c).to_le_bytes()),
        );
        let text = super::printable_runs(&elf);
        for path in ["tools/a.py", "tools/b.py", "tools/c.py"] {
            assert!(text.contains(path), "{path}: {text:?}");
        }
    }

    #[test]
    fn a_from_import_names_each_submodule_it_may_import() {
        let text =
            "from tools import boot, helper as h\nfrom . import real\nfrom ..pkg import (a,\n b)\n";
        let found = from_imports(text);
        for module in ["tools.boot", "tools.helper", ".real", "..pkg.a", "..pkg.b"] {
            assert!(found.iter().any(|m| m == module), "{module}: {found:?}");
        }
    }
}
