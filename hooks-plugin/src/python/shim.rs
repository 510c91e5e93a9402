//! The interpreter behind a shim, for the plugin worker: resolved once and
//! remembered, so the worker (and every restart of it) starts the real
//! program instead of a shim chain.
//!
//! A pyenv- or asdf-style `python3` is a shell script that works out which
//! Python to run (~100 ms) before it execs it. The worker reports
//! `sys.executable` when it starts; that path is kept in the home
//! (`.hooks-cache/interpreters.json`) keyed by the shim's path and a SHA-256
//! of the shim and of what it decides by (`PYENV_VERSION`,
//! `ASDF_PYTHON_VERSION`, the working directory). An edited shim, another
//! version setting, another directory or a real path that is gone is stale:
//! the shim runs again, once, and what it chose is recorded.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// The cache folder inside the home (shared with the CLI's inventory cache).
const CACHE_DIR: &str = ".hooks-cache";
/// The file inside [`CACHE_DIR`].
const CACHE_FILE: &str = "interpreters.json";
/// The layout version; another one is read as empty.
const VERSION: u64 = 1;
/// A shim larger than this is not read (nor cached): shims are small scripts.
const MAX_SHIM_BYTES: u64 = 1 << 20;

/// A shim whose real program is to be recorded after the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Learn {
    key: String,
    fingerprint: String,
}

/// What to record for `program` when it is a shim (`None` for a binary).
pub(crate) fn learn(program: &Path) -> Option<Learn> {
    let shim = shim_path(program)?;
    let fingerprint = fingerprint(&shim)?;
    Some(Learn {
        key: shim.display().to_string(),
        fingerprint,
    })
}

/// The real interpreter the shim chose last time, while still valid.
pub(crate) fn cached(learn: &Learn, home: &Path) -> Option<PathBuf> {
    read(home)
        .get(&learn.key)
        .filter(|entry| entry["fingerprint"] == learn.fingerprint.as_str())
        .and_then(|entry| entry["executable"].as_str())
        .map(PathBuf::from)
        .filter(|path| path.is_absolute() && path.is_file())
}

/// Records `executable` (the worker's `sys.executable`) as what the shim runs.
/// A cache that cannot be written is left alone: the shim just runs next time.
pub(crate) fn remember(home: &Path, learn: &Learn, executable: &Path) {
    if !executable.is_absolute() || !executable.is_file() {
        return;
    }
    let mut entries = read(home);
    entries.insert(
        learn.key.clone(),
        json!({"fingerprint": learn.fingerprint, "executable": executable.display().to_string()}),
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
    let document: Option<Value> = std::fs::read(home.join(CACHE_DIR).join(CACHE_FILE))
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

/// The file `program` names (looked up on `PATH` when it is a bare name),
/// when that file is a script (`#!`), not a binary or a link to one.
fn shim_path(program: &Path) -> Option<PathBuf> {
    let file = if program.components().count() > 1 {
        program.to_owned()
    } else {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())?
    };
    let mut head = [0u8; 2];
    let mut opened = std::fs::File::open(&file).ok()?;
    std::io::Read::read_exact(&mut opened, &mut head).ok()?;
    (&head == b"#!").then_some(file)
}

/// SHA-256 of the shim's bytes and of what a shim decides by.
fn fingerprint(shim: &Path) -> Option<String> {
    let metadata = std::fs::metadata(shim).ok()?;
    if metadata.len() > MAX_SHIM_BYTES {
        return None;
    }
    let bytes = std::fs::read(shim).ok()?;
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut hash = Sha256::new();
    hash.update(&bytes);
    hash.update(
        format!(
            "\0{}\0{}\0{}",
            var("PYENV_VERSION"),
            var("ASDF_PYTHON_VERSION"),
            cwd.display()
        )
        .as_bytes(),
    );
    Some(
        hash.finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_shim_is_started_once_then_its_real_interpreter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let shim = dir.path().join("python3");
        std::fs::write(&shim, "#!/bin/sh\nexec /usr/bin/env python3 \"$@\"\n").expect("write");
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let real = dir.path().join("real-python");
        std::fs::write(&real, b"\x7fELF").expect("write");
        // First: nothing known; record what the shim started.
        let first = learn(&shim).expect("a shim");
        assert_eq!(cached(&first, &home), None);
        remember(&home, &first, &real);
        // Then: the real program.
        assert_eq!(
            cached(&learn(&shim).expect("a shim"), &home),
            Some(real.clone())
        );
        // An edited shim decides again.
        std::fs::write(&shim, "#!/bin/sh\nexec python3.13 \"$@\"\n").expect("write");
        let edited = learn(&shim).expect("a shim");
        assert_eq!(cached(&edited, &home), None);
        remember(&home, &edited, &real);
        assert_eq!(cached(&edited, &home), Some(real.clone()));
        // A real program that is gone is stale too.
        std::fs::remove_file(&real).expect("remove");
        assert_eq!(cached(&edited, &home), None);
        // A binary is no shim; a cache that does not parse is empty.
        std::fs::write(&real, b"\x7fELF").expect("write");
        assert_eq!(learn(&real), None);
        remember(&home, &edited, &real);
        std::fs::write(home.join(CACHE_DIR).join(CACHE_FILE), "{oops").expect("write");
        assert_eq!(cached(&edited, &home), None);
    }
}
