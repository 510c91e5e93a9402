//! What a hook's command line launches, followed as the shell and the
//! kernel follow it (red team round 10, R10-8 and R10-9): the program of
//! each simple command and the wrappers before it, found on `PATH`; the
//! commands of a shell's `-c` string; and, for a script that runs as the
//! program (by path, or found by name), the interpreter its `#!` line
//! names: `#!/abs/interp` that path, `#!/usr/bin/env [-S] [VAR=x] name`
//! `name` found on the hook's `PATH` as `env` finds it, read through the
//! same wrappers as a command line. An interpreter that is itself a script
//! is followed too, as deep as the kernel follows (four).
//!
//! Where a Python runs (a program whose name is `python`/`python3`, found
//! or named by a `#!` line), the `PYTHONPATH` it runs with is kept: its
//! folders come first on the module path, where `sitecustomize` and
//! `usercustomize` are imported from at start-up.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;

use super::{MAX_PROGRAMS, bare_names, find, push};
use crate::binding::identify::base_name;
use crate::binding::{normalize, shell, wrappers};

/// How many `#!` interpreters deep a script is followed (the kernel's own
/// limit), and how many `-c` strings deep a command is read.
const MAX_DEPTH: usize = 4;
/// The most bytes of a `#!` line the kernel reads.
const SHEBANG_BYTES: u64 = 256;

/// What a hook launches ([`launches`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Launches {
    /// The programs found on `PATH` and the interpreters `#!` lines name.
    pub programs: Vec<PathBuf>,
    /// The `PYTHONPATH` of each Python it runs (an empty value is none).
    pub python_paths: Vec<OsString>,
}

/// Where a command runs from: the folder, and its `PATH` and `PYTHONPATH`.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    /// The folder it runs in.
    pub cwd: &'a Path,
    /// The `PATH` it runs with.
    pub search: &'a OsStr,
    /// The `PYTHONPATH` it runs with.
    pub python_path: &'a OsStr,
}

/// What `commands` (each split into words) launch in `context`.
pub(super) fn launches(commands: &[Vec<String>], context: Context<'_>) -> Launches {
    let mut found = Launches::default();
    for command in commands {
        follow_command(command, context, 0, &mut found);
    }
    found
}

/// Adds what `command` launches, `depth` `#!` lines or `-c` strings deep.
fn follow_command(command: &[String], context: Context<'_>, depth: usize, found: &mut Launches) {
    if depth > MAX_DEPTH || found.programs.len() >= MAX_PROGRAMS {
        return;
    }
    let unwrapped = wrappers::unwrap(command);
    let search = with_assignment(&unwrapped.assignments, "PATH", context.search);
    let python_path = with_assignment(&unwrapped.assignments, "PYTHONPATH", context.python_path);
    let inner = Context {
        cwd: context.cwd,
        search: &search,
        python_path: &python_path,
    };
    for name in bare_names(command, &unwrapped) {
        if found.programs.len() >= MAX_PROGRAMS {
            return;
        }
        if let Some(path) = find(&name, &search, context.cwd) {
            push(&mut found.programs, path);
        }
    }
    let Some(program) = unwrapped.words.first() else {
        return;
    };
    if is_python(program) && !found.python_paths.contains(&python_path) {
        found.python_paths.push(python_path.clone());
    }
    if let Some(script) = shell::shell_script(&unwrapped.words) {
        for command in shell::simple_commands(script) {
            follow_command(&command, inner, depth + 1, found);
        }
    }
    let file = if program.contains('/') || program.starts_with('~') {
        named_file(program, context.cwd)
    } else {
        find(program, &search, context.cwd)
    };
    if let Some(line) = file.as_deref().and_then(interpreter_line) {
        // The interpreters a `#!` line names by path are run as named.
        for word in line.iter().filter(|word| word.contains('/')) {
            if let Some(path) = named_file(word, context.cwd) {
                push(&mut found.programs, path);
            }
        }
        // One without a `/` (`#!python3`) the kernel takes from the folder
        // it runs in, never from `PATH` (red team round 11, R11-8).
        if let Some(path) = line.first().and_then(|first| {
            (!first.contains('/') && !first.starts_with('~'))
                .then(|| named_file(first, context.cwd))
                .flatten()
        }) {
            push(&mut found.programs, path);
        }
        follow_command(&line, inner, depth + 1, found);
    }
}

/// `word` as the file it names: `~` expanded, relative to `cwd`.
fn named_file(word: &str, cwd: &Path) -> Option<PathBuf> {
    let path = normalize(&cwd.join(expand_tilde(word)));
    path.is_file().then_some(path)
}

/// The words of the `#!` line of the script at `path`, split as `env -S`
/// splits them (whitespace; splitting more finds more programs, never
/// fewer). `None`: no `#!` line (a binary, or not readable).
pub(super) fn interpreter_line(path: &Path) -> Option<Vec<String>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(SHEBANG_BYTES)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line);
    let words: Vec<String> = line
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    (!words.is_empty()).then_some(words)
}

/// Whether `program` starts a Python (`python`, `python3`, `python3.12`).
fn is_python(program: &str) -> bool {
    base_name(program) == "python" || base_name(program) == "python3"
}

/// `outer` as a `NAME=…` assignment before the command sets it (`$NAME`
/// in it taken as `outer`).
pub(super) fn with_assignment(
    assignments: &[(String, String)],
    name: &str,
    outer: &OsStr,
) -> OsString {
    match assignments.iter().rev().find(|(set, _)| set == name) {
        Some((_, value)) => {
            let outer = outer.to_string_lossy();
            OsString::from(
                value
                    .replace(&format!("${{{name}}}"), &outer)
                    .replace(&format!("${name}"), &outer),
            )
        }
        None => outer.to_owned(),
    }
}
