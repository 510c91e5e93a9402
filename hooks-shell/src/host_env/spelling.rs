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

/// Variables a shell sets itself whatever its environment holds (bash's
/// `BASH*` too), and those the runner sets for the hook: what they expand
/// to is not the host's value, so a word using them is left as written.
const NOT_THE_HOSTS: &[&str] = &[
    "OLDPWD",
    "FUNCNAME",
    "LINENO",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "PPID",
    "SHLVL",
    "UID",
    "EUID",
    "HOSTNAME",
    "HOSTTYPE",
    "MACHTYPE",
    "OSTYPE",
    "GROUPS",
    "DIRSTACK",
    "PIPESTATUS",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "OPTERR",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "HISTFILE",
    "HISTCMD",
    "HISTSIZE",
    "HISTFILESIZE",
    "IFS",
    "MAILCHECK",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "SHELLOPTS",
    "COMP_WORDBREAKS",
    "TMPDIR",
    "HERMES_HOME",
    "CLAUDE_ENV_FILE",
    "CURSOR_VERSION",
    "_",
];

/// Whether `$name` expands, where the hook runs, to something other than
/// the host's value of `name`.
fn not_the_hosts(name: &str) -> bool {
    NOT_THE_HOSTS.contains(&name)
        || name.starts_with("BASH")
        || ["_PROJECT_DIR", "_PLUGIN_ROOT", "_PLUGIN_DATA"]
            .iter()
            .any(|ending| name.ends_with(ending))
}

/// `value` with each plain `$NAME` and `${NAME}` outside single quotes
/// written as a shell expands it once (red team round 21, R21a-5:
/// `-Dmaven.repo.local=${HOME}/.m2` names no project file): `PWD` as
/// `here` (the folder the hook runs in), a variable `lookup` finds (the
/// host's, and passed to the hook) by its value, an unset one as empty.
/// What is not read so stays as written, for the callers to take as the
/// project's: `$1`, `${X:-y}`, `$(cmd)`, a variable the shell or the runner
/// sets (`$OSTYPE`, `$CLAUDE_PROJECT_DIR`: red team round 22, R22a-1,
/// R22a-2), `'$X'` (R22a-3), and what a value brings in (`A='$B'`: a shell
/// does not expand it again).
pub(super) fn expand_parameters(
    value: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    here: &Path,
) -> String {
    let mut out = String::with_capacity(value.len());
    let (mut single, mut double) = (false, false);
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        if c == '$' && !single {
            let (name, used) = parameter(&rest[1..]);
            if let Some(name) = name.filter(|name| !not_the_hosts(name) || *name == "PWD") {
                let expanded = match name {
                    "PWD" => here.to_string_lossy().into_owned(),
                    _ => lookup(name).unwrap_or_default(),
                };
                out.push_str(&expanded);
                rest = &rest[1 + used..];
                continue;
            }
        }
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The name of a plain parameter at the start of `text` (`NAME`, `{NAME}`)
/// and how many bytes it takes; no name for any other form.
fn parameter(text: &str) -> (Option<&str>, usize) {
    let name_len = |text: &str| {
        let first = text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !first {
            return 0;
        }
        text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len())
    };
    if let Some(braced) = text.strip_prefix('{') {
        let len = name_len(braced);
        if len > 0 && braced[len..].starts_with('}') {
            return (Some(&braced[..len]), len + 2);
        }
        return (None, 0);
    }
    let len = name_len(text);
    ((len > 0).then(|| &text[..len]), len)
}
