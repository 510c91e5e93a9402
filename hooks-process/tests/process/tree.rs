//! Long-lived children held as a `ChildTree`: dropped, killed, killed after reaping.

use std::process::Stdio;
use std::time::Duration;

use hermes_hooks_process::{ChildTree, TREE_ENV};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::{MARGIN, Scratch, assert_all_gone, gone, read_pids, sh};

/// A worker whose descendants left its group and session: `setsid`, a `set -m`
/// job and a double-forked daemon, plus itself.
fn worker_script(pids: &std::path::Path) -> String {
    format!(
        "setsid sleep 1000 & echo $! > {p}; \
         bash -c 'set -m; sleep 1000 & echo $! >> {p}; wait' & \
         (setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >> {p}); \
         echo $$ >> {p}; exec sleep 1000",
        p = pids.display()
    )
}

#[tokio::test]
async fn dropping_a_worker_kills_its_whole_tree() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let tree = ChildTree::spawn(sh(&worker_script(&pids_file))).expect("spawn");
    let pids = read_pids(&pids_file, 4);
    assert!(
        pids.iter().all(|pid| !gone(*pid)),
        "not all started: {pids:?}"
    );
    drop(tree);
    assert_all_gone(&pids, "worker tree after drop");
}

#[tokio::test]
async fn kill_tree_is_idempotent_and_the_child_is_reaped() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let mut tree = ChildTree::spawn(sh(&worker_script(&pids_file))).expect("spawn");
    let pids = read_pids(&pids_file, 4);
    tree.kill_tree();
    tree.kill_tree();
    let status = tokio::time::timeout(MARGIN, tree.wait()).await;
    let signal = status
        .ok()
        .and_then(Result::ok)
        .and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s));
    assert_eq!(signal, Some(9));
    tree.kill_tree();
    assert_all_gone(&pids, "worker tree after kill_tree");
}

#[tokio::test]
async fn kill_tree_after_the_child_was_reaped_finds_its_orphans() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let script = format!(
        "(setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {p}); exit 3",
        p = pids_file.display()
    );
    let mut tree = ChildTree::spawn(sh(&script)).expect("spawn");
    let status = tree.wait().await.expect("wait");
    assert_eq!(status.code(), Some(3));
    let orphan = read_pids(&pids_file, 1);
    assert!(!gone(orphan[0]));
    tree.kill_tree();
    assert_all_gone(&orphan, "orphan after the child was reaped");
}

#[tokio::test]
async fn the_pid_is_captured_and_stdio_is_the_callers() {
    let mut command = sh("echo $$; echo \"$HERMES_HOOKS_TREE\"; exec sleep 1000");
    command.stdout(Stdio::piped());
    let mut tree = ChildTree::spawn(command).expect("spawn");
    let stdout = tree.child_mut().stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let pid = lines.next_line().await.ok().flatten().unwrap_or_default();
    let marks = lines.next_line().await.ok().flatten().unwrap_or_default();
    assert_eq!(pid, tree.id().to_string());
    assert!(marks.split(':').any(|mark| mark == tree.token()), "{marks}");
    drop(tree);
    assert_all_gone(&[pid.parse().unwrap_or(0)], "the child");
}

#[tokio::test]
async fn an_unrelated_process_is_never_killed() {
    // A process of ours that is not in the tree (same user, same parent, and
    // even a look-alike mark that is not the tree's token).
    let mut stranger = tokio::process::Command::new("sleep");
    stranger
        .arg("1000")
        .env(TREE_ENV, "someone-else")
        .kill_on_drop(true);
    let mut stranger = stranger.spawn().expect("spawn sleep");
    let stranger_pid = stranger.id().map_or(0, |id| id as i32);
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let tree = ChildTree::spawn(sh(&worker_script(&pids_file))).expect("spawn");
    let pids = read_pids(&pids_file, 4);
    drop(tree);
    assert_all_gone(&pids, "worker tree");
    std::thread::sleep(Duration::from_millis(200));
    let alive = !gone(stranger_pid);
    let _ = stranger.start_kill();
    let _ = stranger.wait().await;
    assert!(alive, "a process outside the tree was killed");
}

#[tokio::test]
async fn a_worker_spawned_inside_a_tree_keeps_the_outer_mark() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    // The outer tree starts a shell that, like a nested supervisor, gives its
    // child a mark of its own; the grandchild orphans itself into a new session.
    let script = format!(
        "HERMES_HOOKS_TREE=\"$HERMES_HOOKS_TREE:inner\" sh -c '(setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {p})'; exec sleep 1000",
        p = pids_file.display()
    );
    let tree = ChildTree::spawn(sh(&script)).expect("spawn");
    let pids = read_pids(&pids_file, 1);
    // Returning at all is the proof (no clock): the tree sleeps 1000 s.
    drop(tree);
    assert_all_gone(&pids, "nested tree's orphan");
}

#[tokio::test]
async fn a_run_cancelled_by_its_caller_kills_its_tree() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let command = sh(&worker_script(&pids_file));
    let limits = crate::support::limits(600);
    let running = hermes_hooks_process::run(command, b"", &limits);
    // The caller's own bound (a host shutting down) drops the run mid-way.
    let cancelled = tokio::time::timeout(Duration::from_millis(1500), running).await;
    assert!(
        cancelled.is_err(),
        "the run ended on its own: {cancelled:?}"
    );
    assert_all_gone(&read_pids(&pids_file, 4), "tree of a cancelled run");
}

#[test]
fn a_tree_dropped_after_its_runtime_is_still_killed() {
    let scratch = Scratch::new();
    let pids_file = scratch.file("pids");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let tree = runtime
        .block_on(async { ChildTree::spawn(sh(&worker_script(&pids_file))) })
        .expect("spawn");
    let pids = read_pids(&pids_file, 4);
    drop(runtime);
    drop(tree);
    assert_all_gone(&pids, "tree dropped after its runtime");
}
