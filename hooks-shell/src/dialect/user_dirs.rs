//! Where each tool keeps the user's own hooks: `~/.claude` unless
//! `$CLAUDE_CONFIG_DIR` moves it, `~/.codex` unless `$CODEX_HOME` does, and
//! `~/.cursor`. The agent reads its user settings from the moved folder
//! only, so that is the one imported: a guard kept there guards, and a stale
//! `~/.claude` beside it is not read in its place (red team R39-5).

use std::path::{Path, PathBuf};

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::display::escape;

use super::Dialect;

/// The variable that moves Claude Code's user folder (`~/.claude`).
pub const CLAUDE_CONFIG_DIR_ENV: &str = "CLAUDE_CONFIG_DIR";

/// The variable that moves Codex's user folder (`~/.codex`).
pub const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// The user's home and the folders of the tools' user settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserDirs {
    home: Option<PathBuf>,
    claude: Option<PathBuf>,
    codex: Option<PathBuf>,
}

impl UserDirs {
    /// This process's: the user's home (`HOME`, else the password database),
    /// and `$CLAUDE_CONFIG_DIR` and `$CODEX_HOME` when set and not empty (a
    /// relative one against the current directory, as the tools read it).
    pub fn from_env() -> UserDirs {
        let moved = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(|value| {
                    let path = PathBuf::from(value);
                    std::path::absolute(&path).unwrap_or(path)
                })
        };
        UserDirs {
            home: hermes_hooks_core::home::user_home(),
            claude: moved(CLAUDE_CONFIG_DIR_ENV),
            codex: moved(CODEX_HOME_ENV),
        }
    }

    /// The standard folders under `home` (`~/.claude`, ...), whatever the
    /// environment says: how tests give their own user home.
    pub fn under(home: Option<&Path>) -> UserDirs {
        UserDirs {
            home: home.map(Path::to_path_buf),
            ..UserDirs::default()
        }
    }

    /// The same, with `dialect`'s user folder at `folder` (as its variable
    /// would put it; Cursor has none and is left as it is).
    #[must_use]
    pub fn with_moved(mut self, dialect: Dialect, folder: impl Into<PathBuf>) -> UserDirs {
        match dialect {
            Dialect::Claude => self.claude = Some(folder.into()),
            Dialect::Codex => self.codex = Some(folder.into()),
            Dialect::Cursor => {}
        }
        self
    }

    /// The user's home directory.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// `dialect`'s user folder when its variable moved it.
    pub fn moved(&self, dialect: Dialect) -> Option<&Path> {
        match dialect {
            Dialect::Claude => self.claude.as_deref(),
            Dialect::Codex => self.codex.as_deref(),
            Dialect::Cursor => None,
        }
    }

    /// `dialect`'s user folder: the moved one, else `~/.claude`,
    /// `~/.codex` or `~/.cursor`.
    pub fn folder(&self, dialect: Dialect) -> Option<PathBuf> {
        self.moved(dialect)
            .map(Path::to_path_buf)
            .or_else(|| self.home().map(|home| home.join(standard_folder(dialect))))
    }

    /// Every tool's user folder (for whose a file is).
    pub fn folders(&self) -> Vec<PathBuf> {
        [Dialect::Claude, Dialect::Codex, Dialect::Cursor]
            .into_iter()
            .filter_map(|dialect| self.folder(dialect))
            .collect()
    }

    /// A warning when `dialect`'s variable names a folder that is not one:
    /// the tool reads the user's settings there, so none are imported, and
    /// a guard the user kept there (or in `~/.claude`) is not run.
    pub fn missing_folder(&self, dialect: Dialect) -> Option<ConfigWarning> {
        let folder = self.moved(dialect)?;
        if folder.is_dir() {
            return None;
        }
        let what = if std::fs::symlink_metadata(folder).is_ok() {
            "is not a folder"
        } else {
            "does not exist"
        };
        let (name, files) = match dialect {
            Dialect::Claude => (CLAUDE_CONFIG_DIR_ENV, "settings.json"),
            _ => (CODEX_HOME_ENV, "hooks.json and config.toml"),
        };
        let standard = standard_folder(dialect);
        let message = format!(
            "({dialect} hooks) {name}={} {what}: {dialect} reads the user's {files} there \
             (not in ~/{standard}), so no user {dialect} hooks are imported and a guard kept \
             there does not run; create the folder or unset {name}",
            escape(&folder.display().to_string())
        );
        Some(ConfigWarning::new(
            folder.to_path_buf(),
            String::new(),
            message,
        ))
    }
}

/// `dialect`'s folder under a home or a project: `.claude`, `.codex`, `.cursor`.
pub fn standard_folder(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Claude => ".claude",
        Dialect::Codex => ".codex",
        Dialect::Cursor => ".cursor",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_folder_replaces_the_standard_one() {
        let dirs = UserDirs::under(Some(Path::new("/h"))).with_moved(Dialect::Claude, "/c");
        assert_eq!(dirs.folder(Dialect::Claude), Some(PathBuf::from("/c")));
        assert_eq!(
            dirs.folder(Dialect::Codex),
            Some(PathBuf::from("/h/.codex"))
        );
        let missing = dirs.missing_folder(Dialect::Claude).map(|w| w.message);
        assert!(
            missing
                .as_deref()
                .is_some_and(|m| m.contains("CLAUDE_CONFIG_DIR=/c does not exist")),
            "{missing:?}"
        );
        assert!(dirs.missing_folder(Dialect::Codex).is_none());
    }
}
