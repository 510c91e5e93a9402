//! The variables a shell-form command sets before it runs a program by
//! them (`V=${V:-.v*}; $V/bin/lint`, red team R34-5): a name assigned once,
//! by a plain assignment of its own, is read as the shell reads it; any
//! other name stays as written (the command names nothing by it).

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The names set so far and what they hold.
#[derive(Default)]
pub(super) struct Variables {
    known: HashMap<String, String>,
    unknown: HashSet<String>,
}

/// `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:=default}`.
static EXPANSION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)",
    )
    .expect("valid regex")
});

/// Names the runner sets in the hook's environment (not ours to read).
const RUNNERS: [&str; 6] = [
    "CLAUDE_", "HERMES_", "CURSOR_", "CODEX_", "GEMINI_", "HOOK_",
];

impl Variables {
    /// Records `part` when it is one assignment (`V=value`) in `raw`;
    /// whether it was one.
    pub(super) fn assign(&mut self, part: &[String], raw: &str) -> bool {
        let [word] = part else {
            return false;
        };
        let Some((name, value)) = word.split_once('=') else {
            return false;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        match (assigned_once(name, raw), self.value(value)) {
            (true, Some(value)) => {
                self.known.insert(name.to_owned(), value);
            }
            _ => {
                self.known.remove(name);
                self.unknown.insert(name.to_owned());
            }
        }
        true
    }

    /// `part` with the names it expands read, and a glob the program or a
    /// read name makes (`.v*/bin/lint`) as the files it matches in `here`.
    pub(super) fn expand(&self, part: &[String], here: &Path) -> (Vec<String>, Vec<String>) {
        let mut words = Vec::new();
        let mut matched = Vec::new();
        for (at, word) in part.iter().enumerate() {
            let read = self.word(word);
            let glob = read.as_deref().unwrap_or(word);
            if (read.is_some() || at == 0) && glob.contains(['*', '?', '[']) {
                let found = matches(here, glob);
                if let Some(first) = found.first() {
                    words.push(first.clone());
                    matched.extend(found);
                    continue;
                }
            }
            words.push(read.unwrap_or_else(|| word.clone()));
        }
        (words, matched)
    }

    /// `word` with its expansions read (`None`: none, or one of a name
    /// the text cannot tell).
    fn word(&self, word: &str) -> Option<String> {
        if !word.contains('$') {
            return None;
        }
        let mut unknown = false;
        let read = EXPANSION.replace_all(word, |found: &regex::Captures<'_>| {
            let name = found.get(1).or(found.get(4)).map_or("", |m| m.as_str());
            self.known.get(name).cloned().unwrap_or_else(|| {
                unknown = true;
                String::new()
            })
        });
        (!unknown && !read.contains('$')).then(|| read.into_owned())
    }

    /// An assigned value as the shell reads it: names set before, the
    /// inherited ones, a default.
    fn value(&self, value: &str) -> Option<String> {
        let mut unknown = false;
        let read = EXPANSION.replace_all(value, |found: &regex::Captures<'_>| {
            let name = found.get(1).or(found.get(4)).map_or("", |m| m.as_str());
            let default = found.get(3).map(|m| m.as_str());
            let empty_counts = found.get(2).is_some_and(|m| m.as_str().starts_with(':'));
            if let Some(value) = self.known.get(name) {
                return match (value.is_empty() && empty_counts, default) {
                    (true, Some(default)) => default.to_owned(),
                    _ => value.clone(),
                };
            }
            if self.unknown.contains(name) || RUNNERS.iter().any(|p| name.starts_with(p)) {
                unknown = true;
                return String::new();
            }
            match (std::env::var(name), default) {
                (Ok(value), Some(default)) if value.is_empty() && empty_counts => {
                    default.to_owned()
                }
                (Ok(value), _) => value,
                (Err(_), Some(default)) => default.to_owned(),
                (Err(_), None) => {
                    unknown = true;
                    String::new()
                }
            }
        });
        (!unknown && !read.contains(['$', '`'])).then(|| read.into_owned())
    }
}

/// Whether `raw` sets `name` only once, by a plain assignment (not
/// `read`, `for`, `export` or a second `name=`).
fn assigned_once(name: &str, raw: &str) -> bool {
    let mentions = regex::Regex::new(&format!(r"(^|[^A-Za-z0-9_$\{{]){name}\b"));
    let assignments = regex::Regex::new(&format!(r"(^|[\s;&|(]){name}="));
    match (mentions, assignments) {
        (Ok(mentions), Ok(assignments)) => {
            mentions.find_iter(raw).count() == 1 && assignments.find_iter(raw).count() == 1
        }
        _ => false,
    }
}

/// The files and folders `glob` matches from `here`, sorted as the shell
/// sorts them (as paths the command names).
fn matches(here: &Path, glob: &str) -> Vec<String> {
    let (base, pattern) = match glob.strip_prefix('/') {
        Some(rest) => (Path::new("/"), rest),
        None => (here, glob),
    };
    let mut found: Vec<String> = super::super::globbing::glob_matches(base, pattern)
        .into_iter()
        .map(|path| path.display().to_string())
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_set_once_is_read_and_its_glob_matched() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".vtools/bin")).expect("bin");
        std::fs::write(dir.path().join(".vtools/bin/lint"), "").expect("lint");
        let raw = "V=${R34_SURELY_UNSET_V:-.v*}; $V/bin/lint";
        let mut variables = Variables::default();
        assert!(variables.assign(&["V=${R34_SURELY_UNSET_V:-.v*}".to_owned()], raw));
        let (words, matched) = variables.expand(&["$V/bin/lint".to_owned()], dir.path());
        let lint = dir.path().join(".vtools/bin/lint").display().to_string();
        assert_eq!((words, matched), (vec![lint.clone()], vec![lint]));
        // Set twice, or by the runner: not read.
        for (raw, assignment) in [
            ("V=.v*; if x; then V=/tmp; fi; $V/bin/lint", "V=.v*"),
            ("read V; V=.v*; $V/bin/lint", "V=.v*"),
            ("V=$CLAUDE_X; $V/bin/lint", "V=$CLAUDE_X"),
        ] {
            let mut variables = Variables::default();
            assert!(variables.assign(&[assignment.to_owned()], raw));
            let (words, _) = variables.expand(&["$V/bin/lint".to_owned()], dir.path());
            assert_eq!(words, ["$V/bin/lint"], "{raw}");
        }
    }
}
