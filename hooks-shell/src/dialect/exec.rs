//! Running an imported command as its own tool runs it: shell form through
//! `sh -c`, exec form (`args`) without a shell, `${CLAUDE_PROJECT_DIR}` and
//! `${CLAUDE_PLUGIN_ROOT}` substituted and exported, in the project
//! directory. The run itself is the shell hooks' one: hooks-core's process
//! supervisor with the same output caps and pipe grace, so nothing a hook
//! starts outlives its timeout.

use std::time::Instant;

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::process::RunLimits;
use tokio::process::Command;

use super::{Handler, ImportedHook};
use crate::run::{OUTPUT_CAP_BYTES, PIPE_GRACE, RunResult, from_output, spawn_error_message};

/// The command `hook` runs (`None` for an http hook).
pub fn command_of(hook: &ImportedHook) -> Option<Command> {
    let Handler::Command { command, args } = &hook.handler else {
        return None;
    };
    let mut built = match args {
        Some(args) => {
            let mut built = Command::new(expand_tilde(&hook.substitute(command)));
            built.args(args.iter().map(|arg| hook.substitute(arg)));
            built
        }
        None => {
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
    let Some(command) = command_of(hook) else {
        return RunResult::failed("not a command hook".to_owned());
    };
    let started = Instant::now();
    let limits = RunLimits {
        timeout: hook.timeout,
        output_cap: OUTPUT_CAP_BYTES,
        pipe_grace: PIPE_GRACE,
    };
    match hermes_hooks_core::process::run(command, input, &limits).await {
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
