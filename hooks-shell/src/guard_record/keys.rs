//! The names a file's guard records are kept under, and which of them is
//! read: a file has several (its canonical path, its canonical folder's
//! name for it, its path as named, its folder's identity), every record is
//! written under each, and the one of the highest generation is read
//! (red team rounds 78 to 80: a home named through a link or `..`, a
//! `config.yaml` that is a link, a home mounted at a second path, and a
//! key one spelling no longer writes holding an older record).

use std::path::Path;

use serde_json::Value;

use super::record_bytes;

/// The path a record is keyed by: canonical when it can be resolved.
fn key_of(source: &Path) -> Option<String> {
    let path = source.canonicalize().ok()?;
    Some(path.to_string_lossy().into_owned())
}

/// Its folder's canonical path and its name (the file itself a link, or
/// gone): a home named through a link still finds the record of a file
/// deleted (red team rounds 78 and 79, R78-4, R79-2).
fn in_canonical_folder(source: &Path) -> Option<String> {
    let folder = std::path::absolute(source)
        .ok()?
        .parent()?
        .canonicalize()
        .ok()?;
    let path = folder.join(source.file_name()?);
    Some(path.to_string_lossy().into_owned())
}

/// Its folder's device, inode and birth time and its name: the same
/// folder mounted at a second path (a container given the host's home)
/// finds its records (round 79, R79-4). The birth time tells a folder
/// apart from an earlier one given the same inode (round 80, R80-1: a
/// deleted project folder's record stood in for the user's); where the
/// file system keeps none, there is no such key.
fn in_folder_identity(source: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let folder = std::path::absolute(source)
        .ok()?
        .parent()?
        .metadata()
        .ok()?;
    let born = folder
        .created()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let name = source.file_name()?.to_string_lossy();
    let (dev, ino) = (folder.dev(), folder.ino());
    Some(format!(
        "@{dev}:{ino}:{}.{:09}/{name}",
        born.as_secs(),
        born.subsec_nanos()
    ))
}

/// The path as named (absolute): a file that turns into a link to
/// something else (`/dev/zero`, a target that is gone) keeps its record.
pub(super) fn named_key(source: &Path) -> String {
    std::path::absolute(source)
        .unwrap_or_else(|_| source.to_owned())
        .to_string_lossy()
        .into_owned()
}

/// The keys a file's records are kept under, each once: where it leads,
/// its canonical folder's name for it, its path as named, its folder's
/// identity. Every record is written under each; the one of the highest
/// generation is read (a key one spelling never writes may hold an older
/// record: R79-5).
pub(super) fn keys_of(source: &Path) -> Vec<String> {
    let all = [
        key_of(source),
        in_canonical_folder(source),
        Some(named_key(source)),
        in_folder_identity(source),
    ];
    let mut keys: Vec<String> = Vec::with_capacity(all.len());
    for key in all.into_iter().flatten() {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// What tells one of a file's records from its others: its generation
/// (`None`: written by an older version, which kept none), whether it can
/// be read, and when it was written.
struct Stamp {
    generation: Option<u64>,
    unreadable: bool,
    written: std::time::SystemTime,
}

/// The stamp of each record keyed `key` + `suffix` for each key of
/// `source` that is there.
fn stamps(home: &Path, source: &Path, suffix: &str) -> Vec<(Stamp, String)> {
    let stamp = |key: &String| {
        let (path, bytes) = match record_bytes(home, key) {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err((path, _)) => (path, Vec::new()),
        };
        let written = std::fs::symlink_metadata(&path).and_then(|found| found.modified());
        let written = written.unwrap_or(std::time::UNIX_EPOCH);
        let record = serde_json::from_slice::<Value>(&bytes).ok();
        let generation = record.as_ref().and_then(|r| r.get("generation")?.as_u64());
        Some(Stamp {
            generation,
            unreadable: record.is_none(),
            written,
        })
    };
    let keys = keys_of(source)
        .into_iter()
        .map(|key| format!("{key}{suffix}"));
    keys.filter_map(|key| Some((stamp(&key)?, key))).collect()
}

/// Of the records keyed `key` + `suffix` for each key of `source`, the key
/// (suffix included) of the one to read; `None` when there is none. One
/// that cannot be read first (what it says is unknown, and is read as
/// such); else the highest generation (the first key on a tie: a record
/// written under every key at once), not a file's time: a clock stepped
/// back, or a file system keeping whole seconds, made an older record look
/// newer (round 80, R80-2). While an older version's record (no
/// generation) is among them, the one written last, as that version read.
pub(super) fn freshest(home: &Path, source: &Path, suffix: &str) -> Option<String> {
    let mut found = stamps(home, source, suffix);
    if let Some(at) = found.iter().position(|(stamp, _)| stamp.unreadable) {
        return Some(found.swap_remove(at).1);
    }
    match found.iter().any(|(stamp, _)| stamp.generation.is_none()) {
        true => found.sort_by_key(|(stamp, _)| std::cmp::Reverse(stamp.written)),
        false => found.sort_by_key(|(stamp, _)| std::cmp::Reverse(stamp.generation)),
    }
    found.into_iter().next().map(|(_, key)| key)
}

/// Whether `record` was written by an older version (it keeps no
/// generation): rewritten, though it says the same.
pub(super) fn without_generation(record: &Value) -> bool {
    record.get("generation").is_none()
}

/// The generation a record written now under `source`'s keys takes: one
/// past the highest there (an unreadable one counts as none).
pub(super) fn next_generation(home: &Path, source: &Path, suffix: &str) -> u64 {
    let found = stamps(home, source, suffix).into_iter();
    let highest = found.filter_map(|(stamp, _)| stamp.generation).max();
    highest.map_or(1, |generation| generation.saturating_add(1))
}
