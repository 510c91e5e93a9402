//! Kills stay fast whatever else runs on the machine: processes with an empty
//! environment (`env -i`) anywhere must not stretch a timeout.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hermes_hooks_process::{ChildTree, run};

use crate::support::{Scratch, assert_all_gone, limits, read_pids, sh};

/// Unrelated processes with an empty environment, killed when dropped.
struct Crowd(Vec<Child>);

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
async fn a_timeout_holds_beside_200_processes_with_an_empty_environment() {
    let _crowd = Crowd::new(200);
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "sleep 1000 & echo $! > {p}; (setsid sleep 1000 & echo $! >> {p}); echo $$ >> {p}; sleep 1000",
        p = pids.display()
    );
    let started = Instant::now();
    let output = run(sh(&script), b"", &limits(2)).await.expect("sh runs");
    let elapsed = started.elapsed();
    assert!(output.timed_out, "{output:?}");
    // Bound: the 2 s timeout plus a generous margin for a loaded machine
    // (before the fix, every empty environment cost 10 ms per kill round: 6 s and more).
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    assert_all_gone(&read_pids(&pids, 3), "the tree beside the crowd");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_worker_beside_200_processes_with_an_empty_environment_is_prompt() {
    let _crowd = Crowd::new(200);
    let scratch = Scratch::new();
    let pids = scratch.file("pids");
    let script = format!(
        "(setsid sleep 1000 & echo $! > {p}); echo $$ >> {p}; exec sleep 1000",
        p = pids.display()
    );
    let tree = ChildTree::spawn(sh(&script)).expect("spawn");
    let pids = read_pids(&pids, 2);
    let started = Instant::now();
    drop(tree);
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(1),
        "the drop took {elapsed:?}"
    );
    assert_all_gone(&pids, "the worker beside the crowd");
}
