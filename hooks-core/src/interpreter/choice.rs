//! The interpreter a version-manager shim chose, remembered in the home, so
//! a worker (and every restart of it) starts the real program instead of the
//! shim chain.
//!
//! A Python worker reports `sys.executable` when it starts; that path is kept
//! in the home (`.hooks-cache/interpreters.json`) keyed by the shim's path and
//! [`VersionShim::fingerprint`] (the shim and everything it decides by). An
//! edited shim, another version choice or a real path that is gone is stale:
//! the shim runs again, once, and what it chose is recorded. Only a
//! [`VersionShim`] has a choice to remember: any other script named as the
//! interpreter runs every time.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::VersionShim;

/// The cache folder inside the home (shared with the CLI's inventory cache).
const CACHE_DIR: &str = ".hooks-cache";
/// The file inside [`CACHE_DIR`].
const CACHE_FILE: &str = "interpreters.json";
/// The layout version; another one is read as empty.
const VERSION: u64 = 1;

/// A version-manager shim as it decides now: the key its choice is
/// remembered under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShimChoice {
    key: String,
    fingerprint: String,
}

impl ShimChoice {
    /// The choice `program` makes now, when it is a version-manager shim
    /// (`None` for a binary or any other script).
    pub fn of(program: &Path) -> Option<ShimChoice> {
        let shim = VersionShim::detect(program)?;
        Some(ShimChoice {
            key: shim.path().display().to_string(),
            fingerprint: shim.fingerprint(),
        })
    }

    /// The real interpreter the shim chose last time in `home`, while still
    /// valid (same fingerprint, the program still there).
    pub fn cached(&self, home: &Path) -> Option<PathBuf> {
        read(home)
            .get(&self.key)
            .filter(|entry| entry["fingerprint"] == self.fingerprint.as_str())
            .and_then(|entry| entry["executable"].as_str())
            .map(PathBuf::from)
            .filter(|path| path.is_absolute() && path.is_file())
    }

    /// Records `executable` (a worker's `sys.executable`) as what the shim
    /// runs. A cache that cannot be written is left alone: the shim just runs
    /// next time.
    pub fn remember(&self, home: &Path, executable: &Path) {
        if !executable.is_absolute() || !executable.is_file() {
            return;
        }
        remember_entry(home, &self.key, &self.fingerprint, executable);
    }
}

/// Writes one entry (replacing the file atomically).
fn remember_entry(home: &Path, key: &str, fingerprint: &str, executable: &Path) {
    let mut entries = read(home);
    entries.insert(
        key.to_owned(),
        json!({"fingerprint": fingerprint, "executable": executable.display().to_string()}),
    );
    let document = json!({"version": VERSION, "entries": entries});
    let dir = home.join(CACHE_DIR);
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        let temporary = dir.join(format!(".{CACHE_FILE}.{}", std::process::id()));
        let bytes = serde_json::to_vec_pretty(&document).unwrap_or_default();
        std::fs::write(&temporary, bytes)?;
        std::fs::rename(&temporary, dir.join(CACHE_FILE))
    });
    if let Err(error) = written {
        tracing::debug!(
            "cannot record the interpreter behind a shim in {}: {error}",
            dir.display()
        );
    }
}

/// The cached entries (empty when missing, unreadable or of another version).
fn read(home: &Path) -> Map<String, Value> {
    let path = home.join(CACHE_DIR).join(CACHE_FILE);
    let document: Option<Value> = crate::regular_file::read_capped(&path, 1024 * 1024)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    match document {
        Some(Value::Object(mut document)) if document.get("version") == Some(&json!(VERSION)) => {
            match document.remove("entries") {
                Some(Value::Object(entries)) => entries,
                _ => Map::new(),
            }
        }
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const PYENV_SHIM: &str =
        "#!/usr/bin/env bash\nexec \"/opt/pyenv/libexec/pyenv\" exec \"python3\" \"$@\"\n";

    #[test]
    fn a_wrapper_script_has_no_choice_to_remember() {
        let dir = tempfile::tempdir().expect("temp dir");
        let wrapper = dir.path().join("python3");
        std::fs::write(
            &wrapper,
            "#!/bin/sh\nPYTHONPATH=/opt/site exec /usr/bin/python3 \"$@\"\n",
        )
        .expect("write");
        assert_eq!(ShimChoice::of(&wrapper), None);
    }

    #[test]
    fn a_shim_is_started_once_then_its_real_interpreter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let shim = dir.path().join("python3");
        std::fs::write(&shim, PYENV_SHIM).expect("write");
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let real = dir.path().join("real-python");
        std::fs::write(&real, b"\x7fELF").expect("write");
        // First: nothing known; record what the shim started.
        let first = ShimChoice::of(&shim).expect("a shim");
        assert_eq!(first.cached(&home), None);
        first.remember(&home, &real);
        // Then: the real program.
        assert_eq!(
            ShimChoice::of(&shim).expect("a shim").cached(&home),
            Some(real.clone())
        );
        // An edited shim decides again.
        std::fs::write(&shim, format!("{PYENV_SHIM}# edited\n")).expect("write");
        let edited = ShimChoice::of(&shim).expect("a shim");
        assert_eq!(edited.cached(&home), None);
        edited.remember(&home, &real);
        assert_eq!(edited.cached(&home), Some(real.clone()));
        // A real program that is gone is stale too.
        std::fs::remove_file(&real).expect("remove");
        assert_eq!(edited.cached(&home), None);
        // A binary is no shim; a cache that does not parse is empty.
        std::fs::write(&real, b"\x7fELF").expect("write");
        assert_eq!(ShimChoice::of(&real), None);
        edited.remember(&home, &real);
        std::fs::write(home.join(CACHE_DIR).join(CACHE_FILE), "{oops").expect("write");
        assert_eq!(edited.cached(&home), None);
    }
}
