//! The user's own scripts that a hook's script runs by a bare name found
//! on `PATH` (`y a` with `~/bin` on it: R44-11; from a project script, read
//! but not bound: R47-5), which may run the project's scripts in turn; not
//! a version manager's shims (its own code).

use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::sweep::MAX_WORDS;

/// The programs of the home folder `home` that the shell text `text` runs
/// by a bare name found on `PATH` (`y a`, `~/bin` on it), outside the
/// project folder `project`: the user's own scripts, which may run the
/// project's in turn (R44-11). A version
/// manager's shims (a `shims` folder: pyenv, rbenv, asdf, nodenv) are its
/// own code, as the system's programs are: not read.
pub(super) fn home_programs(text: &str, home: &Path, project: &Path) -> Vec<PathBuf> {
    // The `PATH` it runs with, and the folders the text puts on it
    // (`export PATH="$HOME/bin:$PATH"`).
    static SET_PATH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s;&|(])PATH=["']?([^\s;&|"']+)"#).expect("valid regex")
    });
    let mut path = std::env::var_os("PATH").unwrap_or_default();
    let user_home = hermes_hooks_core::home::user_home().unwrap_or_default();
    for set in SET_PATH.captures_iter(text) {
        for entry in super::split_outside_parameters(&set[1], b':') {
            let entry = ["${HOME}", "$HOME"]
                .iter()
                .find_map(|name| entry.strip_prefix(name))
                .map(|rest| format!("{}{rest}", user_home.display()))
                .unwrap_or_else(|| hermes_hooks_core::home::expand_tilde(entry));
            if !entry.contains('$') {
                path.push(":");
                path.push(entry);
            }
        }
    }
    let folders: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|folder| !is_version_manager(folder))
        .filter_map(|folder| folder.canonicalize().ok())
        // The project's folders on the host's `PATH` are withheld from the
        // user's hooks (`host_env`); those the text puts there are read above.
        .filter(|real| real.starts_with(home) && real != home && !real.starts_with(project))
        .collect();
    if folders.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for words in crate::binding::shell::simple_commands(text)
        .iter()
        .take(MAX_WORDS)
    {
        let words = crate::binding::shell::skip_prefixes(words);
        let Some(first) = words.first() else { continue };
        if first.is_empty() || first.contains(['/', '$', '`']) || !seen.insert(first.clone()) {
            continue;
        }
        let program = folders
            .iter()
            .map(|folder| folder.join(first))
            .find(|file| {
                std::fs::metadata(file)
                    .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
            });
        found.extend(program);
    }
    found
}

/// A version manager's own code (pyenv, rbenv, asdf, nodenv, nvm...): its
/// shims work out what to run when they run, from the manager's settings,
/// never from a project's code.
pub(super) fn is_version_manager(path: &Path) -> bool {
    const MANAGERS: [&str; 8] = [
        ".pyenv", ".rbenv", ".asdf", ".nodenv", ".nvm", ".volta", ".sdkman", "mise",
    ];
    path.components().any(|part| {
        let part = part.as_os_str();
        part == "shims" || MANAGERS.iter().any(|manager| part == *manager)
    })
}
