//! A bounded walk of a folder, for the readings that look for files by
//! name or ending below one (a crate's `.rs` files, a CMake module, the
//! settings files below a folder a formatter is given).

use std::path::{Path, PathBuf};

/// The files under `start` among its first `limit` entries, not entering
/// a folder `skip` says no to (by its name); and how many entries were
/// looked at.
pub(super) fn files_under(
    start: &Path,
    limit: usize,
    skip: &dyn Fn(&str) -> bool,
) -> (Vec<PathBuf>, usize) {
    let mut files = Vec::new();
    let mut pending = vec![start.to_path_buf()];
    let mut seen = 0usize;
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            seen += 1;
            if seen > limit {
                return (files, seen);
            }
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if !skip(&entry.file_name().to_string_lossy()) {
                    pending.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    (files, seen)
}
