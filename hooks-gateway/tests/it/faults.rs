//! The fault suite for gateway children under the process supervisor: each
//! kind of child (an executable handler, a Python worker) hangs, crashes,
//! writes garbage, writes huge output, and forks a child that leaves its
//! session and outlives its parent. Each time the host gets its answer (or
//! none) within the bound, nothing the child started survives, and the hook
//! works again on the next event.

use std::time::Duration;

use hermes_hooks_core::Payload;
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions, HandlerError};
use serde_json::{Value, json};

use crate::support::{Home, TEST_TIMEOUT, hang_guarded, wait_for};
use crate::worker::process_alive;

const FAULT_TIMEOUT: Duration = Duration::from_secs(5);

fn gateway(home: &Home) -> GatewayHooks {
    let options = GatewayOptions::default()
        .with_handler_timeout(FAULT_TIMEOUT)
        .with_command_timeout(TEST_TIMEOUT);
    home.gateway_with(options).0
}

async fn call(gateway: &GatewayHooks, hook: &str, fault: &str) -> Result<Value, HandlerError> {
    let mut context = Payload::new();
    context.insert("fault".into(), json!(fault));
    // A hang guard: a hang ends in `HandlerError::Timeout` (checked by the
    // caller), which a call that waited for the 600 s sleep would not get.
    hang_guarded(
        &format!("{hook}/{fault} waited for its child"),
        gateway.call_hook(hook, "agent:start", &context),
    )
    .await
    .unwrap_or_else(|| panic!("no hook {hook}"))
}

/// Calls `hook` with `fault` and asserts it failed with a message containing `expected`.
async fn assert_fails_with(gateway: &GatewayHooks, hook: &str, fault: &str, expected: &str) {
    let error = call(gateway, hook, fault)
        .await
        .err()
        .map(|e| e.to_string());
    assert!(
        error.as_deref().is_some_and(|e| e.contains(expected)),
        "{hook}/{fault}: {error:?}"
    );
}

fn pid_in(home: &Home, file: &str) -> i64 {
    let path = home.path().join(file);
    assert!(wait_for(
        || std::fs::read_to_string(&path).is_ok_and(|t| t.ends_with('\n'))
    ));
    std::fs::read_to_string(&path)
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(-1)
}

const EXECUTABLE: &str = r#"fault=$(cat | sed -n 's/.*"fault":"\([a-z-]*\)".*/\1/p')
case "$fault" in
  hang) sleep 600 & echo $! > "$HERMES_HOME/exe-hang.pid"; wait ;;
  crash) kill -SEGV $$ ;;
  garbage) printf '\001\002 not json \377\n' ;;
  huge) head -c 20000000 /dev/zero | tr '\0' x ;;
  fork-and-exit) setsid sh -c 'echo $$ > "$HERMES_HOME/exe-fork.pid"; exec sleep 120' &
     sleep 0.2; echo '"forked"' ;;
  *) echo '"fine"' ;;
esac
"#;

#[tokio::test]
async fn executable_handlers_under_faults() {
    let home = Home::new();
    home.executable_hook("exe", "[agent:start]", EXECUTABLE);
    let gateway = gateway(&home);

    let hang = call(&gateway, "exe", "hang").await;
    assert!(
        matches!(hang, Err(HandlerError::Timeout { .. })),
        "{hang:?}"
    );
    assert!(!process_alive(pid_in(&home, "exe-hang.pid")));

    assert_fails_with(&gateway, "exe", "crash", "signal 11").await;
    assert_fails_with(&gateway, "exe", "garbage", "not JSON").await;
    assert_fails_with(&gateway, "exe", "huge", "larger than").await;

    let forked = call(&gateway, "exe", "fork-and-exit").await;
    assert_eq!(forked.ok(), Some(json!("forked")));
    assert!(
        !process_alive(pid_in(&home, "exe-fork.pid")),
        "the setsid child was killed"
    );

    assert_eq!(
        call(&gateway, "exe", "none").await.ok(),
        Some(json!("fine"))
    );
}

const PYTHON: &str = r#"
import os, signal, sys, time
def handle(event_type, context):
    fault = context.get("fault")
    home = os.environ["HERMES_HOME"]
    def note(name, pid):
        with open(os.path.join(home, name), "w") as f:
            f.write(f"{pid}\n")
    if fault == "hang":
        note("py-hang.pid", os.getpid())
        time.sleep(600)
    if fault == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if fault == "garbage":
        sys.stdout.write("\x00\x01 not json\n")
        os.write(2, b"\xff\xfe garbage on stderr\n")
        return {1, 2}
    if fault == "huge":
        sys.stderr.write("e" * 5_000_000 + "\n")
        return "x" * 20_000_000
    if fault == "fork-and-exit":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                note("py-fork.pid", os.getpid())
                time.sleep(120)
            os._exit(0)
        return "forked"
    if fault == "die":
        os._exit(3)
    return {"pid": os.getpid()}
"#;

#[tokio::test]
async fn python_workers_under_faults() {
    let home = Home::new();
    home.python_hook("py", "[agent:start]", PYTHON);
    let gateway = gateway(&home);
    let worker_pid = |result: Result<Value, HandlerError>| {
        result
            .ok()
            .and_then(|v| v.get("pid").and_then(Value::as_i64))
            .unwrap_or(-1)
    };

    let first = worker_pid(call(&gateway, "py", "none").await);
    let hang = call(&gateway, "py", "hang").await;
    assert!(
        matches!(hang, Err(HandlerError::Timeout { .. })),
        "{hang:?}"
    );
    assert!(!process_alive(first), "the hung worker was killed");

    let second = worker_pid(call(&gateway, "py", "none").await);
    assert!(second > 0 && second != first, "a new worker");
    let crash = call(&gateway, "py", "crash").await;
    assert!(
        matches!(crash, Err(HandlerError::Protocol { .. })),
        "{crash:?}"
    );

    let garbage = call(&gateway, "py", "garbage").await;
    assert_eq!(
        garbage.ok(),
        Some(json!("{1, 2}")),
        "an unserialisable result travels as text"
    );

    assert_fails_with(&gateway, "py", "huge", "larger than").await;

    let worker = worker_pid(call(&gateway, "py", "none").await);
    assert_eq!(
        call(&gateway, "py", "fork-and-exit").await.ok(),
        Some(json!("forked"))
    );
    let grandchild = pid_in(&home, "py-fork.pid");
    assert!(crate::worker::running(grandchild));
    // The worker dies; its replacement is started and the old tree is killed.
    assert!(call(&gateway, "py", "die").await.is_err());
    let replacement = worker_pid(call(&gateway, "py", "none").await);
    assert!(replacement > 0 && replacement != worker);
    assert!(
        !process_alive(grandchild),
        "the dead worker's grandchild was killed"
    );
}

const FD_GAMES: &str = r#"
import os
def handle(event_type, context):
    fault = context.get("fault")
    if fault == "close-low":
        for fd in range(3, 20):
            try:
                os.close(fd)
            except OSError:
                pass
    if fault == "close-all":
        os.closerange(3, 65536)
    return {"pid": os.getpid()}
"#;

/// A handler that closes low fds reaches nothing of the protocol; one that
/// closes every fd breaks its worker, which is replaced at the next event.
#[tokio::test]
async fn python_workers_survive_fd_games() {
    let home = Home::new();
    home.python_hook("fds", "[agent:start]", FD_GAMES);
    let gateway = gateway(&home);
    let pid = |result: Result<Value, HandlerError>| {
        result
            .ok()
            .and_then(|v| v.get("pid").and_then(Value::as_i64))
            .unwrap_or(-1)
    };
    let first = pid(call(&gateway, "fds", "close-low").await);
    assert!(first > 0);
    assert_eq!(
        pid(call(&gateway, "fds", "none").await),
        first,
        "same worker"
    );
    assert!(call(&gateway, "fds", "close-all").await.is_err());
    let replacement = pid(call(&gateway, "fds", "none").await);
    assert!(replacement > 0 && replacement != first, "a new worker");
}
