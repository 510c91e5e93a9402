//! How a file is read for words: as the language its `#!` line says (else
//! its name), and as the language of what runs it (red team round 7c,
//! R7c-7: `sh tools/run.txt`, `. env.conf`, `make -f build.txt` run a file
//! whose name says it is not code, and what it runs must be bound in turn).
//!
//! - A file a shell runs or sources (`sh f`, `. f`, `exec f`, `xargs`) is
//!   read as shell code; one `make -f` or `just -f` reads, as a makefile;
//!   an interpreter's script, as code other than a shell's.
//! - A file any program may run (a word read where a shell may run any file
//!   it names: `"sh" f`, `$SHELL f`, `subprocess.run(['sh', f])`) that is
//!   not code by its own name or `#!` line is read as shell code too: a
//!   shell runs a file with no `#!` line as a shell script (`ENOEXEC`).
//! - An executable file with no `#!` line that is not ELF is a shell script
//!   when a shell runs it by its path.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::Code;
use super::read::words;

/// Programs that run what their words (or their input) name.
const RUNNERS: &str = r"sh|bash|dash|zsh|ksh|ash|source|\.|exec|eval|xargs|python[0-9.]*|node|deno|bun|perl|ruby|php|lua|tclsh|expect";
/// [`RUNNERS`] a path may spell (`/bin/sh`; not `.`).
const NAMED_RUNNERS: &str = r"sh|bash|dash|zsh|ksh|ash|source|exec|eval|xargs|python[0-9.]*|node|deno|bun|perl|ruby|php|lua|tclsh|expect";

/// Shells, and what runs the file it is given as a program.
const SHELL_RUNNERS: [&str; 11] = [
    "sh", "bash", "dash", "zsh", "ksh", "ash", "source", ".", "exec", "eval", "xargs",
];

/// The languages the file at `path` (holding `text`) is read as by itself:
/// its `#!` line's, else its name's; and shell code when it is executable,
/// without a `#!` line and not ELF.
pub(super) fn codes_of(path: &Path, text: &str) -> Vec<Code> {
    use std::os::unix::fs::PermissionsExt;
    let own = match is_shell(path, text) {
        true if is_make(path, text) => Code::Make,
        true => Code::Shell,
        false => Code::Other,
    };
    let mut codes = vec![own];
    let executable = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    if own == Code::Other && executable && !text.starts_with("#!") && !text.starts_with("\x7fELF") {
        codes.push(Code::Shell);
    }
    codes
}

/// The interpreter a `#!` line names, as its parts (`None`: no such line).
fn hash_bang(text: &str) -> Option<Vec<&str>> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    Some(first.split(['/', ' ', '\t']).collect())
}

/// Whether the file at `path` (holding `text`) is shell code: a shell
/// script or a makefile (whose recipes are shell lines), by its `#!` line
/// when it has one (a Python script named `check.sh` is Python), else by
/// its name.
pub(super) fn is_shell(path: &Path, text: &str) -> bool {
    if let Some(parts) = hash_bang(text) {
        return ["sh", "bash", "zsh", "ksh", "dash", "ash", "make", "just"]
            .iter()
            .any(|shell| parts.contains(shell));
    }
    let name = lower_name(path);
    let extension = name.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("");
    ["sh", "bash", "zsh", "ksh", "dash", "bats", "mk"].contains(&extension)
        || ["makefile", "gnumakefile", "justfile"].contains(&name.as_str())
}

/// Whether the file at `path` (holding `text`) is a makefile or a
/// justfile: shell lines in a language of its own (`define` blocks,
/// variables, recipes).
pub(super) fn is_make(path: &Path, text: &str) -> bool {
    if let Some(parts) = hash_bang(text) {
        return parts.contains(&"make") || parts.contains(&"just");
    }
    let name = lower_name(path);
    name.ends_with(".mk") || ["makefile", "gnumakefile", "justfile"].contains(&name.as_str())
}

fn lower_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The language the program `runner` reads the files it is given as
/// (`/bin/sh`, `"bash"` and `\sh` are shells).
fn runner_code(runner: &str) -> Code {
    let name = runner.trim_matches(['"', '\'', '\\']);
    let name = name.rsplit('/').next().unwrap_or(name);
    if SHELL_RUNNERS.contains(&name) {
        Code::Shell
    } else if ["make", "gmake", "just"].contains(&name) {
        Code::Make
    } else {
        Code::Other
    }
}

/// Words a shell runs or reads as code or as a name, whatever the file,
/// each with the language the program given it reads it as (`None`: not
/// known): every word of a command that runs a shell, `source`, `.`,
/// `eval`, `xargs` or an interpreter (spelled by a path or quoted too; its
/// options' values included), of a command a variable names in shell code (`$SHELL f`),
/// of a line that pipes into one, after an input redirection (`sh <
/// cmd.txt`), inside `$( )`, `<( )` or backticks, and the `-f` / `--file`
/// file of awk, sed, make, just or jq.
pub(super) fn run_or_read_words(text: &str, code: Code) -> Vec<(String, Option<Code>)> {
    static RUN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r#"(?m)(?:^|[\s;&|(`{{])(?P<runner>["'\\]?(?:(?:[^\s;&|()`"'<>$]*/)?(?:{NAMED_RUNNERS})|\.)["']?)(?:[ \t]+(?P<args>[^;&|\n)`]*))"#
        ))
        .expect("valid regex")
    });
    static VARIABLE_RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?m)(?:^|[;&|(`{]|\b(?:then|do|else|time)\b|!)[ \t]*"?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"?[ \t]+(?P<args>[^=;&|\n)`][^;&|\n)`]*)"#,
        )
        .expect("valid regex")
    });
    static PIPED_INTO: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(r"(?m)^(?P<args>.*\|[ \t]*(?:{RUNNERS})\b.*)$")).expect("valid regex")
    });
    static INPUT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[^<])<[ \t]*(?P<args>"[^"\n]*"|'[^'\n]*'|[^\s;&|()<>`]+)"#)
            .expect("valid regex")
    });
    static PROGRAM_FILE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\b(?P<runner>awk|gawk|mawk|sed|make|gmake|just|jq)\b[^\n;&|]*?[ \t](?:-[A-Za-z]*f[ \t]*|--(?:file|makefile|justfile|from-file)(?:=|[ \t]+))(?P<args>"[^"\n]*"|'[^'\n]*'|[^\s;&|()<>`]+)"#,
        )
        .expect("valid regex")
    });
    static SUBSTITUTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"[$<]\((?P<args>[^()]*)\)|`(?P<quoted>[^`]*)`").expect("valid regex")
    });
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (regex, runs) in [
        (&*RUN, true),
        // (Only in shell code: `$x = 'f'` is Perl's or PHP's assignment.)
        (&*VARIABLE_RUNS, true),
        (&*PIPED_INTO, false),
        (&*INPUT, false),
        (&*PROGRAM_FILE, true),
        (&*SUBSTITUTED, false),
    ] {
        if std::ptr::eq(regex, &*VARIABLE_RUNS) && code == Code::Other {
            continue;
        }
        for captures in regex.captures_iter(text) {
            let Some(part) = captures.name("args").or_else(|| captures.name("quoted")) else {
                continue;
            };
            let code = match captures.name("runner") {
                Some(runner) => Some(runner_code(runner.as_str())),
                None if runs => Some(Code::Shell),
                None => None,
            };
            // And `"$DIR/tools/.."/lib/x`: a word its quotes split.
            let unquoted = super::read::without_quotes(part.as_str());
            // `node .`: the folder it runs in, as a program (R25b-1).
            let here = (runs && unquoted.split_whitespace().any(|arg| arg == "."))
                .then(|| "./".to_owned());
            for word in words(part.as_str())
                .into_iter()
                .chain(words(&unquoted))
                .chain(here)
            {
                if seen.insert((word.clone(), code)) {
                    found.push((word, code));
                }
            }
        }
    }
    found
}
