//! Running an imported command as its own tool runs it: shell form through
//! `sh -c`, exec form (`args`) without a shell, `${CLAUDE_PROJECT_DIR}` and
//! `${CLAUDE_PLUGIN_ROOT}` substituted and exported, in the project
//! directory. The run itself is the shell hooks' one: hermes-hooks-process's
//! supervisor with the same output caps and pipe grace, so nothing a hook
//! starts outlives its timeout.
//!
//! A shell-form command that is one simple command (words, quotes and the
//! project / plugin variables only: no pipes, globs, other variables or
//! builtins) is run without the `sh` in between, with exactly the argv and
//! environment `sh` would have given it ([`super::direct`]): the same
//! decisions, one exec less. If that spawn fails (not found, no shebang) it
//! is run through `sh -c` after all, so the errors are `sh`'s.

use std::time::Instant;

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_process::RunLimits;
use tokio::process::Command;

use super::direct::{as_dash_starts, direct_command};
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
        .then(|| direct_command(&hook.substitute(command), &vars))
        .flatten();
    let shell_free = simple.is_some();
    let mut built = match (args, simple) {
        (Some(args), _) => {
            let mut built = Command::new(expand_tilde(&hook.substitute(command)));
            built.args(args.iter().map(|arg| hook.substitute(arg)));
            built
        }
        (None, Some(built)) => built,
        (None, None) => {
            let mut built = Command::new("sh");
            built.arg("-c").arg(hook.substitute(command));
            built
        }
    };
    built
        .current_dir(&hook.cwd)
        .env("HERMES_HOME", &hook.home)
        .envs(vars);
    if shell_free {
        // What the skipped `sh` would have done to the environment.
        as_dash_starts(&mut built, &hook.cwd);
    }
    Some(built)
}

/// Runs `hook`'s command once with `input` on stdin.
pub async fn run_command(hook: &ImportedHook, input: &[u8]) -> RunResult {
    let Some(command) = command_of(hook, true) else {
        return RunResult::failed("not a command hook".to_owned());
    };
    let started = Instant::now();
    let limits = RunLimits::new(hook.timeout, OUTPUT_CAP_BYTES, PIPE_GRACE);
    let prepare = || {
        crate::sandboxing::prepare(
            &hook.sandbox,
            &hook.project,
            crate::sandboxing::imported_own_files(hook),
            &hook.sandbox_secrets,
        )
    };
    let prepared = match prepare() {
        Ok(prepared) => prepared,
        Err(error) => return RunResult::sandbox_unavailable(&error),
    };
    let sandbox = prepared.as_ref().map(|prepared| prepared.name().to_owned());
    let mut outcome = hermes_hooks_process::run_sandboxed(command, input, &limits, prepared).await;
    if outcome.is_err() && hook.cwd.is_dir() {
        // The shell-free spawn failed: let `sh` run it and report as it would.
        if let Some(fallback) = command_of(hook, false) {
            let prepared = match prepare() {
                Ok(prepared) => prepared,
                Err(error) => return RunResult::sandbox_unavailable(&error),
            };
            outcome = hermes_hooks_process::run_sandboxed(fallback, input, &limits, prepared).await;
        }
    }
    let mut result = finish(hook, outcome, started);
    crate::sandboxing::note(&mut result, sandbox);
    result
}

fn finish(
    hook: &ImportedHook,
    outcome: std::io::Result<hermes_hooks_process::RunOutput>,
    started: Instant,
) -> RunResult {
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
