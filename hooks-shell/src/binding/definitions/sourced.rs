//! The variables a file a shell sources sets for the commands after it:
//! `. ./env.sh; cargo build` runs cargo with what `env.sh` exports (red
//! team round 72: `export CARGO_HOME=ch` in a sourced file made cargo read
//! `ch/config.toml`, unbound). The sourced file's own commands are read
//! where its text is (it is bound by content); here only what it leaves
//! in the environment, each assignment read as exported, which binds
//! more, never less.

use std::path::Path;

use super::follow::read_or_refuse;
use super::{Reached, environment_set};
use crate::binding::shell::simple_commands;

/// How deep sourced files sourcing others are read.
const MAX_DEPTH: usize = 4;

/// What `words` (`. FILE`, `source FILE`, run in `dir`) leaves in the
/// environment; nothing for another command or a name computed when it
/// runs (the reading of names refuses that one).
pub(super) fn environment(
    words: &[String],
    dir: &Path,
    found: &mut Reached,
) -> Vec<(String, String)> {
    read(words, dir, found, 0)
}

fn read(words: &[String], dir: &Path, found: &mut Reached, depth: usize) -> Vec<(String, String)> {
    let sources = matches!(words.first().map(String::as_str), Some("." | "source"));
    let Some(name) = words.get(1).filter(|_| sources && depth <= MAX_DEPTH) else {
        return Vec::new();
    };
    if name.contains(['$', '`', '*', '?', '[']) {
        return Vec::new();
    }
    let path = dir.join(hermes_hooks_core::home::expand_tilde(name));
    let Some(text) = read_or_refuse(&path, found) else {
        return Vec::new();
    };
    let mut set = Vec::new();
    for command in simple_commands(&text) {
        super::set_all(&mut set, environment_set(&command));
        let inner = read(&command, dir, found, depth + 1);
        super::set_all(&mut set, inner);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_sourced_file_exports_is_read_through_its_own_sources() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("env.sh"), "export A=1\n. ./more.sh\n").expect("write");
        std::fs::write(dir.path().join("more.sh"), "B=2; export B\n").expect("write");
        let mut found = Reached::default();
        let words = [".".to_owned(), "./env.sh".to_owned()];
        let set = environment(&words, dir.path(), &mut found);
        assert_eq!(set, [("A".into(), "1".into()), ("B".into(), "2".into())]);
        let other = ["cat".to_owned(), "./env.sh".to_owned()];
        assert!(environment(&other, dir.path(), &mut found).is_empty());
    }
}
