//! The background runtime: tasks run on its named threads, and stopping it is
//! bounded and safe from any thread (inside another runtime, from one of its
//! own tasks, by dropping the last clone), dropping every task it held.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hermes_hooks_process::ChildTree;
use hermes_hooks_process::runtime::{Background, Stopped, ambient, is_batch};

use crate::support::{MARGIN, Scratch, assert_all_gone, read_pids, sh};

/// Threads of this process named `name` (each test names its runtime apart).
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name)
        })
        .count()
}

/// Waits (bounded) until no thread is named `name`.
fn wait_no_threads(name: &str) -> usize {
    let start = Instant::now();
    while threads_named(name) > 0 && start.elapsed() < MARGIN {
        std::thread::sleep(Duration::from_millis(20));
    }
    threads_named(name)
}

/// Sets its flag when dropped: proof a task was dropped by the stop.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A task that never ends, holding a `Dropped`.
fn park_forever(background: &Background) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let guard = Dropped(flag.clone());
    background.handle().spawn(async move {
        let _guard = guard;
        std::future::pending::<()>().await;
    });
    flag
}

#[test]
#[cfg(target_os = "linux")]
fn its_threads_run_at_sched_batch_and_the_callers_do_not() {
    // Waking a runtime thread must never preempt the agent's thread that
    // woke it (the emit tail, docs/benchmarks/issue-19-quiet-runs.md), so its threads run under
    // SCHED_BATCH; the caller's own policy is left alone.
    let background = Background::with_threads("rt-batch", 2).expect("runtime");
    let on_its_threads = background
        .handle()
        .block_on(async { tokio::spawn(async { is_batch() }).await })
        .expect("task");
    assert!(on_its_threads, "a runtime thread runs at SCHED_BATCH");
    let blocking = background
        .handle()
        .block_on(async { tokio::task::spawn_blocking(is_batch).await })
        .expect("blocking task");
    assert!(blocking, "its blocking pool too");
    assert!(!is_batch(), "the calling thread keeps its policy");
    assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
}

#[test]
#[cfg(target_os = "linux")]
fn a_child_spawned_from_the_runtime_does_not_inherit_its_policy() {
    const ALONE: &str = "HOOKS_TEST_POLICY_ALONE";
    if std::env::var_os(ALONE).is_none() {
        // Alone in a fresh process, so the supervisor's spawner thread is
        // started here, from a runtime thread (other tests start it first).
        let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "runtime::a_child_spawned_from_the_runtime_does_not_inherit_its_policy",
                "--test-threads=1",
            ])
            .env(ALONE, "1")
            .status()
            .expect("rerun");
        assert!(status.success(), "the test alone failed");
        return;
    }
    let background = Background::with_threads("rt-child", 1).expect("runtime");
    let output = background
        .handle()
        .block_on(async {
            tokio::spawn(async {
                let mut command = tokio::process::Command::new("cat");
                command.arg("/proc/self/stat");
                let limits = hermes_hooks_process::RunLimits::new(
                    Duration::from_secs(10),
                    64 * 1024,
                    Duration::from_millis(200),
                );
                hermes_hooks_process::run(command, b"", &limits).await
            })
            .await
        })
        .expect("task")
        .expect("cat ran");
    let stat = String::from_utf8_lossy(&output.stdout);
    let policy = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(41 - 3))
        .map(str::to_owned);
    assert_eq!(
        policy.as_deref(),
        Some("0"),
        "a hook's process runs at the process's policy (SCHED_OTHER), not SCHED_BATCH: {stat}"
    );
    assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
}

#[test]
fn tasks_run_on_its_named_threads() {
    let background = Background::with_threads("rt-named", 2).expect("runtime");
    let name = background
        .handle()
        .block_on(async {
            tokio::spawn(async { std::thread::current().name().map(str::to_owned) }).await
        })
        .expect("task");
    assert_eq!(name.as_deref(), Some("rt-named"));
    assert!(threads_named("rt-named") >= 1);
    assert!(background.threads() >= 1);
    assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
    assert_eq!(threads_named("rt-named"), 0);
    assert_eq!(background.threads(), 0);
    assert!(!background.is_running());
    assert_eq!(background.shutdown(MARGIN), Stopped::AlreadyStopped);
}

#[tokio::test]
async fn shutdown_inside_another_runtime_drops_its_tasks() {
    let background = Background::with_threads("rt-nested", 1).expect("runtime");
    let dropped = park_forever(&background);
    // On a current-thread runtime's only thread: no "cannot drop a runtime" panic.
    assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the parked task was dropped"
    );
    assert_eq!(threads_named("rt-nested"), 0);
}

#[tokio::test]
async fn dropping_the_last_clone_inside_a_runtime_stops_it() {
    let background = Background::with_threads("rt-dropped", 1).expect("runtime");
    let dropped = park_forever(&background);
    let clone = background.clone();
    drop(background);
    assert!(clone.is_running(), "a clone keeps it running");
    drop(clone);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the parked task was dropped"
    );
    // Dropped inside a runtime, it cannot join its thread: the thread
    // leaves on its own, soon after.
    assert_eq!(wait_no_threads("rt-dropped"), 0);
}

#[test]
fn shutdown_from_its_own_task_does_not_wait_for_itself() {
    let background = Background::with_threads("rt-own", 2).expect("runtime");
    let dropped = park_forever(&background);
    let inner = background.clone();
    let (sender, receiver) = std::sync::mpsc::channel();
    background.handle().spawn(async move {
        let _ = sender.send((inner.is_current(), inner.shutdown(MARGIN)));
        // Dropping a clone on its own thread must not block either.
        drop(inner);
    });
    let (current, stopped) = receiver.recv_timeout(MARGIN).expect("the task answered");
    assert!(current);
    assert_eq!(stopped, Stopped::NotWaited);
    assert!(!background.is_current());
    assert_eq!(
        wait_no_threads("rt-own"),
        0,
        "it stopped once the task returned"
    );
    assert!(dropped.load(Ordering::SeqCst));
}

#[test]
fn a_task_that_blocks_its_thread_hits_the_bound() {
    let background = Background::with_threads("rt-bound", 1).expect("runtime");
    let release = Arc::new(AtomicBool::new(false));
    let held = release.clone();
    background.handle().spawn_blocking(move || {
        while !held.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    std::thread::sleep(Duration::from_millis(50));
    // Returned at its bound, not when the task ends (it never does until
    // released below): `BoundHit` says so, no clock.
    let stopped = background.shutdown(Duration::from_millis(100));
    assert!(
        matches!(stopped, Stopped::BoundHit { threads } if threads >= 1),
        "{stopped:?}"
    );
    assert!(!stopped.is_clean());
    release.store(true, Ordering::SeqCst);
    assert_eq!(
        wait_no_threads("rt-bound"),
        0,
        "the detached thread ends when released"
    );
}

#[test]
fn ambient_is_the_newest_background_for_a_thread_without_a_runtime() {
    let background = Background::with_threads("rt-ambient", 1).expect("runtime");
    let name = std::thread::spawn(|| {
        let handle = ambient().expect("a runtime");
        handle
            .block_on(async {
                tokio::spawn(async { std::thread::current().name().map(str::to_owned) }).await
            })
            .expect("task")
    })
    .join()
    .expect("thread");
    // Other tests' runtimes may be newer; ours or theirs, never a fresh one.
    assert!(
        name.as_deref().is_some_and(|name| name.starts_with("rt-")),
        "{name:?}"
    );
    background.shutdown(MARGIN);
}

#[test]
fn stopping_kills_the_process_tree_a_task_owns() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let background = Background::with_threads("rt-tree", 1).expect("runtime");
    let script = format!(
        "sleep 300 & echo $! > {0}; echo $$ >> {0}; wait",
        pids.display()
    );
    background.handle().spawn(async move {
        let mut tree = ChildTree::spawn(sh(&script)).expect("spawn");
        let _ = tree.wait().await;
    });
    let pids = read_pids(&pids, 2);
    assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
    assert_all_gone(&pids, "a task's tree after the runtime stopped");
}

#[test]
fn an_entered_background_is_the_ambient_one_and_block_on_runs_there() {
    let older = Background::with_threads("rt-older", 1).expect("runtime");
    let entered = Background::with_threads("rt-entered", 1).expect("runtime");
    let newest = Background::with_threads("rt-newest", 1).expect("runtime");
    fn where_it_ran() -> Option<String> {
        hermes_hooks_process::runtime::block_on(async {
            std::thread::current().name().map(str::to_owned)
        })
        .flatten()
    }
    {
        let _entered = entered.enter();
        assert_eq!(Background::own_or_default().as_ref(), Some(&entered));
        assert_eq!(where_it_ran().as_deref(), Some("rt-entered"));
        // Inside one of its tasks, its own runtime, not the newest.
        let name = entered.handle().block_on(async {
            tokio::spawn(async {
                tokio::task::spawn_blocking(where_it_ran)
                    .await
                    .ok()
                    .flatten()
            })
            .await
            .ok()
            .flatten()
        });
        assert_eq!(name.as_deref(), Some("rt-entered"));
    }
    // Not entered any more: the process default, never a host's.
    let default = Background::process_default();
    assert_eq!(Background::own_or_default(), default);
    assert!(default.is_some_and(|default| ![&older, &entered, &newest].contains(&&default)));
    for background in [older, entered, newest] {
        assert_eq!(background.shutdown(MARGIN), Stopped::Clean);
    }
}

#[tokio::test]
async fn block_on_from_a_current_thread_runtime_does_not_deadlock() {
    // The caller's own runtime has one thread, blocked here: the work must run elsewhere.
    let value = hermes_hooks_process::runtime::block_on(async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        42
    });
    assert_eq!(value, Some(42));
}

#[test]
fn another_hosts_shutdown_never_drops_a_block_on_of_a_thread_that_is_not_its() {
    // The newest runtime in the process belongs to some other host; a
    // thread that neither runs on it nor entered it blocks on work, and
    // that host stops meanwhile. The work must finish, off its threads.
    let other = Background::with_threads("rt-other-host", 1).expect("runtime");
    let (started, running) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        hermes_hooks_process::runtime::block_on(async move {
            let _ = started.send(());
            tokio::time::sleep(Duration::from_millis(100)).await;
            std::thread::current().name().map(str::to_owned)
        })
    });
    running.recv_timeout(MARGIN).expect("the work started");
    assert_eq!(other.shutdown(MARGIN), Stopped::Clean);
    let ran_on = waiter.join().expect("thread").flatten();
    assert_eq!(
        ran_on.as_deref(),
        Some(hermes_hooks_process::runtime::PROCESS_DEFAULT_THREAD_NAME)
    );
}

#[test]
fn an_unbounded_stop_does_not_overflow() {
    let background = Background::with_threads("rt-max", 1).expect("runtime");
    assert_eq!(background.shutdown(Duration::MAX), Stopped::Clean);
}

#[test]
fn a_child_spawned_in_a_runtime_that_stopped_is_spawned_in_the_default() {
    // The newest runtime chosen for a spawn may stop before the spawn (a
    // flake seen under load: "A Tokio 1.x context was found, but it is
    // being shutdown"): the process's default runtime serves instead.
    let background = Background::with_threads("rt-stopped-spawn", 1).expect("runtime");
    let handle = background.handle().clone();
    assert!(background.shutdown(MARGIN).is_clean());
    let _entered = handle.enter();
    let mut command = tokio::process::Command::new("true");
    command.stdout(std::process::Stdio::piped());
    let mut tree = ChildTree::spawn(command).expect("spawned");
    assert!(tree.child_mut().stdout.take().is_some());
}
