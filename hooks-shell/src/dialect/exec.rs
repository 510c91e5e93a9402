//! Running an imported command as its own tool runs it: shell form through
//! `sh -c`, exec form (`args`) without a shell, `${CLAUDE_PROJECT_DIR}` and
//! `${CLAUDE_PLUGIN_ROOT}` substituted and exported, in the project
//! directory. The run itself is the shell hooks' one: hooks-core's process
//! supervisor with the same output caps and pipe grace, so nothing a hook
//! starts outlives its timeout.
//!
//! A shell-form command that is one simple command (words, quotes and the
//! project / plugin variables only: no pipes, globs, other variables or
//! builtins) is run without the `sh` in between, with exactly the argv `sh`
//! would have built: the same decisions, one process less. If that spawn
//! fails (not found, no shebang) it is run through `sh -c` after all, so the
//! errors are `sh`'s.

use std::time::Instant;

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::process::RunLimits;
use tokio::process::Command;

use super::{Handler, ImportedHook};
use crate::run::{OUTPUT_CAP_BYTES, PIPE_GRACE, RunResult, from_output, spawn_error_message};

/// The command `hook` runs (`None` for an http hook); `direct` allows the
/// shell-free form of a simple shell-form command.
pub fn command_of(hook: &ImportedHook, direct: bool) -> Option<Command> {
    let Handler::Command { command, args } = &hook.handler else {
        return None;
    };
    let vars = hook.environment();
    let simple = (direct && args.is_none())
        .then(|| simple_argv(&hook.substitute(command), &vars))
        .flatten();
    let mut built = match (args, simple) {
        (Some(args), _) => {
            let mut built = Command::new(expand_tilde(&hook.substitute(command)));
            built.args(args.iter().map(|arg| hook.substitute(arg)));
            built
        }
        (None, Some(argv)) => {
            let mut built = Command::new(&argv[0]);
            built.args(&argv[1..]);
            built
        }
        (None, None) => {
            let mut built = Command::new("sh");
            built.arg("-c").arg(hook.substitute(command));
            built
        }
    };
    built
        .current_dir(&hook.cwd)
        .env("HERMES_HOME", &hook.home)
        .envs(hook.environment());
    Some(built)
}

/// Runs `hook`'s command once with `input` on stdin.
pub async fn run_command(hook: &ImportedHook, input: &[u8]) -> RunResult {
    let Some(command) = command_of(hook, true) else {
        return RunResult::failed("not a command hook".to_owned());
    };
    let started = Instant::now();
    let limits = RunLimits::new(hook.timeout, OUTPUT_CAP_BYTES, PIPE_GRACE);
    let mut outcome = hermes_hooks_core::process::run(command, input, &limits).await;
    if outcome.is_err() && hook.cwd.is_dir() {
        // The shell-free spawn failed: let `sh` run it and report as it would.
        if let Some(fallback) = command_of(hook, false) {
            outcome = hermes_hooks_core::process::run(fallback, input, &limits).await;
        }
    }
    match outcome {
        Ok(output) => {
            let mut result = from_output(output);
            result.elapsed = started.elapsed();
            result
        }
        Err(error) if !hook.cwd.is_dir() => RunResult::failed(format!(
            "cannot run in {}: {}",
            hook.cwd.display(),
            spawn_error_message(&error)
        )),
        Err(error) => RunResult::failed(spawn_error_message(&error)),
    }
}

/// Words `sh` treats specially as a command name: run those through `sh`.
const SHELL_WORDS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "case", "cd", "command", "continue", "do", "done",
    "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "fi",
    "for", "function", "getopts", "hash", "if", "jobs", "kill", "local", "printf", "pwd", "read",
    "readonly", "return", "select", "set", "shift", "source", "test", "then", "times", "trap",
    "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
];

/// The argv `sh -c line` would run, when `line` is one simple command made of
/// plain words, single and double quotes and the variables in `vars` (whose
/// values need no field splitting); `None` for anything else.
pub fn simple_argv(line: &str, vars: &[(&'static str, String)]) -> Option<Vec<String>> {
    let mut words: Vec<String> = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        inner => current.push(inner),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' => current.push_str(variable(&mut chars, vars)?),
                        '`' | '\\' => return None,
                        inner => current.push(inner),
                    }
                }
            }
            '$' => {
                let value = variable(&mut chars, vars)?;
                // Unquoted, the shell would split and glob the value.
                if value
                    .chars()
                    .any(|v| v.is_whitespace() || matches!(v, '*' | '?' | '['))
                {
                    return None;
                }
                word.get_or_insert_with(String::new).push_str(value);
            }
            '~' if word.is_none() => return None,
            c if c.is_alphanumeric() || "/._-+=:,@%^~".contains(c) => {
                word.get_or_insert_with(String::new).push(c);
            }
            _ => return None,
        }
    }
    words.extend(word);
    let first = words.first()?;
    (!first.is_empty() && !SHELL_WORDS.contains(&first.as_str()) && !first.contains('='))
        .then_some(words)
}

/// The value of `$NAME` / `${NAME}` (after the `$`), when `NAME` is in `vars`.
fn variable<'v>(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    vars: &'v [(&'static str, String)],
) -> Option<&'v str> {
    let braced = chars.peek() == Some(&'{');
    if braced {
        chars.next();
    }
    let mut name = String::new();
    while let Some(&c) = chars.peek() {
        if !(c.is_ascii_alphanumeric() || c == '_') {
            break;
        }
        name.push(c);
        chars.next();
    }
    if braced && chars.next() != Some('}') {
        return None;
    }
    vars.iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| value.as_str())
}

#[cfg(test)]
mod tests {
    use super::simple_argv;

    #[test]
    fn simple_commands_get_the_argv_sh_would_build() {
        let vars = vec![
            ("CLAUDE_PROJECT_DIR", "/p q".to_owned()),
            ("X", "/x".to_owned()),
        ];
        let argv = |line: &str| simple_argv(line, &vars);
        let owned =
            |words: &[&str]| Some(words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            argv(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh --x"#),
            owned(&["/p q/.claude/hooks/a.sh", "--x"])
        );
        assert_eq!(
            argv(r#"python3 "${CLAUDE_PROJECT_DIR}/h.py" 'a b' """#),
            owned(&["python3", "/p q/h.py", "a b", ""])
        );
        assert_eq!(argv("$X/h.sh"), owned(&["/x/h.sh"]));
        assert_eq!(argv("a.sh x=1"), owned(&["a.sh", "x=1"]));
        // Anything the shell would do more with goes through sh.
        for line in [
            "$CLAUDE_PROJECT_DIR/h.sh",
            "a | b",
            "a && b",
            "a; b",
            "a > f",
            "echo hi",
            "cd x",
            "$HOME/h.sh",
            "\"$HOME\"/h.sh",
            "a *.ts",
            "~/h.sh",
            "a `b`",
            "FOO=1 a",
            "a 'open",
            "",
            "exit 2",
            "a $(b)",
            "a # c",
        ] {
            assert_eq!(argv(line), None, "{line}");
        }
    }
}
