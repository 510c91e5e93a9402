//! Whether `PYTHONSAFEPATH`, which a user's hook whose Python reads the
//! folder it runs in is given (`python3 -c`, `-m`, its input: the
//! project's `json.py` must not stand in for the standard library's),
//! may not hold (red team round 62): `-E` makes Python ignore it, the
//! command may unset or empty it, and a Python before 3.11 (`python`,
//! `python3.10`, one named by its path, one a project's `.python-version`
//! picks through pyenv) does not know it. Then what that folder may
//! stand in for is bound instead.

use std::path::Path;

use super::identify::base_name;
use super::shell::{simple_commands, skip_prefixes};

/// Whether `command` (the hook's own text, run in `cwd`) starts a Python
/// on which `PYTHONSAFEPATH=1` may not take effect.
pub(super) fn may_not_hold(command: &str, cwd: &Path) -> bool {
    if command.contains("PYTHONSAFEPATH") || picks_a_python(cwd) {
        return true;
    }
    simple_commands(command).iter().any(|words| {
        // `env -i python3 -c …`, `env -u PYTHONSAFEPATH`, `exec -c`: the
        // environment it was given is dropped (round 72, SP-02).
        if clears_environment(words) {
            return true;
        }
        let words = skip_prefixes(words);
        let Some((first, args)) = words.split_first() else {
            return false;
        };
        // Its name as written: `python3.10` is no `python3`.
        let name = first.rsplit('/').next().unwrap_or(first).to_owned();
        if !base_name(first).starts_with("python") {
            return false;
        }
        let knows_it = name == "python3" || is_3_11_or_later(&name);
        // `-E`, `-Ec`, `-X frozen_modules=off -E`; its code's words too.
        let ignores_it = args.iter().any(|flags| {
            flags.starts_with('-')
                && !flags.starts_with("--")
                && flags.contains('E')
                && !flags.contains(['I', 'P'])
        });
        first.contains('/') || !knows_it || ignores_it
    })
}

/// Whether `words` (one command) runs its program without the environment
/// it was given, or without some of it: `env -i` / `-` /
/// `--ignore-environment` / `-u NAME` / `--unset`, the shell's `exec -c`.
fn clears_environment(words: &[String]) -> bool {
    let mut words = words.iter().map(String::as_str).peekable();
    while let Some(word) = words.next() {
        let program = word.rsplit('/').next().unwrap_or(word);
        let options = || words.clone().take_while(|w| w.starts_with('-'));
        let clears = match program {
            // GNU's long options by any prefix (`--ignore-env`, `--uns`:
            // round 73, SP-03).
            "env" => options().any(|w| {
                let long = w.split('=').next().unwrap_or(w);
                let abbreviates = |option: &str| long.len() > 3 && option.starts_with(long);
                w == "-"
                    || abbreviates("--ignore-environment")
                    || abbreviates("--unset")
                    || (!w.starts_with("--") && w.contains(['i', 'u']))
            }),
            "exec" => options().any(|w| !w.starts_with("--") && w.contains('c')),
            _ => false,
        };
        if clears {
            return true;
        }
    }
    false
}

/// Whether `name` (`python3.12`) names a Python of 3.11 or later.
fn is_3_11_or_later(name: &str) -> bool {
    name.strip_prefix("python3.")
        .and_then(|minor| minor.parse::<u32>().ok())
        .is_some_and(|minor| minor >= 11)
}

/// Whether `cwd` or a folder above it holds a `.python-version`, which a
/// pyenv `python3` reads to choose the Python that runs.
fn picks_a_python(cwd: &Path) -> bool {
    cwd.ancestors()
        .take(16)
        .any(|folder| std::fs::symlink_metadata(folder.join(".python-version")).is_ok())
}

#[cfg(test)]
mod tests {
    use super::may_not_hold;

    #[test]
    fn the_safe_path_holds_for_a_plain_python3_only() {
        let cwd = tempfile::tempdir().expect("cwd");
        for holds in [
            "python3 -c 'import json'",
            "python3 -Ic x",
            "python3.12 -m json.tool",
        ] {
            assert!(!may_not_hold(holds, cwd.path()), "{holds}");
        }
        for fails in [
            "python3 -E -c 'import json'",
            "python3 -Ec x",
            "env -u PYTHONSAFEPATH python3 -c x",
            "env -i python3 -c x",
            "env --ignore-environment python3 -c x",
            "env --ignore-env python3 -c x",
            "env --uns=PYTHONSAFEPATH python3 -c x",
            "env - python3 -c x",
            "PYTHONSAFEPATH= python3 -c x",
            "python -c x",
            "python3.10 -c x",
            "/opt/py/bin/python3 -c x",
        ] {
            assert!(may_not_hold(fails, cwd.path()), "{fails}");
        }
        std::fs::write(cwd.path().join(".python-version"), "3.10.13\n").expect("pyenv");
        assert!(may_not_hold("python3 -c x", cwd.path()));
    }
}
