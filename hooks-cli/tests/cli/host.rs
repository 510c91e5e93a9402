//! The library's one call, as a host makes it: `Host::load` on a home, the bus
//! it returns, its warnings, and `shutdown`.

use std::time::Duration;

use hermes_hooks::{Host, HostOptions};
use hermes_hooks_core::payloads::PreToolCall;
use hermes_hooks_core::{Event, ToolGate};
use serde_json::json;

use crate::support::TempHome;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn one_call_registers_the_homes_hooks_and_the_hosts_closures() {
    let home = TempHome::new();
    home.only_hook(
        "pre_tool_call",
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"no\"}'\n",
    );
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(&home.hermes).accept_hooks(true))
            .await
            .expect("loads");
        assert!(
            host.describe().contains("1 shell hook(s)"),
            "{}",
            host.describe()
        );
        let shell = host.mechanisms().iter().find(|m| m.mechanism == "shell");
        assert_eq!(shell.map(|m| m.registered), Some(1));
        let event: Event = PreToolCall::default().with_tool_name("terminal").into();
        assert_eq!(host.hooks().emit(&event).await.block_message(), Some("no"));
        // The host's own closure runs in the same bus.
        host.callbacks().register("pre_tool_call", "host", |_| {
            Ok(Some(json!({"action": "modify", "args": {"x": 1}})))
        });
        let other: Event = PreToolCall::default().with_tool_name("read_file").into();
        assert!(matches!(
            host.hooks().emit(&other).await.tool_gate(),
            ToolGate::Block { .. }
        ));
        let report = host.shutdown(Duration::from_secs(5)).await;
        assert_eq!(report.abandoned, 0);
        assert!(report.observers_drained);
    });
}

#[test]
fn a_home_that_does_not_exist_loads_empty_with_a_warning() {
    let home = TempHome::new();
    let missing = home.user_home.join("nowhere");
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(&missing))
            .await
            .expect("loads");
        assert!(
            host.warnings()
                .iter()
                .any(|w| w.to_string().contains("does not exist")),
            "{:?}",
            host.warnings()
        );
        assert!(host.mechanisms().iter().all(|m| m.registered == 0));
    });
}

#[test]
fn outside_a_runtime_the_host_loads_on_a_runtime_of_its_own() {
    let home = TempHome::new();
    home.only_hook(
        "pre_tool_call",
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"no\"}'\n",
    );
    let options = || HostOptions::new().home(&home.hermes).accept_hooks(true);
    let event: Event = PreToolCall::default().with_tool_name("terminal").into();
    // A plain `fn main`: no tokio anywhere; the host's own runtime runs the hook.
    let host = Host::load_blocking(options()).expect("loads without a runtime");
    assert_eq!(
        host.block_on(host.hooks().emit(&event)).block_message(),
        Some("no")
    );
    drop(host);
    // The async load, polled by an executor that is not tokio, loads too.
    let host = futures::executor::block_on(Host::load(options())).expect("loads");
    assert_eq!(
        host.block_on(host.hooks().emit(&event)).block_message(),
        Some("no")
    );
    let report = futures::executor::block_on(host.shutdown(Duration::from_secs(5)));
    assert!(
        report.runtime.is_some_and(|stopped| stopped.is_clean()),
        "{report:?}"
    );
}

#[test]
fn an_unreadable_config_is_an_error_naming_the_file() {
    let home = TempHome::new();
    home.config("hooks: [unclosed\n");
    runtime().block_on(async {
        let error = Host::load(HostOptions::new().home(&home.hermes))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("config.yaml"), "{error}");
    });
}

#[test]
fn warnings_are_escaped_for_display() {
    let home = TempHome::new();
    home.config("hooks:\n  \"pre_tool_cal\\e[2K\":\n    - command: /bin/true\n");
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(&home.hermes))
            .await
            .expect("loads");
        assert!(
            host.warnings()
                .iter()
                .any(|w| w.to_string().contains("pre_tool_cal\\e[2K")),
            "{:?}",
            host.warnings()
        );
        assert!(
            host.warnings()
                .iter()
                .all(|w| !w.to_string().contains('\u{1b}')),
            "{:?}",
            host.warnings()
        );
    });
}

#[test]
fn the_host_drains_its_spool_in_the_background_and_shutdown_reports_what_remained() {
    use std::io::{Read, Write};
    // One receiver that answers 200, one port where nothing listens.
    let live = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let live_port = live.local_addr().expect("addr").port();
    let dead_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    std::thread::spawn(move || {
        for mut stream in live.incoming().flatten() {
            let mut buffer = [0u8; 65536];
            let _ = stream.read(&mut buffer);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: live\n      url: http://127.0.0.1:{live_port}/x\n      \
         events: [on_session_end]\n      delivery: durable\n    - name: down\n      \
         url: http://127.0.0.1:{dead_port}/x\n      events: [on_session_end]\n      delivery: durable\n      timeout: 1\n"
    ));
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(&home.hermes))
            .await
            .expect("loads");
        let event = Event::from_json(
            hermes_hooks_core::HookEvent::OnSessionEnd,
            json!({"session_id": "s"}),
        );
        host.hooks().emit(&event).await;
        let spool = host
            .outbound()
            .and_then(|o| o.spool())
            .expect("a spool")
            .clone();
        // The live target's row leaves in the background; the dead one's stays.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while spool.counts().expect("counts").0 != 1 {
            assert!(std::time::Instant::now() < deadline, "{:?}", spool.counts());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let report = host.shutdown(Duration::from_secs(5)).await;
        let left = report.spool.expect("spool report");
        assert_eq!((left.pending, left.dead), (1, 0));
        let kinds: Vec<&str> = report
            .deliveries
            .iter()
            .map(|d| d.outcome.as_str())
            .collect();
        assert_eq!(kinds, ["spooled", "spooled"]);
    });
}
