//! What `hooks` prints and reads stays bounded and safe (issue 27, item 8):
//! a password in a webhook URL's path is never printed, and `hooks replay`
//! streams its input, one capped line at a time.

use std::io::Write;
use std::time::Duration;

use crate::harness::command;
use crate::support::TempHome;

#[test]
fn a_password_in_a_webhook_path_is_never_printed() {
    // `hunter2` is shaped like no key: it is masked as what follows
    // `hook/` (R33b-6).
    for password in ["Pa55w0rd!", "hunter2"] {
        let home = TempHome::new();
        home.config(&format!(
            "hooks:\n  outbound:\n    - url: https://example.com/hook/{password}\n      events: [on_session_end]\n"
        ));
        for args in [&["list"][..], &["list", "--json"], &["doctor"]] {
            let run = home.hooks(args);
            let shown = format!("{}{}", run.stdout(), run.stderr());
            assert!(!shown.contains(password), "{args:?}: {shown}");
            assert!(shown.contains("example.com/hook/***"), "{args:?}: {shown}");
        }
    }
}

#[test]
fn a_replay_line_over_the_cap_is_an_error_naming_file_and_line() {
    let home = TempHome::new();
    let path = home.hermes.join("big.jsonl");
    let mut file = std::fs::File::create(&path).expect("create");
    let event = "{\"event\": \"on_session_start\", \"payload\": {\"session_id\": \"s\"}}\n";
    file.write_all(event.as_bytes()).expect("write");
    let padding = "x".repeat(17 * 1024 * 1024);
    let big =
        format!("{{\"event\": \"on_session_start\", \"payload\": {{\"pad\": \"{padding}\"}}}}\n");
    file.write_all(big.as_bytes()).expect("write");
    file.write_all(event.as_bytes()).expect("write");
    drop(file);
    let run = home.hooks(&["replay", path.to_str().expect("UTF-8")]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(
        run.stderr()
            .contains("big.jsonl:2: the line is over the 16 MiB limit"),
        "{}",
        run.stderr()
    );
    assert!(
        run.stdout().contains("2 events replayed"),
        "{}",
        run.stdout()
    );
}

/// The peak resident memory (`VmHWM`) of process `pid` so far, in KiB.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn hooks_replay_holds_one_event_not_the_session() {
    let home = TempHome::new();
    // 96 events of 1 MiB each: 96 MiB of session.
    let path = home.hermes.join("session.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let padding = "y".repeat(1024 * 1024);
    for index in 0..96 {
        writeln!(
            file,
            "{{\"event\": \"on_session_start\", \"payload\": {{\"session_id\": \"s{index}\", \"pad\": \"{padding}\"}}}}"
        )
        .expect("write");
    }
    drop(file);
    let session_kib = std::fs::metadata(&path).expect("size").len() / 1024;
    let mut replay = command(&home, &["replay", path.to_str().expect("UTF-8"), "--json"]);
    replay
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = replay.spawn().expect("spawn hooks replay");
    let mut peak = None;
    // Sampled until it exits; VmHWM only grows, so the last sample is the peak so far.
    while child.try_wait().expect("try_wait").is_none() {
        if let Some(kib) = peak_kib(child.id()) {
            peak = Some(kib);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status:?}");
    let peak = peak.expect("sampled hooks replay while it ran");
    // Holding the session would take more than the file; one event at a time, a fraction.
    assert!(
        peak < session_kib / 2,
        "peak {peak} KiB for a {session_kib} KiB session"
    );
}

#[test]
fn a_password_in_an_imported_http_hook_url_is_not_listed() {
    let (home, project) = crate::dialects::home_with("[claude]");
    let settings = serde_json::json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "http", "url": "https://example.com/hook/Pa55w0rd!"}
    ]}]}});
    crate::dialects::write(&project, ".claude/settings.json", &settings.to_string());
    let listed = crate::dialects::in_project(&home, &project, &["list"]).ok();
    assert!(!listed.contains("Pa55w0rd"), "{listed}");
    assert!(
        listed.contains("POST https://example.com/hook/***"),
        "{listed}"
    );
}
