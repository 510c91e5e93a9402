//! Text a pipe feeds a program that runs its input as code, read as the
//! commands that code starts: `echo 'make -s lint' | sh` as `make -s lint`,
//! `echo '…system("make")' | python3` as `python3 -c '…'`, `echo 'exec make
//! -s lint' | tclsh` (or `| ed`, `| sqlite3`, `| gdb`) as `make -s lint`,
//! `echo make -s lint | xargs` as `make -s lint` (red team round 58, rs05,
//! and its siblings: each ran the project's Makefile with nothing bound).
//! A reading for consent: text fed to a program that only reads it as data
//! binds more than it runs, never less.

use super::super::identify::{SHELLS, base_name, names_input, runs_its_input, xargs_program};
use super::launched::LEAVES;
pub(crate) use super::statements::runners_named;

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
    match echoed_text(&without_redirections(producer)) {
        Some(text) => fed_commands(&text, &without_redirections(consumer), 0),
        None => Vec::new(),
    }
}

/// Programs that run another command given in their words, which then
/// reads what they are fed (`flock F sh`, `timeout 3 sh`, `script -qc sh`).
const HANDING_ON: &[&str] = &[
    "flock", "watch", "script", "timeout", "nohup", "nice", "stdbuf", "setsid", "ionice", "sudo",
    "doas", "time", "command", "builtin", "exec", "env", "su", "runuser", "chrt", "taskset",
];

/// The commands `consumer` (`depth` strings deep) starts when fed `text`
/// on its input.
fn fed_commands(text: &str, consumer: &[String], depth: usize) -> Vec<Vec<String>> {
    let Some((first, args)) = consumer.split_first() else {
        return Vec::new();
    };
    if depth > 4 {
        return Vec::new();
    }
    let program = base_name(first);
    if SHELLS.contains(&program.as_str()) || program == "fish" {
        // `sh -c 'exec sh'`, `bash -c '. /dev/stdin'`: its string's
        // commands read the input it is fed.
        if let Some(string) = super::shell_script(consumer) {
            return super::simple_commands(string)
                .iter()
                .flat_map(|inner| {
                    let inner = super::super::wrappers::unwrap(inner).words;
                    let sourced = matches!(inner.first().map(String::as_str), Some("." | "source"))
                        && inner.get(1).is_some_and(|file| names_input(file));
                    match sourced {
                        true => super::simple_commands(text),
                        false => fed_commands(text, &inner, depth + 1),
                    }
                })
                .collect();
        }
        return match runs_its_input(&program, args) {
            true => super::simple_commands(text),
            false => Vec::new(),
        };
    }
    if let Some((language, option)) = inline_form(&program) {
        return match runs_its_input(&program, args) {
            true => {
                let code = text.trim_start().trim_start_matches("<?php").to_owned();
                vec![vec![language.to_owned(), option.to_owned(), code]]
            }
            false => Vec::new(),
        };
    }
    if program == "xargs" {
        return vec![xargs_command(args, text)];
    }
    // `sed -n e`, `sed '1e'`: each line it is fed run as a shell command.
    let sed_runs = program == "sed" && args.iter().any(|word| sed_executes(word));
    if sed_runs
        || (program == "script" && !args.iter().any(|w| w.starts_with('-') && w.contains('c')))
    {
        return super::simple_commands(text);
    }
    if HANDING_ON.contains(&program.as_str()) {
        // `flock F sh`, `script -qc sh /dev/null`: the command it runs,
        // from the first shell or interpreter among its words (a string
        // given to `-c` read as a command line).
        return args
            .iter()
            .enumerate()
            .filter(|(_, word)| !word.starts_with('-'))
            .flat_map(|(at, word)| match word.contains(' ') {
                true => super::simple_commands(word)
                    .iter()
                    .flat_map(|inner| fed_commands(text, inner, depth + 1))
                    .collect::<Vec<_>>(),
                false => fed_commands(text, &args[at..], depth + 1),
            })
            .collect();
    }
    let reads_script = matches!(program.as_str(), "sed" | "awk" | "gawk" | "mawk" | "nawk")
        && args
            .windows(2)
            .any(|pair| pair[0] == "-f" && names_input(&pair[1]));
    if LEAVES.contains(&program.as_str()) && !reads_script {
        return Vec::new();
    }
    runners_named(text)
}

/// Whether a word of sed's is a script running an `e` command (`e`,
/// `1e`, `$e`, `/x/e`, `s/a/b/e`: the pattern space run as a command).
fn sed_executes(word: &str) -> bool {
    static RUNS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[;{}\s])(?:\d+|\$|/[^/]*/)?e(?:\s|;|\}|$)").expect("valid regex")
    });
    !word.starts_with('-') && (RUNS.is_match(word) || sed_substitution_runs(word))
}

/// Whether sed's `script` holds a substitution whose `e` flag runs the
/// pattern space it builds (`s/X/a/e`, `1{s/.*/mXke/;s/X/a/e}`).
pub(crate) fn sed_substitution_runs(script: &str) -> bool {
    script.split([';', '\n', '{', '}']).any(|command| {
        let command = command.trim_start_matches(|c: char| {
            c.is_ascii_digit() || c.is_whitespace() || matches!(c, '$' | ',' | '!')
        });
        let mut chars = command.chars();
        let (Some('s'), Some(delimiter)) = (chars.next(), chars.next()) else {
            return false;
        };
        if delimiter.is_alphanumeric() || delimiter.is_whitespace() {
            return false;
        }
        let parts: Vec<&str> = chars.as_str().split(delimiter).collect();
        parts.len() >= 3 && parts[2].contains('e')
    })
}

/// `words` without their redirections (`>/dev/null`, `2>&1`, `2> log`,
/// `</dev/stdin`): neither a script nor text.
fn without_redirections(words: &[String]) -> Vec<String> {
    static REDIRECTION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(?:\d*|&)(?:>>?|<<?<?|>&|<&)").expect("valid regex")
    });
    let mut kept = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let Some(operator) = REDIRECTION.find(word) else {
            kept.push(word.clone());
            continue;
        };
        // `2> log`: the target is the next word.
        if operator.end() == word.len() {
            words.next();
        }
    }
    kept
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

#[cfg(test)]
mod tests;
