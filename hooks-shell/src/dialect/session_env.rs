//! The folder of one session's `CLAUDE_ENV_FILE`: private to that session.
//!
//! `<HERMES_HOME>/plugin-data/claude-env/<session>-<hash>/env.sh`, where
//! `<session>` is the session id made safe for a file name and `<hash>` the
//! start of its SHA-256 (two ids that read the same once made safe keep
//! folders of their own). Both folders are `0700` and the user's own: each
//! is made `0700`, or, already there, opened without following a symlink,
//! checked to be the user's and tightened to `0700`; a symlink or someone
//! else's folder is refused (the hook then runs without `CLAUDE_ENV_FILE`,
//! with a warning). A sandboxed
//! hook may write its session's folder only, never the parent, so it can
//! neither read nor plant another session's file. The folder is removed
//! when the session is finalized (`on_session_finalize`, Claude Code's
//! `SessionEnd`).

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::ImportedHook;
use hermes_hooks_core::{Event, HookEvent};

/// The file a session's hooks append their `export` lines to.
pub const FILE_NAME: &str = "env.sh";

/// The folder holding every session's folder.
pub fn root(home: &Path) -> PathBuf {
    home.join("plugin-data").join("claude-env")
}

/// The name of `session`'s folder: the id made safe, and its hash.
pub fn folder_name(session: &str) -> String {
    let safe: String = session
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = hex::encode(&Sha256::digest(session.as_bytes())[..6]);
    format!(
        "session{}{safe}-{hash}",
        if safe.is_empty() { "" } else { "-" }
    )
}

/// `session`'s private folder under `home`, made if missing; an error if
/// it or its parent is a symlink, not the user's, or open to others.
pub fn session_folder(home: &Path, session: &str) -> io::Result<PathBuf> {
    let root = root(home);
    std::fs::create_dir_all(home.join("plugin-data"))?;
    make_private(&root)?;
    let folder = root.join(folder_name(session));
    make_private(&folder)?;
    Ok(folder)
}

/// Makes `dir` (mode `0700`) unless it exists, then opens it without
/// following a symlink and checks it is the user's own (made `0700`).
fn make_private(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        _ => {}
    }
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags::O_DIRECTORY | libc_flags::O_NOFOLLOW)
        .open(dir)
        .map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("{}: {error} (a symlink?)", dir.display()),
            )
        })?;
    let metadata = opened.metadata()?;
    if metadata.uid() != nix::unistd::geteuid().as_raw() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to uid {}, not to this user",
                dir.display(),
                metadata.uid()
            ),
        ));
    }
    if metadata.mode() & 0o7777 != 0o700 {
        opened.set_permissions(std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The open flags used, from nix's re-export of the C constants.
mod libc_flags {
    pub const O_DIRECTORY: i32 = nix::libc::O_DIRECTORY;
    pub const O_NOFOLLOW: i32 = nix::libc::O_NOFOLLOW;
}

/// Removes `session`'s folder under `home` (nothing if there is none).
pub fn end_session(home: &Path, session: &str) -> io::Result<()> {
    let folder = root(home).join(folder_name(session));
    match std::fs::remove_dir_all(&folder) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Whether `event` ends sessions whose env folders `hooks` may have made
/// (a Claude Code or Codex `SessionStart` hook is among them).
pub fn ends_with(event: HookEvent, hooks: &[ImportedHook]) -> bool {
    event == HookEvent::OnSessionFinalize && hooks.iter().any(makes_env_file)
}

/// After the hooks of `event` ran: if it finalizes a session, removes that
/// session's env folder from each home whose `SessionStart` hooks made one.
pub fn finalize(event: &Event, hooks: &[ImportedHook]) {
    if event.hook() != Some(HookEvent::OnSessionFinalize) {
        return;
    }
    let session = event
        .get("session_id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let mut homes: Vec<&Path> = Vec::new();
    for hook in hooks.iter().filter(|hook| makes_env_file(hook)) {
        if !homes.contains(&hook.home.as_path()) {
            homes.push(&hook.home);
        }
    }
    for home in homes {
        if let Err(error) = end_session(home, session) {
            tracing::warn!("cannot remove the env folder of session {session:?}: {error}");
        }
    }
}

/// Whether `hook` gets a `CLAUDE_ENV_FILE` (a Claude Code or Codex `SessionStart` hook).
pub fn makes_env_file(hook: &ImportedHook) -> bool {
    hook.their_event == "SessionStart" && hook.dialect != super::Dialect::Cursor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_read_the_same_once_safe_get_folders_of_their_own() {
        assert_ne!(folder_name("a/b"), folder_name("a_b"));
        assert!(folder_name("a/b").starts_with("session-a_b-"));
        assert!(folder_name("").starts_with("session-"));
        assert!(!folder_name("../..").contains('.'));
    }

    #[test]
    fn the_folders_are_private_and_a_planted_symlink_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let folder = session_folder(home.path(), "s1").unwrap();
        for dir in [&folder, &root(home.path())] {
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
        let elsewhere = tempfile::tempdir().unwrap();
        let planted = root(home.path()).join(folder_name("s2"));
        std::os::unix::fs::symlink(elsewhere.path(), &planted).unwrap();
        assert!(session_folder(home.path(), "s2").is_err());
        end_session(home.path(), "s1").unwrap();
        assert!(!folder.exists());
        end_session(home.path(), "s1").unwrap();
    }
}
