//! The trial import at discovery: each `handler.py` is imported once in a
//! throwaway worker (`shim.py --check`), so a syntax error, a missing module or
//! a missing `handle` shows in `hooks list` and `hooks doctor` before any event.

use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use crate::discovery::{Discovery, GatewayHookInfo, GatewayWarning, HandlerKind, HookStatus};
use crate::options::{GatewayOptions, GatewayPython};
use crate::process::{RunLimits, log_stderr_line, run};
use crate::python::{PYTHON_SHIM, error_text};

/// Beyond the handler timeout, what the trial imports together may take (a
/// killed import's tree is reaped, the runtime is busy).
const TRIAL_MARGIN: Duration = Duration::from_secs(5);

/// The most output kept from one trial import.
const MAX_TRIAL_OUTPUT: usize = 256 * 1024;

/// Imports every `handler.py` of `discovery` once, all at the same time, each
/// bounded by the handler timeout; records the interpreter in
/// [`Discovery::python`] and each result in [`GatewayHookInfo::status`]. A
/// broken handler also becomes a warning naming its file (the hook stays off).
///
/// Blocks the calling thread until the imports finish (they run on
/// [`GatewayOptions::background`], so it may be called from inside an async
/// runtime, or outside any).
/// Importing runs the module's top-level code, as the reference does at start-up.
pub fn check_handlers(discovery: &mut Discovery, options: &GatewayOptions) {
    if !discovery
        .hooks
        .iter()
        .any(|hook| hook.handler == HandlerKind::Python)
    {
        return;
    }
    let python = options.python_interpreter();
    let jobs: Vec<(usize, GatewayHookInfo)> = discovery
        .hooks
        .iter()
        .enumerate()
        .filter(|(_, hook)| hook.handler == HandlerKind::Python)
        .map(|(index, hook)| (index, hook.clone()))
        .collect();
    let Some(runtime) = options.background() else {
        tracing::warn!("[hooks] could not check the gateway handlers: no runtime to run them on");
        return;
    };
    let home = discovery.home.clone();
    let timeout = options.handler_timeout;
    let task_python = python.clone();
    let (done, finished) = std::sync::mpsc::channel();
    // On the background runtime (the caller may be inside an async runtime
    // of its own, or none); each import is bounded by the handler timeout.
    runtime.handle().spawn(async move {
        let checks = jobs.iter().map(|(index, hook)| async {
            (
                *index,
                trial_import(&task_python, hook, &home, timeout).await,
            )
        });
        let _ = done.send(futures::future::join_all(checks).await);
    });
    let bound = timeout.saturating_add(TRIAL_MARGIN);
    let wait = || finished.recv_timeout(bound);
    let waited = if runtime.is_current() {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    };
    let results = match waited {
        Ok(results) => results,
        Err(_) => {
            tracing::warn!(
                "[hooks] could not check the gateway handlers: no answer within {:?}",
                bound
            );
            return;
        }
    };
    for (index, status) in results {
        let hook = &mut discovery.hooks[index];
        if let Some(error) = status.error() {
            let warning = GatewayWarning::skip(
                &hook.handler_path(),
                None,
                format!("cannot be imported with {python}: {error}"),
            );
            tracing::warn!("[hooks] {warning}");
            discovery.warnings.push(warning);
        }
        hook.status = status;
    }
    discovery.python = Some(python);
}

async fn trial_import(
    python: &GatewayPython,
    hook: &GatewayHookInfo,
    home: &std::path::Path,
    timeout: Duration,
) -> HookStatus {
    let broken = |error: String| HookStatus::Broken { error };
    let mut command = Command::new(&python.program);
    command
        .arg("-c")
        .arg(PYTHON_SHIM)
        .arg("--check")
        .arg(hook.handler_path())
        .arg(&hook.name)
        .env("HERMES_HOME", home);
    let limits = RunLimits::new(timeout, MAX_TRIAL_OUTPUT, Duration::from_millis(100));
    let output = match run(command, b"", &limits).await {
        Ok(output) => output,
        Err(error) => {
            return broken(format!(
                "could not start {}: {error}",
                python.program.display()
            ));
        }
    };
    for line in output.stderr.split(|byte| *byte == b'\n') {
        log_stderr_line(&hook.name, line, false);
    }
    if output.timed_out {
        return broken(format!("importing took longer than {timeout:?}"));
    }
    let answer = output
        .stdout
        .split(|byte| *byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .find(|message| message.get("id") == Some(&Value::from(0)));
    match answer {
        Some(message) if message.get("ready") == Some(&Value::Bool(true)) => HookStatus::Ready,
        Some(message) => broken(error_text(&message)),
        None => broken(format!(
            "the interpreter exited without loading the handler ({})",
            exit_text(output.exit_code, output.signal)
        )),
    }
}

fn exit_text(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "unknown exit status".to_owned(),
    }
}
