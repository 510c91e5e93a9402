//! How a shell and the kernel read the paths of a host variable's value
//! (red team rounds 18 and 19): `~` and `~name` as homes, words starting
//! after shell operators, and `..` taken after the links before it.

use std::path::{Path, PathBuf};

/// `value` with each word's leading `~/` (or a lone `~`) spelled as `home`.
/// A `~name/` is that user's home (red team round 19, R19-1), and a word
/// starts after shell punctuation too (`true;~/x`: R19-2); a `~name` no
/// user has is left as written, a relative word.
pub(super) fn with_home(value: &str, home: &Path) -> String {
    let home = home.to_string_lossy();
    let mut out = String::with_capacity(value.len());
    let mut at_word_start = true;
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        if c == '~' && at_word_start {
            let name_end = rest[1..]
                .find(|c: char| matches!(c, '/' | ':' | '=') || c.is_whitespace())
                .map_or(rest.len(), |at| at + 1);
            let name = &rest[1..name_end];
            let named = if name.is_empty() {
                Some(home.to_string())
            } else {
                nix::unistd::User::from_name(name)
                    .ok()
                    .flatten()
                    .map(|user| user.dir.to_string_lossy().into_owned())
            };
            if let Some(dir) = named {
                out.push_str(&dir);
                rest = &rest[name_end..];
                at_word_start = false;
                continue;
            }
        }
        out.push(c);
        at_word_start = c.is_whitespace()
            || matches!(
                c,
                ':' | '=' | '"' | '\'' | ';' | '&' | '|' | '(' | ')' | '<' | '>' | '`'
            );
        rest = &rest[len..];
    }
    out
}

/// `path` with each `..` taken where the kernel takes it, after the links
/// before it (`<outside>/in/../x` with `in -> <project>/a`: red team round
/// 19, R19-3); `None` when a folder before a `..` does not exist (then
/// nothing is reached).
pub(super) fn physical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        if part == std::path::Component::ParentDir {
            out = std::fs::canonicalize(&out).ok()?;
            out.pop();
        } else {
            out.push(part);
        }
    }
    Some(out)
}

/// Variables a shell sets itself whatever its environment holds: what they
/// expand to is not known here, so a word using them is left as written.
const SHELL_SET: &[&str] = &[
    "OLDPWD",
    "BASH_SOURCE",
    "BASH_ARGV",
    "BASH_ARGV0",
    "BASH_COMMAND",
    "BASH_REMATCH",
    "BASH_EXECUTION_STRING",
    "FUNCNAME",
    "LINENO",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "PPID",
    "BASHPID",
    "SHLVL",
    "UID",
    "EUID",
    "HOSTNAME",
    "BASH",
    "GROUPS",
    "DIRSTACK",
    "PIPESTATUS",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "HISTFILE",
    "_",
];

/// `value` with each plain `$NAME` and `${NAME}` a shell would expand from
/// the environment written as it expands (red team round 21, R21a-5:
/// `-Dmaven.repo.local=${HOME}/.m2` names no project file): a variable
/// `lookup` finds by its value, `PWD` as `here` (the folder the hook runs
/// in), any other as empty. What is not read so stays as written (`$1`,
/// `${X:-y}`, `$(cmd)`, `$BASH_SOURCE`), for the callers to take as the
/// project's; so does what a value brings in after three rounds.
pub(super) fn expand_parameters(
    value: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    here: &Path,
) -> String {
    static PLAIN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
            .expect("valid regex")
    });
    let mut text = value.to_owned();
    for _ in 0..3 {
        let expanded = PLAIN.replace_all(&text, |found: &regex::Captures<'_>| {
            let name = found
                .get(1)
                .or_else(|| found.get(2))
                .map_or("", |m| m.as_str());
            if name == "PWD" {
                here.to_string_lossy().into_owned()
            } else if SHELL_SET.contains(&name) {
                found[0].to_owned()
            } else {
                lookup(name).unwrap_or_default()
            }
        });
        if expanded == text {
            break;
        }
        text = expanded.into_owned();
    }
    text
}
