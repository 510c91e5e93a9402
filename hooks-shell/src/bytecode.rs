//! Where the Python a hook starts keeps its compiled modules: a folder of
//! the Hermes home (`cache/pycache`), never a project's `__pycache__`
//! (red team round 72: a repository's `__pycache__/h.cpython-311.pyc`,
//! an unchecked-hash one committed or one written with the source's time
//! and size, and pytest's rewritten test modules there, ran in place of
//! the bound `h.py`). `PYTHONPYCACHEPREFIX` (Python 3.8+) makes Python,
//! and pytest's assertion rewriting, read and write them only there.
//! The hook's own configured environment may set it otherwise (a
//! project's settings file cannot: it steers code, so it is refused).
//!
//! A project's own hooks keep theirs in a folder of that project's
//! ([`folder`]), the one folder of the home their sandbox lets them write:
//! with the user's folder read-only to them, every run compiled what it
//! imported again (600 ms more per run of a Python project hook). No
//! other project's hooks, and none of the user's, read it.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The variable Python reads its compiled modules' folder from.
pub(crate) const PREFIX_VARIABLE: &str = "PYTHONPYCACHEPREFIX";

/// Gives `command` the Hermes home's (`home`) folder for compiled modules,
/// and lets Python write them there: with `PYTHONDONTWRITEBYTECODE` (set
/// in many containers) nothing would be cached, and every run of a hook
/// would compile the standard library and its tools again (twice the time
/// of a `pytest` guard's emit); the project's folders get none either way.
pub(crate) fn private_bytecode(command: &mut hermes_hooks_process::Command, folder: &Path) {
    command.env(PREFIX_VARIABLE, folder);
    command.env_remove("PYTHONDONTWRITEBYTECODE");
}

/// The folder of the Hermes home (`home`) where the Python a hook starts
/// keeps its compiled modules: `cache/pycache` for the user's hooks, and
/// for the hooks of `project` (a project's own) a folder of that project's
/// in `cache/pycache-projects`, named by a digest of its path.
pub(crate) fn folder(home: &Path, project: Option<&Path>) -> PathBuf {
    let cache = home.join("cache");
    match project {
        None => cache.join("pycache"),
        Some(project) => {
            let digest = Sha256::digest(project.as_os_str().as_encoded_bytes());
            cache
                .join("pycache-projects")
                .join(hex::encode(&digest[..16]))
        }
    }
}

/// [`folder`] of a project's own `hook`, made (private to the user) so
/// that the sandbox can let it write there; `None` for the user's hooks,
/// or where it cannot be made (the hook then compiles on every run).
pub(crate) fn project_folder(hook: &crate::ImportedHook) -> Option<PathBuf> {
    if hook.scope != crate::dialect::Scope::Project {
        return None;
    }
    made_private(folder(&hook.home, Some(&hook.project)))
}

/// `folder`, made with its missing parents, private to the user (mode
/// 0700); `None` where it cannot be made.
pub(crate) fn made_private(folder: PathBuf) -> Option<PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(&folder) {
        Ok(()) => Some(folder),
        Err(error) => {
            tracing::debug!("cannot create {}: {error}", folder.display());
            None
        }
    }
}

/// Empties [`folder`] of `project`'s own hooks (an approval given in that
/// project: what they compiled is made again from the approved sources).
/// A project's approved hook may write that folder, and Python takes an
/// unchecked-hash `.pyc` there for its module whatever the source says;
/// Python has no variable to check them always.
pub(crate) fn forget_project_folder(home: &Path, project: &Path) {
    let folder = folder(home, Some(project));
    match std::fs::remove_dir_all(&folder) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => tracing::warn!("cannot empty {}: {error}", folder.display()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn each_projects_hooks_have_their_own_folder_apart_from_the_users() {
        let home = Path::new("/h");
        let user = super::folder(home, None);
        let a = super::folder(home, Some(Path::new("/p/a")));
        let b = super::folder(home, Some(Path::new("/p/b")));
        assert_eq!(user, Path::new("/h/cache/pycache"));
        assert!(a.starts_with("/h/cache/pycache-projects"));
        assert_ne!(a, b);
        assert!(!a.starts_with(&user));
    }
}
