//! A shell-form command run without the `sh` in between, exactly as `sh -c`
//! would have run it.
//!
//! Only when the line is one simple command made of plain words, single and
//! double quotes and the variables we export ourselves (`$CLAUDE_PROJECT_DIR`,
//! ...), and only when the `sh` on `PATH` is dash (Debian's and Ubuntu's
//! `/bin/sh`), whose start-up we reproduce: the argv it would build, and the
//! environment it would hand on: variables whose names are not shell names
//! dropped, `IFS` reset to `<space><tab><newline>`, `OPTIND` to 1, `PPID` set
//! to our pid (each only when inherited), and `PWD` kept when it names the
//! working directory, else set to its physical path. Other shells (bash as
//! `sh` also bumps `SHLVL` and sets `_`) always get `sh -c`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tokio::process::Command;

/// Words `sh` treats specially as a command name: run those through `sh`.
const SHELL_WORDS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "case", "cd", "chdir", "command", "continue", "do",
    "done", "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg",
    "fi", "for", "function", "getopts", "hash", "if", "in", "jobs", "kill", "local", "printf",
    "pwd", "read", "readonly", "return", "select", "set", "shift", "source", "test", "then",
    "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "until",
    "wait", "while",
];

/// The command `sh -c line` would run, with the environment dash would give
/// it, when that can be known without a shell; `None`: run `sh -c`.
pub fn direct_command(line: &str, vars: &[(&'static str, String)]) -> Option<Command> {
    let argv = direct_argv(line, vars)?;
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]);
    Some(command)
}

/// The argv [`direct_command`] runs, when it runs one.
pub fn direct_argv(line: &str, vars: &[(&'static str, String)]) -> Option<Vec<String>> {
    if !sh_is_dash() {
        return None;
    }
    simple_argv(line, vars)
}

/// Gives `command` (about to run in `cwd`) the environment changes dash makes
/// at start-up before it runs a command.
pub fn as_dash_starts(command: &mut Command, cwd: &Path) {
    let mut inherited_pwd = None;
    for (name, value) in std::env::vars_os() {
        match name.to_str() {
            Some("IFS") => {
                command.env("IFS", " \t\n");
            }
            Some("OPTIND") => {
                command.env("OPTIND", "1");
            }
            Some("PPID") => {
                command.env("PPID", std::process::id().to_string());
            }
            Some("PWD") => inherited_pwd = Some(PathBuf::from(value)),
            _ if !is_shell_name(&name) => {
                command.env_remove(&name);
            }
            _ => {}
        }
    }
    let names_cwd = inherited_pwd
        .as_deref()
        .is_some_and(|pwd| pwd.is_absolute() && same_file(pwd, cwd));
    if !names_cwd && let Ok(physical) = std::fs::canonicalize(cwd) {
        command.env("PWD", physical);
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`: the names dash imports from its environment.
fn is_shell_name(name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether the `sh` a shell-form command would run through (the first on
/// `PATH`) is dash; looked up once.
fn sh_is_dash() -> bool {
    static DASH: OnceLock<bool> = OnceLock::new();
    *DASH.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join("sh"))
            .find(|candidate| candidate.is_file())
            .and_then(|sh| std::fs::canonicalize(sh).ok())
            .and_then(|real| real.file_name().map(|name| name.to_owned()))
            .is_some_and(|name| name.to_string_lossy().starts_with("dash"))
    })
}

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
        // A project path with a space and a `$`: whole when quoted, `sh` otherwise.
        let tricky = vec![("CLAUDE_PROJECT_DIR", "/p q$x".to_owned())];
        assert_eq!(
            simple_argv(
                r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/show '[%s]\n' 'a b' "c  d" e=f '' x:~/y"#,
                &tricky
            ),
            owned(&[
                "/p q$x/.claude/hooks/show",
                "[%s]\\n",
                "a b",
                "c  d",
                "e=f",
                "",
                "x:~/y"
            ])
        );
        assert_eq!(simple_argv("$CLAUDE_PROJECT_DIR/h.sh", &tricky), None);
        assert_eq!(simple_argv(r#""/p q$x/h.sh""#, &tricky), None);
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
            "chdir x",
            "in x",
            "a\nb",
        ] {
            assert_eq!(argv(line), None, "{line}");
        }
    }
}
