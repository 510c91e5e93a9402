//! Variables of the host's environment that would load a project's code
//! into any hook (red team round 11, R11-6). direnv, Yarn PnP, local::lib
//! or a per-project pip setup put `BASH_ENV`, `NODE_OPTIONS=--require
//! ./.pnp.cjs`, `PERL5LIB=<project>/local/lib/perl5`, `PYTHONUSERBASE`,
//! `LD_PRELOAD` … into the agent's environment; inherited by the user's
//! approved guard, each runs a repository file that no approval binds, and
//! that the repository can change at will. So a variable that steers code
//! loading (`dialect::code_env`) and names a path in the project is not
//! passed to a hook. `PATH` and `PYTHONPATH` are passed: what they reach is
//! bound instead (`binding::program`, `binding::python_path`).

use std::path::Path;
use tokio::process::Command;

use crate::dialect::code_env::{names_project_path, steers_code};

/// Names passed whatever they name: bound elsewhere, or set for the hook.
const PASSED: &[&str] = &[
    "PATH",
    "PYTHONPATH",
    "HOME",
    "TMPDIR",
    "HERMES_HOME",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
];

/// The inherited variables of this process that would load code from
/// `project`, with the path each names.
pub fn project_loaders(project: &Path) -> Vec<(String, String)> {
    loaders_in(std::env::vars_os(), project)
}

/// [`project_loaders`] of the variables `vars`.
fn loaders_in(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    project: &Path,
) -> Vec<(String, String)> {
    vars.filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(name, _)| !PASSED.contains(&name.to_ascii_uppercase().as_str()))
        .filter(|(name, _)| steers_code(name))
        .filter_map(|(name, value)| {
            let path = names_project_path(&value, project)?.to_owned();
            Some((name, path))
        })
        .collect()
}

/// Leaves out of `command`'s environment every variable
/// [`project_loaders`] finds (a value the hook's own settings set after
/// this call is kept).
pub(crate) fn withhold_project_loaders(command: &mut Command, project: &Path) {
    for (name, path) in project_loaders(project) {
        tracing::debug!("{name} names {path} in the project: not passed to the hook");
        command.env_remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaders_naming_the_project_are_found_and_others_are_not() {
        let project = Path::new("/work/repo");
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
        let found: Vec<String> = loaders_in(vars.into_iter(), project)
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
}
