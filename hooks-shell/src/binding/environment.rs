//! A Python environment inside the project (a top-level folder holding
//! `pyvenv.cfg`: `.venv`, `venv`): what a hook running its interpreter or
//! its tools (`.venv/bin/python check.py`, `.venv/bin/pytest`) may load is
//! any of it, and it is installed code, not the project's writing. It is
//! bound whole by what each entry is (name, link, size, times, inode: a
//! file written after the approval changes its change time, which no
//! user can set back), never read for the names of other files: reading a
//! venv of pip, pytest and ruff as code took minutes and was refused (red
//! team round 27, R27-1..4).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BindError;
use super::git_index::Checkout;

/// The most entries of one environment bound.
pub(super) const MAX_ENTRIES: usize = 200_000;

/// What the digest of project code an environment leads to is named for.
pub(super) const LED_TO_KEY: &str =
    "project code a Python environment leads to, each entry by what it is";

/// What the digest of an environment is named for.
pub(super) const KEY: &str = "Python environment, each entry by what it is";

/// Whether `folder` (at a project's top) is a Python environment: it holds
/// `pyvenv.cfg` and git's index tracks nothing in it. One that came with
/// the repository (committed) is the repository's code: read as any other,
/// never trusted to name nothing outside it.
pub(crate) fn is_environment(folder: &Path) -> bool {
    folder
        .parent()
        .is_some_and(|project| is_environment_in(folder, project))
}

/// Whether `folder`, anywhere in `project` (`tools/.venv`: R28-8), is a
/// Python environment: as [`is_environment`], git's index tracking nothing
/// under it.
pub(crate) fn is_environment_in(folder: &Path, project: &Path) -> bool {
    if !folder.join("pyvenv.cfg").is_file() {
        return false;
    }
    let Ok(inside) = folder.strip_prefix(project) else {
        return false;
    };
    if inside.as_os_str().is_empty() {
        return false;
    }
    // A link to a folder elsewhere in the project (`.venv -> tools/env`)
    // leads to what git may track under another name: the project's code
    // (R28-7).
    if std::fs::symlink_metadata(folder).is_ok_and(|meta| meta.is_symlink()) {
        let real = |path: &Path| std::fs::canonicalize(path).ok();
        if let (Some(target), Some(top)) = (real(folder), real(project))
            && target.starts_with(&top)
        {
            return false;
        }
    }
    // An index that cannot be read tells nothing: in a git checkout the
    // folder is then read as the repository's code (a corrupted index
    // cannot make a committed one trusted). Outside a checkout, what came
    // with the project cannot be told either: the project is then bound
    // whole beside it ([`untold`]).
    match super::git_index::checkout(project) {
        Checkout::Tracks(_) => super::git_index::tracks_under(project, inside) == Some(false),
        Checkout::Outside => true,
        Checkout::Unreadable => false,
    }
}

/// Whether what came with `project` cannot be told from what was made in
/// it: no git checkout holds it (a folder unpacked from an archive). An
/// environment there may be the project's own code, which may run any
/// file of the project (R27-5): a hook that runs one binds every entry of
/// the project by what it is ([`digest`]). A checkout where nothing was
/// added yet is the user's new project: its environment is the user's.
pub(crate) fn untold(project: &Path) -> bool {
    matches!(super::git_index::checkout(project), Checkout::Outside)
}

/// What the digest of a project bound whole beside an environment is
/// named for.
pub(super) const PROJECT_KEY: &str = "every entry of a project that is not a git checkout, by what it is: a Python environment in it may run any of them";

/// The Python environment of `project` a few folders down at most
/// holding `path` (`tools/.venv/bin/python`: R28-8), if any.
pub(crate) fn environment_holding(project: &Path, path: &Path) -> Option<PathBuf> {
    let inside = path.strip_prefix(project).ok()?;
    let mut folder = project.to_path_buf();
    for part in inside.components().take(4) {
        folder.push(part);
        if is_environment_in(&folder, project) {
            return Some(folder);
        }
    }
    None
}

/// The top-level folder of `project` holding `path`, among `environments`.
pub(crate) fn holding(environments: &[PathBuf], project: &Path, path: &Path) -> Option<PathBuf> {
    let inside = path.strip_prefix(project).ok()?;
    let top = project.join(inside.components().next()?);
    environments.contains(&top).then_some(top)
}

/// What an environment's own files say of the project's code it runs,
/// besides the environment (red team round 28, R28-1 to R28-3): an
/// editable install's `.pth` folder, `.egg-link` or `__editable__` finder
/// (`pip install -e .`), a link into the project (`flit install -s`), a
/// `.pth` import line, a console script in `bin/`.
#[derive(Debug, Default)]
pub(crate) struct Reaching {
    /// The environment's files read as code for what they name: its
    /// `.pth` files, `__editable__` finders, and `#!` scripts in `bin/`.
    pub(crate) read: Vec<PathBuf>,
    /// The project's files and folders (outside the environment) its
    /// paths and links lead to, bound with every code file they hold.
    pub(crate) whole: Vec<PathBuf>,
    /// The environment's own folders its `.pth` files put on the module
    /// path (a path line, `site.addsitedir`): searched as site folders.
    pub(crate) sites: Vec<PathBuf>,
    /// Whether a package was installed from the project (`pip install .`,
    /// `uv sync`: its `direct_url.json`), or which one cannot be told.
    pub(crate) installed_from_project: bool,
    /// Whether a file that runs at start-up (a `.pth`, a finder, a script)
    /// was too large to read, or the environment too large to walk: what
    /// it reaches cannot be told (R30-13).
    pub(crate) unread: bool,
}

/// The largest file of an environment read for what it names.
const MAX_READ_FILE: u64 = 1 << 20;

/// What `environment` (in `project`) reaches of the project ([`Reaching`]);
/// its entries walked by metadata as [`digest`] walks them.
pub(crate) fn reaching(environment: &Path, project: &Path) -> Reaching {
    let mut found = Reaching::default();
    let real_project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let real_environment =
        std::fs::canonicalize(environment).unwrap_or_else(|_| environment.to_path_buf());
    // A path into the project and out of the environment, as the project names it.
    let into_project = |path: &Path| -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok()?;
        if real.starts_with(&real_environment) {
            return None;
        }
        Some(project.join(real.strip_prefix(&real_project).ok()?))
    };
    let mut stack = vec![environment.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in listing.flatten().map(|entry| entry.path()) {
            seen += 1;
            if seen > MAX_ENTRIES {
                found.unread = true;
                return found;
            }
            let Ok(metadata) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if metadata.is_symlink() {
                found.whole.extend(into_project(&path));
                continue;
            }
            if metadata.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name == "direct_url.json" && dir.extension().is_some_and(|e| e == "dist-info") {
                let text = std::fs::read(&path).ok();
                let text = text.filter(|_| metadata.len() <= MAX_READ_FILE);
                found.installed_from_project |= match text.as_deref().and_then(installed_from) {
                    Some(Some(from)) => {
                        from.starts_with(&real_project)
                            || from.starts_with(project)
                            || into_project(&from).is_some()
                    }
                    Some(None) => false,
                    None => true, // cannot tell where from: as if from the project
                };
                continue;
            }
            // Any script of its `bin/` (a `#!` line or none: `sh` runs it
            // either way, R28b-2), what Python runs at start-up (R28b-10).
            let bin = [environment.join("bin"), environment.join("Scripts")];
            let script = bin.contains(&dir) && !is_program(&path);
            let startup = name == "sitecustomize.py" || name == "usercustomize.py";
            let pth = name.ends_with(".pth") || name.ends_with(".egg-link");
            let finder = name.starts_with("__editable__");
            if !(script || startup || pth || finder) {
                continue;
            }
            if metadata.len() > MAX_READ_FILE {
                found.unread = true;
                continue;
            }
            found.read.push(path.clone());
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            // A `.pth` line is a folder (relative to its own), an
            // `.egg-link`'s first line one; a finder maps names to paths;
            // a `.pth` import line may name a folder (`site.addsitedir`:
            // R28b-1) and the modules it imports are read (R28b-10).
            let mut paths: Vec<PathBuf> = Vec::new();
            if pth {
                let lines = text.lines().map(str::trim);
                let lines = lines.filter(|line| !line.is_empty() && !line.starts_with('#'));
                for line in lines {
                    match line.strip_prefix("import") {
                        Some(code) => {
                            paths.extend(quoted(code).into_iter().map(PathBuf::from));
                            found.read.extend(imported(code, &dir));
                        }
                        None => paths.push(dir.join(line)),
                    }
                }
            }
            if finder || startup {
                paths.extend(quoted(&text).into_iter().map(PathBuf::from));
            }
            found
                .whole
                .extend(paths.iter().filter_map(|path| into_project(path)));
            if pth {
                let real = |path: &PathBuf| std::fs::canonicalize(path).ok();
                let own = paths.iter().filter(|path| {
                    real(path).is_some_and(|real| real.starts_with(&real_environment))
                });
                let (folders, files): (Vec<&PathBuf>, Vec<&PathBuf>) =
                    own.partition(|p| p.is_dir());
                found.sites.extend(folders.into_iter().cloned());
                // A file on the module path: an archive by any name (R30-6).
                found
                    .read
                    .extend(files.into_iter().filter(|p| p.is_file()).cloned());
            }
        }
    }
    found.whole.sort();
    found.whole.dedup();
    found
}

/// The folder a package was installed from, by its `direct_url.json`
/// (PEP 610): `Some(None)` for an index or a remote URL, `None` when the
/// file cannot be read as one.
fn installed_from(text: &[u8]) -> Option<Option<PathBuf>> {
    let record: serde_json::Value = serde_json::from_slice(text).ok()?;
    let url = url::Url::parse(record.get("url")?.as_str()?).ok()?;
    if url.scheme() != "file" {
        return Some(None);
    }
    url.to_file_path().ok().map(Some)
}

/// Whether `path` is a compiled program (ELF), not a script.
fn is_program(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| &start == b"\x7fELF")
}

/// The module files in `folder` a `.pth` import line's `code` imports
/// (`import a, b.c; a.install()`): `a.py` or `a/__init__.py`.
fn imported(code: &str, folder: &Path) -> Vec<PathBuf> {
    let statement = code.split([';', '\n']).next().unwrap_or_default();
    statement
        .split(',')
        .filter_map(|name| name.split_whitespace().next())
        .filter_map(|name| name.split('.').next())
        .flat_map(|name| {
            [
                folder.join(format!("{name}.py")),
                folder.join(name).join("__init__.py"),
            ]
        })
        .filter(|file| file.is_file())
        .collect()
}

/// The absolute paths quoted in `text` (`'/p/src/pkg'`).
fn quoted(text: &str) -> Vec<String> {
    text.split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .filter(|word| word.starts_with('/'))
        .map(str::to_owned)
        .collect()
}

/// Binds in `mentioned` the folder `file` of `project` the hook's code
/// reaches: an environment by what each entry is, and, outside a git
/// checkout, every entry of the project beside it (its code may run any
/// of them: R27-5); the project itself (what the named set holds to bind
/// another folder (project code an environment leads to: R28-1, R28b-1;
/// the project's top for a flat layout: R28c-5) by its names and code in
/// a git checkout, else by what each entry is ([`super::led_to`]).
pub(super) fn bind_folder(
    file: &Path,
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    if is_environment_in(file, project) {
        if untold(project) {
            let (key, digest) = project_digest(project)?;
            mentioned.insert(key, digest);
        }
        mentioned.insert(file.join(format!("<{KEY}>")), digest(file)?);
        return Ok(());
    }
    // The project's own top too: a flat layout's `.pth` (R28c-5).
    let (key, digest) = super::led_to::bind(file, project)?;
    mentioned.insert(key, digest);
    Ok(())
}

/// What a hook's code is held to reach to bind the whole project by what
/// each entry is: an environment's code too large to read on every run
/// ([`bind_whole`]).
pub(crate) fn whole_project(project: &Path) -> PathBuf {
    project.join(format!("<{WHOLE_KEY}>"))
}

/// What the digest of a project whose environment's code was too large
/// to read is named for.
const WHOLE_KEY: &str = "every entry of the project, by what it is: installed code it runs is too large to read on every run, and may run any of them";

/// Binds in `mentioned` every entry of `project` by what it is, when
/// `file` is [`whole_project`]; whether it was.
pub(super) fn bind_whole(
    file: &Path,
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<bool, BindError> {
    if file != whole_project(project) {
        return Ok(false);
    }
    mentioned.insert(file.to_path_buf(), digest(project)?);
    Ok(true)
}

/// The key and digest of every entry of `project` by what it is, its
/// environments too (a folder holding a `pyvenv.cfg` it does not run is
/// bound by nothing else: R28b-6).
pub(super) fn project_digest(project: &Path) -> Result<(PathBuf, String), BindError> {
    let digest = digest(project)?;
    Ok((project.join(format!("<{PROJECT_KEY}>")), digest))
}

/// The digest of every entry under `root` by its metadata (links never
/// followed); too many entries, and it cannot be bound.
pub(super) fn digest(root: &Path) -> Result<String, BindError> {
    let mut hash = Sha256::new();
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let listing = std::fs::read_dir(&dir).map_err(|_| BindError::Unlistable(dir.clone()))?;
        let mut entries: Vec<PathBuf> = listing.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for path in entries {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(BindError::TreeTooLarge(root.to_path_buf()));
            }
            let link = std::fs::read_link(&path).ok();
            let stamp = match &link {
                Some(_) => String::new(),
                None => crate::fingerprint::metadata_stamp(&path).unwrap_or_default(),
            };
            let shown = path.strip_prefix(root).unwrap_or(&path);
            let to = link.as_ref().map(|to| to.display().to_string());
            hash.update(format!(
                "{}\0{}\0{stamp}\n",
                shown.display(),
                to.unwrap_or_default()
            ));
            if link.is_none() && path.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(hex::encode(hash.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_record_says_which_local_folder_it_was_installed_from() {
        let local = br#"{"url": "file:///p/my%20proj", "dir_info": {"editable": true}}"#;
        assert_eq!(
            installed_from(local),
            Some(Some(PathBuf::from("/p/my proj")))
        );
        let index = br#"{"url": "https://files.example/x.whl", "archive_info": {}}"#;
        assert_eq!(installed_from(index), Some(None));
        for unreadable in [&b"{not json"[..], br#"{"dir_info": {}}"#, br#"{"url": 3}"#] {
            assert_eq!(installed_from(unreadable), None);
        }
    }

    #[test]
    fn a_changed_module_of_an_environment_changes_its_digest() {
        let project = tempfile::tempdir().expect("project");
        let venv = project.path().join(".venv");
        let site = venv.join("lib/python3/site-packages");
        std::fs::create_dir_all(&site).expect("site");
        std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").expect("cfg");
        std::fs::write(site.join("requests.py"), "x = 1\n").expect("module");
        let module = site.join("requests.py");
        assert!(is_environment(&venv));
        // In a checkout whose index cannot be read it is the repository's.
        std::fs::create_dir_all(project.path().join(".git")).expect("git");
        std::fs::write(project.path().join(".git/index"), "not an index").expect("index");
        assert!(!is_environment(&venv));
        std::fs::remove_dir_all(project.path().join(".git")).expect("gone");
        let found = [venv.clone()];
        assert_eq!(holding(&found, project.path(), &module), Some(venv.clone()));
        assert_eq!(
            holding(&found, project.path(), &project.path().join("x.py")),
            None
        );
        let before = digest(&venv).expect("digest");
        assert_eq!(digest(&venv).expect("digest"), before);
        // Same size, the old modification time: the change time moves.
        let mtime = std::fs::metadata(&module)
            .expect("meta")
            .modified()
            .expect("mtime");
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&module, "y = 2\n").expect("changed");
        let file = std::fs::File::options()
            .write(true)
            .open(&module)
            .expect("open");
        file.set_modified(mtime).expect("set mtime");
        assert_ne!(digest(&venv).expect("digest"), before);
    }
}
