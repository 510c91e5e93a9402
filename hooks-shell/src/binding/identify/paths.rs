//! Words as paths: a file a command names, found where it runs (or
//! beside its script), on `PATH`, and a word's parts outside `${…}`.

use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;

/// `word` split at each `separator` outside `${…}` (`${D:-$PWD}/zz`, a
/// `/` or `:` inside a default is no separator); at least one part.
pub(super) fn split_outside_parameters(word: &str, separator: u8) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let bytes = word.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        match *byte {
            b'{' if at > 0 && bytes[at - 1] == b'$' => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            found if found == separator && depth == 0 => {
                parts.push(&word[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&word[start..]);
    parts
}

pub(super) fn push(files: &mut Vec<PathBuf>, path: PathBuf) {
    if !files.contains(&path) {
        files.push(path);
    }
}

pub(super) fn looks_like_script(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    crate::script::SCRIPT_EXTENSIONS
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// `word` as an existing regular file: absolute (or `~`), else relative to
/// `cwd`, else to `beside` (the script's folder).
pub(super) fn resolve(word: &str, cwd: &Path, beside: Option<&Path>) -> Option<PathBuf> {
    if word.is_empty() || word.contains("://") {
        return None;
    }
    let path = PathBuf::from(expand_tilde(word));
    if path.is_absolute() {
        return path.is_file().then_some(path);
    }
    [Some(cwd), beside]
        .into_iter()
        .flatten()
        .map(|base| base.join(&path))
        .find(|candidate| candidate.is_file())
}

/// The file a bare program name runs, found on `PATH` as the run finds it.
pub(super) fn on_path(program: &str, cwd: &Path) -> Option<PathBuf> {
    crate::binding::program::find(program, &std::env::var_os("PATH")?, cwd)
}
