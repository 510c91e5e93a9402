//! The variables a makefile puts in its recipes' environment: `export NAME
//! = v`, `export NAME` of a variable it sets, a target's `lint: export NAME
//! = v`, and every variable it sets under a bare `export` or
//! `.EXPORT_ALL_VARIABLES:` (red team round 70, C-01g: `export CARGO_HOME
//! = ch` made the recipe's cargo read `ch/config.toml`, unbound). Each
//! value is the shell text make gives it ([`super::shell_text`]), the
//! folder make runs in for `$(CURDIR)`; one that names no variable it
//! sets (`export $(NAMES)`) exports every variable, which binds more.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{assignment, logical_lines, shell_text, variables};
use crate::binding::definitions::MAX_INCLUDED;
use crate::binding::definitions::follow::read_definition;

/// The `(name, value)` pairs a makefile's `text` exports to its recipes,
/// `dir` the folder make runs in.
pub(in crate::binding::definitions) fn exported(text: &str, dir: &Path) -> Vec<(String, String)> {
    // `$(eval export CARGO_HOME=ch)`: the line it makes, read as written
    // (round 73, EV-M05).
    static EVAL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$[({]eval\s+([^$(){}\n]*)[)}]").expect("valid regex")
    });
    let evaluated: String = EVAL
        .captures_iter(text)
        .map(|found| format!("\n{}", &found[1]))
        .collect();
    let text = &format!("{text}{evaluated}\n");
    let vars = variables(text);
    let mut names: Vec<String> = Vec::new();
    let mut every = false;
    for line in logical_lines(text) {
        if line.starts_with('\t') {
            continue;
        }
        let line = without_prefixes_but_export(line.trim_start());
        if line.starts_with(".EXPORT_ALL_VARIABLES") {
            every = true;
            continue;
        }
        // `lint: export NAME = v`: the target's own, read as the file's.
        let line = match (line.find(':'), line.find('=')) {
            (Some(colon), Some(equals))
                if colon < equals && !line[colon + 1..].starts_with([':', '=']) =>
            {
                without_prefixes_but_export(line[colon + 1..].trim_start())
            }
            _ => line,
        };
        let Some(rest) = line
            .strip_prefix("export")
            .filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        else {
            continue;
        };
        let rest = rest.split('#').next().unwrap_or("").trim();
        if rest.is_empty() {
            every = true;
        } else if let Some((name, _, _)) = assignment(rest) {
            names.push(name.to_owned());
        } else {
            for name in rest.split_whitespace() {
                match name.contains('$') {
                    true => every = true,
                    false => names.push(name.to_owned()),
                }
            }
        }
    }
    // A variable the environment gives make stays exported when the
    // makefile sets it (`HOME = h`: round 73, EV-M02b); which the user's
    // has is not known here, so every one steering code is read so.
    names.extend(
        vars.keys()
            .filter(|name| crate::dialect::code_env::steers_code(name))
            .cloned(),
    );
    let folder = dir.display().to_string();
    let mut pairs: Vec<(String, String)> = Vec::new();
    // `MAKEFLAGS += CARGO_HOME=ch`: a variable given as if on the command
    // line, which make exports.
    if let Some(flags) = vars.get("MAKEFLAGS") {
        for word in shell_text(flags, &vars).split_whitespace() {
            if let Some((name, value)) = crate::binding::wrappers::assignment(word) {
                pairs.push((name, value));
            }
        }
    }
    let mut chosen: Vec<&String> = match every {
        true => vars.keys().collect(),
        false => names
            .iter()
            .filter(|name| vars.contains_key(*name))
            .collect(),
    };
    chosen.sort();
    chosen.dedup();
    for name in chosen {
        let Some(value) = vars.get(name) else {
            continue;
        };
        // Shell words, not make's: a name make cannot export is left out.
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let mut others: HashMap<String, String> = vars.clone();
        others.remove(name);
        let text = shell_text(value, &others)
            .replace("${CURDIR}", &folder)
            .replace("$(pwd)", &folder)
            .replace("${PWD}", &folder);
        pairs.push((name.clone(), text));
    }
    pairs
}

/// What the makefiles `files` read for one run of make export
/// ([`exported`]), with those they include by a name written out (`include
/// env.mk`, searched in `searched`, the first the folder make runs in): a
/// variable one of them exports is in every recipe's environment, those
/// of the files read before it too.
pub(in crate::binding::definitions) fn make_exports(
    files: &[PathBuf],
    searched: &[PathBuf],
) -> Vec<(String, String)> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut pairs = Vec::new();
    let mut pending: Vec<(PathBuf, usize)> = files.iter().map(|file| (file.clone(), 0)).collect();
    pending.reverse();
    let Some(dir) = searched.first() else {
        return pairs;
    };
    while let Some((file, depth)) = pending.pop() {
        if seen.contains(&file) || seen.len() >= MAX_INCLUDED || depth > 8 {
            continue;
        }
        seen.push(file.clone());
        let Some(text) = read_definition(&file) else {
            continue;
        };
        pairs.extend(exported(&text, dir));
        for line in logical_lines(&text) {
            let Some(rest) = ["include ", "-include ", "sinclude "]
                .iter()
                .find_map(|start| line.trim_start().strip_prefix(start))
            else {
                continue;
            };
            let names = shlex::split(rest.split('#').next().unwrap_or("")).unwrap_or_default();
            for name in names
                .iter()
                .filter(|name| !name.contains(['$', '*', '?', '[']))
            {
                let name = hermes_hooks_core::home::expand_tilde(name);
                for place in searched {
                    pending.push((place.join(&name), depth + 1));
                }
            }
        }
    }
    pairs
}

/// Whether a variable steers what a program loads or runs (cargo's
/// `CARGO_HOME`, git's `GIT_CONFIG_*` and `HOME`, make's `MAKEFLAGS`...:
/// [`crate::dialect::code_env::steers_code`]).
pub(in crate::binding::definitions) fn read_from_environment(name: &str) -> bool {
    crate::dialect::code_env::steers_code(name)
}

/// `line` without a leading `override` / `private`, keeping `export`.
fn without_prefixes_but_export(line: &str) -> &str {
    let mut line = line;
    while let Some(rest) = ["override ", "private "]
        .iter()
        .find_map(|word| line.strip_prefix(word))
    {
        line = rest.trim_start();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exports(text: &str) -> Vec<(String, String)> {
        exported(text, Path::new("/p"))
    }

    #[test]
    fn each_spelling_of_an_export_is_read() {
        let pair = |v: &str| vec![("CARGO_HOME".to_owned(), v.to_owned())];
        assert_eq!(
            exports("export CARGO_HOME = ch\nb: ; cargo b\n"),
            pair("ch")
        );
        assert_eq!(exports("CARGO_HOME := ch\nexport CARGO_HOME\n"), pair("ch"));
        assert_eq!(
            exports("CARGO_HOME = ch\n.EXPORT_ALL_VARIABLES:\n"),
            pair("ch")
        );
        assert_eq!(exports("CARGO_HOME = ch\nexport\n"), pair("ch"));
        assert_eq!(exports("b: export CARGO_HOME = ch\n"), pair("ch"));
        assert_eq!(
            exports("override export CARGO_HOME = $(CURDIR)/ch\n"),
            pair("/p/ch")
        );
        assert_eq!(
            exports("N = CARGO_HOME\nCARGO_HOME = ch\nexport $(N)\n").len(),
            2
        );
        assert_eq!(exports("$(eval export CARGO_HOME=ch)\n"), pair("ch"));
        // One steering code, set: exported from the environment.
        assert_eq!(exports("CARGO_HOME = ch\nb: ; cargo b\n"), pair("ch"));
        assert_eq!(exports("MAKEFLAGS += CARGO_HOME=ch\n")[0], pair("ch")[0]);
    }

    #[test]
    fn what_is_not_exported_stays_out() {
        assert!(exports("TOOL = ch\nb: ; cargo b\n").is_empty());
        assert!(exports("export X\nb:\n\texport CARGO_HOME=ch\n").is_empty());
        assert!(exports("exporter = 1\n").is_empty());
    }
}
