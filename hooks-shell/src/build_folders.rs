//! Where the cargo and tox a hook starts build and keep their environments:
//! a folder of the Hermes home, never the project's `target/` or `.tox/`
//! (red team round 72, R72-3b). A repository (or anything that wrote into
//! the project after an approval) could leave a test binary or a build
//! script in `target/` that cargo takes for fresh and runs, or a `.pth`, a
//! `sitecustomize.py` or another `python` in a `.tox` environment tox
//! reuses: code no binding names, run by an approved guard.
//! `CARGO_TARGET_DIR` and `TOX_WORK_DIR` point both tools at a folder of
//! the home instead, one per folder the hooks run in, as
//! [`crate::bytecode`] does for Python's compiled modules.
//!
//! The user's own hooks keep a `CARGO_TARGET_DIR` or `TOX_WORK_DIR` this
//! process inherits when it is an absolute path outside the project (a
//! shared target folder is theirs); their settings files may set either
//! (the hook's own environment is applied later). A project's settings file
//! cannot: both steer code (`dialect::code_env`). A project's own hooks
//! get a folder of their own, the one their sandbox lets them write, that
//! no user hook builds in.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The variable cargo reads its build folder from.
pub(crate) const CARGO_TARGET: &str = "CARGO_TARGET_DIR";
/// The variable tox 4 reads its work folder (its environments) from.
pub(crate) const TOX_WORK: &str = "TOX_WORK_DIR";

/// The folder of the Hermes home (`home`) where the hooks running in
/// `place` build: `cache/builds/<digest>` for the user's hooks,
/// `cache/builds-projects/<digest>` for a project's own (`project_hook`),
/// named by a digest of the path.
pub(crate) fn folder(home: &Path, place: &Path, project_hook: bool) -> PathBuf {
    let digest = Sha256::digest(place.as_os_str().as_encoded_bytes());
    let kind = if project_hook {
        "builds-projects"
    } else {
        "builds"
    };
    home.join("cache")
        .join(kind)
        .join(hex::encode(&digest[..16]))
}

/// Points `command`'s cargo and tox at [`folder`] (see the module
/// documentation). The folder is not made here: cargo and tox make it when
/// they run (a folder made for every hook would change what a Python hook
/// running in the Hermes home may import from there); a sandboxed hook's
/// is made by [`made`] before its sandbox opens it.
pub(crate) fn private_builds(
    command: &mut hermes_hooks_process::Command,
    home: &Path,
    place: &Path,
    project_hook: bool,
) {
    let root = folder(home, place, project_hook);
    for (variable, under) in [(CARGO_TARGET, "cargo-target"), (TOX_WORK, "tox")] {
        if !project_hook && users_own(variable, place) {
            continue;
        }
        command.env(variable, root.join(under));
    }
}

/// [`folder`], made private to the user, for the sandbox to let the hook
/// write; `None` where it cannot be made (cargo and tox then make it
/// themselves, or fail and say so).
pub(crate) fn made(home: &Path, place: &Path, project_hook: bool) -> Option<PathBuf> {
    crate::bytecode::made_private(folder(home, place, project_hook))
}

/// [`made`] for the imported `hook` when it runs in a sandbox (which opens
/// only folders that exist); `None` otherwise.
pub(crate) fn sandboxed_folder(hook: &crate::ImportedHook) -> Option<PathBuf> {
    let project_hook = hook.scope == crate::dialect::Scope::Project;
    (!hook.sandbox.is_none())
        .then(|| made(&hook.home, &hook.project, project_hook))
        .flatten()
}

/// Whether this process's `variable` names a folder of the user's own: an
/// absolute path outside `project`.
fn users_own(variable: &str, project: &Path) -> bool {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .is_some_and(|value| {
            value.is_absolute() && !crate::binding::normalize(&value).starts_with(project)
        })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn each_folder_and_each_projects_own_hooks_build_apart() {
        let home = Path::new("/h");
        let user_a = super::folder(home, Path::new("/p/a"), false);
        let user_b = super::folder(home, Path::new("/p/b"), false);
        let project_a = super::folder(home, Path::new("/p/a"), true);
        assert!(user_a.starts_with("/h/cache/builds"));
        assert!(project_a.starts_with("/h/cache/builds-projects"));
        assert_ne!(user_a, user_b);
        assert_ne!(user_a.file_name(), None);
        assert!(!project_a.starts_with(user_a.parent().expect("parent")));
    }
}
