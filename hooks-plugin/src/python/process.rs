//! The worker's OS process: spawned in its own process group, killed with it.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The worker script, passed to the interpreter with `-c`.
pub const WORKER_SCRIPT: &str = include_str!("worker.py");

/// The worker's three pipes, as blocking files.
pub(crate) struct Pipes {
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
}

/// A running worker process; dropping it kills the process and what it started.
pub(crate) struct WorkerProcess {
    child: Child,
}

impl WorkerProcess {
    /// Starts `program -c <worker.py> <home>` with `HERMES_HOME=<home>`.
    pub(crate) fn spawn(program: &Path, home: &Path) -> std::io::Result<(Self, Pipes)> {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(program);
        command
            .arg("-c")
            .arg(WORKER_SCRIPT)
            .arg(home)
            .env("HERMES_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = command.spawn()?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("missing stdio pipe"));
        };
        let pipes = Pipes {
            stdin: File::from(std::os::fd::OwnedFd::from(stdin)),
            stdout: File::from(std::os::fd::OwnedFd::from(stdout)),
            stderr: File::from(std::os::fd::OwnedFd::from(stderr)),
        };
        Ok((WorkerProcess { child }, pipes))
    }

    /// How the process ended, once it has.
    pub(crate) fn exit_status(&mut self) -> Option<String> {
        self.child
            .try_wait()
            .ok()
            .flatten()
            .map(|status| status.to_string())
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
