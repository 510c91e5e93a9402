//! Executable `handler` files: JSON in on stdin, JSON out on stdout.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, EventName};
use hermes_hooks_gateway::{GatewayOptions, HandlerKind};
use serde_json::{Value, json};

use crate::support::{Home, emit, hang_guarded, sources, values};
use crate::worker::process_alive;

#[tokio::test]
async fn receives_the_event_on_stdin_and_replies_on_stdout() {
    let home = Home::new();
    home.executable_hook(
        "guard",
        "[command:*]",
        "cat > \"$HERMES_HOME/request.json\"\necho '{\"decision\": \"deny\", \"message\": \"no\"}'\n",
    );
    let (gateway, discovery) = home.gateway();
    assert_eq!(discovery.hooks[0].handler, HandlerKind::Executable);
    assert!(gateway.interest(&EventName::parse("command:reset")));
    let replies = emit(
        &gateway,
        "command:reset",
        json!({"command": "reset", "args": ""}),
    )
    .await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "deny", "message": "no"})]
    );
    assert_eq!(sources(&replies), ["gateway:guard"]);
    let request = std::fs::read_to_string(home.path().join("request.json")).unwrap_or_default();
    let request: Value = serde_json::from_str(&request).unwrap_or(Value::Null);
    assert_eq!(
        request,
        json!({"event_type": "command:reset", "context": {"command": "reset", "args": ""}})
    );
}

#[tokio::test]
async fn empty_output_bad_output_and_failures_give_no_reply() {
    let home = Home::new();
    home.executable_hook("a-silent", "[agent:end]", "cat > /dev/null\n");
    home.executable_hook("b-garbage", "[agent:end]", "echo 'not json'\n");
    home.executable_hook(
        "c-fails",
        "[agent:end]",
        "echo '{\"x\": 1}'\necho oops >&2\nexit 3\n",
    );
    home.executable_hook("d-ok", "[agent:end]", "echo '\"fine\"'\n");
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "agent:end", json!({})).await;
    assert_eq!(values(&replies), [json!("fine")]);
    let failure = gateway
        .call_hook("c-fails", "agent:end", &hermes_hooks_core::Payload::new())
        .await
        .and_then(Result::err)
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        failure.contains("oops") && failure.contains('3'),
        "{failure}"
    );
}

#[tokio::test]
async fn a_handler_ignoring_stdin_still_works() {
    let home = Home::new();
    home.executable_hook("quick", "[agent:start]", "echo 42\n");
    let (gateway, _) = home.gateway();
    let big = "x".repeat(1024 * 1024);
    let replies = emit(&gateway, "agent:start", json!({"message": big})).await;
    assert_eq!(values(&replies), [json!(42)]);
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let home = Home::new();
    home.executable_hook(
        "stuck",
        "[agent:start]",
        "sleep 600 &\necho $! > \"$HERMES_HOME/child.pid\"\nwait\n",
    );
    let options = GatewayOptions::default().with_handler_timeout(Duration::from_secs(3));
    let (gateway, _) = home.gateway_with(options);
    // A hang guard: only a call that waited for the 600 s sleep gets there.
    let replies = hang_guarded(
        "emit waited for the hung handler",
        emit(&gateway, "agent:start", json!({})),
    )
    .await;
    assert!(replies.is_empty());
    let pid = std::fs::read_to_string(home.path().join("child.pid")).unwrap_or_default();
    let pid: i64 = pid.trim().parse().unwrap_or(-1);
    assert!(pid > 0, "the handler wrote its child's pid");
    assert!(!process_alive(pid), "the grandchild outlived the timeout");
}

#[tokio::test]
async fn shutdown_kills_a_running_handler_and_its_children() {
    let home = Home::new();
    home.executable_hook(
        "stuck",
        "[agent:start]",
        "sleep 120 &\necho $! > \"$HERMES_HOME/child.pid\"\nwait\n",
    );
    let (gateway, _) = home.gateway();
    let pid_file = home.path().join("child.pid");
    let event = hermes_hooks_core::Event::from_json("agent:start", json!({}));
    assert!(
        gateway.dispatch(&event).await.is_empty(),
        "emit returns at once"
    );
    let started = crate::support::wait_for(|| {
        std::fs::read_to_string(&pid_file).is_ok_and(|t| t.ends_with('\n'))
    });
    assert!(started, "the handler should have started its child");
    gateway.shutdown();
    let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
    let pid: i64 = pid.trim().parse().unwrap_or(-1);
    assert!(pid > 0);
    assert!(!process_alive(pid), "the grandchild outlived the shutdown");
}
