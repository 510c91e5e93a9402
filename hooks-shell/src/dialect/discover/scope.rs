//! Whose a discovered file is: the project's or the user's.

use std::path::Path;

use super::super::Scope;
use super::super::user_dirs::UserDirs;

/// A file inside the project (and not in the user's home itself, nor in a
/// tool's user folder: `~/.claude`, `$CLAUDE_CONFIG_DIR`, ...) is the
/// project's: its hooks come from a project directory.
pub(super) fn scope_of(path: &Path, project: &Path, user: &UserDirs) -> Scope {
    // A project cloned inside one of them (Claude Code clones plugin
    // marketplaces under `~/.claude/plugins/`) is still a project.
    let in_user_config = user
        .folders()
        .iter()
        .any(|config| path.starts_with(config) && !project.starts_with(config));
    if path.starts_with(project) && !in_user_config && Some(project) != user.home() {
        Scope::Project
    } else {
        Scope::User
    }
}
