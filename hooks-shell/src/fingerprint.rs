//! What an approval is bound to besides the command string: the SHA-256 of the
//! code the command runs, recorded at approval.
//!
//! hermes-agent binds consent to the command string and shows a changed
//! mtime as drift, so a script edited after approval with its mtime restored
//! passes as unchanged. We also record `script_sha256_at_approval` (a field
//! hermes-agent ignores and keeps when it rewrites the file). A changed hash is
//! new code: it needs consent again. An entry without one (written by
//! hermes-agent or an older `hooks`) keeps the mtime comparison and gets a hash
//! at its next approval.
//!
//! [`approval_drift`] is the one check, for every hook kind that goes through
//! the allowlist with an `(event, command)` pair.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::allowlist::Approval;
use crate::script::{Drift, mtime_drift, resolved_script_path, script_mtime_iso};

/// The allowlist field holding the hash (hex SHA-256 of the file's bytes).
pub const HASH_FIELD: &str = "script_sha256_at_approval";

/// The file a command runs: its [script](crate::script_path) (`python3
/// guard.py` → `guard.py`, `~` expanded; a relative path is taken from the
/// current directory, where hooks run), or, for a bare program name that is
/// not a file here, the program `PATH` finds. `None` when there is none.
pub fn code_file(command: &str) -> Option<PathBuf> {
    let path = resolved_script_path(command);
    if path.as_os_str().is_empty() {
        return None;
    }
    if path.is_file() {
        return Some(path);
    }
    let bare = path.components().count() == 1 && !path.to_string_lossy().contains('/');
    if !bare {
        return None;
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|directory| directory.join(&path))
            .find(|candidate| candidate.is_file())
    })
}

/// The hex SHA-256 of the code `command` runs, or `None` when there is no
/// such file or it cannot be read.
pub fn code_sha256(command: &str) -> Option<String> {
    file_sha256(&code_file(command)?)
}

/// The hex SHA-256 of the bytes of `path`, read in blocks.
pub fn file_sha256(path: &Path) -> Option<String> {
    let mut file = open_to_read(path).ok()?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut block) {
            Ok(0) => break,
            Ok(read) => hasher.update(&block[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(hex::encode(hasher.finalize()))
}

/// Opens `path` to read its bytes. (Unit tests make chosen paths fail as
/// they do for an unprivileged user: root, as CI runs, reads a `0111` file.)
pub(crate) fn open_to_read(path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(test)]
    if tests::DENIED.with(|denied| denied.borrow().iter().any(|d| d == path)) {
        return Err(std::io::ErrorKind::PermissionDenied.into());
    }
    std::fs::File::open(path)
}

/// Lists `path` (as [`open_to_read`], unit tests deny chosen folders).
pub(crate) fn read_dir(path: &Path) -> std::io::Result<std::fs::ReadDir> {
    #[cfg(test)]
    if tests::DENIED.with(|denied| denied.borrow().iter().any(|d| d == path)) {
        return Err(std::io::ErrorKind::PermissionDenied.into());
    }
    std::fs::read_dir(path)
}

/// The prefix of what [`content_or_metadata`] binds for a file it cannot read.
pub const METADATA_PREFIX: &str = "metadata ";

/// What binds `path`: the hex SHA-256 of its bytes, or, when it cannot be
/// read (a `0111` program as `tar` extracts it, run but never read), its
/// metadata ([`metadata_stamp`]): a file swapped or edited since changes its
/// inode, size, mtime or ctime (any write, rename or chmod sets the ctime).
/// `"unreadable"` only when not even its metadata can be read.
pub fn content_or_metadata(path: &Path) -> String {
    file_sha256(path)
        .or_else(|| metadata_stamp(path))
        .unwrap_or_else(|| "unreadable".to_owned())
}

/// The metadata an unreadable file or folder is bound by, links followed:
/// `metadata dev=… ino=… size=… mtime=s.ns ctime=s.ns mode=… uid=… gid=…`
/// (the words say in `list --json` that it is bound by metadata).
pub fn metadata_stamp(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(format!(
        "{METADATA_PREFIX}dev={} ino={} size={} mtime={}.{:09} ctime={}.{:09} mode={:o} uid={} gid={}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.mode(),
        m.uid(),
        m.gid()
    ))
}

/// Whether the code behind `approval` changed since it was approved:
/// by content when the approval recorded a hash ([`Drift::ContentChanged`],
/// also when the file is gone or unreadable: what runs cannot be shown to be
/// what was approved), else by mtime as hermes-agent compares.
pub fn approval_drift(approval: &Approval, command: &str) -> Drift {
    match &approval.script_sha256_at_approval {
        Some(approved) => {
            if code_sha256(command).is_some_and(|now| now.eq_ignore_ascii_case(approved)) {
                Drift::Unchanged
            } else {
                Drift::ContentChanged
            }
        }
        None => mtime_drift(
            approval.script_mtime_at_approval.as_deref(),
            script_mtime_iso(command).as_deref(),
        ),
    }
}

/// Whether `approval` still approves `command`: it does unless its recorded
/// hash no longer matches (mtime drift alone is reported, not refused, as in
/// hermes-agent).
pub fn still_approved(approval: &Approval, command: &str) -> bool {
    approval_drift(approval, command) != Drift::ContentChanged
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        /// Paths [`open_to_read`] and [`read_dir`] refuse on this thread.
        pub(crate) static DENIED: std::cell::RefCell<Vec<PathBuf>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// Makes `path` unreadable (a file) or unlistable (a folder) on this thread.
    pub(crate) fn deny(path: &Path) {
        DENIED.with(|denied| denied.borrow_mut().push(path.to_owned()));
    }

    fn approval(hash: Option<&str>) -> Approval {
        Approval {
            event: "pre_tool_call".into(),
            command: String::new(),
            approved_at: None,
            script_mtime_at_approval: None,
            script_sha256_at_approval: hash.map(str::to_owned),
            binding: None,
        }
    }

    #[test]
    fn the_hash_is_of_the_interpreted_script() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("guard.py");
        std::fs::write(&script, "print('{}')\n").expect("write");
        let command = format!("python3 {}", script.display());
        assert_eq!(code_file(&command).as_deref(), Some(script.as_path()));
        let hash = code_sha256(&command).expect("a hash");
        // sha256("print('{}')\n")
        assert_eq!(hash.len(), 64);
        assert_eq!(
            approval_drift(&approval(Some(&hash)), &command),
            Drift::Unchanged
        );
        std::fs::write(&script, "print('{\"action\": \"approve\"}')\n").expect("edit");
        assert_eq!(
            approval_drift(&approval(Some(&hash)), &command),
            Drift::ContentChanged
        );
        assert!(!still_approved(&approval(Some(&hash)), &command));
        std::fs::remove_file(&script).expect("rm");
        assert_eq!(
            approval_drift(&approval(Some(&hash)), &command),
            Drift::ContentChanged
        );
        assert!(still_approved(&approval(None), &command));
    }

    #[test]
    fn a_bare_program_is_found_on_path() {
        let found = code_file("sh -c true").expect("sh is on PATH");
        assert!(found.is_absolute() && found.ends_with("sh"), "{found:?}");
        assert_eq!(code_file("/nonexistent/hook.sh"), None);
        assert_eq!(code_sha256(""), None);
    }
}
