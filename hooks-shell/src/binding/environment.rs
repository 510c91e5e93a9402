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

/// What the digest of an environment is named for.
pub(super) const KEY: &str = "Python environment, each entry by what it is";

/// Whether `folder` (at a project's top) is a Python environment: it holds
/// `pyvenv.cfg` and git's index tracks nothing in it. One that came with
/// the repository (committed) is the repository's code: read as any other,
/// never trusted to name nothing outside it.
pub(crate) fn is_environment(folder: &Path) -> bool {
    if !folder.join("pyvenv.cfg").is_file() {
        return false;
    }
    let (Some(project), Some(name)) = (folder.parent(), folder.file_name()) else {
        return false;
    };
    // An index that cannot be read tells nothing: in a git checkout the
    // folder is then read as the repository's code (a corrupted index
    // cannot make a committed one trusted). Outside a checkout, what came
    // with the project cannot be told either: the project is then bound
    // whole beside it ([`untold`]).
    match super::git_index::checkout(project) {
        Checkout::Tracks(tops) => !tops.contains(name.as_encoded_bytes()),
        Checkout::Outside => true,
        Checkout::Unreadable => false,
    }
}

/// Whether what came with `project` cannot be told from what was made in
/// it: no git checkout holds it, or git tracks nothing in it (a folder
/// unpacked from an archive). An environment there may be the project's
/// own code, which may run any file of the project (R27-5): a hook that
/// runs one binds every entry of the project by what it is ([`digest`]).
pub(crate) fn untold(project: &Path) -> bool {
    match super::git_index::checkout(project) {
        Checkout::Outside => true,
        Checkout::Tracks(tops) => tops.is_empty(),
        Checkout::Unreadable => false,
    }
}

/// What the digest of a project bound whole beside an environment is
/// named for.
pub(super) const PROJECT_KEY: &str = "every entry of a project that is not a git checkout, by what it is: a Python environment in it may run any of them";

/// The top-level folder of `project` holding `path`, among `environments`.
pub(crate) fn holding(environments: &[PathBuf], project: &Path, path: &Path) -> Option<PathBuf> {
    let inside = path.strip_prefix(project).ok()?;
    let top = project.join(inside.components().next()?);
    environments.contains(&top).then_some(top)
}

/// The key and digest of every entry of `project` by what it is, but its
/// environments (each bound on its own).
pub(super) fn project_digest(project: &Path) -> Result<(PathBuf, String), BindError> {
    let listing =
        std::fs::read_dir(project).map_err(|_| BindError::Unlistable(project.to_path_buf()))?;
    let environments: Vec<PathBuf> = listing
        .flatten()
        .map(|entry| entry.path())
        .filter(|top| is_environment(top))
        .collect();
    let digest = digest(project, &environments)?;
    Ok((project.join(format!("<{PROJECT_KEY}>")), digest))
}

/// The digest of every entry under `root` by its metadata (links never
/// followed), but the folders `skip` names (each bound on its own); too
/// many entries, and it cannot be bound.
pub(super) fn digest(root: &Path, skip: &[PathBuf]) -> Result<String, BindError> {
    let mut hash = Sha256::new();
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let listing = std::fs::read_dir(&dir).map_err(|_| BindError::Unlistable(dir.clone()))?;
        let mut entries: Vec<PathBuf> = listing.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for path in entries.into_iter().filter(|path| !skip.contains(path)) {
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
        let before = digest(&venv, &[]).expect("digest");
        assert_eq!(digest(&venv, &[]).expect("digest"), before);
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
        assert_ne!(digest(&venv, &[]).expect("digest"), before);
    }
}
