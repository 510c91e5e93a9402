//! A fail-closed handler's Bash `if` rule, read cautiously: besides the
//! subcommands the rule's glob matches (quotes removed), a subcommand whose
//! program the text does not settle runs the guard too. Claude Code's filter
//! only fails open on a command it cannot parse; a guard that must never
//! allow also runs for the forms below (docs/decisions/fail-closed-if-rule.md).
//!
//! - a program named by path (`/bin/rm`, `./rm`, `/usr/bin/env rm`): its
//!   file name is matched, a wrapper's too;
//! - redirections anywhere (`>/dev/null rm`) and a function's head
//!   (`function f { rm`) are not the program; a brace expansion as the
//!   program word (`{rm,-rf,/}`) cannot be decided;
//! - `eval ARGS` and `sh|bash|zsh|... -c STRING`: the code inside is matched
//!   (recursively, a few levels deep); a shell running a file or stdin, or
//!   code nested deeper, cannot be decided;
//! - programs that run a command given as data (`xargs`, `find`, `parallel`,
//!   `su`, `ssh`, `source`, ...) and interpreters given inline code
//!   (`python -c`, `node -e`, `perl -e`, ...): cannot be decided;
//! - a program word that is expanded when it runs (`$X`, a glob, a
//!   `$(...)` whose output is the program): cannot be decided.
//!
//! Cannot decide means the guard runs; the guard itself decides. So does a
//! command past the reading's bounds (red-team F19): more than
//! [`MAX_STARTS`](super::matcher::MAX_STARTS) words that may be the program,
//! or more text read than [`WORK_PER_BYTE`] times the command's length
//! (the code inside `eval` and `sh -c` is read again at each level).

use super::matcher::{command_starts, glob, glob_joined, spellings, subcommands};

/// How deep `eval` and `sh -c` strings are followed.
const MAX_NESTING: usize = 4;

/// How many times over the command's text may be read (and its first
/// [`WORK_FLOOR`] bytes): past it the rule is undecidable.
const WORK_PER_BYTE: usize = 64;

/// The budget of a short command.
const WORK_FLOOR: usize = 1 << 16;

/// Shells whose `-c STRING` is followed into.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "rbash",
];

/// Programs that run a command given to them as data.
const RUNNERS: &[&str] = &[
    "xargs",
    "find",
    "parallel",
    "watch",
    "su",
    "runuser",
    "pkexec",
    "ssh",
    "setsid",
    "flock",
    "chroot",
    "nsenter",
    "unshare",
    "strace",
    "ltrace",
    "script",
    "systemd-run",
    "busybox",
    "source",
    ".",
    "trap",
    "coproc",
];

/// Interpreters that take inline code after one of [`INLINE_FLAGS`].
const INTERPRETERS: &[&str] = &[
    "python",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "tclsh",
    "awk",
    "gawk",
    "mawk",
    "osascript",
    "pwsh",
];

/// The flags that give an interpreter its code inline.
const INLINE_FLAGS: &[&str] = &[
    "-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-Command",
];

/// Whether the rule `pattern` may name a program `command` runs.
pub(super) fn may_run(pattern: &str, command: &str) -> bool {
    Reading::new(command).may_run(pattern, command)
}

/// One command's reading: the text read so far against its budget.
pub(super) struct Reading {
    /// Bytes of text still to be read before the rule is undecidable.
    left: usize,
}

impl Reading {
    /// A reading of `command`, with a budget linear in its length.
    pub(super) fn new(command: &str) -> Reading {
        Reading {
            left: command.len().saturating_mul(WORK_PER_BYTE) + WORK_FLOOR,
        }
    }

    /// Whether the rule `pattern` may name a program `command` runs.
    pub(super) fn may_run(&mut self, pattern: &str, command: &str) -> bool {
        self.nested_may_run(pattern, command, 0)
    }

    /// Takes `bytes` from the budget; `false` when it is spent.
    fn spend(&mut self, bytes: usize) -> bool {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }

    fn nested_may_run(&mut self, pattern: &str, command: &str, depth: usize) -> bool {
        if depth > MAX_NESTING || !self.spend(command.len()) {
            return true;
        }
        let Some(parts) = subcommands(command) else {
            return true;
        };
        parts
            .iter()
            .any(|part| self.part_may_run(pattern, part, depth))
    }

    fn part_may_run(&mut self, pattern: &str, part: &str, depth: usize) -> bool {
        let readings = spellings(part);
        // Each reading is matched: its length times their number.
        if readings.cut() || !self.spend(part.len().saturating_mul(readings.len() + 2)) {
            return true;
        }
        if glob(pattern, part) || readings.iter().any(|s| glob(pattern, s)) {
            return true;
        }
        let Some(words) = shlex::split(part) else {
            return true;
        };
        // Options with no program before them: the program was the `$(...)`
        // or backquoted text split off before (`$(printf rm) -rf /`).
        if words.first().is_some_and(|word| word.starts_with('-')) {
            return true;
        }
        let words = command_words(words);
        let names = named(&words);
        let starts = command_starts(&names);
        if starts.cut {
            return true;
        }
        let joined = words.join(" ");
        let mut offset = 0;
        let mut tails = Vec::with_capacity(words.len());
        for word in &words {
            offset += word.len();
            // What follows word `at` in `joined`: a blank and the rest.
            tails.push(&joined[offset.min(joined.len())..]);
            offset += 1;
        }
        starts.at.into_iter().any(|at| {
            let (program, rest) = (&words[at], &words[at + 1..]);
            glob_joined(pattern, &names[at], tails[at])
                || self.program_may_run(pattern, program, rest, tails[at], depth)
        })
    }

    /// Whether `program` with `args` (`tail` is them joined, after a blank)
    /// may run what `pattern` names.
    fn program_may_run(
        &mut self,
        pattern: &str,
        program: &str,
        args: &[String],
        tail: &str,
        depth: usize,
    ) -> bool {
        if program.contains(['$', '`', '*', '?', '[', '{']) {
            return true;
        }
        let name = program.rsplit('/').next().unwrap_or(program);
        if name != program && glob_joined(pattern, name, tail) {
            return true;
        }
        if name == "eval" {
            return self.nested_may_run(pattern, tail.trim_start_matches(' '), depth + 1);
        }
        if SHELLS.contains(&name) {
            return match shell_code(args) {
                Some(code) => self.nested_may_run(pattern, code, depth + 1),
                // A script file or stdin: its code is not in the command.
                None => true,
            };
        }
        if RUNNERS.contains(&name) {
            return true;
        }
        let interpreter = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        INTERPRETERS.contains(&interpreter)
            && args
                .iter()
                .any(|arg| INLINE_FLAGS.contains(&arg.as_str()) || arg.starts_with("-c"))
    }
}

/// `words` without what sh does not run as the command: redirections
/// anywhere (`>/dev/null rm`, `2> err rm`) and a `function NAME` (or
/// `NAME()`) head before its body.
fn command_words(words: Vec<String>) -> Vec<String> {
    let mut kept = Vec::with_capacity(words.len());
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        if let Some(operator_only) = redirection(&word) {
            if operator_only {
                // The target is the next word.
                words.next();
            }
            continue;
        }
        if word == "function" {
            words.next();
            continue;
        }
        if word.ends_with("()") || word == "(" || word == ")" {
            continue;
        }
        kept.push(word);
    }
    kept
}

/// Whether `word` is a redirection: `Some(true)` when it is the operator
/// alone (`>`, `2>>`, `&>`), `Some(false)` with its target (`>out`, `2>&1`).
fn redirection(word: &str) -> Option<bool> {
    let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let operator = operator.strip_prefix('&').unwrap_or(operator);
    let arrows = operator.len() - operator.trim_start_matches(['<', '>']).len();
    if arrows == 0 {
        return None;
    }
    let target = operator[arrows..].trim_start_matches(['&', '|']);
    Some(target.is_empty())
}

/// The words as [`command_starts`] reads them: a program named by path by
/// its file name (`/usr/bin/env rm` is `env rm`).
fn named(words: &[String]) -> Vec<String> {
    words
        .iter()
        .map(|word| match word.rsplit_once('/') {
            Some((_, name)) if !name.is_empty() => name.to_owned(),
            _ => word.clone(),
        })
        .collect()
}

/// The code of a shell's `-c` (also in a flag group: `-ec`, `-lc`).
fn shell_code(args: &[String]) -> Option<&str> {
    let mut options = args.iter();
    while let Some(arg) = options.next() {
        if !arg.starts_with('-') || arg == "--" {
            return None;
        }
        if arg.starts_with("--") {
            continue;
        }
        if arg[1..].contains('c') {
            return options.next().map(String::as_str);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::matcher::{Condition, MAX_STARTS, spellings};
    use super::{Reading, may_run};

    #[test]
    fn a_deep_block_is_read_within_a_bound_and_runs_a_fail_closed_guard() {
        // The old reading took each `{` as a program start: 3 001 readings
        // as long as the line, quadratic (F19: 50 000 deep ran minutes).
        let part = "{ ".repeat(3_000) + "rm -rf /";
        assert!(spellings(&part).len() <= MAX_STARTS);
        let deep = part + "; " + &"} ".repeat(3_000);
        assert!(may_run("rm *", &deep));
        // Past the bound the rule is undecidable: a fail-closed guard runs.
        assert!(may_run("shred *", &deep));
        // A handler that is not fail-closed keeps the bounded reading.
        let rule = Condition::parse("Bash(shred *)");
        let input = json!({"command": deep});
        let input = input.as_object().expect("object");
        assert!(!rule.allows("Bash", input));
        assert!(rule.may_allow("Bash", input));
    }

    #[test]
    fn reading_past_its_budget_is_undecidable() {
        let command = "eval 'eval \"eval ls\"'";
        assert!(!Reading::new(command).may_run("rm *", command));
        let mut short = Reading {
            left: command.len(),
        };
        assert!(short.may_run("rm *", command));
        assert_eq!(short.left, 0);
    }

    #[test]
    fn forms_that_hide_the_program_run_the_guard() {
        for command in [
            "rm -rf /",
            "\"rm\" -rf /",
            "'rm' -rf /",
            "r\"\"m -rf /",
            "/bin/rm -rf /",
            "./rm -rf /",
            "bash -c \"rm -rf /\"",
            "sh -ec 'ls; rm -rf /'",
            "eval \"rm -rf /\"",
            "eval 'bash -c \"rm -rf /\"'",
            "xargs rm -rf <<< /",
            "find / -delete",
            "python3 -c 'import shutil'",
            "$RM -rf /",
            "$(printf rm) -rf /",
            "bash script.sh",
            "sudo /usr/bin/rm -rf /",
            ">/dev/null rm -rf /",
            "</dev/null rm -rf /",
            "2> err.txt rm -rf /",
            "/usr/bin/env rm -rf /",
            "/usr/bin/sudo rm -rf /",
            "/usr/bin/nice rm -rf /",
            "/usr/bin/timeout 5 rm -rf /",
            "/usr/bin/time rm -rf /",
            "{rm,-rf,/}",
            "function f { rm -rf /; }; f",
            "f() { rm -rf /; }; f",
        ] {
            assert!(may_run("rm *", command), "{command}");
        }
    }

    #[test]
    fn plain_commands_that_do_not_run_it_skip_the_guard() {
        for command in [
            "ls -la",
            "echo 'rm -rf /'",
            "git status && cargo test",
            "bash -c 'ls -la'",
            "eval 'echo hi'",
            "/usr/bin/ls /tmp",
            "python3 tools/check.py",
            "ls >/dev/null",
            "cat < /etc/hosts",
        ] {
            assert!(!may_run("rm *", command), "{command}");
        }
    }
}
