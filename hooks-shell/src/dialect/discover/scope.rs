//! Whose a discovered file is: the project's or the user's.

use std::path::Path;

use super::super::Scope;

/// A file inside the project (and not in the user's home itself) is the
/// project's: its hooks come from a project directory.
pub(super) fn scope_of(path: &Path, project: &Path, user_home: Option<&Path>) -> Scope {
    // A project cloned inside one of them (Claude Code clones plugin
    // marketplaces under `~/.claude/plugins/`) is still a project.
    let in_user_home_config = user_home.is_some_and(|home| {
        [".claude", ".codex", ".cursor"].iter().any(|folder| {
            let config = home.join(folder);
            path.starts_with(&config) && !project.starts_with(&config)
        })
    });
    if path.starts_with(project) && !in_user_home_config && Some(project) != user_home {
        Scope::Project
    } else {
        Scope::User
    }
}
