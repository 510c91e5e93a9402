//! # hermes-hooks-process
//!
//! The one process supervisor: every child the hook system starts (shell hooks,
//! executable gateway handlers, Python workers) is spawned, bounded and killed
//! here, and [`runtime::Background`], the background tokio runtime a host hands
//! every mechanism (the supervisor's bookkeeping, gateway lanes, queues and
//! webhook lanes run on it). It depends on no other crate of the hook system:
//! it knows processes, not events.
//!
//! - [`ChildTree`] is a spawned child plus every process it starts, whether or
//!   not they stay in its process group or session. Dropping it, or calling
//!   [`ChildTree::kill_tree`], `SIGKILL`s all of them.
//! - [`run`] is a one-shot run: input on stdin, stdout and stderr drained
//!   together under a byte cap, a timeout, and a short grace for the pipes once
//!   the direct child has exited, so a reply is never held hostage by a
//!   grandchild that keeps a pipe open.
//!
//! How the tree is found (Linux): each tree gets a unique token in the
//! [`TREE_ENV`] environment variable, inherited by everything it starts. At kill
//! time `/proc` is read (before anything is killed, as a dead parent's children
//! lose their link to it) for processes whose initial environment carries the
//! token, every descendant (by parent pid) of those and of the direct child while
//! it is unreaped, and the members of the child's process group once it is
//! proven ours. That finds children that called `setsid`/`setpgid` and orphans
//! of a double fork. Each is signalled through a pidfd after checking its start
//! time, so a pid reused since the scan is never hit; the scan repeats until it
//! finds no process it has not signalled. Before any of that, every process
//! found is sent `SIGSTOP`, in rounds until none is new (`stop.rs`): a process
//! that left the tree's cgroup is orphaned when the cgroup is killed, so it is
//! named by its parent link while its parent still lives. The stopped
//! processes are then killed descendants first and the direct child last
//! (its group in one call): a stopped group orphaned by a member's death
//! is sent `SIGHUP` and `SIGCONT` by the kernel, and must have nothing left
//! to resume. On other unix systems only the process group is killed.
//!
//! - [`LineWorker`] is a long-lived child answering id-tagged JSON lines
//!   (the Python bridges' workers): capped reads, stderr as warnings, a
//!   deadline on every call, a broken worker detected and killed, and a
//!   [`RestartBudget`] for when it may be started again.
//!
//! Killing reads `/proc` synchronously (a few milliseconds); it happens on
//! timeouts, explicit kills and drops, never on a child's normal exit.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use std::time::Duration;
//! use hermes_hooks_process::{RunLimits, run};
//!
//! let mut command = tokio::process::Command::new("sh");
//! command.args(["-c", "cat; echo done >&2"]);
//! let limits = RunLimits::new(Duration::from_secs(10), 1024, Duration::from_millis(250));
//! let output = run(command, b"hello", &limits).await.unwrap();
//! assert_eq!(output.exit_code, Some(0));
//! assert_eq!(output.stdout, b"hello");
//! assert_eq!(output.stderr, b"done\n");
//! # });
//! ```

mod capture;
#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod holders;
mod kill;
mod line;
#[cfg(target_os = "linux")]
mod procfs;
mod registry;
mod run;
pub mod runtime;
pub mod sandbox;
mod spawn;
#[cfg(target_os = "linux")]
mod stop;
mod tree;

#[cfg(target_os = "linux")]
pub use cgroup::CGROUP_ENV;
pub use line::PROTOCOL_PRELUDE;
#[doc(hidden)]
pub use line::concat_bytes;
pub use line::many::Answers;
pub use line::{Answer, LineError, LineOptions, LineWorker, NoticeFn, RestartBudget};
pub use registry::{kill_all_trees, live_trees};
pub use run::{RunLimits, RunOutput, run, run_sandboxed};
/// tokio's process types, re-exported on purpose as part of this module's
/// API: a caller configures the child with tokio's [`Command`] (program,
/// arguments, environment, directory, stdio) and takes its pipes from the
/// [`Child`] of a [`ChildTree`]; the supervisor runs on the caller's tokio
/// runtime. Naming them through this crate keeps a mechanism on the tokio
/// the supervisor was built with.
pub use tokio::process::{Child, Command};
pub use tree::{ChildTree, TREE_ENV};

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
