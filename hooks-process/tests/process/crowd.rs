//! Kills work whatever else runs on the machine: processes with an empty
//! environment (`env -i`) anywhere neither stop a timeout nor a drop (how
//! long the kills take there is a benchmark figure, not a clock here).

use std::process::{Child, Command, Stdio};

use hermes_hooks_process::{ChildTree, run};

use crate::support::{Scratch, assert_all_gone, limits, read_pids, sh};

/// Unrelated processes with an empty environment, killed when dropped.
struct Crowd(Vec<Child>);

/// Processes with an empty environment beside the tree. The bug these tests
/// guard cost 10 ms per such process per kill scan, so with this many it
/// costs tens of seconds: the bounds below stay far from it and far above a
/// loaded machine's noise (they are not speed checks).
const CROWD: usize = 600;

impl Crowd {
    fn new(count: usize) -> Crowd {
        let children = (0..count)
            .map(|_| {
                Command::new("env")
                    .args(["-i", "sleep", "60"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn env -i sleep")
            })
            .collect();
        Crowd(children)
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_holds_beside_a_crowd_of_processes_with_an_empty_environment() {
    let _crowd = Crowd::new(CROWD);
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "sleep 1000 & echo $! > {p}; (setsid sleep 1000 & echo $! >> {p}); echo $$ >> {p}; sleep 1000",
        p = pids.display()
    );
    let output = run(sh(&script), b"", &limits(2)).await.expect("sh runs");
    assert!(output.timed_out, "{output:?}");
    // Before the fix every empty environment cost 10 ms per kill round (6 s
    // a round at this crowd): a speed figure for the benchmark notes
    // (docs/benchmarks/gateway-and-cli.md), not a clock in this test.
    assert_all_gone(&read_pids(&pids, 3), "the tree beside the crowd");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_worker_beside_a_crowd_of_processes_with_an_empty_environment_kills_it() {
    let _crowd = Crowd::new(CROWD);
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "(setsid sleep 1000 & echo $! > {p}); echo $$ >> {p}; exec sleep 1000",
        p = pids.display()
    );
    let tree = ChildTree::spawn(sh(&script)).expect("spawn");
    let pids = read_pids(&pids, 2);
    // Before the fix: 6 s a kill round at this crowd (a speed figure for
    // the benchmark notes, not a clock here); the drop returns and kills all.
    drop(tree);
    assert_all_gone(&pids, "the worker beside the crowd");
}
