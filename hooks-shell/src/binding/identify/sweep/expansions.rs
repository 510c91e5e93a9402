//! The spellings of a word of a command as the shell may expand it: a
//! leading `~`, `$HOME`, a project variable, `$PWD`, another variable's
//! value or nothing, `${NAME…}` with its operator, a positional parameter
//! `set --` gave.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// The spellings of `word` to look for: a leading `~`, `$HOME` or
/// `${HOME}` as `home`; a project variable or `$PWD` as `cwd`; another
/// leading variable as its value here and as nothing (`$X/tools/g.sh`:
/// `tools/g.sh` too); `${NAME…}` with an operator as NAME's value (case
/// changed for `,,` and `^^`) and its default (`${D:-tools}`: R38-1; a
/// positional parameter's, `${1:-tools/g.sh}`: R45-1).
pub(super) fn expanded(
    word: &str,
    home: Option<&Path>,
    cwd: &Path,
    assigned: &HashMap<&str, &str>,
) -> Vec<String> {
    expanded_at(word, home, cwd, assigned, 0)
}

/// [`expanded`] of a word `depth` values deep (`D=$HOME/bin; "$D/y"`: the
/// value read in turn, R47-1).
fn expanded_at(
    word: &str,
    home: Option<&Path>,
    cwd: &Path,
    assigned: &HashMap<&str, &str>,
    depth: usize,
) -> Vec<String> {
    static LEADING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(?:~|\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*]))(/.*)?$",
        )
        .expect("valid regex")
    });
    let word = word.trim_matches(|c| matches!(c, '=' | ',' | '@' | '%' | '+' | ':'));
    // `~+/tools/g.sh`: bash's `$PWD` (red team round 51, z41).
    if let Some(rest) = word.strip_prefix("~+/") {
        return vec![format!("{}/{rest}", cwd.display()), rest.to_owned()];
    }
    let Some(found) = LEADING.captures(word) else {
        return vec![word.to_owned()];
    };
    let name = found.get(1).or(found.get(3)).map_or("HOME", |m| m.as_str());
    let operator = found.get(2).map_or("", |m| m.as_str());
    let rest = found.get(4).map_or("", |m| m.as_str());
    let value = match name {
        "HOME" => home.map(|home| home.display().to_string()),
        "PWD" | "CLAUDE_PROJECT_DIR" | "CURSOR_PROJECT_DIR" | "CODEX_PROJECT_DIR"
        | "GEMINI_PROJECT_DIR" => Some(cwd.display().to_string()),
        _ => (assigned.get(name))
            .map(|value| (*value).to_owned())
            .or_else(|| std::env::var(name).ok()),
    };
    let value = value.map(|value| match operator {
        ",," => value.to_lowercase(),
        "^^" => value.to_uppercase(),
        _ => value,
    });
    let mut spellings: Vec<String> = Vec::new();
    // `"$@/g.sh"`, `"$*/g.sh"`: every parameter leads any folder there
    // (red team round 52, y23, y24).
    if matches!(name, "@" | "*") && rest.starts_with('/') {
        spellings.push(format!("*{rest}"));
    }
    if let Some(spelled) = value.map(|value| format!("{value}{rest}")) {
        if spelled.starts_with(['$', '~']) && spelled != word && depth < 4 {
            spellings.extend(expanded_at(&spelled, home, cwd, assigned, depth + 1));
        } else {
            spellings.push(spelled);
        }
    }
    // `${PWD:+tools}/g.sh`: the word it is replaced by when set (round 51,
    // z05) is a default too.
    let default = ["-", ":-", "=", ":=", "+", ":+"]
        .iter()
        .find_map(|op| operator.strip_prefix(op));
    // `${X#x}/g.sh`, `${X%%/*}/g.sh`: a value cut when it runs leads any
    // folder there (z13, z24–z26).
    if operator.starts_with(['#', '%', '/', ':']) && default.is_none() && rest.starts_with('/') {
        spellings.push(format!("*{rest}"));
    }
    // `${D:-$HOME/bin}/g.sh`: the default read as a word of its own.
    if let Some(default) = default {
        let default = format!("{default}{rest}");
        match default.starts_with(['$', '~']) && default != word {
            true if depth < 4 => {
                spellings.extend(expanded_at(&default, home, cwd, assigned, depth + 1))
            }
            true => {}
            false => spellings.push(default),
        }
    }
    spellings.extend(rest.strip_prefix('/').map(str::to_owned));
    spellings
}
