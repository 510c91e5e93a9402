//! The script a shell-form command of several simple commands runs (`cd
//! "$D" && sh tools/guard.sh`, `sh g.sh; exit $?`): when exactly one of
//! them runs a script, that script is the command's code, checked and run
//! from its sealed copy as a plain command's is (red team R33b-1).

use std::path::{Path, PathBuf};

use super::{Code, Identified, identify_at};

/// Words that end a simple command in a split command line.
const OPERATORS: [&str; 6] = ["&&", "||", ";", "|", "&", "!"];

/// What `words` (a command line split into words, run in `cwd`) runs
/// when it holds several simple commands, a `cd DIR` moving where the
/// rest run: each one's files and why any is opaque, and the one script
/// among them as the code (`None` when none or several run one). `None`
/// for one simple command, or a `cd` the words cannot tell.
pub(super) fn compound(raw: &str, words: &[String], cwd: &Path) -> Option<Identified> {
    // `sh g.sh; exit $?` splits as `g.sh;`: the operator is a word of its own.
    let mut split = Vec::with_capacity(words.len());
    for word in words {
        match OPERATORS
            .iter()
            .find(|op| word.len() > op.len() && word.ends_with(**op))
        {
            Some(op) => split.extend([word[..word.len() - op.len()].to_owned(), (*op).to_owned()]),
            None => split.push(word.clone()),
        }
    }
    let parts: Vec<&[String]> = split
        .split(|word| OPERATORS.contains(&word.as_str()))
        .filter(|part| !part.is_empty())
        .collect();
    if parts.len() < 2 {
        return None;
    }
    let mut here = cwd.to_path_buf();
    let mut found = Identified::default();
    let mut codes = Vec::new();
    for part in parts {
        if part[0] == "cd" {
            here = moved(&here, part.get(1).map(String::as_str).unwrap_or("~"))?;
            continue;
        }
        let one = identify_at(raw, Some(part), &here, 1);
        codes.extend(one.code);
        found.files.extend(one.files);
        found.opaque = found.opaque.or(one.opaque);
    }
    codes.dedup_by(|a, b| a.path == b.path && a.word == b.word);
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
        let text = "cd \"$SOMEWHERE\" && sh tools/guard.sh";
        assert!(compound(text, &words(text), dir.path()).is_none());
    }
}
