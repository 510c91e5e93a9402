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

use hermes_hooks_core::Event;
use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_process::RunLimits;
use tokio::process::Command;

use super::direct::{as_dash_starts, direct_argv};
use super::{Handler, ImportedHook, Scope};
use crate::launch::Launch;
use crate::run::{OUTPUT_CAP_BYTES, RunResult, from_output, spawn_error_message};
use crate::snapshot::Snapshot;

/// The command `hook` runs for `event` (`None` for an http hook); `direct` allows the
/// shell-free form of a simple shell-form command.
pub fn command_of(hook: &ImportedHook, event: &Event, direct: bool) -> Option<Command> {
    command_launched(hook, event, direct, None)
}

/// [`command_of`], running the checked script sealed in `launch` in place of
/// its path when the command names it as a word (exec form, or a simple
/// shell-form command run without `sh`).
pub fn command_launched(
    hook: &ImportedHook,
    event: &Event,
    direct: bool,
    launch: Option<&Launch>,
) -> Option<Command> {
    built_command(hook, event, direct, launch).map(|(command, _)| command)
}

/// [`command_launched`], with what of the host's environment was not
/// passed to it (`host_env`).
fn built_command(
    hook: &ImportedHook,
    event: &Event,
    direct: bool,
    launch: Option<&Launch>,
) -> Option<(Command, Vec<String>)> {
    let Handler::Command { command, args } = &hook.handler else {
        return None;
    };
    if let Some(data) = hook.plugin_data() {
        // Claude Code creates the folder on first use; a hook may write to it at once.
        if let Err(error) = std::fs::create_dir_all(&data) {
            tracing::warn!("cannot create {}: {error}", data.display());
        }
    }
    let vars = hook.environment();
    let simple = (direct && args.is_none())
        .then(|| direct_argv(&hook.substitute_in_line(command), &vars))
        .flatten();
    let shell_free = simple.is_some();
    let mut argv = match (args, simple) {
        (Some(args), _) => {
            let mut argv = vec![expand_tilde(&hook.substitute(command))];
            argv.extend(args.iter().map(|arg| hook.substitute(arg)));
            argv
        }
        (None, Some(argv)) => argv,
        (None, None) => vec![
            "sh".to_owned(),
            "-c".to_owned(),
            hook.substitute_in_line(command),
        ],
    };
    let original = argv[0].clone();
    let env = match (args.is_some() || shell_free, launch) {
        (true, Some(launch)) => launch.rewrite(&mut argv, &hook.cwd),
        // `sh -c TEXT`: the text runs the sealed copy (R33b-1).
        (false, Some(launch)) => launch.rewrite_text_with(&mut argv[2], &hook.cwd, &vars),
        (_, None) => None,
    };
    let mut built = Command::new(&argv[0]);
    if argv[0] != original {
        built.arg0(&original);
    }
    // The user's own settings may still set one (they are not the project's).
    let users = hook.scope != Scope::Project;
    let withheld = crate::host_env::withhold_project_loaders(&mut built, &[&hook.project], users);
    crate::git_env::without_found_bare_repositories(&mut built);
    let project_hook = (hook.scope == Scope::Project).then_some(hook.project.as_path());
    let bytecode = crate::bytecode::folder(&hook.home, project_hook);
    crate::bytecode::private_bytecode(&mut built, &bytecode);
    let project_hook = project_hook.is_some();
    crate::build_folders::private_builds(&mut built, &hook.home, &hook.project, project_hook);
    built
        .args(&argv[1..])
        .current_dir(&hook.cwd)
        .envs(hook.settings_env.iter().map(|(name, value)| (name, value)))
        .env("HERMES_HOME", &hook.home)
        .envs(vars);
    if let Some(file) = env_file(hook, event) {
        built.env("CLAUDE_ENV_FILE", file);
    }
    if shell_free {
        // What the skipped `sh` would have done to the environment.
        as_dash_starts(&mut built, &hook.cwd);
    }
    crate::launch::set_env(&mut built, env.unwrap_or_default());
    if hook.scope != Scope::Project && crate::binding::python_reads_cwd(&hook.consent_command()) {
        // The user's own `python3 -c` / `-m` / piped Python runs in the
        // project's folder: never import the repository's modules.
        built.env("PYTHONSAFEPATH", "1");
    }
    Some((built, withheld))
}

/// `CLAUDE_ENV_FILE` for a Claude Code `SessionStart` hook: a file it may
/// append `export NAME=value` lines to, in a folder private to the session
/// ([`super::session_env`], created here; `None` with a warning if it cannot
/// be made private). Claude Code sources it before each Bash command;
/// Hermes's own tools do not, so the lines are kept for the session's hooks
/// that read them back, until the session is finalized.
pub fn env_file(hook: &ImportedHook, event: &Event) -> Option<std::path::PathBuf> {
    if !super::session_env::makes_env_file(hook) {
        return None;
    }
    let session = event
        .get("session_id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    match super::session_env::session_folder(&hook.home, session) {
        Ok(folder) => Some(folder.join(super::session_env::FILE_NAME)),
        Err(error) => {
            tracing::warn!("no CLAUDE_ENV_FILE for session {session:?}: {error}");
            None
        }
    }
}

/// Runs `hook`'s command once for `event` with `input` on stdin.
pub async fn run_command(hook: &ImportedHook, event: &Event, input: &[u8]) -> RunResult {
    run_command_launched(hook, event, input, None).await
}

/// [`run_command`] with the checked script sealed in `launch`.
pub async fn run_command_launched(
    hook: &ImportedHook,
    event: &Event,
    input: &[u8],
    launch: Option<&Launch>,
) -> RunResult {
    if !matches!(hook.handler, Handler::Command { .. }) {
        return RunResult::failed("not a command hook".to_owned());
    }
    let started = Instant::now();
    let grace = crate::run::pipe_grace(hook.fail_closed, hook.timeout);
    let limits = RunLimits::new(hook.timeout, OUTPUT_CAP_BYTES, grace);
    if crate::unsandboxed::runs_with_full_power(hook) {
        crate::unsandboxed::warn_before_run(&hook.project);
    }
    let snapshot = launch.and_then(Launch::snapshot);
    let prepare = || {
        let (read, write) = crate::sandboxing::imported_tool_paths(hook, event);
        let mut own = crate::sandboxing::imported_own_files(hook);
        own.extend(read);
        if let Some(snapshot) = snapshot {
            own.extend(snapshot.copies_of(&own));
        }
        // Every session's env folder is hidden; the hook's own session's
        // folder, among `write`, stays its own.
        let mut secrets = hook.sandbox_secrets.clone();
        secrets.push(super::session_env::root(&hook.home));
        let roots = snapshot.map(Snapshot::roots).unwrap_or_default();
        crate::sandboxing::prepare_tree(
            &hook.sandbox,
            &hook.project,
            own,
            write,
            &secrets,
            roots,
            hook.fail_closed,
        )
    };
    let prepared = match prepare() {
        Ok(prepared) => prepared,
        Err(error) => return RunResult::sandbox_unavailable(&error),
    };
    let (prepared, overlaid) = match crate::launch::overlay(launch, prepared) {
        Ok(done) => done,
        Err(error) => return RunResult::failed(error),
    };
    let sandbox = prepared.as_ref().map(|prepared| prepared.name().to_owned());
    let script = launch.and_then(|launch| launch.for_command(overlaid.script_by_path));
    let Some((command, withheld)) = built_command(hook, event, true, script) else {
        return RunResult::failed("not a command hook".to_owned());
    };
    let mut outcome = hermes_hooks_process::run_sandboxed(command, input, &limits, prepared).await;
    if outcome.is_err() && hook.cwd.is_dir() {
        // The shell-free spawn failed: let `sh` run it and report as it would.
        if let Some(fallback) = command_launched(hook, event, false, script) {
            let prepared = match prepare() {
                Ok(prepared) => prepared,
                Err(error) => return RunResult::sandbox_unavailable(&error),
            };
            let prepared = match crate::launch::overlay(launch, prepared) {
                Ok((prepared, _)) => prepared,
                Err(error) => return RunResult::failed(error),
            };
            outcome = hermes_hooks_process::run_sandboxed(fallback, input, &limits, prepared).await;
        }
    }
    let mut result = finish(hook, outcome, started);
    result.withheld = withheld;
    if let Some(launch) = launch {
        launch.after(overlaid.tree, &mut result);
    }
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
