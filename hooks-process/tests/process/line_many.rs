//! One request, several answers (`LineWorker::request_encoded_many`): each
//! reserved id gets its own answer, in whatever order the worker writes
//! them, waited for one by one; a worker that dies fails every answer not
//! given yet. In both modes (reader and writer threads, and direct).

use std::time::Duration;

use hermes_hooks_process::{LineError, LineOptions, LineWorker};
use tokio::process::Command;

use crate::line::python_available;
use crate::support::MARGIN;

/// Says ready; `{"op": "parts", "count": n}` is answered under ids
/// `id + n - 1` down to `id` (last first); `{"op": "half", "count": n}`
/// answers the first id, then exits.
const PARTS: &str = r#"
import json, os, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"id": 0, "ready": True})
for line in sys.stdin:
    r = json.loads(line)
    if r["op"] == "parts":
        for part in reversed(range(r["count"])):
            send({"id": r["id"] + part, "ok": True, "part": part})
    if r["op"] == "half":
        send({"id": r["id"], "ok": True, "part": 0})
        os._exit(3)
"#;

fn parts_worker(direct: bool) -> LineWorker {
    let mut command = Command::new("python3");
    command.arg("-c").arg(PARTS);
    let options = LineOptions::new("parts worker");
    let worker = if direct {
        LineWorker::spawn_direct(command, options, |_: &str, _| {})
    } else {
        LineWorker::spawn(command, options, |_: &str, _| {})
    }
    .expect("spawns");
    worker.wait_ready(MARGIN).expect("ready");
    worker
}

#[test]
fn each_reserved_id_gets_its_own_answer() {
    if !python_available() {
        return;
    }
    for direct in [false, true] {
        let worker = parts_worker(direct);
        for _ in 0..3 {
            let answers = worker
                .request_encoded_many(br#"{"op":"parts","count":3}"#, 3, MARGIN)
                .expect("sent");
            assert_eq!(answers.len(), 3);
            for index in 0..3 {
                let answer = worker
                    .wait_answer(&answers, index, MARGIN)
                    .expect("answered");
                assert_eq!(answer["part"], index as u64, "direct: {direct}");
                assert_eq!(answer["id"], answers.first_id() + index as u64);
            }
            // No such answer: an error at once, not a wait.
            assert!(
                worker
                    .wait_answer(&answers, 3, Duration::from_secs(60))
                    .is_err()
            );
        }
        // The ids after a request's are the next request's own.
        let answers = worker
            .request_encoded_many(br#"{"op":"parts","count":1}"#, 1, MARGIN)
            .expect("sent");
        assert_eq!(
            worker.wait_answer(&answers, 0, MARGIN).expect("answered")["part"],
            0
        );
    }
}

#[test]
fn a_worker_that_dies_fails_every_answer_not_given() {
    if !python_available() {
        return;
    }
    for direct in [false, true] {
        let worker = parts_worker(direct);
        let answers = worker
            .request_encoded_many(br#"{"op":"half","count":3}"#, 3, MARGIN)
            .expect("sent");
        assert_eq!(
            worker.wait_answer(&answers, 0, MARGIN).expect("answered")["part"],
            0
        );
        for index in 1..3 {
            let answer = worker.wait_answer(&answers, index, MARGIN);
            assert!(
                matches!(answer, Err(LineError::Exited(_))),
                "direct: {direct}: {answer:?}"
            );
        }
    }
}
