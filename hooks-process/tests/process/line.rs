//! The line-protocol worker: answers by id, deadlines, a broken or dead
//! worker detected at once, stderr forwarded, async callers; each in both
//! modes (reader and writer threads, and direct: the caller reads and writes
//! the pipes itself).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hermes_hooks_process::{LineError, LineOptions, LineWorker};
use serde_json::{Map, Value, json};
use tokio::process::Command;

use crate::support::MARGIN;

/// A Python echo worker: says ready, then answers `{"op": "echo"}` at once,
/// `{"op": "sleep", "s": n}` after n seconds (on its own thread), prints
/// `{"op": "say"}`'s text to stderr, exits on `{"op": "exit"}`, closes its
/// input on `{"op": "close_input"}`; also writes a stray and a stale line.
const ECHO: &str = r#"
import json, os, sys, threading, time
lock = threading.Lock()
stopped = threading.Event()
def send(m):
    with lock:
        sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"id": 0, "ready": True})
def serve(r):
    op = r.get("op")
    if op == "sleep":
        time.sleep(r["s"])
    if op == "say":
        sys.stderr.write(r["text"] + "\n"); sys.stderr.flush()
    if op == "exit":
        os._exit(3)
    if op == "close_input":
        # Closed before the answer, so the next request's write surely fails
        # (EPIPE); the main thread's read of fd 0 fails too and it stays alive.
        os.close(0)
        send({"id": r["id"], "ok": True})
        time.sleep(60)
    if op == "stop_reading":
        # The reader stops: nothing more is read from the input.
        send({"id": r["id"], "ok": True})
        stopped.set()
        return
    if op == "noise":
        sys.stdout.write("not json\n"); send({"id": 999999, "ok": True}); send({"ok": True})
    send({"id": r["id"], "ok": True, "echo": r})
try:
    for line in sys.stdin:
        r = json.loads(line)
        if r.get("op") == "stop_reading":
            serve(r)
            time.sleep(60)
        threading.Thread(target=serve, args=(r,), daemon=True).start()
except (OSError, ValueError):
    # Input closed under the reader (`close_input`): stay alive, reading nothing.
    time.sleep(60)
"#;

/// Whether `python3` runs here (a test that needs it skips without it, but fails in CI).
pub(crate) use test_support::python_available;

/// Both modes: reader and writer threads, and direct.
const MODES: [bool; 2] = [false, true];

fn echo_worker(lines: Arc<Mutex<Vec<String>>>, direct: bool) -> LineWorker {
    let mut command = Command::new("python3");
    command.arg("-c").arg(ECHO);
    let options = LineOptions::new("test worker");
    let sink = move |line: &str, _cut: bool| {
        lines.lock().unwrap().push(line.to_owned());
    };
    let worker = if direct {
        LineWorker::spawn_direct(command, options, sink)
    } else {
        LineWorker::spawn(command, options, sink)
    }
    .expect("spawns");
    let ready = worker.wait_ready(MARGIN).expect("ready");
    assert_eq!(ready["ready"], true);
    worker
}

fn op(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn answers_find_their_requests_whatever_the_order() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = Arc::new(echo_worker(Arc::default(), direct));
        let slow = {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                worker.request(op(json!({"op": "sleep", "s": 1, "n": 1})), MARGIN)
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let fast = worker
            .request(op(json!({"op": "noise", "n": 2})), MARGIN)
            .expect("answer");
        assert_eq!(fast["echo"]["n"], 2);
        let slow = slow.join().expect("joins").expect("answer");
        assert_eq!(slow["echo"]["n"], 1);
    }
}

#[test]
fn every_request_has_a_deadline() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = echo_worker(Arc::default(), direct);
        let error = worker
            .request(
                op(json!({"op": "sleep", "s": 60})),
                Duration::from_millis(300),
            )
            .unwrap_err();
        // Its deadline, not the 60 s sleep, ended it: the error says so.
        assert_eq!(error, LineError::TimedOut(Duration::from_millis(300)));
        // The worker still answers the next one.
        assert!(worker.request(op(json!({"op": "echo"})), MARGIN).is_ok());
    }
}

#[tokio::test]
async fn async_callers_get_answers_and_deadlines() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = echo_worker(Arc::default(), direct);
        let answer = worker
            .request_async(op(json!({"op": "echo", "n": 5})), MARGIN)
            .await
            .expect("answer");
        assert_eq!(answer["echo"]["n"], 5);
        let error = worker
            .request_async(
                op(json!({"op": "sleep", "s": 60})),
                Duration::from_millis(200),
            )
            .await
            .unwrap_err();
        assert!(matches!(error, LineError::TimedOut(_)), "{error}");
    }
}

#[test]
fn a_worker_that_exits_fails_what_waits_with_its_status() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = Arc::new(echo_worker(Arc::default(), direct));
        let waiting = {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                worker.request(op(json!({"op": "sleep", "s": 30})), MARGIN * 4)
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let _ = worker.request(op(json!({"op": "exit"})), MARGIN);
        // Ended by the exit: neither its deadline (`TimedOut`) nor the sleep (an answer).
        let error = waiting.join().expect("joins").unwrap_err();
        assert!(
            matches!(&error, LineError::Exited(how) if how.contains('3')),
            "{error}"
        );
        assert!(!worker.is_alive());
        let error = worker
            .request(op(json!({"op": "echo"})), MARGIN)
            .unwrap_err();
        assert!(matches!(error, LineError::Exited(_)), "{error}");
    }
}

#[test]
fn a_worker_whose_input_is_gone_is_broken_and_killed() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = echo_worker(Arc::default(), direct);
        worker
            .request(op(json!({"op": "close_input"})), MARGIN)
            .expect("answer");
        // The next write fails (EPIPE): the worker is declared broken and killed,
        // and the request fails at once instead of at its deadline.
        let mut errors = Vec::new();
        for _ in 0..3 {
            if let Err(error) = worker.request(op(json!({"op": "echo"})), MARGIN * 4) {
                errors.push(error);
            }
        }
        assert!(!errors.is_empty());
        assert!(
            !errors
                .iter()
                .any(|error| matches!(error, LineError::TimedOut(_))),
            "failed at a deadline, not at once: {errors:?}"
        );
        assert!(!worker.is_alive());
        let deadline = Instant::now() + MARGIN;
        while worker.exit_status().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            worker.exit_status().is_some(),
            "the broken worker was killed"
        );
    }
}

#[test]
fn stderr_lines_reach_the_sink() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let lines: Arc<Mutex<Vec<String>>> = Arc::default();
        let worker = echo_worker(Arc::clone(&lines), direct);
        worker
            .request(op(json!({"op": "say", "text": "hello there"})), MARGIN)
            .expect("answer");
        drop(worker);
        assert!(
            lines
                .lock()
                .unwrap()
                .iter()
                .any(|line| line == "hello there"),
            "{lines:?}"
        );
    }
}

#[test]
fn a_direct_worker_notices_an_exit_while_nobody_waits() {
    if !python_available() {
        return;
    }
    let worker = echo_worker(Arc::default(), true);
    let mut exit = op(json!({"op": "exit"}));
    exit.insert("n".to_owned(), json!(1));
    let _ = worker.request(exit, Duration::from_millis(1));
    let deadline = Instant::now() + MARGIN;
    while worker.is_alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!worker.is_alive(), "no reader thread, yet the exit is seen");
}

#[test]
fn a_direct_write_the_child_never_reads_fails_at_the_deadline() {
    if !python_available() {
        return;
    }
    let worker = echo_worker(Arc::default(), true);
    worker
        .request(op(json!({"op": "stop_reading"})), MARGIN)
        .expect("answer");
    // Larger than any pipe buffer: the write cannot finish.
    let big = "x".repeat(4 * 1024 * 1024);
    let error = worker
        .request(
            op(json!({"op": "echo", "big": big})),
            Duration::from_millis(300),
        )
        .unwrap_err();
    assert!(matches!(error, LineError::Send(_)), "{error}");
    assert!(!worker.is_alive(), "a half-written line breaks the worker");
}

#[test]
fn concurrent_direct_callers_take_turns_reading() {
    if !python_available() {
        return;
    }
    let worker = Arc::new(echo_worker(Arc::default(), true));
    let slow = {
        let worker = Arc::clone(&worker);
        std::thread::spawn(move || {
            worker.request(op(json!({"op": "sleep", "s": 0.5, "n": -1})), MARGIN)
        })
    };
    // Callers that give up early (their turn to read must pass on, not vanish).
    let impatient: Vec<_> = (0..2)
        .map(|_| {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                for _ in 0..10 {
                    let error = worker
                        .request(
                            op(json!({"op": "sleep", "s": 0.2})),
                            Duration::from_millis(30),
                        )
                        .unwrap_err();
                    assert!(matches!(error, LineError::TimedOut(_)), "{error}");
                }
            })
        })
        .collect();
    let callers: Vec<_> = (0..6)
        .map(|caller| {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                for n in 0..40 {
                    let tag = caller * 1000 + n;
                    let answer = worker
                        .request(op(json!({"op": "echo", "n": tag})), MARGIN)
                        .expect("answer");
                    assert_eq!(answer["echo"]["n"], tag);
                }
            })
        })
        .collect();
    for caller in callers.into_iter().chain(impatient) {
        caller.join().expect("joins");
    }
    let slow = slow.join().expect("joins").expect("answer");
    assert_eq!(slow["echo"]["n"], -1);
}

#[test]
fn an_encoded_request_gets_its_id_and_its_answer() {
    if !python_available() {
        return;
    }
    for direct in MODES {
        let worker = echo_worker(Arc::default(), direct);
        let answer = worker
            .request_encoded(br#"{"op": "echo", "n": 7}"#, MARGIN)
            .expect("answer");
        assert_eq!(answer["echo"]["n"], 7);
        assert!(answer["echo"]["id"].as_u64().is_some_and(|id| id > 0));
        // An empty object is a request with only its id.
        let empty = worker.request_encoded(b"{}", MARGIN).expect("answer");
        assert_eq!(empty["echo"], json!({"id": empty["id"]}));
        // A deadline holds as for any request.
        let error = worker
            .request_encoded(br#"{"op": "sleep", "s": 60}"#, Duration::from_millis(300))
            .unwrap_err();
        assert_eq!(error, LineError::TimedOut(Duration::from_millis(300)));
    }
}

#[test]
fn a_worker_started_on_a_runtime_that_stops_later_keeps_answering_and_still_dies_when_killed() {
    // A host's Python worker restarted from a thread with no runtime of its
    // own is spawned in the newest runtime's context, which may be another
    // host's; that host stopping must neither end the worker nor keep it
    // from being watched and killed.
    if !python_available() {
        return;
    }
    for direct in MODES {
        let other = hermes_hooks_process::runtime::Background::with_threads("rt-line-other", 1)
            .expect("runtime");
        let worker = {
            let _entered = other.enter();
            echo_worker(Arc::default(), direct)
        };
        assert!(other.shutdown(MARGIN).is_clean());
        let answer = worker
            .request(op(json!({"op": "echo", "n": 7})), MARGIN)
            .expect("answers after the runtime stopped");
        assert_eq!(answer["echo"]["n"], 7);
        let _ = worker.request(op(json!({"op": "exit"})), MARGIN);
        let deadline = Instant::now() + MARGIN;
        while worker.is_alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!worker.is_alive(), "its exit is seen");
        let deadline = Instant::now() + MARGIN;
        while worker.exit_status().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            worker
                .exit_status()
                .is_some_and(|status| status.contains('3')),
            "{:?}",
            worker.exit_status()
        );
        let pid = worker.pid();
        worker.kill();
        drop(worker);
        // Reaped by `exit_status` already: no zombie is left either.
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "the worker is gone"
        );
    }
}

/// A caller whose deadline passes just as the reader leaves may be handed
/// the turn to read after it gave up: it must pass the turn on, or every
/// caller still waiting waits for answers no one reads (ci-82's timeout).
/// Many callers give up within milliseconds, beside patient ones, so the
/// moment comes often.
#[test]
fn a_caller_giving_up_as_the_turn_comes_passes_it_on() {
    if !python_available() {
        return;
    }
    let worker = Arc::new(echo_worker(Arc::default(), true));
    let impatient: Vec<_> = (0..6)
        .map(|caller| {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                for n in 0..150u64 {
                    let wait = Duration::from_micros(200 + (caller * 300 + n * 37) % 2000);
                    // Answered or not in time: either is fine here.
                    let _ = worker.request(op(json!({"op": "sleep", "s": 0.001})), wait);
                }
            })
        })
        .collect();
    let patient: Vec<_> = (0..3)
        .map(|caller| {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                for n in 0..150 {
                    let tag = caller * 1000 + n;
                    let answer = worker
                        .request(op(json!({"op": "echo", "n": tag})), MARGIN)
                        .expect("answer");
                    assert_eq!(answer["echo"]["n"], tag);
                }
            })
        })
        .collect();
    for caller in patient.into_iter().chain(impatient) {
        caller.join().expect("joins");
    }
}
