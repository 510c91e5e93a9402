//! The library's one call, as a host makes it: `Host::load` on a home, the bus
//! it returns, its warnings, and `shutdown`.

use std::time::Duration;

use hermes_hooks_cli::{Host, HostError, HostOptions};
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
        let host =
            Host::load(HostOptions::new().home(&home.hermes).accept_hooks(true)).expect("loads");
        assert!(
            host.describe().contains("1 shell hook(s)"),
            "{}",
            host.describe()
        );
        let shell = host.mechanisms().iter().find(|m| m.mechanism == "shell");
        assert_eq!(shell.map(|m| m.registered), Some(1));
        let event: Event = PreToolCall {
            tool_name: "terminal".into(),
            ..Default::default()
        }
        .into();
        assert_eq!(
            host.hooks().emit(&event).await.tool_gate(),
            ToolGate::Block {
                message: "no".to_owned()
            }
        );
        // The host's own closure runs in the same bus.
        host.callbacks().register("pre_tool_call", "host", |_| {
            Ok(Some(json!({"action": "modify", "args": {"x": 1}})))
        });
        let other: Event = PreToolCall {
            tool_name: "read_file".into(),
            ..Default::default()
        }
        .into();
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
        let host = Host::load(HostOptions::new().home(&missing)).expect("loads");
        assert!(
            host.warnings().iter().any(|w| w.contains("does not exist")),
            "{:?}",
            host.warnings()
        );
        assert!(host.mechanisms().iter().all(|m| m.registered == 0));
    });
}

#[test]
fn outside_a_runtime_the_host_says_why_it_cannot_load() {
    let home = TempHome::new();
    let error = Host::load(HostOptions::new().home(&home.hermes)).unwrap_err();
    assert!(matches!(error, HostError::NoRuntime), "{error}");
}

#[test]
fn an_unreadable_config_is_an_error_naming_the_file() {
    let home = TempHome::new();
    home.config("hooks: [unclosed\n");
    runtime().block_on(async {
        let error = Host::load(HostOptions::new().home(&home.hermes)).unwrap_err();
        assert!(error.to_string().contains("config.yaml"), "{error}");
    });
}

#[test]
fn warnings_are_escaped_for_display() {
    let home = TempHome::new();
    home.config("hooks:\n  \"pre_tool_cal\\e[2K\":\n    - command: /bin/true\n");
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(&home.hermes)).expect("loads");
        assert!(
            host.warnings()
                .iter()
                .any(|w| w.contains("pre_tool_cal\\e[2K")),
            "{:?}",
            host.warnings()
        );
        assert!(
            host.warnings().iter().all(|w| !w.contains('\u{1b}')),
            "{:?}",
            host.warnings()
        );
    });
}
