//! Gateway hooks on a runtime they are given (a host's): the lanes run there,
//! stopping that runtime kills a hung handler's tree, and stopping the gateway
//! from one of the runtime's own tasks still kills it and does not deadlock.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, Event};
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
use hermes_hooks_process::runtime::{Background, Stopped};
use serde_json::json;

use crate::support::{HANG_GUARD, Home, TEST_TIMEOUT, wait_for};
use crate::worker::process_alive;

const HANG: &str = "sleep 900 &\necho $! > \"$HERMES_HOME/child.pid\"\nwait\n";

/// Past [`HANG_GUARD`]: a stop that waited for a bound (or for the 900 s
/// hang) fails the guard; one that returned killed the handler.
const NEVER: Duration = Duration::from_secs(900);

/// A home with one executable hook that hangs on `agent:start`, its gateway on `runtime`.
fn hung_gateway(home: &Home, runtime: &Background) -> GatewayHooks {
    home.executable_hook("stuck", "[agent:start]", HANG);
    let options = GatewayOptions::default()
        .with_handler_timeout(NEVER)
        .with_command_timeout(NEVER)
        .with_runtime(runtime.clone());
    home.gateway_with(options).0
}

/// Emits `agent:start` and waits for the handler's child pid.
async fn start_hang(home: &Home, gateway: &GatewayHooks) -> i64 {
    let event = Event::from_json("agent:start", json!({}));
    assert!(
        gateway.dispatch(&event).await.is_empty(),
        "emit returns at once"
    );
    let pid_file = home.path().join("child.pid");
    assert!(wait_for(|| {
        std::fs::read_to_string(&pid_file).is_ok_and(|t| t.ends_with('\n'))
    }));
    let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
    let pid = pid.trim().parse().unwrap_or(-1);
    assert!(pid > 0 && crate::worker::running(pid));
    pid
}

#[tokio::test]
async fn the_lanes_run_on_the_given_runtime_and_die_with_it() {
    let runtime = Background::with_threads("gw-given", 2).expect("runtime");
    let home = Home::new();
    let gateway = hung_gateway(&home, &runtime);
    let pid = start_hang(&home, &gateway).await;
    // Stopping the host's runtime drops the lane task that runs the handler.
    assert_eq!(runtime.shutdown(TEST_TIMEOUT), Stopped::Clean);
    assert!(
        !process_alive(pid),
        "the handler's child outlived its runtime"
    );
    // The gateway is stopped with it: dropping it waits for nothing (a hang
    // guard on another thread; the handler's bounds are past it).
    let (done, dropped) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(gateway);
        let _ = done.send(());
    });
    dropped
        .recv_timeout(HANG_GUARD)
        .expect("dropping the stopped gateway returned");
}

#[test]
fn stopping_the_gateway_from_a_task_of_its_runtime_kills_the_handler() {
    let runtime = Background::with_threads("gw-inside", 1).expect("runtime");
    let home = Home::new();
    let gateway = hung_gateway(&home, &runtime);
    let pid = runtime.handle().block_on(start_hang(&home, &gateway));
    let (done, stopped) = std::sync::mpsc::channel();
    // On the runtime's only worker: the stop must let the aborted lane be dropped.
    runtime.handle().spawn(async move {
        gateway.shutdown();
        let _ = done.send(());
    });
    // A hang guard: the handler's bounds and its sleep are past it, so only
    // a stop that killed the handler (rather than waited) returns in time.
    stopped.recv_timeout(HANG_GUARD).expect("the stop returned");
    assert!(!process_alive(pid), "the handler's child outlived the stop");
    assert_eq!(runtime.shutdown(TEST_TIMEOUT), Stopped::Clean);
}
