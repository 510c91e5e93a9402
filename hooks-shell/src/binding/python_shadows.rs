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

use super::search_path::{self, Spoken};
use super::{BindError, peek};

mod standard;
use super::globbing::glob_folders;
use standard::STANDARD_MODULES;

/// Binds in `mentioned` (beside the files `subject`'s code names) what may
/// stand in for a module in each folder its Python may search first
/// ([`first_on_path`], [`shadows`]; one digest for those absent now), and
/// whole the folders it reads code from wholesale ([`read_whole`]);
/// `roots` are the manifests its program runs (`package.json`, a makefile).
pub(super) fn bind(
    subject: &super::Subject,
    found: &super::Identified,
    roots: &[PathBuf],
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let named: Vec<PathBuf> = mentioned.keys().chain(roots).cloned().collect();
    let files: Vec<&PathBuf> = found.files.iter().chain(&named).collect();
    let words = subject.words.as_deref().unwrap_or_default().join(" ");
    let command = [subject.command.clone(), words];
    let spoken = Spoken::new(&command, &files, &subject.cwd, project);
    let mut absent: Vec<PathBuf> = Vec::new();
    for folder in first_on_path(subject, found, &spoken, (&named, roots), project)? {
        if folder.is_dir() {
            let (key, digest) = shadows(&folder)?;
            mentioned.insert(key, digest);
        } else {
            absent.push(folder);
        }
    }
    if !absent.is_empty() {
        // One key for the folders it may search that do not exist yet (many
        // quoted words of code that changes `sys.path` name none).
        let (key, digest) = bound_digest(&subject.cwd, Vec::new(), &absent, ABSENT_KEY)?;
        mentioned.insert(key, digest);
    }
    for folder in read_whole(&spoken, &subject.cwd, project)? {
        let digest = super::tree_sha256(std::slice::from_ref(&folder))?;
        mentioned.insert(folder.join(format!("<{WHOLE_KEY}>")), digest);
    }
    for folder in spoken.copied_from(&["PYTHONPATH"], &subject.cwd, project)? {
        let digest = super::tree_sha256(std::slice::from_ref(&folder))?;
        mentioned.insert(folder.join(format!("<{COPIED_KEY}>")), digest);
    }
    Ok(())
}

/// What the digest of the folders it may search that are absent is named for.
const ABSENT_KEY: &str = "folders Python may search, none of them there now";

/// What a folder named beside a module folder outside the project is
/// named for (R26-10).
pub(super) const COPIED_KEY: &str = "code that may be copied where the hook looks for modules";

/// What a folder Python reads code from wholesale is named for.
const WHOLE_KEY: &str = "Python code read from this folder";

/// The project folders Python reads code from wholesale: `-X
/// pycache_prefix=DIR` or `PYTHONPYCACHEPREFIX` (the compiled copy of every
/// module it imports, the standard library's too: R22b-7), `PYTHONUSERBASE`
/// (its `site-packages`, `.pth` files and `usercustomize`: R25a-8) and
/// `PYTHONHOME` (the standard library itself) and `HOME` (the user site
/// under it: R26-9). Bound whole, as a tree.
fn read_whole(spoken: &Spoken, cwd: &Path, project: &Path) -> Result<Vec<PathBuf>, BindError> {
    let mut values: Vec<(&str, &str, Option<&Path>)> = Vec::new();
    for name in [
        "PYTHONPYCACHEPREFIX",
        "PYTHONUSERBASE",
        "PYTHONHOME",
        "HOME",
    ] {
        let set = spoken.assigned(name).into_iter();
        values.extend(set.map(|(value, in_file)| (name, value, in_file)));
    }
    for (at, (token, in_file)) in spoken.tokens.iter().enumerate() {
        let value = token.strip_prefix("-Xpycache_prefix=").or_else(|| {
            let next = &spoken.tokens.get(at + 1)?.0;
            (token == "-X").then(|| next.strip_prefix("pycache_prefix="))?
        });
        let value = value.map(|value| ("PYTHONPYCACHEPREFIX", value, in_file.as_deref()));
        values.extend(value);
    }
    let mut folders = Vec::new();
    for (name, value, in_file) in values {
        // `PYTHONHOME="${_OLD_VIRTUAL_PYTHONHOME:-}"`: the inherited value.
        for folder in spoken.folder(value, name, cwd, project, in_file)? {
            if folder.starts_with(project) && !folders.contains(&folder) {
                folders.push(folder);
            }
        }
    }
    Ok(folders)
}

use super::globbing::MAX_LISTED;

/// The largest file bound by its content; a bigger one is bound by its
/// metadata (size, times, inode).
pub(super) const MAX_HASHED: u64 = 16 << 20;

/// The most folders holding named Python files bound so.
const MAX_FOLDERS: usize = 32;

/// The folders of `project` a Python the hook may run searches before the
/// standard library: the folder it runs in and its code's folder (where
/// links lead, as Python finds it) when Python may run (a `python*` word
/// anywhere in the command, a `.py` code file, or a file it runs naming
/// `python`: wrappers, `npm run`, `make`), and each `PYTHONPATH=` entry the
/// command or a shell file it runs sets. `-I` / `-P` are not trusted to
/// isolate it (they may be another option's value: R22b-2).
///
/// Also each folder holding a Python file the hook's code names (`lib/`
/// for `lib/helper.py`: code that names it may put its folder on the path,
/// `sys.path.insert(0, "lib")`: R22b-4), each folder it `cd`s into (`cd sub
/// && python3 check.py`), and each quoted word of code that changes its
/// search path (R24-3, R25a-5).
fn first_on_path(
    subject: &super::Subject,
    found: &super::Identified,
    spoken: &Spoken,
    (named, roots): (&[PathBuf], &[PathBuf]),
    project: &Path,
) -> Result<Vec<PathBuf>, BindError> {
    let cwd = subject.cwd.as_path();
    let raw = subject.words.as_deref().unwrap_or_default();
    // `-c` code as written, quotes kept (`os.chdir("sub")`: R23-3b).
    let code_words = raw.join(" ");
    // `$CLAUDE_PROJECT_DIR/lib`: the runner's variables as the project (R23-2).
    let words = search_path::with_project(raw, project, cwd);
    let pythonic = |word: &String| {
        word.split(['/', '=', ';', '&', '|', '(', ')', '"', '\'', ' '])
            .any(|part| part.starts_with("python"))
    };
    let code_py = found
        .code
        .as_ref()
        .is_some_and(|code| code.path.extension().is_some_and(|e| e == "py"));
    // A `.py` file, or one without an ending whose `#!` line runs Python
    // (`run.sh` → `exec ./tool`: R24-2).
    let python_files: Vec<&PathBuf> = found
        .files
        .iter()
        .chain(named)
        .filter(|file| {
            file.extension().is_some_and(|e| e == "py")
                || peek::no_ending(file) && peek::runs_under(file, "python")
        })
        .collect();
    // Files it runs (a wrapper, a manifest) are read for `python`; the
    // files its code names only by their ending (reading them all on every
    // run would cost each run what the approval cost).
    let runs = words.iter().any(pythonic)
        || code_py
        || !python_files.is_empty()
        || found
            .files
            .iter()
            .chain(roots)
            .any(|file| names_python(file));
    let mut folders = Vec::new();
    if runs {
        // The folder it runs in is searched for `-c`, `-m`, stdin, not for
        // a script (`python3 .claude/hooks/check.py`: R26-11).
        let tokens = || spoken.tokens.iter().map(|(token, _)| token.as_str());
        let script = code_py || tokens().any(|token| token.ends_with(".py"));
        let reads_cwd = !script
            || tokens().any(|token| {
                token == "-"
                    || token.starts_with('-')
                        && !token.starts_with("--")
                        && token.ends_with(['c', 'm'])
                        && token.len() <= 4
            });
        if let Some(setting) = spoken.unknown_settings() {
            return Err(BindError::UnknownFolder(setting));
        }
        let (moved, unknown) = spoken.cd_targets(cwd, project);
        if let Some(target) = unknown.filter(|_| reads_cwd) {
            return Err(BindError::UnknownFolder(target));
        }
        let mut bases = vec![cwd.to_path_buf()];
        bases.extend(moved);
        if reads_cwd {
            folders.extend(bases.iter().cloned());
        }
        if let Some(code) = &found.code {
            let script = std::fs::canonicalize(&code.path).unwrap_or_else(|_| code.path.clone());
            let folder = script.parent().map(Path::to_path_buf);
            folders.extend(folder.clone());
            bases.extend(folder);
        }
        let parents = python_files.iter().filter_map(|file| file.parent());
        folders.extend(parents.take(MAX_FOLDERS).map(Path::to_path_buf));
        // Folders the code puts on its path by a literal
        // (`sys.path.insert(0, "lib")`, `site.addsitedir("vendor")`: R24-3),
        // or moves into before an import looks in `''` (`python3 -c
        // "os.chdir('sub')…"`: R23-3b), in its files, in files without an
        // ending it may `exec` (R24-2), and in `-c` code (R25a-4).
        // And a launcher in another language that runs Python
        // (`execFileSync("python3", …, {env: {PYTHONPATH: "lib"}})`: R26-8).
        let read = named.iter().filter(|file| peek::no_ending(file));
        let launchers = found.files.iter().filter(|file| {
            !python_files.contains(file) && !peek::no_ending(file) && names_python(file)
        });
        let read = read.chain(launchers);
        let texts = python_files
            .iter()
            .copied()
            .chain(read)
            .take(MAX_FOLDERS)
            .filter_map(|file| peek::small_text(file))
            .chain(std::iter::once(code_words))
            // Code the command gives on its input (`python3 - <<E … E`:
            // red team round 51, f11).
            .chain(std::iter::once(subject.command.clone()));
        for text in texts {
            for dir in search_path::literal_folders(&text) {
                for base in &bases {
                    match dir.contains(['*', '?', '[']) {
                        // The folders it matches now; one made later is a
                        // new name in `base`, bound by name (R31-3).
                        true => folders.extend(glob_folders(base, &dir)),
                        false => folders.push(base.join(&dir)),
                    }
                }
            }
        }
    }
    for (value, in_file) in spoken.assigned("PYTHONPATH") {
        folders.extend(spoken.folder(value, "PYTHONPATH", cwd, project, in_file)?);
    }
    Ok(inside_project(folders, project))
}

/// `folders` (`.` and `..` resolved) that are, or lead, into `project`,
/// each once.
pub(super) fn inside_project(folders: Vec<PathBuf>, project: &Path) -> Vec<PathBuf> {
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

/// Whether the file at `path` names Python (a wrapper that runs it).
fn names_python(path: &Path) -> bool {
    peek::file_names(path, b"python")
}

/// The key and digest binding what `folder` holds that Python may import
/// ([`importable`]): each module file (`selectors.py`, `ssl.*.so`,
/// `random.pyc`, `simplejson.py`, `zz.pth`) by its content, each package
/// named as a standard or installed one (`json/` with its `__init__.py`) as
/// a tree, other folders by name (a package or namespace portion added
/// later asks again: R25a-1), each compiled copy in `__pycache__`; what is
/// not a regular file is bound as such, never opened (a FIFO, a link to
/// `/dev/zero`: R22b-11). The key names what was found (R22b-12).
fn shadows(folder: &Path) -> Result<(PathBuf, String), BindError> {
    let (mut whole, by_name) = importable(folder)?;
    let (cached, _) = importable(&folder.join("__pycache__"))?;
    for (name, path) in cached {
        whole.push((format!("__pycache__/{name}"), path));
    }
    let (key, digest) = bound_digest(folder, whole, &by_name, PYTHON_KEY)?;
    Ok((key, digest))
}

/// What the digest of a folder Python may search first is named for.
const PYTHON_KEY: &str = "Python modules it may import from here";

/// The key (`folder/<what: names found>`) and digest binding the entries
/// `whole` of `folder` (a file by its content, a folder as a tree, what is
/// neither by what it is, never opened, a link by its target too) and the
/// paths `by_name` by what they are (a folder, a file, missing).
pub(super) fn bound_digest(
    folder: &Path,
    mut whole: Vec<(String, PathBuf)>,
    by_name: &[PathBuf],
    what: &str,
) -> Result<(PathBuf, String), BindError> {
    whole.sort();
    let mut digest = Sha256::new();
    for (name, path) in &whole {
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
    let mut by_name = by_name.to_vec();
    by_name.sort();
    for path in &by_name {
        let kind = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_symlink() => "link",
            Ok(meta) if meta.is_dir() => "folder",
            Ok(_) => "not a folder",
            Err(_) => "missing",
        };
        digest.update(format!("{}\0{kind}\n", path.display()));
    }
    let relative = |path: &PathBuf| {
        let shown = path
            .strip_prefix(folder)
            .unwrap_or(path)
            .display()
            .to_string();
        format!("{shown}/")
    };
    let all: Vec<String> = whole
        .iter()
        .map(|(name, _)| name.clone())
        .chain(by_name.iter().map(relative))
        .collect();
    let mut names: Vec<&str> = all.iter().map(String::as_str).take(8).collect();
    if all.len() > names.len() {
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

/// Entries of a folder bound whole (name, path) and paths bound by name.
pub(super) type Split = (Vec<(String, PathBuf)>, Vec<PathBuf>);

/// Endings of files Python imports (`.pth`: `site` runs its `import`
/// lines where it reads the folder, R23-3).
const IMPORTABLE: [&str; 8] = ["py", "pyc", "pyo", "pyd", "so", "pth", "zip", "egg"];

/// What of `folder` Python may import: every module file, packages named
/// as standard or installed ones and the entry points packages' metadata
/// declares (bound whole); and the other folders whose names Python can
/// import (bound by name).
fn importable(folder: &Path) -> Result<Split, BindError> {
    let entries = entries_where(folder, |name, path| {
        let ending = name.rsplit_once('.').map(|(_, ending)| ending);
        if !path.is_dir() {
            return ending.is_some_and(|ending| IMPORTABLE.contains(&ending));
        }
        if is_package_metadata(name) {
            return true;
        }
        let identifier = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        identifier && name != "__pycache__"
    })?;
    let (mut whole, mut by_name) = (Vec::new(), Vec::new());
    for (name, path) in entries {
        let stem = name.split('.').next().unwrap_or_default();
        // `_sysconfigdata_<abi>`: the build settings `sysconfig` imports.
        let standard =
            STANDARD_MODULES.binary_search(&stem).is_ok() || stem.starts_with("_sysconfigdata");
        // `__init__.py`, or a compiled `__init__.pyc` / `__init__.*.so` (R23-1).
        let package = || {
            std::fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .take(MAX_LISTED)
                .any(|entry| entry.file_name().to_string_lossy().starts_with("__init__."))
        };
        if is_package_metadata(&name) {
            // Its entry points only: what `pip install -e .` rewrites
            // there (`SOURCES.txt`) loads nothing (R31-7).
            let points = path.join("entry_points.txt");
            if std::fs::symlink_metadata(&points).is_ok() {
                whole.push((format!("{name}/entry_points.txt"), points));
            }
            continue;
        }
        if !path.is_dir() || (standard || INSTALLED.contains(stem)) && package() {
            whole.push((name, path));
        } else {
            by_name.push(path);
        }
    }
    Ok((whole, by_name))
}

/// Whether a folder named `name` is a package's metadata (`x.dist-info`,
/// `x.egg-info`): `importlib.metadata` reads it in every folder on the
/// module path, and its `entry_points.txt` names modules a library loads
/// as plugins without the hook's code naming them (red team R30-8). Its
/// `entry_points.txt` is bound, present or added.
pub(super) fn is_package_metadata(name: &str) -> bool {
    name.ends_with(".dist-info") || name.ends_with(".egg-info")
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
mod tests;
