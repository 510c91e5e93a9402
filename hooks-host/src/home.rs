//! The Hermes home a host or a command works on: where it is, its `config.yaml`,
//! and what is odd about it (a home that does not exist is a warning, not an error).

use std::path::{Path, PathBuf};

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
    /// A config file that exists but cannot be read or parsed is an error naming it.
    pub fn load(explicit: Option<PathBuf>) -> Result<Home, ConfigError> {
        let path = hermes_hooks_core::home::resolve_home(explicit);
        let exists = path.is_dir();
        let mut warnings = Vec::new();
        if !exists {
            let what = if path.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            warnings.push(format!(
                "the Hermes home {} {what}; nothing is configured there",
                hermes_hooks_core::display::escape(&path.display().to_string())
            ));
        }
        let config = if exists {
            Config::load(&path)?
        } else {
            // The managed scope applies to every home, even a missing one.
            Config::managed_only(&path)
        };
        Ok(Home {
            path,
            config,
            exists,
            warnings,
            project: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        })
    }

    /// The same home with `project` as the project directory of imported hooks.
    #[must_use]
    pub fn with_project(mut self, project: impl Into<PathBuf>) -> Home {
        self.project = project.into();
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
