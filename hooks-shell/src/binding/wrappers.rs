//! The programs that run the rest of their command line (`env`, `nice`,
//! `timeout 5`, `nohup`, `time`, `exec`, `command`, `stdbuf`, `setsid`,
//! `ionice`) and `NAME=value` assignments before a command, read with each
//! program's own options ([`super::getopt`]): what runs after them, the
//! folders `env -C` / `--chdir` run it in, the words `env -S` splits.

use std::path::{Path, PathBuf};

use super::getopt::{self, Arg, Grammar, Opt, Role, Takes};
use super::identify::base_name;

const fn flag(name: &'static str) -> Opt {
    (name, Takes::Nothing, Role::Other)
}

const fn value(name: &'static str) -> Opt {
    (name, Takes::Value, Role::Other)
}

const fn wrapper(short: &'static [Opt], long: &'static [Opt]) -> Grammar {
    Grammar {
        short,
        long,
        permute: false,
    }
}

/// GNU coreutils `env`.
const ENV: Grammar = wrapper(
    &[
        flag("i"),
        flag("0"),
        ("u", Takes::Value, Role::Unset),
        ("C", Takes::Value, Role::Dir),
        ("S", Takes::Value, Role::Split),
        flag("v"),
    ],
    &[
        flag("ignore-environment"),
        flag("null"),
        ("unset", Takes::Value, Role::Unset),
        ("chdir", Takes::Value, Role::Dir),
        ("split-string", Takes::Value, Role::Split),
        flag("debug"),
        ("block-signal", Takes::Attached, Role::Other),
        ("default-signal", Takes::Attached, Role::Other),
        ("ignore-signal", Takes::Attached, Role::Other),
        flag("list-signal-handling"),
    ],
);

/// The wrappers, by name, and whether a first operand (a duration) comes
/// before the command.
const WRAPPERS: &[(&str, Grammar, bool)] = &[
    ("env", ENV, false),
    (
        "nice",
        wrapper(&[value("n")], &[value("adjustment")]),
        false,
    ),
    (
        "timeout",
        wrapper(
            &[value("s"), value("k"), flag("v"), flag("f"), flag("p")],
            &[
                value("signal"),
                value("kill-after"),
                flag("verbose"),
                flag("foreground"),
                flag("preserve-status"),
            ],
        ),
        true,
    ),
    ("nohup", wrapper(&[], &[]), false),
    (
        "time",
        wrapper(
            &[
                flag("p"),
                value("f"),
                value("o"),
                flag("a"),
                flag("v"),
                flag("q"),
            ],
            &[
                value("format"),
                value("output"),
                flag("append"),
                flag("verbose"),
                flag("portability"),
                flag("quiet"),
            ],
        ),
        false,
    ),
    (
        "exec",
        wrapper(&[flag("c"), flag("l"), value("a")], &[]),
        false,
    ),
    (
        "command",
        wrapper(&[flag("p"), flag("v"), flag("V")], &[]),
        false,
    ),
    // `builtin exec make`, `builtin eval …` (red team round 62).
    ("builtin", wrapper(&[], &[]), false),
    (
        "stdbuf",
        wrapper(
            &[value("i"), value("o"), value("e")],
            &[value("input"), value("output"), value("error")],
        ),
        false,
    ),
    (
        "setsid",
        wrapper(
            &[flag("c"), flag("f"), flag("w")],
            &[flag("ctty"), flag("fork"), flag("wait")],
        ),
        false,
    ),
    (
        "ionice",
        wrapper(
            &[value("c"), value("n"), flag("t")],
            &[value("class"), value("classdata"), flag("ignore")],
        ),
        false,
    ),
];

/// Whether `name` (as [`base_name`] gives it) is one of the wrappers.
pub(crate) fn is_wrapper(name: &str) -> bool {
    WRAPPERS.iter().any(|(wrapper, ..)| *wrapper == name)
}

/// What [`unwrap`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Unwrapped {
    /// The command that runs after the wrappers.
    pub words: Vec<String>,
    /// The folders it runs in, each relative to the one before
    /// (`env -C a -C b`), starting from the shell's.
    pub chdir: Vec<String>,
    /// The `NAME=value` assignments before it (and `env`'s).
    pub assignments: Vec<(String, String)>,
    /// Why the reading is unsure (bind the hook tree).
    pub unsure: Option<String>,
}

/// The most wrappers read in front of one command.
const MAX_WRAPPERS: usize = 16;

/// `words` read through the wrappers before the program that runs.
pub(crate) fn unwrap(words: &[String]) -> Unwrapped {
    let mut out = Unwrapped::default();
    let mut words = words.to_vec();
    for _ in 0..MAX_WRAPPERS {
        let Some(first) = words.first() else { break };
        if let Some((name, value)) = assignment(first) {
            out.assignments.push((name, value));
            words.remove(0);
            continue;
        }
        let name = base_name(first);
        let Some((_, grammar, duration)) = WRAPPERS.iter().find(|(w, ..)| *w == name) else {
            break;
        };
        let mut args = &words[1..];
        // `nice -10 cmd`, `nice --5 cmd`: the old spelling of `-n`.
        if name == "nice"
            && args.first().is_some_and(|a| {
                let digits = a.trim_start_matches('-');
                a.starts_with('-')
                    && !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
            })
        {
            args = &args[1..];
        }
        let parsed = getopt::parse(grammar, args);
        if let Some(why) = parsed.unsure {
            out.unsure.get_or_insert(format!("{name}: {why}"));
            // Best effort: the first word that is no option is the command.
            let at = args
                .iter()
                .position(|w| !w.starts_with('-') && assignment(w).is_none())
                .unwrap_or(args.len());
            words = args[at..].to_vec();
            continue;
        }
        let mut split = Vec::new();
        for arg in parsed.args {
            match arg {
                Arg::Opt(Role::Dir, dir) => out.chdir.push(dir),
                Arg::Opt(Role::Split, text) => match split_string(&text) {
                    Some(words) => split = words,
                    None => {
                        out.unsure
                            .get_or_insert(format!("env -S {text:?} cannot be read exactly"));
                    }
                },
                _ => {}
            }
        }
        let mut rest = parsed.rest;
        if name == "env" {
            let at = rest
                .iter()
                .position(|w| assignment(w).is_none())
                .unwrap_or(rest.len());
            for word in rest.drain(..at) {
                out.assignments.extend(assignment(&word));
            }
            if !split.is_empty() {
                // Read again: the split words may hold options and assignments.
                split.insert(0, first.clone());
                split.extend(rest);
                words = split;
                continue;
            }
        } else if *duration && !rest.is_empty() {
            rest.remove(0);
        }
        words = rest;
    }
    out.words = words;
    out
}

/// The folder `cd` / `pushd` with `args` changes to (relative to where it
/// is; `~` when none), or why it is not known (`cd -`, `pushd +1`).
pub(crate) fn change_folder(args: &[String]) -> Result<String, String> {
    let mut args = args.iter().skip_while(|a| {
        a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "LPe@n".contains(c))
    });
    let dir = match args.next().map(String::as_str) {
        Some("--") => args.next().map(String::as_str),
        other => other,
    };
    match dir {
        None => Ok("~".to_owned()),
        Some(dir) if dir == "-" || dir.starts_with(['+', '-']) || computed(dir) => Err(format!(
            "it changes to a folder known only when it runs ({dir})"
        )),
        Some(dir) => Ok(dir.to_owned()),
    }
}

/// How the folder a command runs in may be written ([`places`] reads it).
/// `$(pwd -P)`, `$(realpath .)`: the same folder, its links resolved
/// (round 66, V3: refused as computed).
pub(crate) const HERE: [&str; 11] = [
    "${PWD}",
    "$PWD",
    "$(pwd)",
    "`pwd`",
    "~+",
    "$(pwd -P)",
    "$(pwd -L)",
    "`pwd -P`",
    "$(realpath .)",
    "$(readlink -f .)",
    "$(cd . && pwd)",
];

/// How the top of the git checkout it runs in may be written.
const TOP: [&str; 2] = [
    "$(git rev-parse --show-toplevel)",
    "`git rev-parse --show-toplevel`",
];

/// Whether `value` (a path) holds a name or command the reading cannot
/// expand, the folder it runs in ([`HERE`]) and its checkout's top aside.
pub(crate) fn computed(value: &str) -> bool {
    let rest = HERE
        .iter()
        .chain(&TOP)
        .find_map(|here| value.strip_prefix(here))
        .unwrap_or(value);
    rest.contains(['$', '`']) || expands(rest)
}

/// Whether the shell expands `word` to other words: a glob (`?`, `*`,
/// `[…]`) or a brace expansion (`{a,b}`, `{1..3}`: round 66).
pub(crate) fn expands(word: &str) -> bool {
    let braces = word
        .find('{')
        .and_then(|open| {
            word[open..]
                .find('}')
                .map(|close| &word[open..open + close])
        })
        .is_some_and(|inside| inside.contains(',') || inside.contains(".."));
    braces || word.contains(['*', '?', '['])
}

/// `$(git rev-parse --show-toplevel)`, also `git -C FOLDER` with a folder
/// written out, `.` or the project's variable (captured).
static GIT_TOP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r#"(?:\$\(|`)git (?:-C ["']?(/[^"'`$()]*|\.|\$\{?(?:(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR|PWD)\}?)["']? )?rev-parse --show-toplevel(?:\)|`)"#,
    )
    .expect("valid regex")
});

/// `word` with a leading name of the folder it runs in (`$(pwd)/x`,
/// [`HERE`]) or of its checkout's top (`$(git rev-parse
/// --show-toplevel)/x`, also with `-C` and a folder written out) as that
/// path, `base` the folder: `bash "$(pwd)/hooks/run.sh" check.sh` is read
/// as the literal path would be (issue 27 audit: the script argument the
/// wrapper ran was bound only with `$CLAUDE_PROJECT_DIR`). `None` for
/// any other word.
pub(crate) fn here_expanded(word: &str, base: &Path) -> Option<String> {
    // `${CLAUDE_PROJECT_DIR:-$(pwd)}/x`, `${PWD:=.}`: set for the hook, or
    // the default, the folder it runs in either way (round 73, H5).
    static PROJECT_DEFAULT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"^\$\{(?:(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR|PWD):?[-=](?:\$\(pwd\)|`pwd`|\$PWD|\.|\$\{PWD\})\}"#,
        )
        .expect("valid regex")
    });
    if let Some(found) = PROJECT_DEFAULT.find(word) {
        let rest = &word[found.end()..];
        return (rest.is_empty() || rest.starts_with('/')).then(|| {
            base.join(rest.trim_start_matches('/'))
                .display()
                .to_string()
        });
    }
    let (rest, folder) = match GIT_TOP
        .captures(word)
        .filter(|found| found.get(0).is_some_and(|m| m.start() == 0) && found.get(1).is_some())
    {
        Some(found) => {
            // `$CLAUDE_PROJECT_DIR`, `$PWD`: the folder it runs in.
            let named = match found[1].starts_with('$') {
                true => base.to_path_buf(),
                false => base.join(&found[1]),
            };
            (&word[found[0].len()..], checkout_top(&named))
        }
        None => {
            let tops = TOP.iter().map(|name| (name, checkout_top(base)));
            HERE.iter()
                .map(|name| (name, base.to_path_buf()))
                .chain(tops)
                .find_map(|(name, folder)| Some((word.strip_prefix(name)?, folder)))?
        }
    };
    (rest.is_empty() || rest.starts_with('/')).then(|| {
        folder
            .join(rest.trim_start_matches('/'))
            .display()
            .to_string()
    })
}

/// `text` without the names of the folder it runs in and of its
/// checkout's top ([`HERE`], `$(git rev-parse --show-toplevel)`, also
/// with `-C` a folder written out or the project's variable), which the
/// reading takes as paths ([`here_expanded`]).
pub(crate) fn without_here_forms(text: &str) -> String {
    let mut text = GIT_TOP.replace_all(text, "").into_owned();
    for here in HERE {
        text = text.replace(here, "");
    }
    text
}

/// The top of the git checkout `base` is in (the nearest folder up
/// holding a `.git`), else `base`.
fn checkout_top(base: &Path) -> PathBuf {
    base.ancestors()
        .find(|folder| folder.join(".git").exists())
        .unwrap_or(base)
        .to_path_buf()
}

/// The folders a command runs in: `base`, then each of `chdir` in turn
/// ([`places`]); at most eight.
pub(crate) fn run_folders(base: &Path, chdir: &[String]) -> Vec<PathBuf> {
    let mut dirs = vec![base.to_path_buf()];
    for dir in chdir {
        dirs = dirs.iter().flat_map(|from| places(from, dir)).collect();
        dirs.dedup();
        dirs.truncate(8);
    }
    dirs
}

/// Where `value` (a path option's or `cd`'s value) leads from `base`: a
/// value starting with `~` may be the home folder (the shell expanded an
/// unquoted word) or a folder named `~` (quoted, or attached to its option):
/// both, as this reading cannot tell.
pub(crate) fn places(base: &Path, value: &str) -> Vec<PathBuf> {
    let literal = base.join(value);
    // `make -C "$PWD"`: the folder it runs in (round 58, rs12: read as a
    // folder named `$PWD`, the project's Makefile ran unbound).
    let tops = TOP.iter().map(|name| (name, checkout_top(base)));
    let here = HERE
        .iter()
        .map(|name| (name, base.to_path_buf()))
        .chain(tops)
        .find_map(|(name, folder)| {
            let rest = value.strip_prefix(name)?;
            (rest.is_empty() || rest.starts_with('/'))
                .then(|| folder.join(rest.trim_start_matches('/')))
        });
    if let Some(here) = here {
        return vec![here, literal];
    }
    if !value.starts_with('~') {
        return vec![literal];
    }
    let expanded = base.join(hermes_hooks_core::home::expand_tilde(value));
    if expanded == literal {
        vec![literal]
    } else {
        vec![expanded, literal]
    }
}

/// `NAME=value` when `word` is an assignment.
pub(crate) fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// `env -S`'s words when its own escapes (`\_`, `\c`, `${NAME}`, `#`) are
/// absent: then it splits as a shell would.
fn split_string(text: &str) -> Option<Vec<String>> {
    if text.contains(['\\', '$', '#']) {
        return None;
    }
    shlex::split(text)
}

#[cfg(test)]
mod tests {
    use super::unwrap;

    fn read(line: &str) -> super::Unwrapped {
        unwrap(&shlex::split(line).expect("split"))
    }

    #[test]
    fn wrappers_are_read_with_their_options() {
        for (line, chdir) in [
            ("env -C tools make x", vec!["tools"]),
            ("env --chdir=tools make x", vec!["tools"]),
            ("env --ch tools make x", vec!["tools"]),
            ("env -iCtools A=1 make x", vec!["tools"]),
            ("env -u NAME -C a env -C b make x", vec!["a", "b"]),
            ("env -S'-C tools make' x", vec!["tools"]),
            ("FOO=1 nice -n 5 timeout -s KILL 5 nohup make x", vec![]),
            ("nice -10 time -p stdbuf -oL setsid -f make x", vec![]),
            ("exec -a name command -p ionice -c 3 make x", vec![]),
        ] {
            let read = read(line);
            assert_eq!(read.words, vec!["make", "x"], "{line}: {read:?}");
            assert_eq!(read.chdir, chdir, "{line}");
            assert_eq!(read.unsure, None, "{line}");
        }
        assert_eq!(
            read("A=1 env B=2 make").assignments,
            vec![("A".into(), "1".into()), ("B".into(), "2".into())]
        );
    }

    #[test]
    fn pwd_is_the_folder_it_runs_in() {
        let base = std::path::Path::new("/p");
        assert_eq!(super::places(base, "$PWD")[0], base);
        assert_eq!(super::places(base, "${PWD}/web")[0], base.join("web"));
        assert_eq!(super::places(base, "$PWDX"), vec![base.join("$PWDX")]);
    }

    #[test]
    fn what_cannot_be_read_is_unsure() {
        for line in [
            "env --frob tools make",
            "env -S'make -f $X'",
            "timeout --nope 5 make",
        ] {
            assert!(read(line).unsure.is_some(), "{line}");
        }
    }
}
