//! How the project files a hook's code names ([`super::mentions`]) are
//! bound: a file by its content, a folder (an environment, code one leads
//! to) whole by what each entry is, anything else by what it is, a missing
//! one as missing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{BindError, cache, environment};
use crate::fingerprint::content_or_metadata;

/// Binds each of `files` (of `project`) in `mentioned`.
pub(super) fn bind_named_files(
    files: impl IntoIterator<Item = PathBuf>,
    project: &Path,
    mentioned: &mut BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    for file in files {
        if environment::bind_whole(&file, project, mentioned)? {
            continue;
        }
        let hash = match std::fs::metadata(&file) {
            Ok(metadata) if metadata.is_file() => {
                cache::cached_file(&file, || content_or_metadata(&file))
            }
            // An environment, or project code one leads to: whole, by
            // what each entry is (R27-1, R28-1).
            Ok(metadata) if metadata.is_dir() => {
                environment::bind_folder(&file, project, mentioned)?;
                continue;
            }
            // Never opened: a FIFO would block.
            Ok(_) => "not a regular file".to_owned(),
            Err(_) => "missing".to_owned(),
        };
        mentioned.insert(file, hash);
    }
    Ok(())
}

/// Paths and digests as a JSON object.
pub(super) fn path_map(
    map: &BTreeMap<PathBuf, String>,
) -> serde_json::Map<String, serde_json::Value> {
    map.iter()
        .map(|(path, hash)| {
            (
                path.display().to_string(),
                serde_json::Value::from(hash.as_str()),
            )
        })
        .collect()
}
