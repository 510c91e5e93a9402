//! A stopped tree is killed without any of it running again (A65-7).
//!
//! The kill stops the whole tree first, then `SIGKILL`s it. When the member
//! that links the tree's process group to the host (the direct child) dies
//! while others of the group are still stopped, the kernel sends the now
//! orphaned group `SIGHUP` and `SIGCONT`. A process that survives the hangup
//! (a pid namespace's init ignores it, a shell may trap it) is resumed, and
//! runs until its own `SIGKILL` arrives: the red team's `unshare -p -f`
//! init went on to `touch` its marker the moment its `sleep` died of the
//! hangup. Each test repeats the kill, as the window is short; a marker
//! file written after the kill began is the proof of a resumed member.
//!
//! Run twice, as the escape suite is: here, and in a copy of this binary
//! with cgroups turned off (the mode the red team found it in).

use std::path::Path;
use std::time::{Duration, Instant};

use hermes_hooks_process::{CGROUP_ENV, ChildTree};

use crate::support::{MARGIN, Scratch, assert_all_gone, sh};

/// Set in the copy of this binary that runs these without cgroups.
const FALLBACK_RUN: &str = "HERMES_HOOKS_TEST_STOPPED_GROUP_FALLBACK";

/// How many times each scenario is killed.
const ROUNDS: usize = 20;

/// Busy siblings in the hook's group: the kill takes a little longer, so
/// an order that lets the direct child die first shows.
const SIBLINGS: usize = 16;

/// The live processes whose command line names `text`.
fn naming(text: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains(text))
        })
        .collect()
}

/// Waits for `path` to exist (a hang guard, not a clock check).
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < MARGIN,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts, `ROUNDS` times, a hook (`sh`) with busy siblings and the
/// `inner` command in the background, given `READY` and `MARK` paths of a
/// fresh scratch folder; `inner` writes `READY` once it waits on a child and
/// `MARK` only if it runs again after that child died. Kills the tree once
/// `READY` is there, waits until everything naming the folder is gone, and
/// counts the markers.
fn kill_repeatedly(inner: impl Fn(&Path, &Path) -> String, what: &str) {
    let mut resumed = 0;
    for _ in 0..ROUNDS {
        let scratch = Scratch::new();
        let (ready, mark) = (scratch.file("READY"), scratch.file("MARK"));
        let script = format!(
            "for i in $(seq {SIBLINGS}); do sleep 1000 & done; {inner} & wait",
            inner = inner(&ready, &mark)
        );
        let mut tree = ChildTree::spawn(sh(&script)).expect("sh spawns");
        wait_for(&ready);
        let members = naming(&scratch.file("").display().to_string());
        tree.kill_tree();
        assert_all_gone(&members, what);
        drop(tree);
        resumed += usize::from(mark.exists());
    }
    assert_eq!(
        resumed, 0,
        "{what} ran again after the kill in {resumed}/{ROUNDS} kills"
    );
}

/// The red team's scenario: the hook starts a child in a user and pid
/// namespace of its own, with its own `/proc`; that namespace's init waits
/// on a `sleep` and would `touch` the marker once it is over.
#[tokio::test]
async fn a_pid_namespace_init_never_runs_again_once_its_tree_is_killed() {
    let probe = std::process::Command::new("unshare")
        .args(["-U", "-p", "-f", "--mount-proc", "true"])
        .output();
    if !probe.is_ok_and(|output| output.status.success()) {
        eprintln!("SKIPPED `unshare -U -p -f --mount-proc` does not work here");
        return;
    }
    kill_repeatedly(
        |ready, mark| {
            format!(
                "unshare -U -p -f --mount-proc bash -c \
                 'exec >/dev/null 2>&1 </dev/null; sleep 1000 & touch {ready}; wait $!; \
                  touch {mark}; sleep 1000'",
                ready = ready.display(),
                mark = mark.display()
            )
        },
        "the init of a pid namespace",
    );
}

/// The same without namespaces: a shell that traps the hangup.
#[tokio::test]
async fn a_shell_trapping_the_hangup_never_runs_again_once_its_tree_is_killed() {
    kill_repeatedly(
        |ready, mark| {
            format!(
                "sh -c 'trap \"touch {mark}\" HUP; sleep 1000 & touch {ready}; wait; sleep 1000'",
                ready = ready.display(),
                mark = mark.display()
            )
        },
        "a shell that traps SIGHUP",
    );
}

#[test]
fn stopped_groups_stay_stopped_without_cgroups_too() {
    if std::env::var_os(FALLBACK_RUN).is_some() {
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["stopped_group::", "--test-threads=1"])
        .env(CGROUP_ENV, "off")
        .env(FALLBACK_RUN, "1")
        .output()
        .expect("run without cgroups");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("3 passed"),
        "without cgroups:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
