//! The durable spool as a fleet operator meets it, through the real binary:
//! a full disk loses nothing silently, N `hooks deliver` workers send each
//! row once, a clock two days off buries nothing unattempted, and `hooks
//! emit`/`replay` deliver what they spooled before they exit.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::durable::Receiver;
use crate::harness::{command, within};
use crate::jetstream::{sigterm, wait_until};
use crate::support::{Run, TempHome};

const BOUND: Duration = Duration::from_secs(90);

/// A port nothing listens on yet (reserved, then let go).
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn durable_config(port: u16, extra_hooks: &str) -> String {
    format!(
        "hooks:\n{extra_hooks}  outbound:\n    - name: audit\n      url: http://127.0.0.1:{port}/events\n      \
         events: [on_session_end]\n      delivery: durable\n      timeout: 1\n"
    )
}

fn run(home: &TempHome, args: &[&str]) -> Run {
    within(command(home, args), BOUND).expect("hooks hung")
}

/// The last line of a `--json` replay, or the one object of `emit --json`.
fn last_json(run: &Run) -> serde_json::Value {
    let last = run.stdout().lines().last().unwrap_or("{}").to_owned();
    serde_json::from_str(&last).unwrap_or_else(|_| panic!("not JSON: {}", run.stdout()))
}

fn session(home: &TempHome, lines: &[&str]) -> String {
    let events: Vec<String> = lines
        .iter()
        .map(|event| format!(r#"{{"event": "{event}", "payload": {{"session_id": "s1"}}}}"#))
        .collect();
    home.write("session.jsonl", &(events.join("\n") + "\n"))
        .to_string_lossy()
        .into_owned()
}

/// A small tmpfs mounted for the test (CI runs as root); unmounted on drop.
struct SmallDisk {
    path: PathBuf,
}

impl SmallDisk {
    fn mount(path: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(path).expect("mount point");
        let mounted = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            test_support::skip_unless_ci(
                "full-disk test: cannot mount a tmpfs here (not root?)",
                "HERMES_TEST_REQUIRE_MOUNT",
            );
            return None;
        }
        Some(SmallDisk {
            path: path.to_owned(),
        })
    }

    /// Fills the file system to the last byte with a file it returns.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let filler = self.path.join("filler");
        let mut file = std::fs::File::create(&filler).expect("filler");
        let chunk = vec![0u8; 4096];
        while file.write_all(&chunk).is_ok() {}
        while file.write_all(&[0]).is_ok() {}
        let _ = file.sync_all();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}

#[test]
fn a_full_disk_holds_durable_deliveries_until_the_spool_recovers_and_says_what_it_lost() {
    let receiver = Receiver::on(TcpListener::bind("127.0.0.1:0").expect("bind"), 200);
    let home = TempHome::new();
    let Some(disk) = SmallDisk::mount(&home.hermes.join("outbound"), "1m") else {
        return;
    };
    let filler = disk.path.join("filler");
    let free = home.script(
        "free-disk.sh",
        &format!("#!/bin/sh\nrm -f {}\n", filler.display()),
    );
    home.config(&durable_config(
        receiver.port,
        &format!("  subagent_stop:\n    - command: {}\n", free.display()),
    ));
    // The spool exists and works...
    let first = run(&home, &["emit", "on_session_end", "--json"]);
    assert_eq!(first.code(), Some(0), "{}", first.stderr());
    assert_eq!(
        last_json(&first)["spool"]["delivered"],
        1,
        "{}",
        first.stdout()
    );

    // ...then the disk fills up. Event 1 is held in memory; event 2's shell
    // hook frees the disk; the held row is written and delivered, and so is event 3.
    disk.fill();
    let file = session(
        &home,
        &["on_session_end", "subagent_stop", "on_session_end"],
    );
    let replay = run(&home, &["--accept-hooks", "replay", &file, "--json"]);
    assert_eq!(replay.code(), Some(0), "{}", replay.stderr());
    let summary = last_json(&replay);
    let kinds: Vec<&str> = summary["deliveries"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|d| d["outcome"]["kind"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert!(kinds.contains(&"held"), "{summary}");
    assert!(
        replay
            .stdout()
            .contains("spool_failed: the spool cannot be written"),
        "the run record says so: {}",
        replay.stdout()
    );
    let spool = &summary["spool"];
    assert!(spool["recovered"].as_u64() >= Some(1), "{summary}");
    assert_eq!(spool["spool_failed"], 0, "{summary}");
    assert_eq!(spool["delivered"], 2, "{summary}");
    assert_eq!(spool["left"], 0, "{summary}");
    let seen = receiver.seen();
    assert_eq!(seen.len(), 3, "every event arrived: {seen:?}");
    assert!(seen.values().all(|&count| count == 1), "{seen:?}");

    // A disk that stays full: the loss is counted and said, never silent.
    disk.fill();
    let lost = run(&home, &["emit", "on_session_end", "--json"]);
    assert_eq!(lost.code(), Some(0), "{}", lost.stderr());
    let document = last_json(&lost);
    assert_eq!(
        document["deliveries"][0]["outcome"]["kind"], "held",
        "{document}"
    );
    assert_eq!(document["spool"]["spool_failed"], 1, "{document}");
    assert!(
        lost.stderr().contains("spool_failed"),
        "warned: {}",
        lost.stderr()
    );
    let doctor = run(&home, &["doctor", "--json"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
    let report: serde_json::Value = serde_json::from_str(&doctor.stdout()).expect("doctor JSON");
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("free where the spool lives") || problems.contains("cannot be written"),
        "{problems}"
    );
    let _ = std::fs::remove_file(&filler);
}

/// `count` durable rows of `home`'s target, pending (its receiver is down).
fn spool_rows(home: &TempHome, count: usize) {
    let file = session(home, &vec!["on_session_end"; count]);
    let replay = run(home, &["replay", &file, "--json"]);
    assert_eq!(replay.code(), Some(0), "{}", replay.stderr());
    let listed = run(home, &["spool", "--json"]).json();
    assert_eq!(
        listed["pending"].as_array().map(Vec::len),
        Some(count),
        "{listed}"
    );
}

fn workers_send_each_row_once(workers: usize) {
    const ROWS: usize = 50;
    let port = closed_port();
    let home = TempHome::new();
    home.config(&durable_config(port, ""));
    spool_rows(&home, ROWS);
    // A slow receiver: one worker's 64-row batch would outlive its lease.
    let receiver = Receiver::slow(
        TcpListener::bind(("127.0.0.1", port)).expect("rebind"),
        200,
        Duration::from_millis(300),
    );
    assert_eq!(run(&home, &["spool", "retry", "--all"]).code(), Some(0));
    let mut running: Vec<Child> = (0..workers)
        .map(|_| {
            command(&home, &["deliver"])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn deliver")
        })
        .collect();
    wait_until("every row", || receiver.seen().len() >= ROWS);
    std::thread::sleep(Duration::from_millis(600));
    for worker in &mut running {
        let (code, stdout) = sigterm(worker);
        assert_eq!(code, Some(0), "{stdout}");
    }
    let seen = receiver.seen();
    assert_eq!(seen.len(), ROWS);
    let twice: Vec<_> = seen.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "sent more than once: {twice:?}");
    let listed = run(&home, &["spool", "--json"]).json();
    assert_eq!(listed["pending"], serde_json::json!([]), "{listed}");
}

#[test]
fn two_deliver_workers_on_one_spool_send_each_row_once() {
    workers_send_each_row_once(2);
}

#[test]
fn four_deliver_workers_on_one_spool_send_each_row_once() {
    workers_send_each_row_once(4);
}

/// `args` run by a `hooks` whose clock is `days` off (libfaketime when
/// installed, else the spool's test-only clock offset).
fn skewed(home: &TempHome, days: i64, args: &[&str]) -> Run {
    within(skewed_command(home, days, args), BOUND).expect("hooks hung")
}

/// libfaketime's library, where Debian and Ubuntu install it.
const LIBFAKETIME: [&str; 3] = [
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
    "/usr/lib/faketime/libfaketimeMT.so.1",
];

/// The command of [`skewed`], to spawn. libfaketime is preloaded into
/// `hooks` itself (not the `faketime` wrapper, which forks: a signal to the
/// child's pid must reach `hooks`); the monotonic clock stays true.
fn skewed_command(home: &TempHome, days: i64, args: &[&str]) -> Command {
    let mut command = command(home, args);
    if let Some(library) = LIBFAKETIME.iter().find(|path| Path::new(path).is_file()) {
        command
            .env("LD_PRELOAD", library)
            .env("FAKETIME", format!("{days:+}d"))
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    } else {
        test_support::skip_unless_ci(
            "clock test: no libfaketime (apt-get install faketime); using the test clock offset",
            "HERMES_TEST_REQUIRE_FAKETIME",
        );
        command.env(
            "HERMES_HOOKS_TEST_CLOCK_OFFSET_SECS",
            (days * 86_400).to_string(),
        );
    }
    command
}

#[test]
fn a_worker_two_days_ahead_takes_over_no_live_lease_and_each_row_is_sent_once() {
    const ROWS: usize = 30;
    let port = closed_port();
    let home = TempHome::new();
    home.config(&durable_config(port, ""));
    spool_rows(&home, ROWS);
    // A slow receiver: every lease the correct worker holds is live while
    // the worker ahead looks at it (by its clock, long expired).
    let receiver = Receiver::slow(
        TcpListener::bind(("127.0.0.1", port)).expect("rebind"),
        200,
        Duration::from_millis(150),
    );
    assert_eq!(run(&home, &["spool", "retry", "--all"]).code(), Some(0));
    let mut running = vec![
        command(&home, &["deliver"]),
        skewed_command(&home, 2, &["deliver"]),
    ]
    .into_iter()
    .map(|mut worker| {
        worker
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn deliver")
    })
    .collect::<Vec<Child>>();
    wait_until("every row", || receiver.seen().len() >= ROWS);
    std::thread::sleep(Duration::from_millis(600));
    for worker in &mut running {
        let (code, stdout) = sigterm(worker);
        assert_eq!(code, Some(0), "{stdout}");
    }
    let seen = receiver.seen();
    assert_eq!(seen.len(), ROWS);
    let twice: Vec<_> = seen.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "sent more than once: {twice:?}");
    let listed = run(&home, &["spool", "--json"]).json();
    assert_eq!(listed["pending"], serde_json::json!([]), "{listed}");
}

#[test]
fn a_clock_two_days_off_buries_nothing_unattempted() {
    let port = closed_port();
    let home = TempHome::new();
    home.config(&durable_config(port, ""));
    // A producer two days behind spools while the receiver is down.
    let emitted = skewed(&home, -2, &["emit", "on_session_end", "--json"]);
    assert_eq!(emitted.code(), Some(0), "{}", emitted.stderr());
    let id = last_json(&emitted)["deliveries"][0]["delivery_id"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    // A worker two days ahead attempts it, and keeps it.
    assert_eq!(run(&home, &["spool", "retry", "--all"]).code(), Some(0));
    let ahead = skewed(&home, 2, &["deliver", "--once"]);
    assert_eq!(ahead.code(), Some(0), "{}", ahead.stderr());
    let listed = run(&home, &["spool", "--json"]).json();
    assert_eq!(listed["dead"], serde_json::json!([]), "{listed}");
    let pending = listed["pending"].as_array().cloned().unwrap_or_default();
    assert_eq!(pending.len(), 1, "{listed}");
    assert!(pending[0]["attempts"].as_u64() >= Some(2), "{listed}");

    // The receiver is back: a correct clock delivers it, once.
    let receiver = Receiver::on(TcpListener::bind(("127.0.0.1", port)).expect("rebind"), 200);
    assert_eq!(run(&home, &["spool", "retry", "--all"]).code(), Some(0));
    let back = run(&home, &["deliver", "--once"]);
    assert!(back.ok().contains("1 delivered"), "{}", back.stdout());
    assert_eq!(receiver.seen().get(&id), Some(&1));
}

#[test]
fn emit_and_replay_deliver_what_they_spooled_before_they_exit() {
    // Slower than the second the old exit gave the spool worker.
    let receiver = Receiver::slow(
        TcpListener::bind("127.0.0.1:0").expect("bind"),
        200,
        Duration::from_millis(1500),
    );
    let home = TempHome::new();
    home.config(&durable_config(receiver.port, "").replace("timeout: 1", "timeout: 3"));
    let emitted = run(&home, &["emit", "on_session_end", "--json"]);
    let document = last_json(&emitted);
    let id = document["deliveries"][0]["delivery_id"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert_eq!(
        receiver.seen().get(&id),
        Some(&1),
        "arrived before exit: {document}"
    );
    assert_eq!(document["spool"]["delivered"], 1, "{document}");
    assert_eq!(document["spool"]["left"], 0, "{document}");

    let file = session(&home, &["on_session_end"; 3]);
    let replay = run(&home, &["replay", &file]);
    assert!(
        replay
            .ok()
            .contains("3 delivered and 0 dead-lettered before exit; 0 left for `hooks deliver`"),
        "{}",
        replay.stdout()
    );
    assert_eq!(receiver.seen().len(), 4);

    // The receiver is gone: what is left is said, for `hooks deliver`.
    let gone = TempHome::new();
    gone.config(&durable_config(closed_port(), ""));
    let left = run(&gone, &["emit", "on_session_end"]);
    assert!(
        left.ok().contains("1 left for `hooks deliver`"),
        "{}",
        left.stdout()
    );
}

/// One scrape of `port` over loopback.
fn scrape(port: u16) -> String {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

#[test]
fn deliver_serves_prometheus_metrics_and_spool_json_has_the_same_numbers() {
    let port = closed_port();
    let home = TempHome::new();
    home.config(&durable_config(port, ""));
    spool_rows(&home, 3);
    let listed = run(&home, &["spool", "--json"]).json();
    assert_eq!(listed["targets"][0]["target"], "audit", "{listed}");
    assert_eq!(listed["targets"][0]["pending"], 3, "{listed}");
    assert!(listed["targets"][0]["oldest_pending_age_seconds"].as_f64() >= Some(0.0));

    let receiver = Receiver::on(TcpListener::bind(("127.0.0.1", port)).expect("rebind"), 200);
    assert_eq!(run(&home, &["spool", "retry", "--all"]).code(), Some(0));
    let metrics_port = closed_port();
    let address = format!("127.0.0.1:{metrics_port}");
    let mut worker = command(&home, &["deliver", "--metrics", &address])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn deliver");
    wait_until("three deliveries counted", || {
        scrape(metrics_port).contains(r#"hooks_deliveries_delivered_total{target="audit"} 3"#)
    });
    let text = scrape(metrics_port);
    for line in [
        r#"hooks_spool_pending{target="audit"} 0"#,
        r#"hooks_spool_in_flight{target="audit"} 0"#,
        r#"hooks_spool_dead{target="audit"} 0"#,
        r#"hooks_delivery_latency_seconds_count{target="audit"} 3"#,
        "# TYPE hooks_spool_oldest_pending_age_seconds gauge",
    ] {
        assert!(text.contains(line), "missing {line}: {text}");
    }
    let (code, stdout) = sigterm(&mut worker);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(receiver.seen().len(), 3);
    let listed = run(&home, &["spool", "--json"]).json();
    assert_eq!(listed["targets"], serde_json::json!([]), "{listed}");
}
