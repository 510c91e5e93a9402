//! Text a pipe feeds a program that runs its input as code, read as the
//! commands that code starts: `echo 'make -s lint' | sh` as `make -s lint`,
//! `echo '…system("make")' | python3` as `python3 -c '…'`, `echo 'exec make
//! -s lint' | tclsh` (or `| ed`, `| sqlite3`, `| gdb`) as `make -s lint`,
//! `echo make -s lint | xargs` as `make -s lint` (red team round 58, rs05,
//! and its siblings: each ran the project's Makefile with nothing bound).
//! A reading for consent: text fed to a program that only reads it as data
//! binds more than it runs, never less.

use super::super::identify::{SHELLS, base_name, xargs_program};
use super::launched::{LEAVES, RUNNERS};

/// The plain text `producer` (a simple command, wrappers taken off)
/// prints: `echo`'s or `printf`'s words joined as the line they print,
/// `\n` and `\t` read as what they stand for. `None` for another program.
pub(crate) fn echoed_text(producer: &[String]) -> Option<String> {
    let (first, args) = producer.split_first()?;
    let args = match base_name(first).as_str() {
        "echo" => {
            let options = args
                .iter()
                .take_while(|word| matches!(word.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en"))
                .count();
            &args[options..]
        }
        "printf" => match args.first().map(String::as_str) {
            Some("--") => &args[1..],
            _ => args,
        },
        _ => return None,
    };
    Some(
        args.join(" ")
            .replace("\\n", "\n")
            .replace("\\t", " ")
            .replace("\\c", ""),
    )
}

/// The commands `consumer` (a simple command, wrappers taken off) starts
/// when `producer` pipes into it the text it prints.
pub(super) fn piped_commands(producer: &[String], consumer: &[String]) -> Vec<Vec<String>> {
    let Some(text) = echoed_text(producer) else {
        return Vec::new();
    };
    let Some((first, args)) = consumer.split_first() else {
        return Vec::new();
    };
    let program = base_name(first);
    if SHELLS.contains(&program.as_str()) || program == "fish" {
        return match shell_reads_input(args) {
            true => super::simple_commands(&text),
            false => Vec::new(),
        };
    }
    if let Some((language, option)) = inline_form(&program) {
        return match interpreter_reads_input(&program, args) {
            true => {
                let code = text.trim_start().trim_start_matches("<?php").to_owned();
                vec![vec![language.to_owned(), option.to_owned(), code]]
            }
            false => Vec::new(),
        };
    }
    if program == "xargs" {
        return vec![xargs_command(args, &text)];
    }
    let reads_script = matches!(program.as_str(), "sed" | "awk" | "gawk" | "mawk" | "nawk")
        && args.windows(2).any(|pair| {
            pair[0] == "-f" && matches!(pair[1].as_str(), "-" | "/dev/stdin" | "/dev/fd/0")
        });
    if LEAVES.contains(&program.as_str()) && !reads_script {
        return Vec::new();
    }
    runners_named(&text)
}

/// The language and inline-code option an interpreter reading its code
/// from its input stands for (`python3 -c`, `node -e`, `perl -e`).
fn inline_form(program: &str) -> Option<(&'static str, &'static str)> {
    match program {
        "python" | "python3" | "pypy" | "pypy3" => Some(("python3", "-c")),
        "node" | "nodejs" | "bun" => Some(("node", "-e")),
        "perl" => Some(("perl", "-e")),
        "ruby" => Some(("ruby", "-e")),
        "php" => Some(("php", "-r")),
        _ => None,
    }
}

/// Whether a shell given `args` runs its input: no `-c` string, and no
/// script but its input (`sh`, `sh -s a b`, `bash -`, `sh /dev/stdin`).
fn shell_reads_input(args: &[String]) -> bool {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-o" | "+o" | "-O" | "+O" => {
                words.next();
            }
            "-" | "--" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" => return true,
            short if short.starts_with('-') && !short.starts_with("--") => {
                if short.contains('c') {
                    return false;
                }
                if short.contains('s') {
                    return true;
                }
            }
            long if long.starts_with("--") || long.starts_with('+') => {}
            _ => return false,
        }
    }
    true
}

/// Whether an interpreter given `args` runs its input: no inline code,
/// module or script but its input (`python3`, `python3 -`, `perl -w`).
fn interpreter_reads_input(program: &str, args: &[String]) -> bool {
    let inline: &[char] = match program {
        "python" | "python3" | "pypy" | "pypy3" => &['c', 'm'],
        "php" => &['r', 'f'],
        _ => &['e', 'E', 'p'],
    };
    for word in args {
        match word.as_str() {
            "-" | "--" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" => return true,
            long if long.starts_with("--") => {
                if matches!(long, "--eval" | "--print") || long.starts_with("--eval=") {
                    return false;
                }
            }
            short if short.starts_with('-') => {
                if short[1..].chars().any(|c| inline.contains(&c)) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The command `xargs` (given `args`) runs with `text` as its input: the
/// words read appended to its program's, or put where `-I NAME` says.
fn xargs_command(args: &[String], text: &str) -> Vec<String> {
    let program = match xargs_program(args) {
        Some(at) => args[at..].to_vec(),
        None => vec!["echo".to_owned()],
    };
    let replaced = args
        .iter()
        .enumerate()
        .find_map(|(at, word)| match word.as_str() {
            "-I" => args.get(at + 1).cloned(),
            "-i" => Some("{}".to_owned()),
            _ => word
                .strip_prefix("-I")
                .or_else(|| word.strip_prefix("-i"))
                .filter(|name| !name.is_empty() && !word.starts_with("--"))
                .map(str::to_owned),
        });
    match replaced {
        Some(name) => {
            let line = text.lines().next().unwrap_or_default().trim();
            program
                .iter()
                .map(|word| word.replace(&name, line))
                .collect()
        }
        None => {
            let mut words = program;
            words.extend(text.split_whitespace().map(str::to_owned));
            words
        }
    }
}

/// The commands another program's script `text` may start: in each of
/// its statements (cut at lines, `;`, brackets, `!`, quotes), the words
/// from the first that names a program running a folder's code (Tcl's
/// `exec make -s lint`, ed's `!make`, sqlite3's `.shell make`).
pub(crate) fn runners_named(text: &str) -> Vec<Vec<String>> {
    text.split([
        '\n', ';', '[', ']', '{', '}', '(', ')', '!', '|', '&', '`', '"', '\'', '=',
    ])
    .filter_map(|statement| {
        let words: Vec<String> = statement.split_whitespace().map(str::to_owned).collect();
        let at = words
            .iter()
            .position(|word| RUNNERS.contains(&base_name(word).as_str()))?;
        Some(words[at..].to_vec())
    })
    .collect()
}

#[cfg(test)]
mod tests;
