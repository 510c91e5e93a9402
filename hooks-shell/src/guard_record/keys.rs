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

/// The generation of each record keyed `key` + `suffix` for each key of
/// `source` that is there: `u64::MAX` for one that cannot be read (what it
/// says is unknown, so it is read, and read as such).
fn generations(home: &Path, source: &Path, suffix: &str) -> Vec<(u64, String)> {
    let generation = |key: &String| {
        let (_, bytes) = match record_bytes(home, key) {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(_) => return Some(u64::MAX),
        };
        let record = serde_json::from_slice::<Value>(&bytes);
        Some(match record {
            Ok(record) => record
                .get("generation")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            Err(_) => u64::MAX,
        })
    };
    let keys = keys_of(source)
        .into_iter()
        .map(|key| format!("{key}{suffix}"));
    keys.filter_map(|key| Some((generation(&key)?, key)))
        .collect()
}

/// Of the records keyed `key` + `suffix` for each key of `source`, the key
/// (suffix included) of the one of the highest generation (the first key
/// on a tie: a record written under every key at once); `None` when there
/// is none. A generation, not a file's time: a clock stepped back, or a
/// file system keeping whole seconds, made an older record look newer
/// (round 80, R80-2).
pub(super) fn freshest(home: &Path, source: &Path, suffix: &str) -> Option<String> {
    let mut found = generations(home, source, suffix);
    found.sort_by_key(|(generation, _)| std::cmp::Reverse(*generation));
    found.into_iter().next().map(|(_, key)| key)
}

/// The generation a record written now under `source`'s keys takes: one
/// past the highest there (an unreadable one counts as none).
pub(super) fn next_generation(home: &Path, source: &Path, suffix: &str) -> u64 {
    let found = generations(home, source, suffix).into_iter();
    let highest = found
        .map(|(generation, _)| generation)
        .filter(|g| *g != u64::MAX)
        .max();
    highest.map_or(1, |generation| generation.saturating_add(1))
}
