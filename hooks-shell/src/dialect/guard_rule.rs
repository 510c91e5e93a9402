//! A fail-closed handler's Bash `if` rule, read the other way round: the
//! guard is skipped only when every simple command of the line is shown
//! not to run the program the rule names (red-team round 6, R6-8: a list of
//! the ways to run a program is always one short). Each simple command
//! must be read whole (`shell_words.rs`: no `$(...)`, no here-document...),
//! write no file, assign no variable that changes what runs (`PATH`,
//! `LD_PRELOAD`, `BASH_ENV`...), and run a known program
//! (`known_programs.rs`: `ls`, `cat`, `echo`...; `eval` and `sh -c` with
//! literal code, read in turn) that the rule's pattern does not match.
//! Anything else: the guard runs, and decides
//! (docs/decisions/fail-closed-if-rule.md).
//!
//! The reading is bounded (red-team F19): past [`MAX_NESTING`] levels of
//! `eval` and `sh -c`, or more text read than [`WORK_PER_BYTE`] times the
//! command's length, nothing is ruled out.

use super::known_programs::{Kind, args_run_nothing, changes_what_runs, known};
use super::matcher::glob;
use super::shell_words::{SimpleCommand, Word, simple_commands};

/// How deep `eval` and `sh -c` strings are followed.
const MAX_NESTING: usize = 4;

/// How many times over the command's text may be read (and its first
/// [`WORK_FLOOR`] bytes): past it the rule is undecidable.
const WORK_PER_BYTE: usize = 64;

/// The budget of a short command.
const WORK_FLOOR: usize = 1 << 16;

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
        !self.rules_out(pattern, command, 0)
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

    /// Whether no simple command of `line` runs what `pattern` names.
    fn rules_out(&mut self, pattern: &str, line: &str, depth: usize) -> bool {
        if depth > MAX_NESTING || !self.spend(line.len()) {
            return false;
        }
        let Some(commands) = simple_commands(line) else {
            return false;
        };
        commands
            .iter()
            .all(|command| self.command_rules_out(pattern, command, depth))
    }

    fn command_rules_out(&mut self, pattern: &str, command: &SimpleCommand, depth: usize) -> bool {
        if command.writes_file || command.assigned.iter().any(|name| changes_what_runs(name)) {
            return false;
        }
        let Some((program, args)) = command.words.split_first() else {
            return true;
        };
        if !program.literal {
            return false;
        }
        let Some(known) = known(&program.text) else {
            return false;
        };
        if rule_may_name(pattern, known.name, args) {
            return false;
        }
        match known.kind {
            Kind::Inert => args_run_nothing(known.name, args),
            Kind::Eval => {
                if !args.iter().all(|arg| arg.literal) {
                    return false;
                }
                let code: Vec<&str> = args.iter().map(|arg| arg.text.as_str()).collect();
                self.rules_out(pattern, &code.join(" "), depth + 1)
            }
            Kind::Shell => {
                shell_code(args).is_some_and(|code| self.rules_out(pattern, code, depth + 1))
            }
        }
    }
}

/// Whether `pattern` may match the program `name` (spelled plainly or by
/// a system folder: `ls`, `/bin/ls`, `/usr/bin/ls`) run with `args`
/// (quotes removed): it matches them, or an argument is expanded when it
/// runs and some command line starting with that spelling matches.
fn rule_may_name(pattern: &str, name: &str, args: &[Word]) -> bool {
    let expanded = args.iter().any(|arg| !arg.literal);
    [String::new(), "/bin/".into(), "/usr/bin/".into()]
        .into_iter()
        .any(|folder| {
            let mut text = folder + name;
            if expanded && may_begin(pattern, &text) {
                return true;
            }
            for arg in args {
                text.push(' ');
                text.push_str(&arg.text);
            }
            glob(pattern, &text)
        })
}

/// Whether some text that starts with `prefix` matches `pattern` (`*` any
/// run of characters, `?` one).
fn may_begin(pattern: &str, prefix: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let close = |states: &mut Vec<bool>| {
        for at in 0..pattern.len() {
            if states[at] && pattern[at] == '*' {
                states[at + 1] = true;
            }
        }
    };
    let mut states = vec![false; pattern.len() + 1];
    states[0] = true;
    close(&mut states);
    for c in prefix.chars() {
        let mut next = vec![false; pattern.len() + 1];
        for (at, &reached) in states.iter().enumerate().take(pattern.len()) {
            match pattern[at] {
                '*' if reached => next[at] = true,
                wanted if reached && (wanted == '?' || wanted == c) => next[at + 1] = true,
                _ => {}
            }
        }
        close(&mut next);
        if !next.contains(&true) {
            return false;
        }
        states = next;
    }
    true
}

/// The code of a shell's `-c` (also in a flag group: `-ec`), when every
/// option before it is one that reads no file (`-c`, `-e`, `-u`, `-f`) and
/// the code is literal.
fn shell_code(args: &[Word]) -> Option<&str> {
    let mut rest = args.iter();
    let mut inline = false;
    let operand = loop {
        let arg = rest.next()?;
        if !arg.literal {
            return None;
        }
        if arg.text == "--" {
            break rest.next()?;
        }
        match arg.text.strip_prefix('-') {
            Some(flags) if !flags.is_empty() && flags.chars().all(|f| "ceuf".contains(f)) => {
                inline |= flags.contains('c');
            }
            _ => break arg,
        }
    };
    (inline && operand.literal).then_some(operand.text.as_str())
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
            // Programs that are not known to run nothing (red-team R6-8).
            "git status && cargo test",
            "python3 tools/check.py",
        ] {
            assert!(may_run("rm *", command), "{command}");
        }
    }

    #[test]
    fn plain_commands_that_do_not_run_it_skip_the_guard() {
        for command in [
            "ls -la",
            "echo 'rm -rf /'",
            "bash -c 'ls -la'",
            "eval 'echo hi'",
            "/usr/bin/ls /tmp",
            "ls >/dev/null",
            "cat < /etc/hosts",
        ] {
            assert!(!may_run("rm *", command), "{command}");
        }
    }

    /// Red-team round 6 (R6-8): one of each family the old list missed.
    #[test]
    fn programs_not_known_to_run_nothing_run_the_guard() {
        for command in [
            "python3 <<< 'import os; os.system(\"rm -rf /\")'",
            "echo 'import shutil; shutil.rmtree(\"/\")' | python3",
            "printf 'x' > /tmp/x.py; python3 /tmp/x.py",
            "sed -n '1e rm -rf /' /etc/hostname",
            "tar -cf /dev/null x --checkpoint=1 --checkpoint-action=exec='rm -rf /'",
            "git -c alias.x='!rm -rf /' x",
            "vim -es -c '!rm -rf /' -c q",
            "gdb -batch -ex 'shell rm -rf /'",
            "make -f /dev/stdin <<< x",
            "ionice -c3 rm -rf /",
            "taskset 1 rm -rf /",
            "bwrap --bind / / rm -rf /",
            "tmux new-session -d 'rm -rf /'",
            "at now <<< 'rm -rf /'",
            "rsync -e 'rm -rf / #' x: y",
            "hash -p /usr/bin/rm del; del -rf /",
            "cp /usr/bin/rm /tmp/del; /tmp/del -rf /",
            "ln -sf /usr/bin/rm ./del && ./del -rf /",
            "alias del=rm\ndel -rf /",
            "PATH=/tmp/evil:$PATH ls",
            "LD_PRELOAD=/tmp/x.so ls",
            "BASH_ENV=/tmp/x.sh bash -c true",
            "printf -v 'a[$(rm -rf /)]' x",
            "printf -va x",
            "printf $X x",
            "[ -v 'a[1]' ]",
            "test $X",
            "env -S 'rm -rf /'",
            "bash -l -c ls",
            "zsh -c ls",
            "bash -c \"$X\"",
            "eval $X",
            "eval *",
            "echo x > /usr/local/bin/ls",
            "ls\r\nrm -rf /",
        ] {
            assert!(may_run("rm *", command), "{command}");
        }
    }

    #[test]
    fn known_programs_the_rule_may_name_run_the_guard() {
        // By path, or with an argument expanded when it runs.
        assert!(may_run("ls *", "/bin/ls -la"));
        assert!(may_run("/usr/bin/ls *", "ls -la"));
        assert!(may_run("cat *.env", "cat $F"));
        assert!(may_run("*rm*", "echo $X"));
        assert!(may_run("cat /etc/shadow", "bash -c 'cat /etc/shadow'"));
        // The same lines against a rule for another program.
        assert!(!may_run("rm *", "/bin/ls -la"));
        assert!(!may_run("rm *", "cat $F"));
        assert!(!may_run(
            "rm *",
            "echo $X | grep -c x 2>/dev/null && [ -f x ]"
        ));
        assert!(!may_run("cat /etc/shadow", "cat README.md"));
    }

    #[test]
    fn a_rule_may_begin_with_a_name() {
        assert!(super::may_begin("rm *", "rm"));
        assert!(super::may_begin("r? -rf*", "rm"));
        assert!(super::may_begin("*rm", "cat"));
        assert!(!super::may_begin("rm *", "ls"));
        assert!(!super::may_begin("rm", "rmdir"));
    }
}
