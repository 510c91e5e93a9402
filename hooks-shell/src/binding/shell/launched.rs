//! Commands a program may start that no reading models: a program this
//! reading does not know (`taskset -c 0 make`, `prlimit --nofile=64 make`,
//! `strace -f make`, `gdb --args make`, `chroot / make`, `valgrind make`)
//! given, among its words, the name of a program that runs the folder's
//! definitions or code is read as starting it with the words after it;
//! `trap 'make -s lint' EXIT` as running its text; `${MAKE:-make}` as its
//! default word (red team round 58: each ran the project's Makefile with
//! nothing bound). A reading for consent: a program that only names one
//! (`grep make notes`) binds more than it runs, never less.

use super::super::identify::base_name;

/// Programs that run a folder's definitions or code when started.
const RUNNERS: &[&str] = &[
    "make", "gmake", "bmake", "just", "task", "rake", "npm", "npx", "pnpm", "pnpx", "yarn", "bun",
    "bunx", "node", "nodejs", "deno", "python", "python3", "pip", "pip3", "pytest", "tox", "nox",
    "uv", "uvx", "poetry", "pipenv", "git", "cargo", "rustup", "go", "sh", "bash", "dash", "zsh",
    "ksh", "ash", "fish", "perl", "ruby", "bundle", "php", "composer", "gradle", "mvn", "lua",
    "tclsh", "wish", "Rscript", "julia", "env", "xargs", "ninja", "cmake", "meson", "bazel",
];

/// Whether `name` (a base name) runs a folder's definitions or code: the
/// list above, or a program of the definitions table (`pytest`, `tox`,
/// `gradle`, `composer`...: one source of them).
pub(super) fn is_runner(name: &str) -> bool {
    RUNNERS.contains(&name) || crate::binding::definitions::runs_folder_definitions(name)
}

/// Programs that never start a command from their words (or whose words
/// other readings read: interpreters, runners, known wrappers).
pub(super) const LEAVES: &[&str] = &[
    "echo",
    "printf",
    "cat",
    "tac",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "jq",
    "yq",
    "test",
    "[",
    "[[",
    "true",
    "false",
    ":",
    "ls",
    "mkdir",
    "rmdir",
    "rm",
    "cp",
    "mv",
    "ln",
    "touch",
    "chmod",
    "chown",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "tr",
    "cut",
    "paste",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "date",
    "sleep",
    "stat",
    "file",
    "diff",
    "cmp",
    "comm",
    "tee",
    "printenv",
    "which",
    "type",
    "hash",
    "read",
    "export",
    "set",
    "unset",
    "local",
    "declare",
    "typeset",
    "readonly",
    "shift",
    "return",
    "exit",
    "cd",
    "pushd",
    "popd",
    "dirs",
    "let",
    "exec",
    "command",
    "builtin",
    "nice",
    "nohup",
    "timeout",
    "stdbuf",
    "time",
    "setsid",
    "ionice",
    "find",
    "flock",
    "script",
    "watch",
    "sudo",
    "doas",
    "logger",
    "base64",
    "sha256sum",
    "md5sum",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "curl",
    "wget",
    "tar",
    "gzip",
    "zip",
    "unzip",
    "du",
    "df",
    "id",
    "whoami",
    "uname",
    "hostname",
    "pwd",
    "seq",
    "yes",
    "expr",
    "bc",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "column",
    "fold",
    "fmt",
    "nl",
    "split",
    "csplit",
    "join",
    "shuf",
    "mktemp",
    "install",
    "chgrp",
    "truncate",
    "sync",
    "kill",
    "pkill",
    "pgrep",
    "ps",
    "wait",
    "notify-send",
    "osascript",
    "say",
    "shellcheck",
    "eslint",
    "prettier",
    "ruff",
    "black",
    "mypy",
    "tsc",
    "jest",
    "vitest",
];

/// Programs whose words are only text they print or match (a block
/// message naming `make`, a pattern): never read for commands.
const PRINTERS: &[&str] = &[
    "echo",
    "printf",
    "logger",
    "notify-send",
    "osascript",
    "say",
    "jq",
    "yq",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "test",
    "[",
    "[[",
    "expr",
    ":",
    "true",
    "false",
];

/// Whether `program` (a base name) reads its words as data only: a
/// printer, or a program whose words other readings read (`LEAVES`).
pub(crate) fn reads_words_as_data(program: &str) -> bool {
    PRINTERS.contains(&program) || LEAVES.contains(&program)
}

/// The commands the words of `words` (one simple command as written, its
/// assignments too) carry as text another program runs: `git -c
/// alias.l='!make -s lint' l`, `-c core.fsmonitor='make -s lint'`,
/// `GIT_SSH_COMMAND='make -s lint' git fetch`, `sed '1e make -s lint'`,
/// `tar --checkpoint-action=exec='make -s lint'`, `ssh -o
/// ProxyCommand='make -s lint'` (red team round 59). `program` is its
/// program, wrappers taken off.
pub(super) fn carried(words: &[String], program: Option<&String>) -> Vec<Vec<String>> {
    let Some(program) = program else {
        return Vec::new();
    };
    // A shell's `-c` string is read as shell code already.
    let program = base_name(program);
    if PRINTERS.contains(&program.as_str())
        || crate::binding::identify::SHELLS.contains(&program.as_str())
    {
        return Vec::new();
    }
    let mut found: Vec<Vec<String>> = words
        .iter()
        .filter(|word| word.contains([' ', '\t', '\n', '=', '!']))
        .flat_map(|word| super::piped::runners_named(word))
        .collect();
    // `git -c alias.x='!f() { "$@"; }; f' x make -s lint`: text running
    // its arguments runs the command's own words (round 60).
    static ARGUMENTS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$(?:[@*1-9]|\{[@*1-9]\})").expect("valid regex")
    });
    if words
        .iter()
        .any(|word| word.contains(char::is_whitespace) && ARGUMENTS.is_match(word))
        && let Some(at) = words.iter().skip(1).position(|w| is_runner(&base_name(w)))
    {
        found.push(words[at + 1..].to_vec());
    }
    found
}

/// The commands `words` (one simple command as written) may start that
/// the readings would not see: see the module documentation.
pub(super) fn launched(words: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let Some((first, args)) = words.split_first() else {
        return found;
    };
    // `${MAKE:-make} -s lint`: the default word, when it is one.
    if let Some(default) = default_word(first) {
        let mut with_default = vec![default];
        with_default.extend(args.iter().cloned());
        found.push(with_default);
    }
    let program = base_name(first);
    // `awk 'BEGIN{system("make -s lint")}'`: the commands its program
    // runs (`system(…)`, `… | getline`, `print … | "…"`).
    if matches!(
        program.as_str(),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox"
    ) {
        static RUNS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"system\s*\(\s*"([^"]*)"|"([^"]*)"\s*\|\s*getline|\|\s*"([^"]*)""#)
                .expect("valid regex")
        });
        for word in args {
            for run in RUNS.captures_iter(word) {
                if let Some(text) = run.get(1).or(run.get(2)).or(run.get(3)) {
                    found.extend(super::simple_commands(text.as_str()));
                }
            }
        }
        return found;
    }
    if program == "trap" {
        if let Some(text) = args.iter().find(|word| !word.starts_with('-')) {
            found.extend(super::simple_commands(text));
        }
        return found;
    }
    // A shell or an interpreter running a script given words (`sh
    // ~/bin/run-it make -s lint`, the script running `"$@"`): the words
    // after the script.
    const SCRIPT_RUNNERS: [&str; 10] = [
        "sh", "bash", "dash", "zsh", "ksh", "ash", "python", "python3", "node", "perl",
    ];
    let args = match SCRIPT_RUNNERS.contains(&program.as_str()) {
        true => match args.iter().position(|word| !word.starts_with('-')) {
            Some(script) if !args[..script].iter().any(|w| w.contains('c') || w == "-m") => {
                &args[script + 1..]
            }
            _ => return found,
        },
        false => args,
    };
    if program.contains('=')
        || LEAVES.contains(&program.as_str())
        || (is_runner(&program) && !SCRIPT_RUNNERS.contains(&program.as_str()))
    {
        return found;
    }
    for (at, word) in args.iter().enumerate() {
        if is_runner(&base_name(word)) {
            found.push(args[at..].to_vec());
            break;
        }
        // `script -qc 'make lint'`-like: a word that is a command line, or
        // a statement of the program's own starting one (`gdb -ex 'shell
        // make'`, `sqlite3 db '.shell make'`, `vim -c '!make'`).
        let text = word.trim();
        if text.contains(char::is_whitespace) {
            if text
                .split_whitespace()
                .next()
                .is_some_and(|head| is_runner(&base_name(head)))
            {
                found.extend(super::simple_commands(text));
            }
            found.extend(super::piped::runners_named(text));
        }
    }
    found
}

/// The word `${NAME:-word}` (`-`, `:=`, `=`) stands for when `NAME` is not
/// set, when it is a plain word.
fn default_word(word: &str) -> Option<String> {
    let inner = word.strip_prefix("${")?.strip_suffix('}')?;
    let at = inner.find([':', '-', '='])?;
    let (name, rest) = inner.split_at(at);
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let default = ["-", ":-", "=", ":="]
        .iter()
        .find_map(|op| rest.strip_prefix(op))?;
    let plain = !default.is_empty()
        && default
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+".contains(c));
    plain.then(|| default.to_owned())
}

#[cfg(test)]
mod tests {
    use super::launched;

    fn words(text: &str) -> Vec<String> {
        shlex::split(text).expect("words")
    }

    #[test]
    fn programs_an_unknown_program_is_given_are_read_as_started() {
        for (line, started) in [
            ("taskset -c 0 make -s lint", "make -s lint"),
            ("prlimit --nofile=64 make -s lint", "make -s lint"),
            ("strace -f -o /dev/null make -s lint", "make -s lint"),
            ("gdb -batch -ex run --args make -s lint", "make -s lint"),
            ("chroot / make -C /x lint", "make -C /x lint"),
            ("${MAKE:-make} -s lint", "make -s lint"),
            ("trap 'make -s lint' EXIT", "make -s lint"),
            ("setarch x86_64 /usr/bin/make lint", "/usr/bin/make lint"),
            ("awk 'BEGIN{system(\"make -s lint\")}'", "make -s lint"),
            ("gdb -batch -ex 'shell make -s lint'", "make -s lint"),
            ("sqlite3 :memory: '.shell make -s lint'", "make -s lint"),
            ("vim -es -c '!make -s lint' -c q", "make -s lint"),
        ] {
            let found = launched(&words(line));
            assert!(found.contains(&words(started)), "{line}: {found:?}");
        }
        for line in [
            "grep -q make notes.txt",
            "echo make",
            "make -s lint",
            "sh -c 'x' make",
        ] {
            assert!(launched(&words(line)).is_empty(), "{line}");
        }
        // Runners carried in words another program runs.
        let carried = |line: &str| {
            let words = words(line);
            super::carried(&words, words.first())
        };
        assert!(carried("git -c alias.l='!make -s lint' l").contains(&words("make -s lint")));
        let alias = carried("git -c alias.x='!f() { \"$@\"; }; f' x make -s lint");
        assert!(alias.contains(&words("make -s lint")), "{alias:?}");
        assert!(carried("echo 'run make -s lint'").is_empty());
        // A script given a runner's words, which it may run (`"$@"`).
        assert!(launched(&words("sh ~/bin/run-it make -s lint")).contains(&words("make -s lint")));
    }
}
