//! The programs a fail-closed guard's Bash rule can rule out
//! (`guard_rule.rs`): a short list of builtins and system programs that
//! never run another program, or code, from their arguments, their input or
//! the files they read; `eval` and `sh|bash|dash -c`, whose code is read in
//! turn. A name not on the list, a program found anywhere but `/usr/bin` or
//! `/bin`, a variable that changes what runs: the guard runs. The binding
//! uses the same list: a folder named only as the operand of one that
//! prints nothing does not bind its entry files (`binding/mentions`).

use std::path::Path;

use super::shell_words::Word;

/// What a known program does with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Runs nothing from them (with the argument limits of [`args_run_nothing`]).
    Inert,
    /// `eval`: runs its arguments as shell code.
    Eval,
    /// A shell: runs the code of its `-c`.
    Shell,
}

/// A program word read as one of the known programs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Known<'a> {
    /// Its name, without the folder (`/bin/ls` is `ls`).
    pub(crate) name: &'a str,
    /// What it does with its arguments.
    pub(crate) kind: Kind,
}

/// Builtins of bash and dash that run nothing; bash finds them before it
/// searches `PATH`.
const INERT_BUILTINS: &[&str] = &[
    "echo", "printf", "pwd", "true", "false", ":", "test", "[", "cd",
];

/// System programs that run nothing. Not here, for what they can run or
/// write: `cp`, `mv`, `ln`, `install`, `tee`, `sort` (`--compress-program`,
/// `-o`), `uniq` (an output file), `sed` (`e`, `w`), `find`, `xargs`, `git`
/// (the repository's config names programs), `tar`, `make`, interpreters.
const INERT_PROGRAMS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "mkdir",
    "touch",
    "date",
    "cut",
    "tr",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "whoami",
    "id",
    "uname",
    "sleep",
    "seq",
    "nproc",
    "du",
    "df",
    "printenv",
    "env",
    "sha256sum",
    "md5sum",
    "echo",
    "printf",
    "pwd",
    "true",
    "false",
    "test",
    "[",
];

/// Shells whose `-c` code is read; others read start-up files the agent
/// can write (`zsh`: `~/.zshenv`, `fish`: its config).
const SHELLS: &[&str] = &["bash", "sh", "dash"];

/// The only folders a program may come from.
const SYSTEM_FOLDERS: &[&str] = &["/usr/bin", "/bin"];

/// `word` (a literal program word) as a known program: a plain name or one
/// in a system folder (`/usr/bin/ls`), found there when `PATH` is searched.
pub(crate) fn known(word: &str) -> Option<Known<'_>> {
    let (name, by_path) = match word.rsplit_once('/') {
        Some((folder, name)) if SYSTEM_FOLDERS.contains(&folder) => (name, true),
        Some(_) => return None,
        None => (word, false),
    };
    let kind = if by_path {
        None
    } else if name == "eval" {
        Some(Kind::Eval)
    } else if INERT_BUILTINS.contains(&name) {
        Some(Kind::Inert)
    } else {
        None
    };
    let kind = kind.or_else(|| {
        let kind = if INERT_PROGRAMS.contains(&name) {
            Kind::Inert
        } else if SHELLS.contains(&name) {
            Kind::Shell
        } else {
            return None;
        };
        let from_system = if by_path {
            executable(Path::new(word))
        } else {
            found_in_system_folder(name)
        };
        from_system.then_some(kind)
    })?;
    Some(Known { name, kind })
}

/// Whether an inert program's arguments keep it inert: `printf -v` and
/// `test -v` assign or read a variable whose array index bash evaluates
/// (`'a[$(rm -rf /)]'`), so their options must be literal and not those;
/// `env` with arguments runs a command.
pub(crate) fn args_run_nothing(name: &str, args: &[Word]) -> bool {
    match name {
        "printf" => args
            .first()
            .is_none_or(|first| first.literal && !first.text.starts_with("-v")),
        "test" | "[" => args
            .iter()
            .all(|arg| arg.literal && arg.text != "-v" && arg.text != "-R"),
        "env" => args.is_empty(),
        _ => true,
    }
}

/// Whether an inert program run with `args` prints nothing on its output,
/// which a caller could read as a name or run: `test`, `[`, `true`,
/// `false`, `:`, and `grep` with `-q` (`--quiet`, `--silent`) among options
/// read as grep reads them, before the first operand. Every word up to the
/// `-q` must be literal (an expanded `$X` may be `-e`, making `-q` the
/// pattern).
pub(crate) fn prints_nothing(name: &str, args: &[Word]) -> bool {
    match name {
        "test" | "[" | "true" | "false" | ":" => true,
        "grep" => grep_is_quiet(args),
        _ => false,
    }
}

/// Whether grep's `args` hold `-q`, `--quiet` or `--silent` as an option.
fn grep_is_quiet(args: &[Word]) -> bool {
    /// Short options whose value is the rest of the word or the next word.
    const SHORT_VALUES: &str = "efmABCdD";
    /// Long options that take no value; any other may take the next word.
    const LONG_FLAGS: &[&str] = &[
        "quiet",
        "silent",
        "recursive",
        "dereference-recursive",
        "ignore-case",
        "no-ignore-case",
        "invert-match",
        "word-regexp",
        "line-regexp",
        "count",
        "files-with-matches",
        "files-without-match",
        "only-matching",
        "no-messages",
        "byte-offset",
        "with-filename",
        "no-filename",
        "line-number",
        "initial-tab",
        "null",
        "null-data",
        "text",
        "extended-regexp",
        "fixed-strings",
        "basic-regexp",
        "perl-regexp",
    ];
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if !arg.literal {
            return false;
        }
        let text = arg.text.as_str();
        if text == "--" {
            return false;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            if name == "quiet" || name == "silent" {
                return !value;
            }
            if !value && !LONG_FLAGS.contains(&name) {
                // A value-taking option (or an abbreviation): the next word
                // may be its value.
                rest.next();
            }
            continue;
        }
        let Some(flags) = text.strip_prefix('-').filter(|flags| !flags.is_empty()) else {
            // An operand: options after it are operands too when
            // `POSIXLY_CORRECT` is set.
            return false;
        };
        for (at, flag) in flags.char_indices() {
            if flag == 'q' {
                return true;
            }
            if SHORT_VALUES.contains(flag) {
                if at + flag.len_utf8() == flags.len() {
                    rest.next();
                }
                break;
            }
        }
    }
    false
}

/// Whether assigning `name` may change what runs: the program search path
/// and the dynamic loader's, what a shell reads at start (`BASH_ENV`,
/// `ENV`, `SHELLOPTS`, `PS4`), word splitting.
pub(crate) fn changes_what_runs(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    name.contains("PATH")
        || ["LD_", "DYLD_", "GCONV", "GLIBC_", "BASH", "PS"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        || [
            "ENV",
            "IFS",
            "SHELLOPTS",
            "PROMPT_COMMAND",
            "EXECIGNORE",
            "GLOBIGNORE",
            "POSIXLY_CORRECT",
        ]
        .contains(&name.as_str())
}

/// Whether bash, searching `PATH` for `name`, finds it in a system folder
/// first. A relative or empty `PATH` entry (the current folder) makes it
/// unsure; so does an entry that cannot be looked into.
fn found_in_system_folder(name: &str) -> bool {
    let Some(search) = std::env::var_os("PATH") else {
        return false;
    };
    for folder in std::env::split_paths(&search) {
        if !folder.is_absolute() {
            return false;
        }
        let candidate = folder.join(name);
        match std::fs::metadata(&candidate) {
            Ok(_) => return executable(&candidate) && is_system_folder(&folder),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) => {}
            Err(_) => return false,
        }
    }
    false
}

fn is_system_folder(folder: &Path) -> bool {
    let Ok(folder) = folder.canonicalize() else {
        return false;
    };
    SYSTEM_FOLDERS
        .iter()
        .any(|system| Path::new(system).canonicalize().is_ok_and(|s| s == folder))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
