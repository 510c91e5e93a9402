//! The start-up modules a Python imports from the folders of its
//! `PYTHONPATH` (red team round 10, R10-9). Those folders come first on
//! its module path, so `import sitecustomize` (and, with the user site on,
//! `import usercustomize`) at start-up finds a project's
//! `src/sitecustomize.py` when the host's `PYTHONPATH` names `src` (direnv's
//! `export PYTHONPATH=$PWD/src`): the project's code inside the user's
//! approved guard. A folder inside a project folder binds each such module,
//! present or absent (one that appears later is a change).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::STARTUP_MODULES;
use crate::binding::normalize;

/// The most entries of one folder listed for compiled start-up modules.
const MAX_LISTED: usize = 10_000;

/// The folders `python_path` puts on the module path, as Python reads it:
/// none when it is empty; else each entry, relative ones (and an empty one,
/// the current folder) taken from `cwd`.
pub(super) fn python_path_folders(python_path: &OsStr, cwd: &Path) -> Vec<PathBuf> {
    if python_path.is_empty() {
        return Vec::new();
    }
    std::env::split_paths(python_path)
        .map(|entry| normalize(&cwd.join(entry)))
        .collect()
}

/// The files of `folder` a Python's start-up imports: for each start-up
/// module `m`, `m.py` and `m/__init__.py` (bound present or absent), and
/// each compiled `m.*` there or in `__pycache__` that exists.
pub(super) fn python_path_startup(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for source in STARTUP_MODULES {
        let module = source.trim_end_matches(".py");
        files.push(folder.join(source));
        files.push(folder.join(module).join("__init__.py"));
        for place in [folder.to_path_buf(), folder.join("__pycache__")] {
            let Ok(listing) = std::fs::read_dir(&place) else {
                continue;
            };
            let mut compiled: Vec<PathBuf> = listing
                .flatten()
                .take(MAX_LISTED)
                .filter(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    name.starts_with(&format!("{module}.")) && name != source
                })
                .map(|entry| entry.path())
                .collect();
            compiled.sort();
            files.extend(compiled);
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::{python_path_folders, python_path_startup};
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};

    #[test]
    fn an_empty_python_path_is_no_folder_and_an_empty_entry_is_the_current_one() {
        let cwd = Path::new("/p");
        assert!(python_path_folders(OsStr::new(""), cwd).is_empty());
        assert_eq!(
            python_path_folders(OsStr::new("src::/abs"), cwd),
            [
                PathBuf::from("/p/src"),
                PathBuf::from("/p"),
                PathBuf::from("/abs")
            ]
        );
    }

    #[test]
    fn compiled_start_up_modules_are_bound_beside_the_sources() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = dir.path().join("__pycache__");
        std::fs::create_dir_all(&cache).expect("cache");
        let compiled = cache.join("sitecustomize.cpython-312.pyc");
        std::fs::write(&compiled, b"\0").expect("pyc");
        let extension = dir.path().join("usercustomize.abi3.so");
        std::fs::write(&extension, b"\0").expect("so");
        let files = python_path_startup(dir.path());
        for file in [
            dir.path().join("sitecustomize.py"),
            dir.path().join("usercustomize/__init__.py"),
            compiled,
            extension,
        ] {
            assert!(files.contains(&file), "{file:?} in {files:?}");
        }
    }
}
