//! The persistent Python worker: state across events, protocol hygiene,
//! restarts after crashes and timeouts, interpreter selection.

use std::time::Duration;

use hermes_hooks_core::Payload;
use hermes_hooks_gateway::{GatewayOptions, HandlerError};
use serde_json::{Value, json};

use crate::support::{Home, emit, hang_guarded, values};

const COUNTER: &str = r#"
import os, sys
calls = 0
def handle(event_type, context):
    global calls
    calls += 1
    action = context.get("action")
    if action == "exit":
        os._exit(3)
    if action == "sys.exit":
        sys.exit(1)
    if action == "sleep":
        import time
        time.sleep(600)
    if action == "nap":
        import time
        time.sleep(3)
    return {"calls": calls, "pid": os.getpid(), "tag": context.get("tag")}
"#;

fn payload(value: Value) -> Payload {
    match value {
        Value::Object(map) => map,
        _ => Payload::new(),
    }
}

fn calls_and_pid(replies: &[hermes_hooks_core::Reply]) -> (i64, i64) {
    let value = values(replies).pop().unwrap_or(Value::Null);
    let field = |key: &str| value.get(key).and_then(Value::as_i64).unwrap_or(-1);
    (field("calls"), field("pid"))
}

#[tokio::test]
async fn module_state_persists_between_events() {
    let home = Home::new();
    home.python_hook("counter", "[agent:step]", COUNTER);
    let (gateway, _) = home.gateway();
    let (first, pid) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);
    let (second, same_pid) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);
    assert_eq!((first, second), (1, 2));
    assert_eq!(pid, same_pid, "one worker serves both events");
}

#[tokio::test]
async fn handler_output_does_not_break_the_protocol() {
    let home = Home::new();
    home.python_hook(
        "noisy",
        "[agent:start]",
        r#"
import os, subprocess, sys
print("printed at import")
def handle(event_type, context):
    print("hello from handle", {"not": "protocol"})
    print("more", flush=True)
    sys.stdout.write("{\"ok\": false}\n")
    os.write(1, b"raw fd 1 write\n")
    subprocess.run(["echo", "child process output"])
    stolen = sys.stdin.read()
    return {"stolen": stolen, "event": event_type}
"#,
    );
    let (gateway, _) = home.gateway();
    for _ in 0..2 {
        let replies = emit(&gateway, "agent:start", json!({"x": 1})).await;
        assert_eq!(
            values(&replies),
            [json!({"stolen": "", "event": "agent:start"})]
        );
    }
}

#[tokio::test]
async fn a_dead_worker_is_restarted_on_the_next_event() {
    let home = Home::new();
    home.python_hook("counter", "[agent:step]", COUNTER);
    let (gateway, _) = home.gateway();
    let (_, first_pid) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);
    let crashed = gateway
        .call_hook("counter", "agent:step", &payload(json!({"action": "exit"})))
        .await;
    assert!(
        matches!(crashed, Some(Err(HandlerError::Protocol { .. }))),
        "{crashed:?}"
    );
    let (calls, pid) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);
    assert_eq!(calls, 1, "fresh module state in the new worker");
    assert_ne!(pid, first_pid);
}

#[tokio::test]
async fn sys_exit_in_a_handler_is_an_error_not_a_crash() {
    let home = Home::new();
    home.python_hook("counter", "[agent:step]", COUNTER);
    let (gateway, _) = home.gateway();
    assert!(
        emit(&gateway, "agent:step", json!({"action": "sys.exit"}))
            .await
            .is_empty()
    );
    let (calls, _) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);
    assert_eq!(calls, 2, "same worker, state kept");
}

#[tokio::test]
async fn a_stuck_handler_is_killed_at_the_timeout() {
    let home = Home::new();
    home.python_hook("counter", "[agent:step]", COUNTER);
    home.python_hook(
        "later",
        "[agent:step]",
        "def handle(e, c):\n    return 'still ran'\n",
    );
    let timeout = Duration::from_secs(5);
    let (gateway, _) = home.gateway_with(GatewayOptions::default().with_handler_timeout(timeout));
    let (_, first_pid) = calls_and_pid(&emit(&gateway, "agent:step", json!({})).await);

    // A hang guard: only a call that waited for the handler's 600 s sleep gets there.
    let replies = hang_guarded(
        "the stuck handler was waited for",
        emit(&gateway, "agent:step", json!({"action": "sleep"})),
    )
    .await;
    assert_eq!(values(&replies), [json!("still ran")], "the chain goes on");
    assert!(!process_alive(first_pid), "the stuck worker was killed");

    let replies = emit(&gateway, "agent:step", json!({})).await;
    let value = values(&replies).first().cloned().unwrap_or(Value::Null);
    assert_eq!(value.get("calls"), Some(&json!(1)), "a new worker: {value}");
}

#[tokio::test]
async fn a_missing_interpreter_is_an_error_not_a_panic() {
    let home = Home::new();
    home.python_hook("h", "[agent:start]", "def handle(e, c):\n    return 1\n");
    let options = GatewayOptions::default().with_python("/nonexistent/python3");
    let (gateway, _) = home.gateway_with(options);
    assert!(emit(&gateway, "agent:start", json!({})).await.is_empty());
    let result = gateway.call_hook("h", "agent:start", &Payload::new()).await;
    let message = result
        .and_then(Result::err)
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("/nonexistent/python3"), "{message}");
}

#[tokio::test]
async fn handlers_see_the_hermes_home() {
    let home = Home::new();
    home.python_hook(
        "h",
        "[gateway:startup]",
        "import os\ndef handle(e, c):\n    return os.environ['HERMES_HOME']\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(
        &gateway,
        "gateway:startup",
        json!({"platforms": ["telegram"]}),
    )
    .await;
    assert_eq!(values(&replies), [json!(home.path().to_string_lossy())]);
}

#[test]
fn python_option_wins_over_the_default() {
    let options = GatewayOptions::default().with_python("/opt/py/bin/python3.12");
    let python = options.python_interpreter();
    assert_eq!(
        python.program,
        std::path::Path::new("/opt/py/bin/python3.12")
    );
    assert!(python.to_string().contains("set by the host"), "{python}");
}

/// Whether `pid` still names a live (not zombie) process after polling a
/// while for it to go (5 s): for asserting that something killed it. A
/// process expected alive is [`running`]'s to check (this one would wait
/// the whole 5 s for it).
pub fn process_alive(pid: i64) -> bool {
    for _ in 0..50 {
        if !running(pid) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}

/// Whether `pid` names a live (not zombie) process now.
pub fn running(pid: i64) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Field 3 is the state; `Z` is a zombie waiting to be reaped (already dead).
    let state = status
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().next());
    !matches!(state, None | Some("Z") | Some("X"))
}

#[tokio::test]
async fn background_threads_keep_running_between_events() {
    // The BOOT.md tutorial's shape: handle() returns at once and a daemon thread
    // does the work, which needs the worker to outlive the call.
    let home = Home::new();
    home.python_hook(
        "boot-md",
        "[gateway:startup]",
        r#"
import os, threading, time
def _work(path):
    time.sleep(0.2)
    with open(path, "w") as f:
        f.write("done")
async def handle(event_type, context):
    path = os.path.join(os.environ["HERMES_HOME"], "boot.out")
    threading.Thread(target=_work, args=(path,), daemon=True).start()
"#,
    );
    let (gateway, _) = home.gateway();
    assert!(
        emit(&gateway, "gateway:startup", json!({"platforms": []}))
            .await
            .is_empty()
    );
    let out = home.path().join("boot.out");
    let mut waited = Duration::ZERO;
    while !out.exists() && waited < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    assert_eq!(std::fs::read_to_string(out).ok().as_deref(), Some("done"));
}

#[tokio::test]
async fn a_cancelled_call_does_not_leave_a_stale_reply_behind() {
    let home = Home::new();
    home.python_hook("counter", "[agent:step]", COUNTER);
    let (gateway, _) = home.gateway();
    let warm = emit(&gateway, "agent:step", json!({"tag": "warm"})).await;
    assert_eq!(values(&warm)[0].get("tag"), Some(&json!("warm")));
    // The host gives up on this call (drops the future) while the handler naps.
    let cancelled = tokio::time::timeout(
        Duration::from_millis(500),
        emit(
            &gateway,
            "agent:step",
            json!({"action": "nap", "tag": "cancelled"}),
        ),
    )
    .await;
    assert!(cancelled.is_err(), "the nap outlasted the host's patience");
    let replies = emit(&gateway, "agent:step", json!({"tag": "next"})).await;
    assert_eq!(values(&replies)[0].get("tag"), Some(&json!("next")));
}
