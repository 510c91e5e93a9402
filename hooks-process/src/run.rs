//! A one-shot run: input on stdin, capped output, a timeout, and a short pipe grace.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::ChildTree;
use super::capture::{Captured, drain};

/// Bounds of a one-shot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunLimits {
    /// How long the direct child may run before the tree is killed.
    pub timeout: Duration,
    /// The most bytes kept of stdout, and separately of stderr.
    pub output_cap: usize,
    /// How long the pipes may stay open after the direct child exited.
    pub pipe_grace: Duration,
}

impl RunLimits {
    /// Bounds of a one-shot run: its timeout, the bytes kept of each of stdout
    /// and stderr, and how long the pipes may stay open after the child exited.
    pub fn new(timeout: Duration, output_cap: usize, pipe_grace: Duration) -> Self {
        RunLimits {
            timeout,
            output_cap,
            pipe_grace,
        }
    }
}

/// What a one-shot run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunOutput {
    /// The exit status, when the direct child exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended the direct child, when one did (`9` after a timeout kill).
    pub signal: Option<i32>,
    /// Whether the run hit its timeout and the tree was killed.
    pub timed_out: bool,
    /// Wall-clock time from spawn to the end of the run.
    pub elapsed: Duration,
    /// The first `output_cap` bytes of stdout.
    pub stdout: Vec<u8>,
    /// The first `output_cap` bytes of stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout went past `output_cap` (the rest was read and discarded).
    pub stdout_truncated: bool,
    /// Whether stderr went past `output_cap` (the rest was read and discarded).
    pub stderr_truncated: bool,
    /// The inet sockets its tree asked for while the run lasted, as the
    /// kernel recorded them where the sandbox was asked to
    /// ([`Context::record_denials`](super::sandbox::Context::record_denials)):
    /// a record the hook cannot silence. `0` elsewhere.
    pub network_attempts: u64,
    /// The first path of the host's `/tmp` its tree looked up that its
    /// private `/tmp` hid, recorded as `network_attempts` is.
    pub hidden_tmp: Option<std::path::PathBuf>,
    /// The first path of the host its tree opened to read or ran that its
    /// Landlock ruleset certainly denied (beneath no root the profile
    /// grants, or beneath a hidden one), recorded as `network_attempts` is.
    pub denied_path: Option<std::path::PathBuf>,
    /// The first unix socket the host has that its tree's sandbox kept it
    /// from (masked, hidden by its private `/tmp`, an abstract one cut
    /// off): its path, or `@name` for an abstract one; recorded as
    /// `network_attempts` is.
    pub denied_unix_socket: Option<String>,
    /// Whether a process the child started still held stdout open when the
    /// pipe grace after the child's exit ran out: the tree was killed, so
    /// what was read may not be all it would have written (a guard's
    /// answer written by a process it did not wait for: red team round 74,
    /// R74-1).
    pub stdout_cut: bool,
}

/// The least grace the pipes get after the child exits, at its deadline too.
const SHORTEST_GRACE: Duration = Duration::from_millis(50);

/// How long stderr alone is waited for once stdout is whole, and the pipes
/// once the tree was killed.
const STDERR_GRACE: Duration = Duration::from_millis(250);

/// Whether `reading` (both pipes) ends within `grace`; it stops waiting
/// early when `stdout_whole` says stdout ended and [`STDERR_GRACE`] passed.
async fn read_within<F: std::future::Future>(
    reading: &mut std::pin::Pin<&mut F>,
    grace: Duration,
    stdout_whole: impl Fn() -> bool,
) -> bool {
    const SLICE: Duration = Duration::from_millis(50);
    let started = tokio::time::Instant::now();
    let until = started + grace;
    let short = grace.min(STDERR_GRACE);
    loop {
        let now = tokio::time::Instant::now();
        if now >= until {
            return false;
        }
        let slice = (until - now).min(SLICE);
        if tokio::time::timeout(slice, reading.as_mut()).await.is_ok() {
            return true;
        }
        if stdout_whole() && started.elapsed() >= short {
            return false;
        }
    }
}

enum Ending {
    Exited(io::Result<ExitStatus>),
    TimedOut,
}

/// One-shot run of `command` (its stdio is replaced by pipes).
///
/// Writes `input` to stdin alongside the reads (a child that exits or closes
/// stdin without reading it is not an error), drains stdout and stderr
/// together keeping at most `output_cap` bytes of each (the rest is read and
/// discarded, so the child never blocks on a full pipe), and ends when
/// - `timeout` passes: the tree is killed, `timed_out` is set; or
/// - the direct child exits: the pipes get `pipe_grace` to reach end-of-file;
///   if something it started still holds them, the tree is killed and what was
///   read is the result. Descendants that hold none of the pipes after a
///   normal exit are detached on purpose and left alone.
///
/// So the reply is available as soon as the direct child exits, plus at most
/// the grace. Errors: the spawn's own (`NotFound`, `PermissionDenied`, ...),
/// or a failed wait for the child (after the tree was killed).
pub async fn run(command: Command, input: &[u8], limits: &RunLimits) -> io::Result<RunOutput> {
    run_sandboxed(command, input, limits, None).await
}

/// [`run`], with the child's tree in `sandbox` when one is given (see
/// [`super::sandbox`]); a sandbox that cannot be applied in the child is a
/// spawn error.
pub async fn run_sandboxed(
    mut command: Command,
    input: &[u8],
    limits: &RunLimits,
    sandbox: Option<super::sandbox::Prepared>,
) -> io::Result<RunOutput> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut tree = ChildTree::spawn_sandboxed(command, sandbox)?;
    let child = tree.child_mut();
    let (stdin, stdout_pipe, stderr_pipe) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let mut stdout = Captured::new(limits.output_cap);
    let mut stderr = Captured::new(limits.output_cap);
    let (stdout_ended, stderr_ended) = (AtomicBool::new(false), AtomicBool::new(false));
    let mut stdout_cut = false;
    let deadline = tokio::time::Instant::now() + limits.timeout;
    let ending = {
        let writing = async move {
            if let Some(mut stdin) = stdin {
                // EPIPE (the child closed stdin or exited) is fine; dropping stdin closes it.
                let _ = stdin.write_all(input).await;
                let _ = stdin.shutdown().await;
            }
        };
        let reading = async {
            tokio::join!(
                drain(stdout_pipe, &mut stdout, &stdout_ended),
                drain(stderr_pipe, &mut stderr, &stderr_ended)
            )
        };
        let mut writing = std::pin::pin!(writing);
        let mut reading = std::pin::pin!(reading);
        let (mut written, mut read) = (false, false);
        let ending = loop {
            tokio::select! {
                _ = &mut writing, if !written => written = true,
                _ = &mut reading, if !read => read = true,
                status = tree.wait() => break Ending::Exited(status),
                _ = tokio::time::sleep_until(deadline) => break Ending::TimedOut,
            }
        };
        if !matches!(ending, Ending::Exited(Ok(_))) {
            tree.kill_tree();
        }
        // Never past the run's deadline: a grace as long as the timeout
        // (a fail-closed guard's) waits for the pipes as long as the run may
        // last, and no longer.
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let grace = limits.pipe_grace.min(left.max(SHORTEST_GRACE));
        // Once stdout is whole, stderr held by a job is waited for no
        // longer than the short grace (round 76: a fail-closed guard's
        // background job holding only stderr held every call).
        let stdout_whole = || stdout_ended.load(Ordering::Relaxed);
        let all_read = read || read_within(&mut reading, grace, stdout_whole).await;
        if !all_read {
            // Something the child started still holds the pipes: end it and stop reading.
            stdout_cut = !stdout_whole();
            tracing::debug!(
                "pipes still open after the child {} exited; killing its tree",
                tree.id()
            );
            tree.kill_tree();
            let after_kill = limits.pipe_grace.min(STDERR_GRACE);
            let _ = tokio::time::timeout(after_kill, &mut reading).await;
        } else if matches!(ending, Ending::Exited(Ok(_))) {
            tree.disarm();
        }
        ending
    };
    let timed_out = matches!(ending, Ending::TimedOut);
    let status = match ending {
        Ending::Exited(status) => status,
        // Reap it; SIGKILL cannot be ignored, so this returns promptly.
        Ending::TimedOut => tree.wait().await,
    };
    let status = status.map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("cannot wait for the child process: {error}"),
        )
    })?;
    Ok(RunOutput {
        network_attempts: tree.network_attempts(),
        hidden_tmp: tree.hidden_tmp(),
        denied_path: tree.denied_path(),
        denied_unix_socket: tree.denied_unix_socket(),
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        elapsed: started.elapsed(),
        stdout_truncated: stdout.discarded > 0,
        stderr_truncated: stderr.discarded > 0,
        stdout: stdout.bytes,
        stderr: stderr.bytes,
        stdout_cut,
    })
}
