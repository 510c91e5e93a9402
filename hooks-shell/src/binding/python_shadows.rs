//! Python modules a project's file may stand in for (red team rounds 21
//! and 22: R21b-1, R22b-1 to R22b-13). A project hook whose Python puts a
//! project folder first on its module path (`python3 check.py` at the
//! project's top, `-m` / `-c`, `PYTHONPATH=src`) searches it before the
//! standard library and the installed packages: `subprocess` imports
//! `selectors`, `requests` imports `urllib3`, so a `selectors.py` or an
//! `urllib3/` added there after the approval ran inside the approved hook,
//! though its code names neither. What such a folder holds under the name
//! of a standard or installed module (a file, a package with its
//! `__init__.py`, a compiled copy in `__pycache__`) is bound as one digest:
//! adding, changing or removing any of it asks again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use sha2::{Digest, Sha256};

use super::BindError;

mod standard;
use standard::STANDARD_MODULES;

/// Binds in `mentioned` (beside the files `subject`'s code names) what may
/// stand in for a standard or installed module in each folder its Python
/// may search first ([`first_on_path`], [`shadows`]); `roots` are the
/// manifests its program runs (`package.json`, a makefile).
pub(super) fn bind(
    subject: &super::Subject,
    found: &super::Identified,
    roots: &[PathBuf],
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let named: Vec<PathBuf> = mentioned.keys().chain(roots).cloned().collect();
    let words = subject.words.as_deref();
    for folder in first_on_path(words, &subject.cwd, found, (&named, roots), project) {
        let (key, digest) = shadows(&folder)?;
        mentioned.insert(key, digest);
    }
    Ok(())
}

/// The most entries of one folder listed: a folder with more cannot be
/// bound (none of it may be missed, R22b-8).
const MAX_LISTED: usize = 200_000;

/// The largest file bound by its content; a bigger one is bound by its
/// metadata (size, times, inode).
const MAX_HASHED: u64 = 16 << 20;

/// The most folders holding named Python files bound so.
const MAX_FOLDERS: usize = 32;

/// The most of a file read to see whether it runs Python.
const MAX_PEEK: u64 = 1 << 20;

/// The folders of `project` a Python the hook may run searches before the
/// standard library: the folder it runs in and its code's folder (where
/// links lead, as Python finds it) when Python may run (a `python*` word
/// anywhere in the command, a `.py` code file, or a file it runs naming
/// `python`: wrappers, `npm run`, `make`), and each `PYTHONPATH=` entry the
/// command sets. `-I` / `-P` are not trusted to isolate it (they may be
/// another option's value: R22b-2).
///
/// Also each folder holding a Python file the hook's code names (`lib/`
/// for `lib/helper.py`: code that names it may put its folder on the path,
/// `sys.path.insert(0, "lib")`: R22b-4), and each folder the command `cd`s
/// into (`cd sub && python3 check.py`).
fn first_on_path(
    words: Option<&[String]>,
    cwd: &Path,
    found: &super::Identified,
    (named, roots): (&[PathBuf], &[PathBuf]),
    project: &Path,
) -> Vec<PathBuf> {
    // `$CLAUDE_PROJECT_DIR/lib`: the runner's variables as the project (R23-2).
    let words = with_project(words.unwrap_or_default(), project, cwd);
    let words = words.as_slice();
    let pythonic = |word: &str| {
        word.split(['/', '=', ';', '&', '|', '(', ')', '"', '\'', ' '])
            .any(|part| part.starts_with("python"))
    };
    let code_py = found
        .code
        .as_ref()
        .is_some_and(|code| code.path.extension().is_some_and(|e| e == "py"));
    let python_files: Vec<&PathBuf> = found
        .files
        .iter()
        .chain(named)
        .filter(|file| file.extension().is_some_and(|e| e == "py"))
        .collect();
    // Files it runs (a wrapper, a manifest) are read for `python`; the
    // files its code names only by their ending (reading them all on every
    // run would cost each run what the approval cost).
    let runs = words.iter().any(|word| pythonic(word))
        || code_py
        || !python_files.is_empty()
        || found
            .files
            .iter()
            .chain(roots)
            .any(|file| names_python(file));
    let mut folders = Vec::new();
    if runs {
        folders.push(cwd.to_path_buf());
        if let Some(code) = &found.code {
            let script = std::fs::canonicalize(&code.path).unwrap_or_else(|_| code.path.clone());
            folders.extend(script.parent().map(Path::to_path_buf));
        }
        let parents = python_files.iter().filter_map(|file| file.parent());
        folders.extend(parents.take(MAX_FOLDERS).map(Path::to_path_buf));
        // Folders the code puts on its path by a literal
        // (`sys.path.insert(0, "lib")`, `site.addsitedir("vendor")`: R24-3).
        for file in python_files.iter().take(MAX_FOLDERS) {
            folders.extend(path_literals(file).into_iter().map(|dir| cwd.join(dir)));
        }
        let split = |word: &String| {
            let parts: Vec<String> = word
                .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
                .filter(|part| !part.is_empty())
                .map(str::to_owned)
                .collect();
            parts
        };
        let tokens: Vec<String> = words.iter().flat_map(split).collect();
        for pair in tokens.windows(2).filter(|pair| pair[0] == "cd") {
            folders.push(cwd.join(&pair[1]));
        }
    }
    let assigned = words
        .iter()
        .flat_map(|word| word.split([' ', ';', '&', '|']));
    for word in assigned {
        if let Some(entries) = word.strip_prefix("PYTHONPATH=") {
            let entries = entries.trim_matches(['"', '\'']);
            folders.extend(entries.split(':').map(|entry| cwd.join(entry)));
        }
    }
    let real_project = std::fs::canonicalize(project).ok();
    let mut kept: Vec<PathBuf> = Vec::new();
    for folder in folders {
        let folder = super::normalize(&folder);
        let real = std::fs::canonicalize(&folder).ok();
        let inside = [Some(&folder), real.as_ref()]
            .into_iter()
            .flatten()
            .any(|path| {
                path.starts_with(project)
                    || real_project.as_ref().is_some_and(|p| path.starts_with(p))
            });
        if inside && !kept.contains(&folder) {
            kept.push(folder);
        }
    }
    kept
}

/// `words` with the runner's project variables (`$CLAUDE_PROJECT_DIR`,
/// `${CURSOR_PROJECT_DIR:-.}`…) written as `project` and the folder it runs
/// in (`$PWD`, `$(pwd)`) as `cwd`, quotes gone (R23-2, R24-1).
pub(super) fn with_project(words: &[String], project: &Path, cwd: &Path) -> Vec<String> {
    static PROJECT: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"\$\{(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR(?:[:]?[-=+?][^}]*)?\}|\$(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR\b",
        )
        .expect("valid regex")
    });
    static HERE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"\$\{PWD(?:[:]?[-=+?][^}]*)?\}|\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`")
            .expect("valid regex")
    });
    let (project, cwd) = (project.display().to_string(), cwd.display().to_string());
    words
        .iter()
        .map(|word| {
            let word = word.replace(['"', '\''], "");
            let word = PROJECT.replace_all(&word, regex::NoExpand(&project));
            HERE.replace_all(&word, regex::NoExpand(&cwd)).into_owned()
        })
        .collect()
}

/// The folders the Python file at `path` adds to its module path by a
/// literal: `sys.path.insert(0, "lib")`, `sys.path.append('x')`,
/// `site.addsitedir("vendor")` (first MiB read, a regular file only).
fn path_literals(path: &Path) -> Vec<String> {
    use std::io::Read;
    static ADDED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:sys\.path\.(?:insert|append)\s*\(\s*(?:[0-9]+\s*,\s*)?|site\.addsitedir\s*\(\s*)[rbu]?['"]([^'"]+)['"]"#,
        )
        .expect("valid regex")
    });
    let Ok(file) = hermes_hooks_core::regular_file::open_regular(path) else {
        return Vec::new();
    };
    let mut text = Vec::new();
    let _ = file.take(MAX_PEEK).read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text);
    ADDED
        .captures_iter(&text)
        .map(|found| found[1].to_owned())
        .collect()
}

/// Whether the file at `path` names Python (a wrapper that runs it).
fn names_python(path: &Path) -> bool {
    file_names(path, b"python")
}

/// Whether the first MiB of the regular file at `path` holds `word`.
pub(super) fn file_names(path: &Path, word: &[u8]) -> bool {
    use std::io::Read;
    let Ok(file) = hermes_hooks_core::regular_file::open_regular(path) else {
        return false;
    };
    let mut text = Vec::new();
    let _ = file.take(MAX_PEEK).read_to_end(&mut text);
    text.windows(word.len()).any(|window| window == word)
}

/// The key and digest binding what `folder` holds under the name of a
/// standard or installed module: each file (`selectors.py`, `ssl.*.so`,
/// `random.pyc`) by its content, each package (`json/` with its
/// `__init__.py`) as a tree, each compiled copy in `__pycache__`; what is
/// not a regular file is bound as such, never opened (a FIFO, a link to
/// `/dev/zero`: R22b-11). The key names what was found (R22b-12).
fn shadows(folder: &Path) -> Result<(PathBuf, String), BindError> {
    let mut found = standing_in(folder)?;
    for (name, path) in standing_in(&folder.join("__pycache__"))? {
        found.push((format!("__pycache__/{name}"), path));
    }
    bound_digest(
        folder,
        found,
        "Python modules standing in for installed ones",
    )
}

/// The key (`folder/<what: names found>`) and digest binding the entries
/// `found` of `folder`: a file by its content, a folder as a tree, what is
/// neither by what it is (never opened), a link by its target too.
pub(super) fn bound_digest(
    folder: &Path,
    mut found: Vec<(String, PathBuf)>,
    what: &str,
) -> Result<(PathBuf, String), BindError> {
    found.sort();
    let mut digest = Sha256::new();
    for (name, path) in &found {
        let hash = match std::fs::metadata(path) {
            // A file bigger than any module is bound by what it is, not read
            // whole on every run (a sparse 64 GiB `selectors.py`: R23-6).
            Ok(meta) if meta.is_file() && meta.len() > MAX_HASHED => {
                crate::fingerprint::metadata_stamp(path).unwrap_or_default()
            }
            Ok(meta) if meta.is_file() => crate::fingerprint::content_or_metadata(path),
            Ok(meta) if meta.is_dir() => super::tree_sha256(std::slice::from_ref(path))?,
            _ => "not a regular file".to_owned(),
        };
        let link = std::fs::read_link(path)
            .map(|to| to.display().to_string())
            .unwrap_or_default();
        digest.update(format!("{name}\0{link}\0{hash}\n"));
    }
    let mut names: Vec<&str> = found
        .iter()
        .map(|(name, _)| name.as_str())
        .take(8)
        .collect();
    if found.len() > names.len() {
        names.push("…");
    }
    let shown = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    let key = folder.join(format!("<{what}: {shown}>"));
    Ok((key, hex::encode(digest.finalize())))
}

/// The entries of `folder` named as a standard or installed module (up to
/// the first `.`): files, and folders holding an `__init__` (a folder
/// without one never hides a module found later on the path); and `.pth`
/// files.
fn standing_in(folder: &Path) -> Result<Vec<(String, PathBuf)>, BindError> {
    entries_where(folder, |name, path| {
        let stem = name.split('.').next().unwrap_or_default();
        // `_sysconfigdata_<abi>`: the build settings `sysconfig` imports.
        let standard =
            STANDARD_MODULES.binary_search(&stem).is_ok() || stem.starts_with("_sysconfigdata");
        // `__init__.py`, or a compiled `__init__.pyc` / `__init__.*.so` (R23-1).
        let package = path.is_dir()
            && std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .flatten()
                .take(MAX_LISTED)
                .any(|entry| entry.file_name().to_string_lossy().starts_with("__init__."));
        // A `.pth` file runs its `import` lines where `site` reads the
        // folder (`site.addsitedir`: R23-3).
        let pth = name.ends_with(".pth") && !path.is_dir();
        pth || (standard || INSTALLED.contains(stem)) && (package || !path.is_dir())
    })
}

/// The entries of `folder` whose name and path `keep` keeps, every entry
/// read: a folder of over [`MAX_LISTED`] cannot be bound (none of it may be
/// missed, R22b-8).
pub(super) fn entries_where(
    folder: &Path,
    keep: impl Fn(&str, &Path) -> bool,
) -> Result<Vec<(String, PathBuf)>, BindError> {
    let Ok(listing) = std::fs::read_dir(folder) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for (count, entry) in listing.flatten().enumerate() {
        if count >= MAX_LISTED {
            return Err(BindError::TreeTooLarge(folder.to_path_buf()));
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if keep(&name, &path) {
            found.push((name, path));
        }
    }
    Ok(found)
}

/// The top-level modules installed in the site folders a Python here may
/// read (`requests`, `urllib3`, `yaml`…), read once.
static INSTALLED: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    let mut names = BTreeSet::new();
    for site in super::python_sites::site_folders() {
        let Ok(listing) = std::fs::read_dir(&site) else {
            continue;
        };
        for entry in listing.flatten().take(20_000) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name.split(['.', '-']).next().unwrap_or_default();
            let metadata = name.ends_with(".dist-info") || name.ends_with(".egg-info");
            if !stem.is_empty() && !metadata && !name.ends_with(".pth") && stem != "__pycache__" {
                names.insert(stem.to_owned());
            }
        }
    }
    names
});

#[cfg(test)]
mod tests {
    use super::*;

    fn write(folder: &Path, name: &str, text: &str) {
        let path = folder.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(&path, text).expect("file");
    }

    #[test]
    fn a_file_named_as_a_standard_module_changes_the_digest_and_others_do_not() {
        assert!(STANDARD_MODULES.windows(2).all(|pair| pair[0] < pair[1]));
        let folder = tempfile::tempdir().expect("folder");
        write(folder.path(), "check.py", "import subprocess\n");
        let (_, before) = shadows(folder.path()).expect("digest");
        write(folder.path(), "helper.py", "x = 1\n");
        write(folder.path(), "html/index.html", "<p>\n");
        assert_eq!(shadows(folder.path()).expect("digest").1, before);
        for name in [
            "selectors.py",
            "random.pyc",
            "json/__init__.py",
            "__pycache__/tempfile.cpython-311.pyc",
        ] {
            write(folder.path(), name, "");
            let (key, after) = shadows(folder.path()).expect("digest");
            assert_ne!(after, before, "{name}");
            let stem = name
                .trim_start_matches("__pycache__/")
                .split(['.', '/'])
                .next()
                .unwrap();
            assert!(key.to_string_lossy().contains(stem), "{key:?}");
            write(folder.path(), name, "import os\n");
            assert_ne!(shadows(folder.path()).expect("digest").1, after, "{name}");
        }
    }

    #[test]
    fn a_file_bigger_than_any_module_is_bound_by_its_metadata() {
        let folder = tempfile::tempdir().expect("folder");
        let big = std::fs::File::create(folder.path().join("selectors.py")).expect("file");
        big.set_len(MAX_HASHED + 1).expect("sparse");
        let (_, before) = shadows(folder.path()).expect("digest");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        big.set_modified(later).expect("touched");
        assert_ne!(shadows(folder.path()).expect("digest").1, before);
    }

    #[test]
    fn literal_path_additions_are_read() {
        let folder = tempfile::tempdir().expect("folder");
        let text = "import sys, site\nsys.path.insert(0, \"lib\")\nsys.path.append('x')\nsite.addsitedir(\"vendor\")\n";
        write(folder.path(), "check.py", text);
        assert_eq!(
            path_literals(&folder.path().join("check.py")),
            ["lib", "x", "vendor"]
        );
    }

    #[test]
    fn what_is_not_a_regular_file_is_bound_unopened() {
        let folder = tempfile::tempdir().expect("folder");
        std::os::unix::fs::symlink("/dev/zero", folder.path().join("selectors.py")).expect("link");
        nix::unistd::mkfifo(
            &folder.path().join("socket.py"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .expect("fifo");
        let (key, _) = shadows(folder.path()).expect("digest without opening either");
        assert!(key.to_string_lossy().contains("selectors.py"), "{key:?}");
    }
}
