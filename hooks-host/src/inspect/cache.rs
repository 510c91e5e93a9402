//! What `doctor` learnt by trial-loading a plugin or a gateway handler, kept
//! so `list` can show it without running anything.
//!
//! An entry is keyed by what it is about (`plugin:user:rm-guard`) and holds the
//! fingerprint of the files it was learnt from (a SHA-256 over every file of
//! the plugin folder, or the handler and its `HOOK.yaml`, plus the interpreter
//! that ran it). `list` uses an entry only while the fingerprint still
//! matches; an edited plugin reads "not inspected yet" until the next
//! `doctor`. The file lives in the home (`.hooks-cache/inventory.json`),
//! written whole to a temporary file and renamed, so a reader never sees half
//! of it; one that does not parse is read as empty (it only holds what the
//! next `doctor` learns again).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The cache folder inside the home.
pub const CACHE_DIR: &str = ".hooks-cache";
/// The cache file inside [`CACHE_DIR`].
pub const CACHE_FILE: &str = "inventory.json";

/// The layout version; another one is read as empty.
const VERSION: u64 = 1;
/// Folders with more files than this are not fingerprinted (never cached).
const MAX_FILES: usize = 4096;
/// Nor are folders holding more bytes than this.
const MAX_BYTES: u64 = 256 << 20;

/// The cached trial results of one home.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    path: PathBuf,
    entries: BTreeMap<String, (String, Value)>,
    dirty: bool,
}

impl Cache {
    /// The cache of `home` (empty when missing or unreadable).
    pub fn open(home: &Path) -> Cache {
        let path = home.join(CACHE_DIR).join(CACHE_FILE);
        let mut entries = BTreeMap::new();
        let document: Option<Value> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        if let Some(document) = document.filter(|d| d["version"] == VERSION)
            && let Some(map) = document["entries"].as_object()
        {
            for (key, entry) in map {
                if let Some(fingerprint) = entry["fingerprint"].as_str() {
                    entries.insert(
                        key.clone(),
                        (fingerprint.to_owned(), entry["result"].clone()),
                    );
                }
            }
        }
        Cache {
            path,
            entries,
            dirty: false,
        }
    }

    /// The result stored for `key`, if it was learnt from `fingerprint`.
    pub fn get(&self, key: &str, fingerprint: &str) -> Option<&Value> {
        self.entries
            .get(key)
            .filter(|(stored, _)| stored == fingerprint)
            .map(|(_, result)| result)
    }

    /// Stores `result` for `key`, learnt from `fingerprint`.
    pub fn put(&mut self, key: String, fingerprint: String, result: Value) {
        let entry = (fingerprint, result);
        if self.entries.get(&key) != Some(&entry) {
            self.entries.insert(key, entry);
            self.dirty = true;
        }
    }

    /// Takes in what `other` (a clone of this cache) stored.
    pub fn absorb(&mut self, other: Cache) {
        if other.dirty {
            for (key, (fingerprint, result)) in other.entries {
                self.put(key, fingerprint, result);
            }
        }
    }

    /// Whether something was stored since the cache was opened.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Writes the cache (temporary file, then rename).
    pub fn save(&self) -> std::io::Result<()> {
        let entries: serde_json::Map<String, Value> = self
            .entries
            .iter()
            .map(|(key, (fingerprint, result))| {
                (
                    key.clone(),
                    json!({"fingerprint": fingerprint, "result": result}),
                )
            })
            .collect();
        let document = json!({"version": VERSION, "entries": entries});
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let temporary = dir.join(format!("{CACHE_FILE}.{}.tmp", std::process::id()));
        std::fs::write(&temporary, serde_json::to_vec_pretty(&document)?)?;
        std::fs::rename(&temporary, &self.path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    }

    /// Where the cache lives.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A fingerprint of `paths` (files, or folders walked in name order, dot
/// entries and `__pycache__` skipped) and of `extra` (e.g. the interpreter).
/// `None` when something cannot be read or the tree is too large: such a
/// plugin is never shown from the cache.
pub fn fingerprint(paths: &[&Path], extra: &str) -> Option<String> {
    let mut hasher = Sha256::new();
    hasher.update(extra.as_bytes());
    hasher.update([0]);
    let mut budget = (MAX_FILES, MAX_BYTES);
    for path in paths {
        hash_path(&mut hasher, path, &mut budget)?;
    }
    Some(
        hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect(),
    )
}

fn hash_path(hasher: &mut Sha256, path: &Path, budget: &mut (usize, u64)) -> Option<()> {
    let metadata = std::fs::metadata(path).ok()?;
    if metadata.is_dir() {
        let mut children: Vec<(String, PathBuf)> = std::fs::read_dir(path)
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| {
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                )
            })
            .filter(|(name, _)| !name.starts_with('.') && name != "__pycache__")
            .collect();
        children.sort();
        for (name, child) in children {
            hasher.update(b"d");
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hash_path(hasher, &child, budget)?;
        }
        return Some(());
    }
    budget.0 = budget.0.checked_sub(1)?;
    budget.1 = budget.1.checked_sub(metadata.len())?;
    hasher.update(b"f");
    hasher.update(metadata.len().to_le_bytes());
    let mut file = std::fs::File::open(path).ok()?;
    let mut buffer = [0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).ok()?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_follows_content_names_and_the_interpreter() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("__init__.py"), "x = 1\n").expect("write");
        std::fs::create_dir(dir.path().join("__pycache__")).expect("mkdir");
        let first = fingerprint(&[dir.path()], "python3").expect("fingerprint");
        // Byte code and dot files do not count.
        std::fs::write(dir.path().join("__pycache__/x.pyc"), "junk").expect("write");
        std::fs::write(dir.path().join(".swp"), "junk").expect("write");
        assert_eq!(
            fingerprint(&[dir.path()], "python3").as_deref(),
            Some(&*first)
        );
        assert_ne!(
            fingerprint(&[dir.path()], "python3.12").as_deref(),
            Some(&*first)
        );
        std::fs::write(dir.path().join("__init__.py"), "x = 2\n").expect("write");
        assert_ne!(
            fingerprint(&[dir.path()], "python3").as_deref(),
            Some(&*first)
        );
        assert_eq!(fingerprint(&[&dir.path().join("missing")], ""), None);
    }

    #[test]
    fn entries_survive_a_save_and_a_broken_file_reads_as_empty() {
        let home = tempfile::tempdir().expect("temp dir");
        let mut cache = Cache::open(home.path());
        assert!(cache.get("plugin:user:a", "f1").is_none());
        cache.put("plugin:user:a".into(), "f1".into(), json!({"hooks": ["x"]}));
        cache.save().expect("save");
        let cache = Cache::open(home.path());
        assert_eq!(
            cache.get("plugin:user:a", "f1"),
            Some(&json!({"hooks": ["x"]}))
        );
        assert!(cache.get("plugin:user:a", "f2").is_none());
        std::fs::write(cache.path(), "{not json").expect("write");
        assert!(
            Cache::open(home.path())
                .get("plugin:user:a", "f1")
                .is_none()
        );
    }
}
