//! The variables a justfile puts in its recipes' environment: `export NAME
//! := value`, every variable under `set export`, a recipe's `$NAME`
//! parameter, and the `.env` file `set dotenv-load` reads (red team round
//! 72: `export CARGO_HOME := "ch"` made a recipe's cargo read
//! `ch/config.toml`, unbound). A value other than one string literal
//! (`` `cmd` ``, `env_var(…)`, `a + b`) and a parameter (its argument
//! picks it) are computed when just runs: `$(:)`.

use std::path::Path;

/// A value this reading does not work out ([`exported`]).
const COMPUTED: &str = "$(:)";

/// The `(name, value)` pairs the justfile `text` (in `dir`) exports; an
/// error when it loads them from a file it names by a computed value.
pub(super) fn exported(text: &str, dir: &Path) -> Result<Vec<(String, String)>, String> {
    let settings = |name: &str| {
        text.lines().any(|line| {
            let line = line.trim_end();
            line == format!("set {name}")
                || line
                    .strip_prefix(&format!("set {name}"))
                    .is_some_and(|rest| rest.trim_start().starts_with(":= true"))
        })
    };
    let every = settings("export");
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|line| !line.starts_with([' ', '\t'])) {
        let line = line.split(" #").next().unwrap_or(line).trim_end();
        if let Some((left, value)) = line.split_once(":=") {
            let mut words = left.split_whitespace();
            let (export, name) = match (words.next(), words.next(), words.next()) {
                (Some("export"), Some(name), None) => (true, name),
                (Some(name), None, None) => (false, name),
                _ => continue,
            };
            if (export || every) && is_name(name) {
                pairs.push((name.to_owned(), literal(value.trim())));
            }
            continue;
        }
        // `build $CARGO_HOME="ch" target:`: a recipe's exported parameter.
        if let Some((head, _)) = line.split_once(':') {
            for word in head.split_whitespace().skip(1) {
                let name = word.trim_start_matches(['+', '*']);
                if let Some(name) = name.strip_prefix('$') {
                    let name = name.split('=').next().unwrap_or(name);
                    if is_name(name) {
                        pairs.push((name.to_owned(), COMPUTED.to_owned()));
                    }
                }
            }
        }
    }
    // `set dotenv-command := "cat e.txt"`: variables a command prints
    // (round 73).
    if text
        .lines()
        .any(|line| line.trim_start().starts_with("set dotenv-command"))
    {
        return Err(
            "its justfile loads variables a command prints (`set dotenv-command`)".to_owned(),
        );
    }
    // `set dotenv-load`, `set dotenv-filename := "x"`, `dotenv-path`.
    let named = text.lines().find_map(|line| {
        let rest = ["set dotenv-filename", "set dotenv-path"]
            .iter()
            .find_map(|start| line.strip_prefix(start))?;
        Some(literal(rest.trim_start().strip_prefix(":=")?.trim()))
    });
    let dotenv = match named {
        Some(name) => Some(name),
        None => settings("dotenv-load").then(|| ".env".to_owned()),
    };
    if let Some(name) = dotenv {
        if name == COMPUTED {
            return Err("its justfile loads variables from a file named when just runs".to_owned());
        }
        pairs.extend(super::shell_env::env_file(&dir.join(name))?);
    }
    Ok(pairs)
}

/// The justfile `text`'s lines, a script recipe's body (its first line a
/// `#!`, or the recipe marked `[script]`) as one line of its lines joined,
/// indented: it runs as one script, so what a line exports reaches the
/// lines after it (round 73, EV-J09: `export CARGO_HOME=ch` then `cargo
/// build`, each read alone).
pub(super) fn lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut script = false;
    let mut marked = false;
    let mut body_started = false;
    for line in text.lines() {
        let indented = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if !indented {
            let trimmed = line.trim();
            if trimmed.starts_with("[script") {
                marked = true;
            } else if !trimmed.is_empty() && !trimmed.starts_with(['#', '[']) {
                // A recipe's header (or another line): a body may follow.
                script = marked;
                marked = false;
                body_started = false;
            }
            out.push(line.to_owned());
            continue;
        }
        if !body_started {
            body_started = true;
            script |= line.trim_start().starts_with("#!");
            out.push(line.to_owned());
            continue;
        }
        match (script, out.last_mut()) {
            (true, Some(last)) => {
                last.push('\n');
                last.push_str(line.trim_start());
            }
            _ => out.push(line.to_owned()),
        }
    }
    out
}

/// The variables `just`'s arguments `args` (run in `dir`) give it:
/// `NAME=value` words before the recipe, `--set NAME value`, and the
/// lines of a `--dotenv-filename` / `--dotenv-path` file (`-F`, `-E`); an
/// error when that file cannot be read whole.
pub(super) fn given(args: &[String], dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--set" => {
                if let (Some(name), Some(value)) = (words.next(), words.next()) {
                    pairs.push((name.clone(), value.clone()));
                }
            }
            "-F" | "--dotenv-filename" | "-E" | "--dotenv-path" => {
                let Some(file) = words.next() else { continue };
                pairs.extend(super::shell_env::env_file(&dir.join(file))?);
            }
            _ => {
                if let Some((name, value)) = word.split_once('=')
                    && is_name(name)
                {
                    pairs.push((name.to_owned(), value.to_owned()));
                }
            }
        }
    }
    Ok(pairs)
}

/// Whether `word` is a variable name a shell can be given.
fn is_name(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with(|c: char| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The text of `value` when it is one string literal, else [`COMPUTED`].
fn literal(value: &str) -> String {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
            && !inner.contains([quote, '\\'])
        {
            return inner.to_owned();
        }
    }
    COMPUTED.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exports(text: &str) -> Vec<(String, String)> {
        exported(text, Path::new("/nonexistent")).expect("read")
    }

    #[test]
    fn each_way_a_justfile_exports_is_read() {
        let pair = |v: &str| vec![("CARGO_HOME".to_owned(), v.to_owned())];
        assert_eq!(
            exports("export CARGO_HOME := \"ch\"\nb:\n    cargo b\n"),
            pair("ch")
        );
        assert_eq!(exports("set export\nCARGO_HOME := 'ch'\n"), pair("ch"));
        assert_eq!(
            exports("set export := true\nCARGO_HOME := `pwd`\n"),
            pair(COMPUTED)
        );
        assert_eq!(
            exports("b $CARGO_HOME=\"ch\":\n    cargo b\n"),
            pair(COMPUTED)
        );
    }

    #[test]
    fn what_is_not_exported_stays_out() {
        assert!(exports("CARGO_HOME := \"ch\"\nb:\n    export X=1\n").is_empty());
        assert!(exports("b target:\n    cargo b\n").is_empty());
    }
}
