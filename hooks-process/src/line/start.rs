//! Starting a line worker's child: piped stdio, the stderr thread, and the
//! tokio context the child is spawned and killed in.

use std::fs::File;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use tokio::process::Command;

use super::{LineOptions, Shared, read};
use crate::ChildTree;

/// Spawns the child with piped stdio and its stderr thread: the shared
/// state, its stdin and stdout, and what disconnects when stderr is drained.
pub(super) type Started = (Arc<Shared>, File, File, mpsc::Receiver<()>);

pub(super) fn start(
    mut command: Command,
    options: &LineOptions,
    stderr: impl Fn(&str, bool) + Send + Sync + 'static,
) -> std::io::Result<Started> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut tree = with_runtime(|| ChildTree::spawn(command))?;
    let child = tree.child_mut();
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let (Some(stdin), Some(stdout), Some(stderr_pipe)) = pipes else {
        return Err(std::io::Error::other("missing stdio pipe"));
    };
    let (stdin, stdout, stderr_pipe) = (
        File::from(stdin.into_owned_fd()?),
        File::from(stdout.into_owned_fd()?),
        File::from(stderr_pipe.into_owned_fd()?),
    );
    let shared = Arc::new(Shared {
        label: options.label.clone(),
        pending: Mutex::default(),
        alive: AtomicBool::new(true),
        ready: Arc::default(),
        ready_seen: AtomicBool::new(false),
        tree: Mutex::new(tree),
        notices: Mutex::default(),
        stderr_lines: AtomicU64::new(0),
    });
    let (stderr_tx, stderr_done) = mpsc::channel::<()>();
    let stderr_cap = options.max_stderr_line_bytes;
    let counted = Arc::clone(&shared);
    spawn_thread("hooks-line-stderr", move || {
        let sink = |line: &str, cut: bool| {
            stderr(line, cut);
            counted.stderr_lines.fetch_add(1, Ordering::SeqCst);
        };
        read::forward_stderr(stderr_pipe, stderr_cap, &sink);
        drop(stderr_tx);
    })?;
    Ok((shared, stdin, stdout, stderr_done))
}

pub(super) fn spawn_thread(
    name: &str,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(body)
        .map(drop)
}

/// Runs `body` inside a tokio runtime context: the one
/// [`crate::runtime::ambient`] names (the calling thread's background
/// runtime, else the host's, else the caller's, else the process default).
/// tokio needs one to spawn or kill a child; the worker's pipes leave it at
/// once and are served by threads, so the worker works the same under any
/// executor, or none, and starts no runtime of its own.
pub(super) fn with_runtime<T>(body: impl FnOnce() -> T) -> T {
    let handle = crate::runtime::ambient();
    let _entered = handle.as_ref().map(tokio::runtime::Handle::enter);
    body()
}
