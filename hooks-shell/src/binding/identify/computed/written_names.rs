//! The names [`super::written`] compares: what a command runs, what it
//! writes, and a path as both are compared.

use std::path::Path;

use super::base_name;

/// Programs that only read, show or test the files they name, or change
/// their names, modes or times, and the shell's own words: they write no
/// file's content, and one naming a file the text writes hands it no code.
const READS: &[&str] = &[
    "[",
    "[[",
    "test",
    "ls",
    "stat",
    "file",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "jq",
    "echo",
    "printf",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "readlink",
    "realpath",
    "dirname",
    "basename",
    "chmod",
    "chown",
    "chgrp",
    "mkdir",
    "rm",
    "rmdir",
    "cd",
    "pushd",
    "popd",
    "exit",
    "return",
    "true",
    "false",
    "diff",
    "cmp",
    "touch",
    "case",
    "if",
    "elif",
    "for",
    "while",
    "until",
    "select",
    "read",
    "xargs",
];

/// Besides [`READS`], programs whose words write no file's content: ones
/// the reading reads as code or as a command (`eval`, `xargs`, `npx`), a
/// compiler (its output comes from the sources it names, which the binding
/// reads: `identify::mentions`), the shell's declarations.
const LEAVE_ALSO: &[&str] = &[
    "sha512sum",
    "cksum",
    "b2sum",
    "command",
    "type",
    "which",
    "hash",
    "shellcheck",
    "du",
    "export",
    "local",
    "declare",
    "readonly",
    "unset",
    "shift",
    "set",
    "wait",
    "sleep",
    "esac",
    "in",
    "then",
    "else",
    "fi",
    "do",
    "done",
    "function",
    "!",
    "{",
    "}",
    "]]",
    "let",
    "getopts",
    "eval",
    "trap",
    "exec",
    "builtin",
    "find",
    "time",
    "nohup",
    "env",
    "timeout",
    "nice",
    "ionice",
    "stdbuf",
    "setsid",
    "watch",
    "npx",
    "uv",
    "uvx",
    "poetry",
    "pipenv",
    "bunx",
    "pnpm",
    "yarn",
    "npm",
    "cc",
    "gcc",
    "clang",
    "c++",
    "g++",
    "clang++",
    "tcc",
    "rustc",
    "go",
    "javac",
    "zig",
];

/// Besides [`READS`], programs that only pass on what they read (unless a
/// pipe feeds what they print to a shell), or show it (`notify-send Hook
/// "see /tmp/lint.log"`: a message naming a written file runs nothing).
const SHOW_ALSO: &[&str] = &[
    "tee",
    ":",
    "sort",
    "uniq",
    "cut",
    "tr",
    "notify-send",
    "logger",
];

/// Whether `program` changes no file's content through its words.
pub(super) fn leaves_content(program: &str) -> bool {
    READS.contains(&program) || LEAVE_ALSO.contains(&program)
}

/// Whether `program`, naming a file the text writes, hands it no code.
pub(super) fn only_shows(program: &str) -> bool {
    READS.contains(&program) || SHOW_ALSO.contains(&program)
}

/// `git`'s commands that only read.
pub(super) const GIT_READS: &[&str] = &[
    "diff",
    "log",
    "show",
    "status",
    "ls-files",
    "rev-parse",
    "cat-file",
    "blame",
    "grep",
    "describe",
    "config",
    "remote",
    "branch",
    "merge-base",
    "hash-object",
];

/// Options of an interpreter that take the next word as their value
/// (`bash -o errexit F`, `sh +o nounset F`, `python3 -W ignore F`).
const VALUED_OPTIONS: &[&str] = &[
    "-o",
    "+o",
    "-O",
    "+O",
    "-W",
    "-X",
    "-I",
    "-r",
    "--require",
    "--import",
    "--loader",
    "--rcfile",
    "--init-file",
];

/// Whether a file written as `target` (a word, as written) is the file
/// `run` names (a `script`: by its path, or an interpreter's script): the
/// same path, a word holding it (`of=/tmp/y.sh`, awk's `print >
/// "/tmp/y.sh"`); a program run by its bare name from `PATH`, a path
/// ending in that name.
pub(super) fn writes(target: &str, run: &str, script: bool) -> bool {
    match script {
        true => {
            let folder = target.trim_end_matches('/');
            // `sh /tmp/y.s?`: a pattern matching it.
            let pattern =
                run.contains(['*', '?', '[']) && crate::binding::globbing::wildcard(run, target);
            pattern
                || target == run
                || (run.contains(['/', '.']) && target.contains(run))
                // Into a folder: `cp a /tmp/d/`, then `sh /tmp/d/a`.
                || (!folder.is_empty() && folder != "." && run.starts_with(&format!("{folder}/")))
        }
        false => {
            target.contains('/')
                && Path::new(target.trim_matches(['"', '\'']))
                    .file_name()
                    .is_some_and(|name| name == run)
        }
    }
}

/// The end of a computed word (as shown) written out after its last
/// expansion (`$D/y.sh` → `/y.sh`), quotes aside; empty when it ends in one.
pub(super) fn written_end(word: &str) -> String {
    let plain: String = word.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let after = match (plain.rfind('$'), plain.rfind('`')) {
        (Some(dollar), Some(tick)) if tick > dollar => &plain[tick + 1..],
        (None, Some(tick)) => &plain[tick + 1..],
        (Some(dollar), _) => {
            let rest = &plain[dollar + 1..];
            if let Some(inner) = rest.strip_prefix('{') {
                inner.split_once('}').map_or("", |(_, after)| after)
            } else if rest.starts_with('(') {
                rest.rfind(')').map_or("", |close| &rest[close + 1..])
            } else {
                rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
            }
        }
        (None, None) => plain.as_str(),
    };
    match after.contains(['$', '`']) {
        true => String::new(),
        false => after.to_owned(),
    }
}

/// The words of `words` (a command, its program first) that name code it
/// runs: the program, an interpreter's script, `.`/`source`'s file, `make
/// -f`'s makefile.
pub(super) fn run_words(words: &[String]) -> Vec<&String> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = base_name(program);
    let sources = matches!(program.as_str(), "." | "source");
    let mut runs = match sources {
        true => Vec::new(),
        false => vec![program],
    };
    if super::super::INTERPRETERS.contains(&name.as_str()) || sources {
        // `python3 -c CODE`, `sh -c TEXT`: code, read where it stands.
        let inline = super::inline_code::code_of(&name, args).is_some()
            || args
                .iter()
                .take_while(|word| word.starts_with('-'))
                .any(|word| super::short_c(word));
        if !inline {
            runs.extend(script_at(args).map(|at| &args[at]));
        }
    } else if matches!(name.as_str(), "make" | "gmake") {
        let mut args = args.iter();
        while let Some(word) = args.next() {
            match word.as_str() {
                "-f" | "--file" | "--makefile" => runs.extend(args.next()),
                _ => runs.extend(["-f", "--file=", "--makefile="].iter().find_map(|option| {
                    word.strip_prefix(option)
                        .filter(|rest| !rest.is_empty())
                        .and(Some(word))
                })),
            }
        }
    }
    runs
}

/// The index of an interpreter's script among its `args`: the first word
/// that is no option nor an option's value.
pub(super) fn script_at(args: &[String]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if VALUED_OPTIONS.contains(&word.as_str()) {
            at += 2;
        } else if word.starts_with(['-', '+']) && word.len() > 1 {
            at += 1;
        } else {
            return Some(at);
        }
    }
    None
}

/// Whether `word` (as compared) names or holds the written file `target`
/// (`sh < F`, `ENV=F sh -i`, `make -sf F`, `cp F G`).
pub(super) fn mentions(word: &str, target: &str) -> bool {
    let word =
        word.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '<' | '>' | '&' | '|'));
    let value = word.split_once('=').map_or(word, |(_, value)| value);
    value == target
        || word == target
        || (target.len() > 2 && target.contains(['/', '.']) && word.contains(target))
}

/// `word` as a path to compare: `$HOME/`, `${HOME}/` as `~/`, no `./`, the
/// target of a redirection word (`>file`) alone.
pub(super) fn normal(word: &str) -> String {
    let word = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let word = word.trim_start_matches(['>', '|', '&']);
    let word = word.strip_prefix("./").unwrap_or(word);
    for home in ["$HOME/", "${HOME}/"] {
        if let Some(rest) = word.strip_prefix(home) {
            return format!("~/{rest}");
        }
    }
    word.to_owned()
}

/// `path` with `//` and `/./` folded (`/tmp//y.sh` is `/tmp/y.sh`).
pub(super) fn folded(path: &str) -> String {
    let mut folded = path.to_owned();
    while folded.contains("//") || folded.contains("/./") {
        folded = folded.replace("//", "/").replace("/./", "/");
    }
    folded
}
