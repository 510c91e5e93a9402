//! One-shot runs of badly behaved children through `process::run`.

use std::io::ErrorKind;
use std::time::Duration;

use hermes_hooks_process::{RunOutput, run};
use tokio::process::Command;

use crate::support::{Scratch, assert_all_gone, cleanup, gone, group_of, limits, read_pids, sh};

async fn run_sh(script: &str, timeout_secs: u64) -> RunOutput {
    run(sh(script), b"", &limits(timeout_secs))
        .await
        .expect("sh runs")
}

/// Asserts a timeout kill, signal 9. The record is the proof, no clock: the
/// children sleep 1000 s, so a run that waited for them would end otherwise.
fn assert_timed_out(output: &RunOutput) {
    assert!(output.timed_out, "{output:?}");
    assert_eq!((output.exit_code, output.signal), (None, Some(9)));
}

#[tokio::test]
async fn sleeps_forever() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!("echo $$ > {}; exec sleep 1000", pids.display());
    let output = run_sh(&script, 1).await;
    assert_timed_out(&output);
    assert_all_gone(&read_pids(&pids, 1), "the child");
}

#[tokio::test]
async fn setsid_grandchild_of_a_timed_out_child() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // In a background job `setsid` is no group leader: it calls setsid(2) and
    // execs sleep, so `$!` is a process in a session of its own.
    let script = format!(
        "setsid sleep 1000 & echo $! > {p}; echo $$ >> {p}; sleep 1000",
        p = pids.display()
    );
    let output = run_sh(&script, 1).await;
    assert_timed_out(&output);
    assert_all_gone(&read_pids(&pids, 2), "setsid grandchild");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_m_background_job_of_a_timed_out_child() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // Job control puts the background job in a process group of its own.
    let script = format!(
        "set -m; sleep 1000 & echo $! > {p}; sleep 1000 & echo $! >> {p}; wait",
        p = pids.display()
    );
    // dash turns job control off without a terminal; bash does not.
    let mut command = Command::new("bash");
    command.arg("-c").arg(&script);
    let running = tokio::spawn(async move { run(command, b"", &limits(2)).await });
    let jobs = read_pids(&pids, 2);
    let groups: Vec<Option<i32>> = jobs.iter().map(|job| group_of(*job)).collect();
    let output = running.await.expect("no panic").expect("bash runs");
    assert_timed_out(&output);
    #[cfg(target_os = "linux")]
    assert_eq!(
        groups,
        jobs.iter().map(|job| Some(*job)).collect::<Vec<_>>(),
        "jobs lead groups of their own"
    );
    assert_all_gone(&jobs, "set -m jobs");
}

#[tokio::test]
async fn double_forked_daemon_of_a_timed_out_child() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // The subshell exits at once: the daemon is an orphan in its own session,
    // with no parent link back to us.
    let script = format!(
        "(setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {p}); sleep 1000",
        p = pids.display()
    );
    let output = run_sh(&script, 1).await;
    assert_timed_out(&output);
    assert_all_gone(&read_pids(&pids, 1), "double-forked daemon");
}

#[tokio::test]
async fn grandchild_with_a_clean_environment_while_its_parent_lives() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // `env -i` drops the tree's mark; the parent link still proves it ours.
    let script = format!(
        "env -i setsid sleep 1000 & echo $! > {p}; sleep 1000",
        p = pids.display()
    );
    let output = run_sh(&script, 1).await;
    assert_timed_out(&output);
    assert_all_gone(&read_pids(&pids, 1), "unmarked grandchild");
}

#[tokio::test]
async fn many_grandchildren_in_sessions_of_their_own() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "for i in $(seq 40); do setsid sleep 1000 & echo $! >> {p}; done; sleep 1000",
        p = pids.display()
    );
    let output = run_sh(&script, 2).await;
    assert_timed_out(&output);
    assert_all_gone(&read_pids(&pids, 40), "setsid grandchildren");
}

#[tokio::test]
async fn a_looper_forking_in_a_session_of_its_own_is_stopped_mid_storm() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // Still forking when the timeout hits: each round of the kill must catch
    // what the previous one missed, and the looper must not go on.
    let script = format!(
        "setsid sh -c 'for i in $(seq 400); do setsid sleep 1000 & echo $! >> {p}; sleep 0.01; done' & sleep 1000",
        p = pids.display()
    );
    let output = run_sh(&script, 1).await;
    assert_timed_out(&output);
    let started = read_pids(&pids, 1);
    assert_all_gone(&started, "the storm's children");
    std::thread::sleep(Duration::from_millis(500));
    let after = read_pids(&pids, 1);
    assert_all_gone(&after, "children started after the kill");
    assert_eq!(started.len(), after.len(), "the looper kept forking");
}

#[tokio::test]
async fn grandchild_holding_stdout_after_the_child_exits() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    for detach in ["", "setsid "] {
        std::fs::remove_file(&pids).ok();
        let script = format!(
            r#"{detach}sleep 1000 & echo $! > {p}; echo '{{"decision": "deny"}}'"#,
            p = pids.display()
        );
        let output = run_sh(&script, 30).await;
        assert_eq!((output.exit_code, output.timed_out), (Some(0), false));
        assert_eq!(output.stdout, b"{\"decision\": \"deny\"}\n");
        // What was read may not be all: a fail-closed guard's caller must
        // know (red team round 74, R74-1).
        assert!(output.stdout_cut, "{output:?}");
        // The reply came after the grace: a run that waited on the grandchild
        // would have ended at the 30 s timeout (`timed_out` above).
        assert_all_gone(&read_pids(&pids, 1), "grandchild holding stdout");
    }
}

#[tokio::test]
async fn a_grandchild_holding_only_stderr_leaves_stdout_whole() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        r#"sleep 1000 >/dev/null & echo $! > {p}; echo answer"#,
        p = pids.display()
    );
    let output = run_sh(&script, 30).await;
    assert_eq!(
        (output.exit_code, output.stdout.as_slice()),
        (Some(0), &b"answer\n"[..])
    );
    assert!(!output.stdout_cut, "{output:?}");
    assert_all_gone(&read_pids(&pids, 1), "grandchild holding stderr");
}

#[tokio::test]
async fn python_child_that_forks_and_exits_while_its_child_holds_stdout() {
    if !crate::line::python_available() {
        return;
    }
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let program = format!(
        "import os, sys, time\n\
         if os.fork() == 0:\n    os.setsid()\n    open({p:?}, 'w').write(str(os.getpid()))\n    time.sleep(1000)\n\
         print('reply', flush=True)\nos._exit(0)\n",
        p = pids.display().to_string()
    );
    let mut command = Command::new("python3");
    command.arg("-c").arg(program);
    let output = run(command, b"", &limits(30)).await.expect("python3 runs");
    // An exit code, not the 30 s timeout's kill: the child's stdout was not waited for.
    assert_eq!(
        (output.exit_code, output.stdout.as_slice()),
        (Some(0), &b"reply\n"[..])
    );
    assert_all_gone(&read_pids(&pids, 1), "python's forked child");
}

#[tokio::test]
async fn detached_daemon_after_a_normal_exit_is_left_alone() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    // Holds none of our pipes: detached on purpose, as the reference leaves it.
    let script = format!(
        "(setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {p}); echo started",
        p = pids.display()
    );
    let output = run_sh(&script, 30).await;
    assert_eq!(
        (output.exit_code, output.stdout.as_slice()),
        (Some(0), &b"started\n"[..])
    );
    assert!(!output.stdout_cut, "{output:?}");
    let daemon = read_pids(&pids, 1)[0];
    std::thread::sleep(Duration::from_millis(300));
    let alive = !gone(daemon);
    cleanup(daemon);
    assert!(alive, "a detached daemon was killed after a normal exit");
}

#[tokio::test]
async fn prints_100_megabytes() {
    let output = run_sh("head -c 100000000 /dev/zero; echo tail >&2", 60).await;
    assert_eq!((output.exit_code, output.timed_out), (Some(0), false));
    assert_eq!(output.stdout.len(), 1024 * 1024);
    assert!(output.stdout_truncated && !output.stderr_truncated);
    assert_eq!(output.stderr, b"tail\n");
}

#[tokio::test]
async fn prints_garbage() {
    let output = run_sh(
        r"printf 'Traceback\n\377\376\000 boom'; printf '\033[2J' >&2",
        10,
    )
    .await;
    assert_eq!(output.exit_code, Some(0));
    assert_eq!(output.stdout, b"Traceback\n\xff\xfe\0 boom");
    assert_eq!(output.stderr, b"\x1b[2J");
}

#[tokio::test]
async fn closes_stdin_at_once_under_a_large_input() {
    let input = vec![b'x'; 4 * 1024 * 1024];
    let output = run(sh("exec 0<&-; echo closed"), &input, &limits(10))
        .await
        .expect("sh runs");
    // Its exit, not the timeout's kill: the rest of the input was not pushed at it.
    assert_eq!(
        (output.exit_code, output.stdout.as_slice()),
        (Some(0), &b"closed\n"[..])
    );
}

#[tokio::test]
async fn reads_all_of_a_large_input() {
    let input = vec![b'y'; 3 * 1024 * 1024 + 7];
    let output = run(sh("wc -c"), &input, &limits(10))
        .await
        .expect("sh runs");
    let count = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert_eq!(count, (3 * 1024 * 1024 + 7).to_string());
}

#[tokio::test]
async fn never_reads_a_large_input_and_hangs() {
    let input = vec![b'z'; 4 * 1024 * 1024];
    let output = run(sh("sleep 1000"), &input, &limits(1))
        .await
        .expect("sh runs");
    assert_timed_out(&output);
}

#[tokio::test]
async fn dies_by_a_signal() {
    let output = run_sh("echo partial; kill -9 $$", 10).await;
    assert_eq!(
        (output.exit_code, output.signal, output.timed_out),
        (None, Some(9), false)
    );
    assert_eq!(output.stdout, b"partial\n");
}

#[tokio::test]
async fn is_not_executable() {
    let scratch = Scratch::new();
    let path = scratch.file("gate.sh");
    std::fs::write(&path, "#!/bin/sh\necho '{}'\n").expect("write");
    let error = run(Command::new(&path), b"", &limits(5)).await.err();
    assert_eq!(error.map(|e| e.kind()), Some(ErrorKind::PermissionDenied));
}

#[tokio::test]
async fn an_executable_without_a_shebang_is_an_exec_format_error() {
    // As with posix_spawn and Python's subprocess: never run by /bin/sh
    // (which the fork + execvp path would do), whether named by path or found on PATH.
    let scratch = Scratch::new();
    let path = scratch.file("noshebang");
    let ran = scratch.file("ran");
    std::fs::write(&path, format!("touch {}\n", ran.display())).expect("write");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let error = run(Command::new(&path), b"", &limits(5)).await.err();
    assert_eq!(error.and_then(|e| e.raw_os_error()), Some(8), "ENOEXEC");
    let mut on_path = Command::new("noshebang");
    on_path.env("PATH", scratch.file(""));
    let error = run(on_path, b"", &limits(5)).await.err();
    assert_eq!(
        error.and_then(|e| e.raw_os_error()),
        Some(8),
        "ENOEXEC on PATH"
    );
    assert!(!ran.exists(), "the file was run by a shell");
}

#[tokio::test]
async fn does_not_exist() {
    let error = run(Command::new("/no/such/child"), b"", &limits(5))
        .await
        .err();
    assert_eq!(error.map(|e| e.kind()), Some(ErrorKind::NotFound));
}
