//! The Hermes home a host or a command works on: where it is, its `config.yaml`,
//! and what is odd about it (a home that does not exist is a warning, not an error).

use std::path::{Path, PathBuf};

use hermes_hooks_core::config::ConfigEnv;
use hermes_hooks_core::{Config, ConfigError};

/// A Hermes home and its config.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Home {
    /// The home directory.
    pub path: PathBuf,
    /// Its `config.yaml` (empty when the file does not exist).
    pub config: Config,
    /// Whether the directory exists.
    pub exists: bool,
    /// Problems with the home itself (e.g. it does not exist), escaped for display.
    pub warnings: Vec<String>,
    /// The project directory hooks imported with `hooks_from:` run for
    /// (`CLAUDE_PROJECT_DIR`): the current directory unless
    /// [`Home::with_project`] names one (`hooks --project DIR`).
    pub project: PathBuf,
}

impl Home {
    /// Resolves `explicit` (a `--home`), else `$HERMES_HOME`, else `~/.hermes`, and
    /// loads its config. A home that does not exist loads as empty, with a warning
    /// (a typo in `--home` must not look like "nothing configured, all healthy").
    /// A config file that exists but cannot be read or parsed is an error naming it,
    /// and so is a home that is there but is no folder (a file, a link to nothing).
    ///
    /// `${HERMES_HOME}` in the config's values is this home (made absolute),
    /// whatever `$HERMES_HOME` says: a home's files name each other as
    /// `${HERMES_HOME}/agent-hooks/guard.sh`, so the home works wherever it is.
    pub fn load(explicit: Option<PathBuf>) -> Result<Home, ConfigError> {
        let path = hermes_hooks_core::home::resolve_home(explicit);
        let exists = path.is_dir();
        let mut warnings = Vec::new();
        if !exists && std::fs::symlink_metadata(&path).is_ok() {
            // A file, a device, a link to nothing where the home should be:
            // its config and guard records cannot be read, and read as "no
            // config" every guard in it would stop guarding unseen (red team
            // R39-2), as a config.yaml that cannot be read is an error.
            let what = match std::fs::metadata(&path) {
                Ok(_) => "it is not a folder",
                Err(_) => "it is a link to nothing",
            };
            return Err(ConfigError::Read {
                path,
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, what),
            });
        }
        if !exists {
            warnings.push(format!(
                "the Hermes home {} does not exist; nothing is configured there",
                hermes_hooks_core::display::escape(&path.display().to_string())
            ));
        }
        let config = if exists {
            Config::load_in(&path, &config_env(&path))?
        } else {
            // The managed scope applies to every home, even a missing one.
            Config::managed_only(&path)
        };
        Ok(Home {
            path,
            config,
            exists,
            warnings,
            project: std::env::current_dir()
                .map(|folder| hermes_hooks_core::home::project_dir(&folder))
                .unwrap_or_else(|_| PathBuf::from(".")),
        })
    }

    /// The same home with `project` as the project directory of imported
    /// hooks, in one spelling ([`hermes_hooks_core::home::project_dir`]:
    /// `~/a/` and `~/a/.claude/..` are `~/a`).
    #[must_use]
    pub fn with_project(mut self, project: impl Into<PathBuf>) -> Home {
        self.project = hermes_hooks_core::home::project_dir(&project.into());
        self
    }

    /// The config file's path.
    pub fn config_file(&self) -> &Path {
        self.config.path()
    }

    /// The config file's path as the user would type it, escaped for display.
    pub fn config_display(&self) -> String {
        crate::show_path(self.config.path())
    }
}

/// The environment `${VAR}` expands from for the home at `path`: this
/// process's, with `HERMES_HOME` the home being loaded (absolute, so a command
/// and its allowlist entry name the same file from any directory). Hermes
/// defines it the same way when a profile or `HERMES_HOME` names the home; see
/// docs/decisions/hermes-home-in-config.md.
fn config_env(path: &Path) -> ConfigEnv {
    let home = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let process = std::env::vars_os().map(|(name, value)| {
        (
            name.to_string_lossy().into_owned(),
            value.to_string_lossy().into_owned(),
        )
    });
    let home = (HERMES_HOME.to_owned(), home.to_string_lossy().into_owned());
    ConfigEnv::from_vars(
        process
            .filter(|(name, _)| name != HERMES_HOME)
            .chain([home]),
    )
}

/// The variable naming the Hermes home.
const HERMES_HOME: &str = "HERMES_HOME";

#[cfg(test)]
mod tests {
    use super::config_env;
    use std::path::Path;

    #[test]
    fn hermes_home_expands_to_the_loaded_home_made_absolute() {
        let env = config_env(Path::new("examples/home"));
        let expected = std::env::current_dir().expect("cwd").join("examples/home");
        assert_eq!(env.get("HERMES_HOME"), Some(&*expected.to_string_lossy()));
        // The rest of the environment is still there.
        if let Ok(path) = std::env::var("PATH") {
            assert_eq!(env.get("PATH"), Some(path.as_str()));
        }
    }
}
