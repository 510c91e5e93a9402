//! rustup's toolchain files (red team round 55, H55-1; round 56): a
//! `rust-toolchain.toml` naming its toolchain by a path runs that folder's
//! programs, which no reading names.

use std::path::PathBuf;

use super::Reached;

/// A `rust-toolchain.toml` (or `rust-toolchain`) among `manifests` that
/// names its toolchain by a path (`path = "/proc/self/cwd/tc"`): rustup's
/// proxy then runs that folder's `bin/rustfmt`, a file of the project no
/// reading names (red team round 55, H55-1). Such a hook cannot be
/// approved.
pub(super) fn by_path(manifests: &[PathBuf], found: &mut Reached) {
    for file in manifests {
        let is_toolchain = file
            .file_name()
            .is_some_and(|name| super::table::TOOLCHAIN.iter().any(|t| name == *t));
        if !is_toolchain || std::fs::symlink_metadata(file).is_err() {
            continue;
        }
        let Some(text) = super::follow::read_or_refuse(file, found) else {
            continue;
        };
        // Read as rustup reads it: TOML (a key however it is spelled,
        // `"\u0070ath"`, dotted, inline: round 56), else the legacy file's
        // one line, a toolchain's name, which may be a folder.
        let by_path = match text.parse::<toml::Table>() {
            Ok(table) => table
                .get("toolchain")
                .and_then(toml::Value::as_table)
                .is_some_and(|toolchain| toolchain.contains_key("path")),
            Err(_) if !text.contains(['=', '[']) => text.contains(['/', '\\']),
            Err(_) => true,
        };
        if by_path {
            found.computed.get_or_insert_with(|| {
                format!(
                    "{} names its toolchain by a path, or cannot be read as rustup reads it: \
                     the programs rustup runs from it are no reading's",
                    file.display()
                )
            });
        }
    }
}
