//! Running one shell hook: spawn, feed stdin, drain stdout/stderr, time out.
//!
//! How a run is kept safe from badly behaved hooks:
//! - The command is split with POSIX shell-word rules and run without a shell;
//!   every argument starting with `~/` is expanded.
//! - The run goes through the one process supervisor (hermes-hooks-process)
//!   ([`hermes_hooks_process::run`]): the hook and everything it starts, in its
//!   process group or not, is killed with `SIGKILL` on timeout, so nothing it
//!   started outlives the timeout.
//! - stdin is written alongside the reads; a hook that never reads stdin or
//!   closes it at once (`EPIPE`) does not fail the run.
//! - stdout and stderr are drained together. Each keeps at most
//!   [`OUTPUT_CAP_BYTES`]; past the cap the rest is read and discarded, so a
//!   hook printing 100 MB neither fills our memory nor blocks on a full pipe
//!   (it runs to completion or to its timeout). Truncated stdout is then no
//!   longer valid JSON, which the evaluation treats as unparseable output.
//! - Once the direct child has exited, the pipes get [`PIPE_GRACE`] to reach
//!   end-of-file (a fail-closed guard's, until its timeout: [`pipe_grace`]).
//!   If something it started still holds them open, its tree is killed and
//!   reading stops.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_hooks_core::Event;
use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::wire::{WireContext, write_hook_document};
use hermes_hooks_process::{RunLimits, RunOutput};
use tokio::process::Command;

use crate::config::ShellHookSpec;
use crate::launch::Launch;

/// The most bytes kept of a hook's stdout, and separately of its stderr.
pub const OUTPUT_CAP_BYTES: usize = 1024 * 1024;

/// How long the pipes may stay open after the direct child exited.
pub const PIPE_GRACE: Duration = Duration::from_millis(250);

/// How long the pipes of a hook whose run ends after `timeout` may stay
/// open after its direct child exited: [`PIPE_GRACE`], and for a guard
/// that `fails_closed` until its timeout, as the reference reads a hook's
/// output to its end. Cut at the grace, a guard's answer written by a
/// process it did not wait for (a background job, `> >(…)`) would not be
/// whole, and the guard would fail (round 75: `(sleep 1) &` without a
/// redirect then blocked every call, where the reference waits and reads).
pub fn pipe_grace(fails_closed: bool, timeout: Duration) -> Duration {
    match fails_closed {
        true => timeout.max(PIPE_GRACE),
        false => PIPE_GRACE,
    }
}

/// What one run of a hook did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunResult {
    /// The exit status, when the process exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended the process, when one did (`9` after a timeout kill).
    pub signal: Option<i32>,
    /// Whether the run hit its timeout and was killed.
    pub timed_out: bool,
    /// Wall-clock time from spawn to the end of the run.
    pub elapsed: Duration,
    /// stdout, lossily decoded as UTF-8 (at most [`OUTPUT_CAP_BYTES`] of it).
    pub stdout: String,
    /// stderr, lossily decoded as UTF-8 (at most [`OUTPUT_CAP_BYTES`] of it).
    pub stderr: String,
    /// Why the hook could not be run at all (`command not found`, ...).
    pub error: Option<String>,
    /// Whether stdout passed [`OUTPUT_CAP_BYTES`] and the rest was discarded.
    pub stdout_truncated: bool,
    /// Whether stderr passed [`OUTPUT_CAP_BYTES`] and the rest was discarded.
    pub stderr_truncated: bool,
    /// Whether a process it started still held stdout open after it
    /// exited, past the pipe grace: its tree was killed, so what was read
    /// may not be its whole answer (a fail-closed guard then fails).
    pub stdout_cut: bool,
    /// The sandbox profile it ran in (`None`: no sandbox).
    pub sandbox: Option<String>,
    /// It did not run because its sandbox profile cannot be applied here
    /// (`error` says what is missing): a fail-closed hook blocks, a
    /// fail-open one is skipped with a warning.
    pub sandbox_unavailable: bool,
    /// The inet sockets its tree asked for although its sandbox keeps no
    /// network, as the kernel recorded them (kept for a fail-closed hook
    /// only: [`Context::record_denials`](hermes_hooks_process::sandbox::Context::record_denials)).
    pub network_attempts: u64,
    /// The first path of the host's `/tmp` it looked up that its private
    /// `/tmp` hid, recorded as `network_attempts` are.
    pub hidden_tmp: Option<PathBuf>,
    /// The first path of the host it opened to read or ran that its
    /// Landlock ruleset certainly denied (beneath no root its profile
    /// grants, or beneath a hidden one), recorded as `network_attempts` are.
    pub denied_path: Option<PathBuf>,
    /// The first unix socket of the host its sandbox kept it from (masked,
    /// hidden by its private `/tmp`; `@name`: an abstract one, cut off with
    /// the network), recorded as `network_attempts` are.
    pub denied_unix_socket: Option<String>,
    /// What of the host's environment a user's hook was not given because
    /// it names the project's files (a variable, search-path entries); a
    /// failed run says so.
    pub withheld: Vec<String>,
}

impl RunResult {
    /// A run that exited with `exit_code`, having written `stdout` and `stderr`
    /// (what [`evaluate`](crate::reply::evaluate)-style checks read; for tests and hosts).
    pub fn exited(exit_code: i32, stdout: impl Into<String>, stderr: impl Into<String>) -> Self {
        RunResult {
            exit_code: Some(exit_code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..RunResult::default()
        }
    }

    /// A run ended by `signal`.
    pub fn killed(signal: i32) -> Self {
        RunResult {
            signal: Some(signal),
            ..RunResult::default()
        }
    }

    /// A run killed at its timeout.
    pub fn timed_out() -> Self {
        RunResult {
            timed_out: true,
            signal: Some(9),
            ..RunResult::default()
        }
    }

    /// A hook that could not be run at all, and why (`command not found`, ...).
    pub fn failed(error: impl Into<String>) -> Self {
        let error = error.into();
        RunResult {
            error: Some(error),
            ..RunResult::default()
        }
    }

    /// A hook that did not run because its sandbox could not be prepared.
    pub fn sandbox_unavailable(error: &hermes_hooks_process::sandbox::SandboxError) -> Self {
        RunResult {
            error: Some(crate::sandboxing::unavailable_message(error)),
            sandbox_unavailable: true,
            ..RunResult::default()
        }
    }

    /// Whether the hook ran and exited with status 0.
    pub fn succeeded(&self) -> bool {
        self.error.is_none() && !self.timed_out && self.exit_code == Some(0)
    }
}

/// The argv of `command`: POSIX shell words, with `~/` expanded in every word.
///
/// Errors are the messages a [`RunResult`] carries: `empty command`, or
/// `command '<c>' cannot be parsed: ...`. As with Python's `shlex.split`, a
/// word starting with `#` is a word, not a comment.
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let words = shlex::split(&escape_comment_marks(command)).ok_or_else(|| {
        format!(
            "command '{command}' cannot be parsed: no closing quotation or a trailing backslash"
        )
    })?;
    if words.is_empty() {
        return Err("empty command".to_owned());
    }
    Ok(words
        .into_iter()
        .map(|word| {
            if word.starts_with("~/") {
                expand_tilde(&word)
            } else {
                word
            }
        })
        .collect())
}

/// Escapes every `#` that starts an unquoted word: the `shlex` crate reads it as
/// the start of a comment, Python's `shlex.split` (which the reference uses) as
/// an ordinary character.
fn escape_comment_marks(command: &str) -> std::borrow::Cow<'_, str> {
    if !command.contains('#') {
        return std::borrow::Cow::Borrowed(command);
    }
    let mut escaped = String::with_capacity(command.len() + 4);
    let mut chars = command.chars();
    let mut word_start = true;
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => word_start = true,
            '#' if word_start => {
                escaped.push('\\');
                word_start = false;
            }
            '\\' => {
                escaped.push(c);
                if let Some(next) = chars.next() {
                    escaped.push(next);
                }
                word_start = false;
                continue;
            }
            '\'' | '"' => {
                escaped.push(c);
                let mut backslash = false;
                for inner in chars.by_ref() {
                    escaped.push(inner);
                    match inner {
                        '\\' if c == '"' && !backslash => backslash = true,
                        _ if inner == c && !backslash => break,
                        _ => backslash = false,
                    }
                }
                word_start = false;
                continue;
            }
            _ => word_start = false,
        }
        escaped.push(c);
    }
    std::borrow::Cow::Owned(escaped)
}

/// The stdin bytes of `event`: the wire document serialised once, straight
/// from the borrowed event (the payload is not copied into a map first).
pub fn stdin_bytes(event: &Event, context: &WireContext) -> Arc<[u8]> {
    let mut json = Vec::with_capacity(512);
    if let Err(error) = write_hook_document(event, context, &mut json) {
        // Not expected (a Vec writer and string keys); the hook then reads empty stdin.
        tracing::warn!(
            "shell hook stdin for {} could not be serialised: {error}",
            event.name()
        );
        json.clear();
    }
    json.into()
}

/// Runs `spec` once for `event` (matcher not checked; see [`ShellHookSpec::matches_tool`]).
pub async fn run_hook(spec: &ShellHookSpec, event: &Event, context: &WireContext) -> RunResult {
    run_with_input(spec, stdin_bytes(event, context)).await
}

/// Runs `spec` once with `input` on stdin (the serialised wire document, shared by every hook of an event).
pub async fn run_with_input(spec: &ShellHookSpec, input: Arc<[u8]>) -> RunResult {
    run_launched(spec, input, None).await
}

/// [`run_with_input`], running the checked script sealed in `launch` in place
/// of its path (see [`crate::launch`]).
pub async fn run_launched(
    spec: &ShellHookSpec,
    input: Arc<[u8]>,
    launch: Option<&Launch>,
) -> RunResult {
    let mut argv = match split_command(&spec.command) {
        Ok(argv) => argv,
        Err(error) => return RunResult::failed(error),
    };
    let original = argv[0].clone();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let started = Instant::now();
    let limits = RunLimits::new(
        spec.timeout,
        OUTPUT_CAP_BYTES,
        pipe_grace(spec.blocks_on_failure(), spec.timeout),
    );
    // The host's project (`hooks --project`), else the folder it runs in (R13-4).
    let project = spec.project.clone().unwrap_or_else(|| cwd.clone());
    // The script's own folder, named as written (not as its sealed copy).
    let mut own = crate::sandboxing::own_files(argv.iter().map(String::as_str), &project);
    let snapshot = launch.and_then(Launch::snapshot);
    if let Some(snapshot) = snapshot {
        own.extend(snapshot.copies_of(&own));
    }
    let roots = snapshot
        .map(crate::snapshot::Snapshot::roots)
        .unwrap_or_default();
    let secrets = &spec.sandbox_secrets;
    let prepared = match crate::sandboxing::prepare_tree(
        &spec.sandbox,
        &project,
        own,
        match spec.sandbox.is_none() {
            true => Vec::new(),
            false => crate::build_folders::made(&spec.home, &project, false)
                .into_iter()
                .collect(),
        },
        secrets,
        roots,
        spec.blocks_on_failure(),
    ) {
        Ok(prepared) => prepared,
        Err(error) => return RunResult::sandbox_unavailable(&error),
    };
    let (prepared, overlaid) = match crate::launch::overlay(launch, prepared) {
        Ok(done) => done,
        Err(error) => return RunResult::failed(error),
    };
    let sandbox = prepared.as_ref().map(|prepared| prepared.name().to_owned());
    let script = launch.and_then(|launch| launch.for_command(overlaid.script_by_path));
    let env = script.and_then(|launch| launch.rewrite(&mut argv, &cwd));
    let mut command = Command::new(&argv[0]);
    if argv[0] != original {
        command.arg0(&original);
    }
    // A relative value (the folder it runs in) is the project's whichever folder that is.
    let withheld = crate::host_env::withhold_project_loaders(&mut command, &[&project], true);
    crate::git_env::without_found_bare_repositories(&mut command);
    crate::bytecode::private_bytecode(&mut command, &crate::bytecode::folder(&spec.home, None));
    crate::build_folders::private_builds(&mut command, &spec.home, &project, false);
    crate::launch::set_env(&mut command, env.unwrap_or_default());
    command.args(&argv[1..]).env("HERMES_HOME", &spec.home);
    if crate::binding::python_reads_cwd(&spec.command) {
        // The user's own `python3 -c` / `-m` runs in the project's folder:
        // never import the repository's modules in place of the stdlib's.
        command.env("PYTHONSAFEPATH", "1");
    }
    let outcome = hermes_hooks_process::run_sandboxed(command, &input, &limits, prepared).await;
    let mut result = match outcome {
        Ok(output) => {
            let mut result = from_output(output);
            result.elapsed = started.elapsed();
            result
        }
        Err(error) => RunResult::failed(spawn_error_message(&error)),
    };
    result.withheld = withheld;
    if let Some(launch) = launch {
        launch.after(overlaid.tree, &mut result);
    }
    crate::sandboxing::note(&mut result, sandbox);
    result
}

pub(crate) fn from_output(output: RunOutput) -> RunResult {
    RunResult {
        exit_code: output.exit_code,
        signal: output.signal,
        timed_out: output.timed_out,
        elapsed: output.elapsed,
        stdout: text(output.stdout, output.stdout_truncated, "stdout"),
        stderr: text(output.stderr, output.stderr_truncated, "stderr"),
        error: None,
        stdout_truncated: output.stdout_truncated,
        stderr_truncated: output.stderr_truncated,
        stdout_cut: output.stdout_cut,
        sandbox: None,
        sandbox_unavailable: false,
        network_attempts: output.network_attempts,
        hidden_tmp: output.hidden_tmp,
        denied_path: output.denied_path,
        denied_unix_socket: output.denied_unix_socket,
        withheld: Vec::new(),
    }
}

fn text(bytes: Vec<u8>, truncated: bool, stream: &str) -> String {
    if truncated {
        tracing::warn!(
            "shell hook {stream} exceeded {OUTPUT_CAP_BYTES} bytes; the rest was discarded"
        );
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

pub(crate) fn spawn_error_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "command not found".to_owned(),
        std::io::ErrorKind::PermissionDenied => "command not executable".to_owned(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_expands_tilde_in_every_word() {
        let argv = split_command("~/a.sh --config ~/b.yaml x~/c").unwrap_or_default();
        assert_eq!(argv.len(), 4);
        assert!(!argv[0].starts_with('~'));
        assert!(!argv[2].starts_with('~'));
        assert!(argv[2].ends_with("/b.yaml"));
        assert_eq!(argv[3], "x~/c");
    }

    #[test]
    fn split_errors_carry_the_reference_messages() {
        assert_eq!(split_command("   "), Err("empty command".to_owned()));
        let error = split_command("echo 'unterminated")
            .err()
            .unwrap_or_default();
        assert!(
            error.starts_with("command 'echo 'unterminated' cannot be parsed: "),
            "{error}"
        );
    }

    #[test]
    fn a_word_starting_with_hash_is_a_word_as_in_python() {
        let words = |command: &str| split_command(command).unwrap_or_default();
        // Each expectation is what Python's shlex.split gives for the same text.
        assert_eq!(
            words(r##"hook.sh #tag a#b '#q' "#d" x\ #y"##),
            ["hook.sh", "#tag", "a#b", "#q", "#d", "x #y"]
        );
        assert_eq!(words("a\t#b"), ["a", "#b"]);
        assert_eq!(words(r#""it's \" #" #z"#), ["it's \" #", "#z"]);
        assert_eq!(split_command("#"), Ok(vec!["#".to_owned()]));
    }

    #[test]
    fn split_keeps_quoted_spaces() {
        assert_eq!(
            split_command(r#""/tmp/dir with space/hook.sh" a"#),
            Ok(vec![
                "/tmp/dir with space/hook.sh".to_owned(),
                "a".to_owned()
            ])
        );
    }
}
