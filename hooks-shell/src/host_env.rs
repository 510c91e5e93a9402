//! Variables of the host's environment that would load a project's code
//! into a hook (red team round 11, R11-6). direnv, Yarn PnP, local::lib or
//! a per-project pip setup put `BASH_ENV`, `NODE_OPTIONS=--require
//! ./.pnp.cjs`, `PERL5LIB=<project>/local/lib/perl5`, `PYTHONUSERBASE`,
//! `LD_PRELOAD` … into the agent's environment; inherited by the user's
//! approved guard, each runs a repository file that no approval binds, and
//! that the repository can change at will. So a variable that steers code
//! loading (`dialect::code_env`) and names a path in the project is not
//! passed to a hook.
//!
//! `PATH` and `PYTHONPATH` are passed to a project's own hooks, whose
//! approval binds what they reach there (`binding::program`). A user's hook
//! (its `config.yaml`, its `~/.claude`) gets them without their entries in
//! the project: the user's guard runs the user's `python3` and `jq`, never a
//! repository's `.venv/bin/python3`, `bin/jq` or `src/json.py` that direnv
//! or an activated venv put first; the binding reads the same values
//! ([`user_search_path`]).
//!
//! A project folder that holds the user's home (the agent started in `~`)
//! keeps the home the user's: paths in the home are never the project's.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use tokio::process::Command;

use crate::binding::normalize;
use crate::dialect::code_env::{path_words, steers_code};

/// Names never withheld as loaders: search paths (bound, or cut for a
/// user's hook), and what is set for the hook.
const PASSED: &[&str] = &[
    "PATH",
    "PYTHONPATH",
    "HOME",
    "TMPDIR",
    "HERMES_HOME",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
];

/// Search paths a user's hook gets without their project entries.
const SEARCH_PATHS: [&str; 2] = ["PATH", "PYTHONPATH"];

/// What is the project's: paths in `project` (lexically or where links
/// lead), but not in the user's home when the project holds it.
struct Project {
    folder: PathBuf,
    real: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Project {
    fn new(folder: &Path) -> Project {
        let home = hermes_hooks_core::home::user_home()
            .map(|home| normalize(&home))
            .filter(|home| home.starts_with(folder));
        Project {
            folder: normalize(folder),
            real: std::fs::canonicalize(folder).ok(),
            home,
        }
    }

    /// Whether `word` (relative: from the project folder) names a path of the project.
    fn owns(&self, word: &Path) -> bool {
        let path = normalize(&self.folder.join(word));
        let real = std::fs::canonicalize(&path).ok();
        let candidates = std::iter::once(&path).chain(real.as_ref());
        let mut inside = candidates.filter(|p| {
            p.starts_with(&self.folder) || self.real.as_ref().is_some_and(|r| p.starts_with(r))
        });
        inside.any(|p| !self.home.as_ref().is_some_and(|home| p.starts_with(home)))
    }
}

/// The inherited variables of this process that would load code from
/// `project`, with the path each names.
pub fn project_loaders(project: &Path) -> Vec<(String, String)> {
    loaders_in(std::env::vars_os(), &Project::new(project))
}

/// [`project_loaders`] of the variables `vars`.
fn loaders_in(
    vars: impl Iterator<Item = (OsString, OsString)>,
    project: &Project,
) -> Vec<(String, String)> {
    vars.filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(name, _)| !PASSED.contains(&name.to_ascii_uppercase().as_str()))
        .filter(|(name, _)| steers_code(name))
        .filter_map(|(name, value)| {
            let named = |word: &&str| {
                let path = Path::new(word);
                (path.is_absolute() || word.starts_with('.') || word.contains('/'))
                    && project.owns(path)
            };
            let path = path_words(&value).find(named)?.to_owned();
            Some((name, path))
        })
        .collect()
}

/// `value` of the search path `name` as a user's hook gets it in `project`:
/// without the entries that are the project's (an empty or relative entry
/// is the folder the hook runs in: the project). Other names as they are.
pub(crate) fn user_search_path(name: &str, value: &OsStr, project: &Path) -> OsString {
    if !SEARCH_PATHS.contains(&name) || value.is_empty() {
        return value.to_owned();
    }
    let project = Project::new(project);
    let kept: Vec<PathBuf> = std::env::split_paths(value)
        .filter(|entry| !entry.as_os_str().is_empty() && !project.owns(entry))
        .collect();
    std::env::join_paths(kept).unwrap_or_else(|_| value.to_owned())
}

/// Leaves out of `command`'s environment every variable
/// [`project_loaders`] finds, and, for a user's hook (`users`), the
/// project's entries of its search paths (a value the hook's own settings
/// set after this call is kept).
pub(crate) fn withhold_project_loaders(command: &mut Command, project: &Path, users: bool) {
    for (name, path) in project_loaders(project) {
        tracing::debug!("{name} names {path} in the project: not passed to the hook");
        command.env_remove(name);
    }
    if !users {
        return;
    }
    for name in SEARCH_PATHS {
        if let Some(value) = std::env::var_os(name) {
            let kept = user_search_path(name, &value, project);
            if kept != value {
                command.env(name, kept);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(folder: &str, home: Option<&str>) -> Project {
        Project {
            folder: PathBuf::from(folder),
            real: None,
            home: home
                .map(PathBuf::from)
                .filter(|home| home.starts_with(folder)),
        }
    }

    #[test]
    fn loaders_naming_the_project_are_found_and_others_are_not() {
        let vars = [
            ("BASH_ENV", "/work/repo/.bash_env"),
            ("NODE_OPTIONS", "--require ./.pnp.cjs"),
            ("PERL5OPT", "-I/work/repo/perl5 -MEvil"),
            ("PYTHONUSERBASE", "/work/repo/.pyuser"),
            ("LD_PRELOAD", "build/lib/libevil.so"),
            ("NODE_OPTIONS_OTHER", "--max-old-space-size=4096"),
            ("LD_LIBRARY_PATH", "/usr/local/lib"),
            ("PATH", "/work/repo/.venv/bin:/usr/bin"),
            ("PYTHONPATH", "/work/repo/src"),
            ("GREETING", "/work/repo/hello"),
        ]
        .map(|(name, value)| (name.into(), value.into()));
        let found: Vec<String> = loaders_in(vars.into_iter(), &project("/work/repo", None))
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(
            found,
            [
                "BASH_ENV",
                "NODE_OPTIONS",
                "PERL5OPT",
                "PYTHONUSERBASE",
                "LD_PRELOAD"
            ]
        );
    }

    #[test]
    fn a_project_that_holds_the_home_leaves_the_home_the_users() {
        let at_home = project("/home/u", Some("/home/u"));
        assert!(!at_home.owns(Path::new("/home/u/.bash_env")));
        assert!(!at_home.owns(Path::new(".pyenv/shims")));
        let above = project("/home", Some("/home/u"));
        assert!(above.owns(Path::new("/home/other/x")));
        assert!(!above.owns(Path::new("/home/u/.local/bin")));
    }

    #[test]
    fn a_users_search_path_loses_its_project_entries() {
        let repo = tempfile::tempdir().expect("repo");
        let bin = repo.path().join(".venv/bin");
        let value = std::env::join_paths([bin.as_path(), Path::new("/usr/bin"), Path::new("")])
            .expect("joined");
        let kept = user_search_path("PATH", &value, repo.path());
        assert_eq!(kept, OsString::from("/usr/bin"));
        assert_eq!(user_search_path("OTHER", &value, repo.path()), value);
    }
}
