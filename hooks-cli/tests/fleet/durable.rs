//! `delivery: durable` through the real binary: `hooks emit` spools, a
//! `hooks deliver` worker killed with SIGKILL loses nothing, and each delivery
//! arrives exactly once when the receiver is back; `hooks spool` shows and
//! changes the spool.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::harness::{command, within};
use crate::support::TempHome;

const BOUND: Duration = Duration::from_secs(60);

/// A minimal HTTP/1.1 receiver on 127.0.0.1 (std only) that answers `status`
/// and counts each `X-Hermes-Delivery` it saw.
pub struct Receiver {
    seen: Arc<Mutex<HashMap<String, usize>>>,
    stop: Arc<AtomicBool>,
    status: Arc<AtomicU16>,
    pub port: u16,
}

impl Receiver {
    pub fn on(listener: TcpListener, status: u16) -> Receiver {
        Receiver::slow(listener, status, Duration::ZERO)
    }

    /// Answers each request after `delay`.
    pub fn slow(listener: TcpListener, status: u16, delay: Duration) -> Receiver {
        let port = listener.local_addr().expect("addr").port();
        let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let status = Arc::new(AtomicU16::new(status));
        let (seen2, stop2, status2) = (seen.clone(), stop.clone(), status.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                // One thread per connection: concurrent senders are not queued behind each other.
                let (seen, status) = (seen2.clone(), status2.clone());
                std::thread::spawn(move || answer(stream, delay, &seen, &status));
            }
        });
        Receiver {
            seen,
            stop,
            status,
            port,
        }
    }

    /// Answers `status` from now on.
    pub fn answer(&self, status: u16) {
        self.status.store(status, Ordering::SeqCst);
    }

    pub fn seen(&self) -> HashMap<String, usize> {
        self.seen.lock().expect("seen").clone()
    }
}

/// Reads one request, waits `delay`, counts its `X-Hermes-Delivery`, answers `status`.
fn answer(
    mut stream: std::net::TcpStream,
    delay: Duration,
    seen: &Mutex<HashMap<String, usize>>,
    status: &AtomicU16,
) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let (mut length, mut id) = (0usize, None);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if let Some(value) = lower.strip_prefix("x-hermes-delivery:") {
            id = Some(value.trim().to_owned());
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    std::thread::sleep(delay);
    if let Some(id) = id {
        *seen.lock().expect("seen").entry(id).or_default() += 1;
    }
    let status = status.load(Ordering::SeqCst);
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn durable_home(port: u16) -> TempHome {
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: audit\n      url: http://127.0.0.1:{port}/events\n      \
         events: [on_session_end]\n      delivery: durable\n      timeout: 2\n"
    ));
    home
}

fn spool_json(home: &TempHome) -> serde_json::Value {
    let run = within(command(home, &["spool", "--json"]), BOUND).expect("spool hung");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.json()
}

#[test]
fn a_killed_worker_loses_nothing_and_each_delivery_arrives_once() {
    // The receiver's port is reserved now and served later: until then nothing listens.
    let reserved = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = reserved.local_addr().expect("addr").port();
    drop(reserved);
    let home = durable_home(port);

    let mut ids = Vec::new();
    for _ in 0..5 {
        let run = within(command(&home, &["emit", "on_session_end", "--json"]), BOUND)
            .expect("emit hung");
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let document = run.json();
        let deliveries = document["deliveries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let spooled: Vec<_> = deliveries
            .iter()
            .filter(|d| d["outcome"]["kind"] == "spooled")
            .collect();
        assert_eq!(spooled.len(), 1, "{document}");
        ids.push(spooled[0]["delivery_id"].as_str().unwrap_or("").to_owned());
    }
    let listed = spool_json(&home);
    assert_eq!(
        listed["pending"].as_array().map(Vec::len),
        Some(5),
        "{listed}"
    );

    // A worker retries against the dead receiver, then dies by SIGKILL.
    let mut worker = command(&home, &["deliver"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn deliver");
    std::thread::sleep(Duration::from_millis(1500));
    worker.kill().expect("SIGKILL");
    worker.wait().expect("reap");
    let listed = spool_json(&home);
    let pending = listed["pending"].as_array().cloned().unwrap_or_default();
    assert_eq!(pending.len(), 5, "{listed}");
    assert!(
        pending.iter().all(|row| row["attempts"].as_u64() >= Some(1)
            && row["last_error"]
                .as_str()
                .is_some_and(|e| e.contains("connection failed"))),
        "{listed}"
    );

    // The receiver is back; the backoff is skipped and one worker run sends everything.
    let receiver = Receiver::on(TcpListener::bind(("127.0.0.1", port)).expect("rebind"), 200);
    let run = within(command(&home, &["spool", "retry", "--all"]), BOUND).expect("retry hung");
    assert!(
        run.ok().contains("5 delivery(ies) due now"),
        "{}",
        run.stdout()
    );
    let run = within(command(&home, &["deliver", "--once"]), BOUND).expect("deliver hung");
    assert!(run.ok().contains("5 delivered"), "{}", run.stdout());
    let seen = receiver.seen();
    let mut got: Vec<&String> = seen.keys().collect();
    got.sort();
    let mut want: Vec<&String> = ids.iter().collect();
    want.sort();
    assert_eq!(got, want);
    assert!(seen.values().all(|&count| count == 1), "{seen:?}");

    // Nothing is sent twice after a 2xx.
    let run = within(command(&home, &["deliver", "--once"]), BOUND).expect("deliver hung");
    assert!(run.ok().contains("0 delivered"), "{}", run.stdout());
    assert!(receiver.seen().values().all(|&count| count == 1));
    let listed = spool_json(&home);
    assert_eq!(listed["pending"], serde_json::json!([]), "{listed}");
}

#[test]
fn a_rejected_delivery_is_a_dead_letter_that_spool_shows_retries_and_purges() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let receiver = Receiver::on(listener, 422);
    let home = durable_home(receiver.port);
    let run = within(command(&home, &["emit", "on_session_end"]), BOUND).expect("emit hung");
    assert!(
        run.ok().contains("audit on_session_end spooled"),
        "{}",
        run.stdout()
    );
    // `hooks emit` drains in the background: the 422 may already be in; --once settles it.
    let run = within(command(&home, &["deliver", "--once"]), BOUND).expect("deliver hung");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let listed = spool_json(&home);
    let dead = listed["dead"].as_array().cloned().unwrap_or_default();
    assert_eq!(dead.len(), 1, "{listed}");
    assert_eq!(dead[0]["target"], "audit");
    assert_eq!(dead[0]["last_error"], "HTTP 422 (rejected)");
    let id = dead[0]["delivery_id"].as_str().unwrap_or("").to_owned();

    let text = within(command(&home, &["spool"]), BOUND)
        .expect("spool hung")
        .ok();
    assert!(
        text.contains("0 pending, 1 dead") && text.contains(&id),
        "{text}"
    );

    let run = within(command(&home, &["spool", "retry", &id]), BOUND).expect("retry hung");
    assert!(run.ok().contains("1 delivery(ies) due now"));
    assert_eq!(
        spool_json(&home)["pending"].as_array().map(Vec::len),
        Some(1)
    );
    let run = within(command(&home, &["spool", "retry", "nope"]), BOUND).expect("retry hung");
    assert_eq!(run.code(), Some(2), "an unknown id is an error");

    let run = within(command(&home, &["spool", "purge"]), BOUND).expect("purge hung");
    assert!(run.ok().contains("purged 1"), "{}", run.stdout());
    let listed = spool_json(&home);
    assert_eq!(
        (listed["pending"].clone(), listed["dead"].clone()),
        (serde_json::json!([]), serde_json::json!([]))
    );
    drop(receiver);
}

#[test]
fn sigterm_stops_a_worker_with_exit_0() {
    let home = durable_home(9);
    let mut worker = command(&home, &["deliver"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn deliver");
    std::thread::sleep(Duration::from_millis(700));
    let pid = nix::unistd::Pid::from_raw(i32::try_from(worker.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let status = crate::harness::wait_exit(&mut worker, "deliver after SIGTERM");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn emit_to_a_hanging_durable_target_returns_and_keeps_the_delivery() {
    // Accepts (the kernel's backlog does) and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: audit\n      url: http://127.0.0.1:{}/events\n      \
         events: [on_session_end]\n      delivery: durable\n      timeout: 30\n",
        silent.local_addr().expect("addr").port()
    ));
    // The target's timeout is 30 s; emit is bounded by its flush (5 s) and a 1 s stop.
    let run = within(
        command(&home, &["emit", "on_session_end", "--json"]),
        Duration::from_secs(25),
    )
    .expect("emit waited on the hanging receiver");
    assert_eq!(run.json()["deliveries"][0]["outcome"]["kind"], "spooled");
    let listed = spool_json(&home);
    assert_eq!(
        listed["pending"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
    drop(silent);
}

#[test]
fn a_worker_killed_mid_send_leaves_a_lease_the_next_worker_takes_over_at_once() {
    let reserved = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = reserved.local_addr().expect("addr").port();
    drop(reserved);
    let home = durable_home(port);
    let run =
        within(command(&home, &["emit", "on_session_end", "--json"]), BOUND).expect("emit hung");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    // A receiver that holds each request 1.5 s (under the target's 2 s timeout).
    let receiver = Receiver::slow(
        TcpListener::bind(("127.0.0.1", port)).expect("rebind"),
        200,
        Duration::from_millis(1500),
    );
    let run = within(command(&home, &["spool", "retry", "--all"]), BOUND).expect("retry hung");
    assert!(
        run.ok().contains("1 delivery(ies) due now"),
        "{}",
        run.stdout()
    );
    let mut worker = command(&home, &["deliver"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn deliver");
    crate::harness::wait_until("the worker leased the row", || {
        spool_json(&home)["targets"][0]["in_flight"] == 1
    });
    // SIGKILL mid-send: the row stays leased by a process that is gone.
    worker.kill().expect("SIGKILL");
    worker.wait().expect("reap");
    // Its lease (2 s + 10 s) has not run out, by anyone's clock: the next
    // worker sees its holder gone and sends the row now.
    let run = within(command(&home, &["deliver", "--once"]), BOUND).expect("deliver hung");
    assert!(run.ok().contains("1 delivered"), "{}", run.stdout());
    assert_eq!(spool_json(&home)["pending"], serde_json::json!([]));
    assert!(!receiver.seen().is_empty());
}
