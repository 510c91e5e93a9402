//! The script behind a hook command, for `hooks doctor` and `hooks list`:
//! where it is, whether it can run, when it last changed, and whether it
//! changed since it was approved.

use std::path::PathBuf;

use hermes_hooks_core::home::expand_tilde;
use nix::unistd::{AccessFlags, access};

use crate::clock::{iso_from_mtime, parse_iso};

/// Extensions that mark a word of the command as the script.
pub(crate) const SCRIPT_EXTENSIONS: [&str; 13] = [
    ".sh", ".bash", ".zsh", ".fish", ".py", ".pyw", ".rb", ".pl", ".lua", ".js", ".mjs", ".cjs",
    ".ts",
];

/// The script a command runs, as written in the command (`~` not expanded).
///
/// The first word ending in a script extension (`python3 /x/hook.py` →
/// `/x/hook.py`), else the first word containing `/` or starting with `~`
/// (`/usr/bin/env ./hook`), else the first word. A command that cannot be
/// split (unbalanced quotes) or is empty is returned as is.
pub fn script_path(command: &str) -> String {
    let words = match shlex::split(command) {
        Some(words) if !words.is_empty() => words,
        _ => return command.to_owned(),
    };
    let by_extension = words.iter().find(|word| {
        let lower = word.to_lowercase();
        SCRIPT_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
    });
    let by_path = || {
        words
            .iter()
            .find(|word| word.contains('/') || word.starts_with('~'))
    };
    by_extension.or_else(by_path).unwrap_or(&words[0]).clone()
}

/// The script path with a leading `~` expanded, ready to stat.
pub fn resolved_script_path(command: &str) -> PathBuf {
    PathBuf::from(expand_tilde(&script_path(command)))
}

/// Whether the command can run as configured: the script is a file, and it is
/// executable when run bare (`/x/hook.sh`) or readable when an interpreter
/// runs it (`python3 /x/hook.py`).
pub fn script_is_executable(command: &str) -> bool {
    let path = script_path(command);
    if path.is_empty() {
        return false;
    }
    let resolved = PathBuf::from(expand_tilde(&path));
    if !resolved.is_file() {
        return false;
    }
    let Some(words) = shlex::split(command) else {
        return false;
    };
    let bare = words.first() == Some(&path);
    let mode = if bare {
        AccessFlags::X_OK
    } else {
        AccessFlags::R_OK
    };
    access(&resolved, mode).is_ok()
}

/// The script's modification time as the reference records it (see
/// [`iso_from_mtime`]: `2026-04-17T09:30:12.123457Z`), or `None`
/// when it cannot be read.
pub fn script_mtime_iso(command: &str) -> Option<String> {
    let path = script_path(command);
    if path.is_empty() {
        return None;
    }
    let modified = std::fs::metadata(expand_tilde(&path))
        .and_then(|metadata| metadata.modified())
        .ok()?;
    Some(iso_from_mtime(modified))
}

/// Whether a script changed since approval: from the two mtimes
/// ([`mtime_drift`]), or from content hashes ([`crate::fingerprint::approval_drift`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// The current mtime is later than the approved one.
    Modified,
    /// The mtimes are equal.
    Unchanged,
    /// One of them is missing or unreadable, or the file is older than approved.
    Unknown,
    /// The content differs from the hash recorded at approval (or the file is
    /// gone): new code, which needs consent again. See [`crate::fingerprint`].
    ContentChanged,
}

/// Compares the mtime recorded at approval with the current one.
pub fn mtime_drift(approved: Option<&str>, now: Option<&str>) -> Drift {
    let (Some(approved), Some(now)) = (approved.and_then(parse_iso), now.and_then(parse_iso))
    else {
        return Drift::Unknown;
    };
    match now.cmp(&approved) {
        std::cmp::Ordering::Greater => Drift::Modified,
        std::cmp::Ordering::Equal => Drift::Unchanged,
        std::cmp::Ordering::Less => Drift::Unknown,
    }
}
