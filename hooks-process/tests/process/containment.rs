//! Containment (issue 27 item 7): a hook cannot get out of its tree by
//! leaving its cgroup, and without cgroups a descendant that holds the
//! hook's pipes is found by them. Both fail on the supervisor before the fix
//! (a cgroup made the subreaper unnecessary there, and nothing looked for
//! pipe holders).
//!
//! Run twice, as the escape suite is: here, and in a copy of this binary
//! with cgroups turned off.

use hermes_hooks_process::{CGROUP_ENV, run};

use crate::support::{Scratch, assert_all_gone, limits, read_pids, sh};

/// Set in the copy of this binary that runs these without cgroups.
const FALLBACK_RUN: &str = "HERMES_HOOKS_TEST_CONTAINMENT_FALLBACK";

/// The root cgroup's `cgroup.procs` of the cgroup2 mount, when this
/// process may write it (root).
fn root_cgroup_procs() -> Option<String> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        let fields: Vec<&str> = mount.split_whitespace().collect();
        (fs.starts_with("cgroup2 ") && fields.get(3) == Some(&"/")).then(|| fields[4].to_owned())
    })?;
    let procs = format!("{mount}/cgroup.procs");
    let writable = std::fs::OpenOptions::new().write(true).open(&procs).is_ok();
    writable.then_some(procs)
}

/// The hook moves itself to the root cgroup, then starts a grandchild that
/// calls `setsid`, has an empty environment and is orphaned (double fork);
/// the hook then sleeps past its timeout. Everything must die with it.
#[tokio::test]
async fn a_hook_that_leaves_its_cgroup_setsids_and_drops_its_env_dies_at_its_timeout() {
    let Some(procs) = root_cgroup_procs() else {
        return test_support::skip_unless_ci("needs root and a cgroup2 mount", "");
    };
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "echo $$ > {procs}; \
         (env -i setsid sh -c 'echo $$ > {pids}; exec sleep 1000' </dev/null >/dev/null 2>&1 &); \
         sleep 1000",
        pids = pids.display()
    );
    let output = run(sh(&script), b"", &limits(1)).await.expect("sh runs");
    assert!(output.timed_out, "{output:?}");
    let escaped = read_pids(&pids, 1);
    assert_all_gone(&escaped, "a hook that left its cgroup");
}

/// The red team's variant (issue 27, B4): the hook stays in its cgroup; a
/// direct child calls `setsid`, moves itself to the root cgroup (possible
/// from a cgroup namespace when the cgroup2 mount lacks `nsdelegate`) and
/// drops its environment. It is orphaned only when the hook is killed at its
/// timeout, so it must be found (by parent pid) before the hook dies.
#[tokio::test]
async fn a_direct_child_that_leaves_the_cgroup_dies_with_the_timed_out_hook() {
    let Some(procs) = root_cgroup_procs() else {
        return test_support::skip_unless_ci("needs root and a cgroup2 mount", "");
    };
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "setsid sh -c 'echo $$ > {procs}; echo $$ > {pids}; exec env -i sleep 1000' \
           </dev/null >/dev/null 2>&1 & \
         sleep 1000",
        pids = pids.display()
    );
    let output = run(sh(&script), b"", &limits(1)).await.expect("sh runs");
    assert!(output.timed_out, "{output:?}");
    let escaped = read_pids(&pids, 1);
    assert_all_gone(&escaped, "a direct child that left the hook's cgroup");
}

/// Without cgroups (and with them, where the grandchild also leaves its
/// cgroup): the hook exits at once, its orphaned, `setsid`, environment-less
/// grandchild keeps stdout open; it is found by the pipe and killed.
#[tokio::test]
async fn a_grandchild_holding_stdout_after_the_hook_exits_is_killed() {
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let leave = root_cgroup_procs()
        .map(|procs| format!("echo $$ > {procs} 2>/dev/null; "))
        .unwrap_or_default();
    let script = format!(
        "(env -i setsid sh -c '{leave}echo $$ > {pids}; exec sleep 1000' &); exit 0",
        pids = pids.display()
    );
    let output = run(sh(&script), b"", &limits(30)).await.expect("sh runs");
    assert_eq!(output.exit_code, Some(0), "{output:?}");
    let held = read_pids(&pids, 1);
    assert_all_gone(&held, "a grandchild holding stdout");
}

#[test]
fn containment_holds_without_cgroups_too() {
    if std::env::var_os(FALLBACK_RUN).is_some() {
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["containment::", "--test-threads=2"])
        .env(CGROUP_ENV, "off")
        .env(FALLBACK_RUN, "1")
        .output()
        .expect("run without cgroups");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("4 passed"),
        "without cgroups:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
