//! The worker's OS process: a [`ChildTree`], so nothing it starts outlives it.

use std::fs::File;
use std::path::Path;
use std::process::Stdio;
use std::sync::OnceLock;

use hermes_hooks_core::process::ChildTree;

/// The worker script, passed to the interpreter with `-c`.
pub const WORKER_SCRIPT: &str = include_str!("worker.py");

/// The worker's three pipes, as blocking files (read and written on plain threads).
pub(crate) struct Pipes {
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
}

/// A running worker; dropping it kills the worker and every process it started.
pub(crate) struct WorkerProcess {
    tree: ChildTree,
}

/// The runtime the worker is spawned under. tokio needs one to spawn a child;
/// ours is never driven (the pipes leave it at once and are served by
/// threads), so spawning works the same under any executor, or none.
fn spawn_runtime() -> std::io::Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(RUNTIME.get_or_init(|| runtime))
}

impl WorkerProcess {
    /// Starts `program -c <worker.py> <home>` with `HERMES_HOME=<home>`.
    pub(crate) fn spawn(program: &Path, home: &Path) -> std::io::Result<(Self, Pipes)> {
        let mut command = tokio::process::Command::new(program);
        command
            .arg("-c")
            .arg(WORKER_SCRIPT)
            .arg(home)
            .env("HERMES_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let _entered = spawn_runtime()?.enter();
        let mut tree = ChildTree::spawn(command)?;
        let child = tree.child_mut();
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            return Err(std::io::Error::other("missing stdio pipe"));
        };
        let pipes = Pipes {
            stdin: File::from(stdin.into_owned_fd()?),
            stdout: File::from(stdout.into_owned_fd()?),
            stderr: File::from(stderr.into_owned_fd()?),
        };
        Ok((WorkerProcess { tree }, pipes))
    }

    /// How the worker ended, once it has.
    pub(crate) fn exit_status(&mut self) -> Option<String> {
        self.tree
            .try_wait()
            .ok()
            .flatten()
            .map(|status| status.to_string())
    }
}

impl WorkerProcess {
    /// Kills the worker and everything it started. Idempotent.
    pub(crate) fn stop(&mut self) {
        let _entered = spawn_runtime().map(tokio::runtime::Runtime::enter);
        self.tree.kill_tree();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}
