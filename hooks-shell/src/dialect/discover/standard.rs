//! The files a bare `claude`, `codex` or `cursor` in `hooks_from:` reads:
//! the user's (in the tool's user folder) and the project's.

use std::path::{Path, PathBuf};

use hermes_hooks_process::sandbox::Sandbox;

use super::super::user_dirs::{UserDirs, standard_folder};
use super::super::{Dialect, Scope};
use super::Source;

/// The standard files of `dialect`: the user's (in its user folder:
/// `~/.claude`, or where `CLAUDE_CONFIG_DIR` / `CODEX_HOME` moved it) and
/// the project's. A project that is the user's home has one set of files,
/// the user's own: its hooks are the user's (red-team round 5, F12), read
/// once (when the user folder moved, the home's own `.claude` is then the
/// project's files, as the tool reads them, still the user's).
pub(super) fn standard_files(dialect: Dialect, project: &Path, user: &UserDirs) -> Vec<Source> {
    let user_home = user.home();
    // The scope is the base folder's, not where the file sits: a project that
    // holds the home (a checkout whose home is inside it) keeps the user's own
    // `~/.claude` files the user's (red team 8, R8-2).
    let project_scope = if Some(project) == user_home {
        Scope::User
    } else {
        Scope::Project
    };
    let source = |path: PathBuf, cwd: &Path, toml: bool, scope: Scope| Source {
        scope,
        dialect,
        project: project.to_owned(),
        path,
        cwd: cwd.to_owned(),
        plugin_root: None,
        explicit: false,
        toml,
        sandbox: Sandbox::NONE,
        sandbox_scope: Scope::User,
        sandbox_secrets: Vec::new(),
    };
    let folder = standard_folder(dialect);
    let moved = user.moved(dialect).is_some();
    // (folder, whether it is the user's only, its scope)
    let mut dirs: Vec<(PathBuf, bool, Scope)> = Vec::new();
    if let Some(dir) = user.folder(dialect) {
        // The home as the project, its folder not moved: one set, the project's files too.
        let also_project = Some(project) == user_home && !moved;
        dirs.push((dir, !also_project, Scope::User));
    }
    if Some(project) != user_home || moved {
        dirs.push((project.join(folder), false, project_scope));
    }
    let mut sources = Vec::new();
    for (dir, is_user, scope) in dirs {
        match dialect {
            Dialect::Claude => {
                sources.push(source(dir.join("settings.json"), project, false, scope));
                if !is_user {
                    let local = dir.join("settings.local.json");
                    sources.push(source(local, project, false, scope));
                }
            }
            Dialect::Codex => {
                sources.push(source(dir.join("hooks.json"), project, false, scope));
                sources.push(source(dir.join("config.toml"), project, true, scope));
            }
            // User hooks run from ~/.cursor, project hooks from the project root.
            Dialect::Cursor => {
                let cwd = if is_user {
                    dir.clone()
                } else {
                    project.to_owned()
                };
                sources.push(source(dir.join("hooks.json"), &cwd, false, scope));
            }
        }
    }
    sources
}
