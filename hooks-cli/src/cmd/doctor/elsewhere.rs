//! A home written for `~/.hermes` but checked somewhere else (an example home
//! used in place, a copy in a project): its commands and paths name
//! `~/.hermes/...`, which is not the folder checked, so most of what doctor
//! reports is about that. The note says so once, and what to do.

use std::path::{Path, PathBuf};

use hermes_hooks_cli::{Home, show_path};
use hermes_hooks_core::home::home_dir;

/// What a home's config writes for the home it was written for.
const HOME_WRITTEN_FOR: &str = "~/.hermes/";

/// The note for a home whose config names `~/.hermes/...` while the home
/// checked is another folder; `None` when the home is `~/.hermes` itself
/// or its config names nothing there.
pub fn note(home: &Home) -> Option<String> {
    let bytes = hermes_hooks_core::regular_file::read_capped(home.config_file(), 8 << 20).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let named = text
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter(|line| line.contains(HOME_WRITTEN_FOR))
        .count();
    if named == 0 {
        return None;
    }
    let written_for = home_dir().join(".hermes");
    if same_folder(&home.path, &written_for) {
        return None;
    }
    Some(format!(
        "Note: {config} names files under ~/.hermes/ ({named} {lines}), the home it was written \
         for, but the home checked is {checked}: those files are looked for in {written_for}, \
         not here. Name them `${{HERMES_HOME}}/...` instead: `hooks` expands it to the home it \
         loads, wherever that is (the repository's examples/home does, and `cargo xtask demo` \
         runs it). Copy this home to ~/.hermes otherwise, then run `hooks doctor` again.",
        config = home.config_display(),
        lines = if named == 1 { "line" } else { "lines" },
        checked = show_path(&home.path),
        written_for = show_path(&written_for),
    ))
}

fn same_folder(a: &Path, b: &Path) -> bool {
    let canonical =
        |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
    canonical(a) == canonical(b)
}
