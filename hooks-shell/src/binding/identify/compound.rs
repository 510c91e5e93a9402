//! The script a shell-form command of several simple commands runs (`cd
//! "$D" && sh tools/guard.sh`, `sh g.sh; exit $?`): when exactly one of
//! them runs a script, that script is the command's code, checked and run
//! from its sealed copy as a plain command's is (red team R33b-1).

use std::path::{Path, PathBuf};

use super::{Code, Identified, add_run_file, identify_at};

/// What `raw` (a command line run in `cwd`; `words`, its split) runs
/// when it holds several simple commands, or one inside a subshell,
/// `$(…)`, backquotes, a `case` branch or `eval` (red team R34-2: `(sh
/// "$CLAUDE_PROJECT_DIR"/tools/g.sh)` bound none of it), a `cd DIR`
/// moving where the rest run: each one's files and why any is opaque, and
/// the one script among them as the code (`None` when none or several run
/// one). `None` when it is one plain simple command, or a `cd` the words
/// cannot tell.
pub(super) fn compound(raw: &str, words: &[String], cwd: &Path) -> Option<Identified> {
    compound_at(raw, words, cwd, 1)
}

/// [`compound`] of a command line its parts of which are read `depth`
/// strings deep (`bash -c 'cd $HOME && sh bin/g.sh'`: 2, red team R36-2).
pub(super) fn compound_at(
    raw: &str,
    words: &[String],
    cwd: &Path,
    depth: usize,
) -> Option<Identified> {
    let parts = simple_parts(raw, 0);
    if parts.len() < 2 && parts.first().is_none_or(|part| part == words) {
        return None;
    }
    let mut here = cwd.to_path_buf();
    let mut found = Identified::default();
    let mut codes = Vec::new();
    let mut variables = super::variables::Variables::default();
    for part in &parts {
        if variables.assign(part, raw) {
            continue;
        }
        // `V=${V:-.v*}; $V/bin/lint`: what the program is (R34-5), each
        // file its glob matches bound.
        let (part, matched) = variables.expand(part, &here);
        for file in matched {
            add_run_file(&mut found, here.join(file), &here);
        }
        let part = &part;
        if part[0] == "cd" {
            let target = part.get(1).map(String::as_str).unwrap_or("~");
            here = moved(&here, &from_environment(target, raw))?;
            continue;
        }
        let one = identify_at(raw, Some(part), &here, depth);
        // `cd tools && sh ~/bin/g.sh`: what its scripts run of the folder
        // they run in, read there (red team round 60, F4-45).
        if here != cwd {
            for file in &one.files {
                let mut moved = Identified::default();
                super::follow::follow(file, &here, &mut moved);
                found.definitions.extend(moved.definitions);
                found.computed = found.computed.take().or(moved.computed);
            }
        }
        codes.extend(one.code);
        found.foreign.extend(one.foreign);
        found.files.extend(one.files);
        found.opaque = found.opaque.or(one.opaque);
    }
    // `sh g.sh && sh ./g.sh`: one script.
    codes.dedup_by(|a, b| a.path == b.path);
    // A program the command itself may make executable first (`chmod +x
    // x.sh && ./x.sh`) runs by its path, as before.
    let may_run = |code: &Code| {
        !code.is_program || nix::unistd::access(&code.path, nix::unistd::AccessFlags::X_OK).is_ok()
    };
    if let [one] = codes.as_slice()
        && may_run(one)
    {
        found.code = Some(one.clone());
    }
    Some(found)
}

/// The simple commands of `raw`, each its words: `$(…)`, backquotes and
/// `eval`'s words read as commands too, leading redirections
/// (`2>/dev/null sh g.sh`) left out, `$HOME` read.
fn simple_parts(raw: &str, depth: usize) -> Vec<Vec<String>> {
    static BRACED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex")
    });
    // `${HOME}` as `$HOME`: the split cuts at braces.
    // A comment's words run nothing, and its quotes end nothing.
    static COMMENT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?m)(^|[ \t;&|])#[^\n]*").expect("valid regex")
    });
    let text = COMMENT.replace_all(raw, "$1");
    let text = BRACED
        .replace_all(&text.replace('`', ";"), "$$$1")
        .into_owned();
    // `${V:-.v*}`: its braces kept from the split, put back after.
    static EXPANSION: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\$\{[^{}]*\}").expect("valid regex"));
    let text = EXPANSION.replace_all(&text, |found: &regex::Captures<'_>| {
        found[0].replace('{', "\u{E000}").replace('}', "\u{E001}")
    });
    let mut parts = Vec::new();
    for words in super::super::shell::simple_commands(&text) {
        let mut words: Vec<String> = (words.iter())
            .map(|word| with_home(&word.replace('\u{E000}', "{").replace('\u{E001}', "}")))
            .collect();
        // `X=1 sh g.sh`: what runs is after the assignments.
        let assignments = words.iter().take_while(|word| {
            word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
        });
        let assigned = assignments.count().min(words.len().saturating_sub(1));
        words.drain(..assigned);
        while words.first().is_some_and(|word| is_redirection(word)) {
            let operator_only = words[0]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len()
                <= 2;
            words.drain(
                ..if operator_only && words.len() > 1 {
                    2
                } else {
                    1
                },
            );
        }
        // `command eval "…"`, `builtin trap …`: the builtin itself (R37-2).
        while words.len() > 1 && matches!(words[0].as_str(), "command" | "builtin" | "exec") {
            let options = usize::from(words.get(1).is_some_and(|w| w == "-p"));
            words.drain(..1 + options.min(words.len() - 2));
        }
        match words.split_first() {
            Some((first, rest)) if first == "eval" && depth < 4 => {
                parts.extend(simple_parts(&rest.join(" "), depth + 1));
            }
            // `trap 'sh g.sh' EXIT`: its string runs too (R36-1).
            Some((first, [string, _, ..])) if first == "trap" && depth < 4 => {
                parts.extend(simple_parts(string, depth + 1));
            }
            Some(_) => parts.push(words),
            None => {}
        }
    }
    parts
}

/// Whether `word` is a redirection (`2>/dev/null`, `>`, `<&0`).
fn is_redirection(word: &str) -> bool {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.starts_with(['<', '>'])
}

/// `word` with a leading `$HOME` / `${HOME}` as the home folder.
pub(crate) fn with_home(word: &str) -> String {
    let Some(home) = hermes_hooks_core::home::user_home() else {
        return word.to_owned();
    };
    for spelling in ["${HOME}", "$HOME"] {
        if let Some(rest) = word.strip_prefix(spelling)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{}{rest}", home.display());
        }
    }
    word.to_owned()
}

/// `target` with a leading `$NAME` / `${NAME}` as the value the hook
/// inherits from our environment (`cd "$REPO" && sh tools/g.sh`: red team
/// R34-1), unless `raw` could set `NAME` itself (any mention of it but
/// its expansions): the script is then not named.
fn from_environment(target: &str, raw: &str) -> String {
    static LEADING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))(/.*)?$")
            .expect("valid regex")
    });
    let Some(found) = LEADING.captures(target) else {
        return target.to_owned();
    };
    let name = found.get(1).or(found.get(2)).map_or("", |m| m.as_str());
    let rest = found.get(3).map_or("", |m| m.as_str());
    let expansions = regex::Regex::new(&format!(r"\$(?:\{{{name}\}}|{name}\b)"));
    let set_here = expansions.map_or(true, |expansions| {
        let others = expansions.replace_all(raw, "");
        regex::Regex::new(&format!(r"\b{name}\b")).map_or(true, |name| name.is_match(&others))
    });
    match std::env::var(name) {
        Ok(value) if !set_here && !value.is_empty() => format!("{value}{rest}"),
        _ => target.to_owned(),
    }
}

/// The folder `cd target` moves to from `here`: `$HOME`, `~` and
/// `${HOME}` as the home folder; `None` for any other expansion.
fn moved(here: &Path, target: &str) -> Option<PathBuf> {
    let home = hermes_hooks_core::home::user_home().map(|h| h.display().to_string());
    let target = match home {
        Some(home) => target
            .replacen("${HOME}", &home, 1)
            .replacen("$HOME", &home, 1),
        None => target.to_owned(),
    };
    if target.contains(['$', '`', '*', '?']) || target == "-" {
        return None;
    }
    let target = PathBuf::from(hermes_hooks_core::home::expand_tilde(&target));
    let folder = here.join(target);
    folder.is_dir().then_some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_script_of_several_commands_is_the_code() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        let guard = dir.path().join("tools/guard.sh");
        std::fs::write(&guard, "exit 0\n").expect("guard");
        let words = |text: &str| shlex::split(text).expect("split");
        let root = Path::new("/");
        let text = format!("cd {} && sh tools/guard.sh", dir.path().display());
        let code = compound(&text, &words(&text), root)
            .and_then(|f| f.code)
            .expect("code");
        assert_eq!(
            (code.path.as_path(), code.word.as_str()),
            (guard.as_path(), "tools/guard.sh")
        );
        let text = "sh tools/guard.sh; exit $?";
        let found = compound(text, &words(text), dir.path()).expect("compound");
        assert_eq!(found.files, std::slice::from_ref(&guard));
        let text = "sh tools/guard.sh && sh tools/guard.sh";
        let found = compound(text, &words(text), dir.path()).expect("compound");
        assert!(found.code.is_some_and(|c| c.path == guard));
        let text = "sh tools/guard.sh";
        assert!(compound(text, &words(text), dir.path()).is_none());
        // A subshell, `$(…)`, a `case` branch, `eval`, a redirection first
        // (R34-2).
        for text in [
            "(sh tools/guard.sh)",
            "R=$(sh tools/guard.sh); exit $?",
            "R=`sh tools/guard.sh`",
            "case x in x) sh tools/guard.sh;; esac",
            "eval \"sh tools/guard.sh\"",
            "2>/dev/null sh tools/guard.sh; exit $?",
            "if true; then sh tools/guard.sh; fi",
        ] {
            let found = compound(text, &words(text), dir.path()).expect(text);
            assert!(found.code.is_some_and(|c| c.path == guard), "{text}");
        }
        let text = "cd \"$SOMEWHERE\" && sh tools/guard.sh";
        assert!(compound(text, &words(text), dir.path()).is_none());
    }

    #[test]
    fn a_program_a_variable_names_by_a_glob_is_bound() {
        // R34-5: `$V` was bound as the folder named `$V`.
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".vtools/bin")).expect("bin");
        let lint = dir.path().join(".vtools/bin/lint");
        std::fs::write(&lint, "#!/bin/sh\n").expect("lint");
        let text = "V=${R34_SURELY_UNSET_V:-.v*}; $V/bin/lint";
        let words = shlex::split(text).expect("split");
        let found = compound(text, &words, dir.path()).expect("compound");
        assert!(found.files.contains(&lint), "{:?}", found.files);
    }

    #[test]
    fn a_cd_to_an_inherited_variable_is_followed_unless_the_text_sets_it() {
        let home = std::env::var("HOME").expect("HOME");
        let raw = "cd \"$HOME\" && sh x";
        assert_eq!(from_environment("$HOME", raw), home);
        assert_eq!(from_environment("${HOME}/a", raw), format!("{home}/a"));
        for raw in [
            "HOME=/tmp; cd \"$HOME\" && sh x",
            "read HOME; cd $HOME",
            "for HOME in a; do cd $HOME; done",
        ] {
            assert_eq!(from_environment("$HOME", raw), "$HOME", "{raw}");
        }
        assert_eq!(from_environment("$HOME$X", raw), "$HOME$X");
        assert_eq!(
            from_environment("$HERMES_SURELY_UNSET_NAME", raw),
            "$HERMES_SURELY_UNSET_NAME"
        );
    }
}
