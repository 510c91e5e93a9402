//! The string a shell runs with `-c` read as shell code, the way the
//! command itself is read (red team round 8, R8-11): `sh -c '. F'`,
//! `sh -c 'sh F'`, `bash -c "source F"` reach `F` as `. F` and `sh F` do,
//! inside the project or outside it (`~/.local/share/acme/x.sh`), and what
//! such a string cannot name (a missing script, `. "$x"`) makes the command
//! opaque. Strings in strings are read too, [`MAX_DEPTH`] deep; deeper, the
//! command is opaque.

use std::path::Path;

use super::{Code, Identified, base_name, identify_at, push, with_home};
use crate::binding::shell::simple_commands;

/// How many `-c` strings deep a command is read.
pub(crate) const MAX_DEPTH: usize = 4;

/// Shells that run a `-c` string.
pub(crate) const SHELLS: [&str; 8] = ["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash"];

/// Adds what the `-c` strings of the shells among `words` (a command
/// `depth` strings deep) reach to `found`.
pub(super) fn read_shell_strings(
    words: &[String],
    cwd: &Path,
    depth: usize,
    found: &mut Identified,
) {
    let mut codes: Vec<Code> = Vec::new();
    for script in shell_strings(words) {
        if depth >= MAX_DEPTH {
            found
                .opaque
                .get_or_insert_with(|| format!("it runs shell strings over {MAX_DEPTH} deep"));
            return;
        }
        // `bash -c 'cd $HOME && sh bin/g.sh'`: a command line of its own,
        // its `cd`s followed (R36-2: its script was bound to nothing).
        if let Some(inner) = super::compound::compound_at(script, &[], cwd, depth + 1) {
            add_inner(inner, found, &mut codes);
            continue;
        }
        for command in simple_commands(script) {
            // `bash -c "sh $HOME/g.sh"`: `$HOME` either shell's.
            let command: Vec<String> = command.iter().map(|word| with_home(word)).collect();
            let inner = identify_at(script, Some(&command), cwd, depth + 1);
            add_inner(inner, found, &mut codes);
        }
    }
    // `bash -c "sh g.sh"`: the one script the strings run is the code,
    // run from its checked copy (R34-1).
    if found.code.is_none()
        && let [one] = codes.as_slice()
    {
        found.code = Some(one.clone());
    }
}

/// Adds what a string's command reaches to `found`, its script to `codes`
/// (once per path).
fn add_inner(inner: Identified, found: &mut Identified, codes: &mut Vec<Code>) {
    for file in inner.files {
        push(&mut found.files, file);
    }
    if let Some(why) = inner.opaque {
        found.opaque.get_or_insert(why);
    }
    if let Some(code) = inner.code
        && codes.iter().all(|had| had.path != code.path)
    {
        codes.push(code);
    }
}

/// The strings a shell among `words` runs with `-c` (`sh -c S`,
/// `bash -ec S`, `bash -o pipefail -c S`, `env sh -c S`).
fn shell_strings(words: &[String]) -> Vec<&str> {
    shell_string_positions(words)
        .into_iter()
        .map(|at| words[at].as_str())
        .collect()
}

/// Where in `words` the strings of [`shell_strings`] are.
pub(crate) fn shell_string_positions(words: &[String]) -> Vec<usize> {
    let mut scripts = Vec::new();
    for (at, word) in words.iter().enumerate() {
        if !SHELLS.contains(&base_name(word).as_str()) {
            continue;
        }
        let mut option = at + 1;
        while let Some(flag) = words.get(option) {
            let letters = flag.strip_prefix(['-', '+']).unwrap_or("");
            if letters.is_empty()
                || flag == "--"
                || !letters.chars().all(|c| c.is_ascii_alphabetic())
            {
                break;
            }
            if flag.starts_with('-') && letters.ends_with('c') {
                if option + 1 < words.len() {
                    scripts.push(option + 1);
                }
                break;
            }
            // `-o pipefail`, `+O extglob`: a value follows.
            option += if letters.ends_with(['o', 'O']) { 2 } else { 1 };
        }
    }
    scripts
}
