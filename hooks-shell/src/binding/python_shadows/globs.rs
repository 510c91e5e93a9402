//! A folder code puts on Python's module path by a glob
//! (`sys.path.insert(0, glob.glob("li*")[0])`, red team R31-3): the
//! folders it matches now.

use std::path::{Path, PathBuf};

/// The folders the glob `pattern` (`li*`, `.venv/lib/*/site-packages`)
/// matches from `base`, part by part; at most 256.
pub(super) fn glob_folders(base: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![base.to_path_buf()];
    for part in pattern.split('/').filter(|part| !part.is_empty()) {
        let mut next = Vec::new();
        for folder in &current {
            if part == "**" {
                next.extend(crate::binding::globbing::folders_below(folder));
                continue;
            }
            if !part.contains(['*', '?', '[']) {
                next.push(folder.join(part));
                continue;
            }
            let entries = std::fs::read_dir(folder).into_iter().flatten().flatten();
            for entry in entries.take(super::MAX_LISTED) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if crate::binding::globbing::wildcard(part, &name) {
                    next.push(folder.join(name));
                }
            }
        }
        next.truncate(256);
        current = next;
    }
    current.retain(|folder| folder.is_dir());
    current
}
