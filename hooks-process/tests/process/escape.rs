//! Children that try to escape their tree: double fork, `setsid`, and the
//! tree's mark dropped (`env -i`, `env -u`), faked, or wiped from memory. A
//! per-run cgroup (where this machine lets us make one) or the child
//! subreaper (where not) contains them; the mark is only a hint.
//!
//! Every test runs twice: here, in whatever mode the machine offers, and in
//! a copy of this test binary with cgroups turned off
//! ([`CGROUP_ENV`](hermes_hooks_process::CGROUP_ENV)`=off`), so the fallback is tested
//! on a machine with cgroups too.

use std::time::Instant;

use hermes_hooks_process::{CGROUP_ENV, ChildTree, TREE_ENV, run};

use crate::support::{Scratch, assert_all_gone, cleanup, gone, limits, read_pids, sh};

/// Set in the copy of this binary that runs the suite without cgroups.
const FALLBACK_RUN: &str = "HERMES_HOOKS_TEST_FALLBACK_RUN";

/// Whether trees are contained by cgroups in this test process.
fn in_cgroups() -> bool {
    let tree = ChildTree::spawn(sh("exec sleep 1000")).expect("spawn");
    tree.in_cgroup()
}

/// Runs `escape` (a command that starts an escaping process and writes its
/// pid to `$PIDS`) from a child that then sleeps past its 1 s timeout.
async fn assert_contained_while_the_child_lives(escape: &str) {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!("PIDS={p}; ({escape}); sleep 1000", p = pids.display());
    let started = Instant::now();
    let output = run(sh(&script), b"", &limits(1)).await.expect("sh runs");
    assert!(output.timed_out, "{output:?} after {:?}", started.elapsed());
    let escaped = read_pids(&pids, 1);
    assert_all_gone(&escaped, &format!("`{escape}`"));
}

#[tokio::test]
async fn double_fork_setsid_and_an_empty_environment() {
    assert_contained_while_the_child_lives("env -i setsid sleep 1000 & echo $! > $PIDS").await;
}

#[tokio::test]
async fn double_fork_setsid_and_the_mark_unset() {
    let escape = format!("env -u {TREE_ENV} setsid sleep 1000 & echo $! > $PIDS");
    assert_contained_while_the_child_lives(&escape).await;
}

#[tokio::test]
async fn double_fork_setsid_and_a_fake_mark() {
    let escape = format!("env {TREE_ENV}=1.2.fake setsid sleep 1000 & echo $! > $PIDS");
    assert_contained_while_the_child_lives(&escape).await;
}

#[tokio::test]
async fn double_fork_setsid_and_the_environment_wiped_in_memory() {
    // What `/proc/<pid>/environ` shows is the process's own memory: zeroed here.
    let wipe = "import ctypes, time\n\
        f = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n\
        ctypes.memset(int(f[47]), 0, int(f[48]) - int(f[47]))\n\
        time.sleep(1000)";
    let escape = format!("setsid python3 -c \"{wipe}\" & echo $! > $PIDS");
    assert_contained_while_the_child_lives(&escape).await;
}

#[tokio::test]
async fn an_unmarked_orphan_holding_stdout_after_the_child_exited() {
    // The child exits at once; its grandchild holds stdout, left the session
    // and dropped the mark, and nothing links it to us any more but the cgroup.
    // Without cgroups this is what the fallback cannot contain (ARCHITECTURE.md).
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "(env -i setsid sleep 1000 & echo $! > {p}); echo answered",
        p = pids.display()
    );
    let output = run(sh(&script), b"", &limits(10)).await.expect("sh runs");
    assert_eq!(output.stdout, b"answered\n");
    let escaped = read_pids(&pids, 1);
    if in_cgroups() {
        assert_all_gone(&escaped, "the orphan holding stdout");
    } else {
        for pid in escaped.iter().filter(|pid| !gone(**pid)) {
            cleanup(*pid);
        }
    }
}

#[test]
fn the_fallback_is_what_runs_without_cgroups() {
    if std::env::var_os(FALLBACK_RUN).is_some() {
        // The copy itself: the mode it runs in is the fallback.
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        assert!(
            !runtime.block_on(async { in_cgroups() }),
            "cgroups were off"
        );
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["escape::", "--test-threads=2"])
        .env(CGROUP_ENV, "off")
        .env(FALLBACK_RUN, "1")
        .output()
        .expect("run the suite without cgroups");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("8 passed"),
        "without cgroups:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Whether this machine lets this process make a cgroup v2 below its own
/// with a `cgroup.kill`, found independently of the supervisor.
fn machine_offers_cgroups() -> bool {
    let Ok(own) = std::fs::read_to_string("/proc/self/cgroup") else {
        return false;
    };
    let Some(relative) = own.lines().find_map(|line| line.strip_prefix("0::")) else {
        return false;
    };
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let Some(mount) = mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        let fields: Vec<&str> = mount.split_whitespace().collect();
        (fs.starts_with("cgroup2 ") && fields.get(3) == Some(&"/")).then(|| fields[4].to_owned())
    }) else {
        return false;
    };
    let probe = std::path::Path::new(&mount)
        .join(relative.trim_start_matches('/'))
        .join(format!("escape-probe-{}", std::process::id()));
    if std::fs::create_dir(&probe).is_err() {
        return false;
    }
    let offered = probe.join("cgroup.kill").exists();
    let _ = std::fs::remove_dir(&probe);
    offered
}

#[tokio::test]
async fn cgroups_are_used_where_the_machine_offers_them() {
    let expected = std::env::var_os(FALLBACK_RUN).is_none() && machine_offers_cgroups();
    assert_eq!(in_cgroups(), expected, "trees in cgroups");
}

#[tokio::test]
async fn children_that_exit_at_once_do_not_turn_cgroups_off() {
    for _ in 0..20 {
        let output = run(tokio::process::Command::new("true"), b"", &limits(5))
            .await
            .expect("true runs");
        assert_eq!(output.exit_code, Some(0));
    }
    let expected = std::env::var_os(FALLBACK_RUN).is_none() && machine_offers_cgroups();
    assert_eq!(
        in_cgroups(),
        expected,
        "trees in cgroups after fast children"
    );
}
