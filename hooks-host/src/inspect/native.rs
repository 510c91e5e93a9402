//! Native plugins inspected in a child process.
//!
//! Loading a native library runs its code (constructors, the entry symbol) in
//! the loading process. `hooks list` and `hooks doctor` exist to diagnose a
//! home, so they must survive a plugin that aborts, segfaults or hangs while it
//! loads: they re-run the `hooks` binary with a hidden subcommand
//! ([`INSPECT_SUBCOMMAND`]) that loads one library and prints what it
//! registers as one JSON line. A crash of that child is a finding naming the
//! plugin and the signal, not the end of the command.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_hooks_process::{RunLimits, RunOutput, run};
use serde_json::{Value, json};
use tokio::process::Command;

/// The hidden `hooks` subcommand that loads one library and describes it.
pub const INSPECT_SUBCOMMAND: &str = "__inspect-native-plugin";

/// How long a library may take to load in the child before it is killed.
pub const DEFAULT_INSPECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes kept of the child's stdout, and of its stderr (one JSON
/// line is far less; stderr is only shown as the error's last line).
const MAX_OUTPUT_BYTES: usize = 1 << 20;
/// How long to wait for the child's pipes after it exited (a grandchild may hold them).
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// What a native library registers, as it describes itself (hooks-plugin's
/// description, carried as JSON from the child).
pub use hermes_hooks_plugin::NativePluginInfo as NativeDescription;

/// Loads `library` in this process and describes it. This is what the child
/// runs; a host that trusts the library may call it directly.
pub fn describe_here(library: &Path) -> Result<NativeDescription, String> {
    hermes_hooks_plugin::inspect_native(library).map_err(|error| error.to_string())
}

/// The child's side of [`INSPECT_SUBCOMMAND`]: prints one JSON line to `out`,
/// the description or `{"error": ...}` when the library could not be loaded.
pub fn run_child(library: &Path, out: &mut dyn Write) -> std::io::Result<()> {
    let document = match describe_here(library).map(|info| serde_json::to_value(&info)) {
        Ok(Ok(description)) => description,
        Ok(Err(error)) => json!({ "error": format!("cannot describe the library: {error}") }),
        Err(error) => json!({ "error": error }),
    };
    writeln!(out, "{document}")?;
    out.flush()
}

/// Why a library could not be described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InspectError {
    /// The library loaded cleanly enough to refuse: not found, wrong ABI, bad table.
    #[error("{0}")]
    Load(String),
    /// The child died of a signal while loading the library (an abort, a crash).
    #[error("crashed while loading: killed by signal {number} ({name})")]
    Crashed {
        /// The signal number.
        number: i32,
        /// Its name, e.g. `SIGABRT`.
        name: String,
    },
    /// Loading did not finish in time; the child was killed.
    #[error("did not finish loading within {}s; killed", .0.as_secs())]
    TimedOut(Duration),
    /// The child ended in a way the inspector does not expect.
    #[error("the inspector {0}")]
    Inspector(String),
}

/// Inspects libraries by re-running a program (normally the `hooks` binary)
/// with [`INSPECT_SUBCOMMAND`].
#[derive(Debug, Clone)]
pub struct ChildInspector {
    program: PathBuf,
    timeout: Duration,
}

impl ChildInspector {
    /// An inspector running `program LIBRARY-ARGS` with the default timeout.
    pub fn new(program: impl Into<PathBuf>) -> ChildInspector {
        ChildInspector {
            program: program.into(),
            timeout: DEFAULT_INSPECT_TIMEOUT,
        }
    }

    /// An inspector re-running the current executable (the `hooks` binary).
    pub fn current_exe() -> std::io::Result<ChildInspector> {
        Ok(ChildInspector::new(std::env::current_exe()?))
    }

    /// Sets how long one library may take to load.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> ChildInspector {
        self.timeout = timeout;
        self
    }

    /// Describes `library`, loading it in a child process.
    pub fn inspect(&self, library: &Path) -> Result<NativeDescription, InspectError> {
        let mut command = Command::new(&self.program);
        command.arg(INSPECT_SUBCOMMAND).arg(library);
        let finished = run_bounded(command, self.timeout).map_err(|error| match error {
            Bounded::Spawn(error) => InspectError::Inspector(format!(
                "{} could not start: {error}",
                self.program.display()
            )),
            Bounded::Wait(error) => {
                InspectError::Inspector(format!("could not be waited for: {error}"))
            }
            Bounded::TimedOut => InspectError::TimedOut(self.timeout),
        })?;
        if let Some(number) = finished.signal {
            return Err(InspectError::Crashed {
                number,
                name: signal_name(number),
            });
        }
        let line = String::from_utf8_lossy(&finished.stdout);
        let document: Option<Value> = line
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str(line.trim()).ok());
        match (finished.exit_code, document) {
            (_, Some(document)) if document.get("error").is_some() => Err(InspectError::Load(
                document["error"].as_str().unwrap_or_default().to_owned(),
            )),
            (Some(0), Some(document)) => {
                serde_json::from_value::<NativeDescription>(document.clone()).map_err(|error| {
                    InspectError::Inspector(format!(
                        "printed an unexpected description ({error}): {document}"
                    ))
                })
            }
            (code, _) => Err(InspectError::Inspector(format!(
                "exited with status {}{}",
                code.map_or("?".to_owned(), |code| code.to_string()),
                finished
                    .last_stderr_line()
                    .map(|line| format!(": {line}"))
                    .unwrap_or_default()
            ))),
        }
    }
}

/// A child that ran to its end within its bound.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Its exit code, when it exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Its stdout (capped).
    pub stdout: Vec<u8>,
    /// Its stderr (capped).
    pub stderr: Vec<u8>,
}

impl Finished {
    /// The last non-blank line of stderr, trimmed.
    pub fn last_stderr_line(&self) -> Option<String> {
        String::from_utf8_lossy(&self.stderr)
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .map(|line| line.trim().to_owned())
    }
}

/// Why [`run_bounded`] has no result.
#[derive(Debug)]
pub(crate) enum Bounded {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// Waiting for it failed.
    Wait(std::io::Error),
    /// It outlived its bound and was killed with everything it started.
    TimedOut,
}

/// Runs `command` (stdin empty, output captured and capped) through the one
/// process supervisor (`hermes_hooks_process::run`): a `ChildTree`,
/// killed with everything it started when it outlives `timeout`.
///
/// The run is a task on the process's one background runtime
/// (`hermes_hooks_process::runtime::block_on`), so callers may be on any thread,
/// inside an executor or not, and inspect several libraries at once.
pub(crate) fn run_bounded(command: Command, timeout: Duration) -> Result<Finished, Bounded> {
    let limits = RunLimits::new(timeout, MAX_OUTPUT_BYTES, PIPE_GRACE);
    let outcome: Option<std::io::Result<RunOutput>> =
        hermes_hooks_process::runtime::block_on(async move { run(command, b"", &limits).await });
    let output = match outcome {
        Some(Ok(output)) => output,
        Some(Err(error)) if is_spawn_error(&error) => return Err(Bounded::Spawn(error)),
        Some(Err(error)) => return Err(Bounded::Wait(error)),
        None => {
            return Err(Bounded::Wait(std::io::Error::other(
                "no runtime to run the inspection on",
            )));
        }
    };
    if output.timed_out {
        return Err(Bounded::TimedOut);
    }
    Ok(Finished {
        exit_code: output.exit_code,
        signal: output.signal,
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

/// Whether `run` failed to start the program (rather than to wait for it):
/// its wait errors say "cannot wait for the child process".
fn is_spawn_error(error: &std::io::Error) -> bool {
    !error
        .to_string()
        .starts_with("cannot wait for the child process")
}

/// `SIGABRT` for 6, and so on; `signal N` for a number this platform does not name.
fn signal_name(number: i32) -> String {
    nix::sys::signal::Signal::try_from(number).map_or_else(
        |_| format!("signal {number}"),
        |signal| signal.as_str().to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(6), "SIGABRT");
        assert_eq!(signal_name(11), "SIGSEGV");
    }

    #[test]
    fn a_program_that_cannot_start_is_an_inspector_error() {
        let inspector = ChildInspector::new("/nonexistent/hooks-binary");
        let error = inspector.inspect(Path::new("/x.so")).unwrap_err();
        assert!(matches!(error, InspectError::Inspector(_)), "{error}");
    }

    #[test]
    fn a_child_killed_by_a_signal_is_a_crash() {
        // `sh -c 'kill -ABRT $$' sh __inspect… lib` dies of SIGABRT as a crashing library would.
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("aborts");
        std::fs::write(&script, "#!/bin/sh\nkill -ABRT $$\n").expect("write");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let error = ChildInspector::new(&script)
            .inspect(Path::new("/x.so"))
            .unwrap_err();
        assert_eq!(
            error,
            InspectError::Crashed {
                number: 6,
                name: "SIGABRT".to_owned()
            }
        );
    }

    #[test]
    fn a_hanging_child_is_killed_at_the_timeout() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("hangs");
        std::fs::write(&script, "#!/bin/sh\nsleep 30\n").expect("write");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let error = ChildInspector::new(&script)
            .with_timeout(Duration::from_millis(200))
            .inspect(Path::new("/x.so"))
            .unwrap_err();
        // `TimedOut` is the proof (no clock): a wait for the child's 30 s
        // would end in its exit without a report instead.
        assert!(matches!(error, InspectError::TimedOut(_)), "{error}");
    }

    #[test]
    fn a_timed_out_child_dies_with_what_it_started_even_in_another_session() {
        // The one supervisor kills the whole tree, not only the process group.
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("grandchild.pid");
        let script = dir.path().join("detaches");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nsetsid sleep 60 &\necho $! > '{}'\nsleep 60\n",
                pid_file.display()
            ),
        )
        .expect("write");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let error = ChildInspector::new(&script)
            .with_timeout(Duration::from_millis(500))
            .inspect(Path::new("/x.so"))
            .unwrap_err();
        assert!(matches!(error, InspectError::TimedOut(_)), "{error}");
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .expect("the grandchild started")
            .trim()
            .parse()
            .expect("a pid");
        let gone = (0..100).any(|_| {
            let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "));
            if alive {
                std::thread::sleep(Duration::from_millis(50));
            }
            !alive
        });
        assert!(gone, "the detached grandchild {pid} outlived the timeout");
    }
}
