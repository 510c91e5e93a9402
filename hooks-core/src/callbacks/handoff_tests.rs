//! The worker hand-off when a caller stops waiting without timing out: its
//! dispatch future is dropped while the callback runs, or after the result
//! arrived but before it was read.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::Context;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use futures::task::noop_waker_ref;
use serde_json::json;

use super::Callbacks;
use crate::catalog::HookEvent;
use crate::config::PluginSettings;
use crate::dispatch::Dispatcher;
use crate::event::Event;

/// Callbacks with one `pre_tool_call` guard that sleeps `work`, records its
/// thread and never objects.
fn sleepy_guard(work: Duration) -> (Arc<Callbacks>, Arc<Mutex<Vec<ThreadId>>>) {
    let callbacks = Callbacks::new(PluginSettings {
        callback_timeout: Some(Duration::from_secs(10)),
        stream_reasoning_deltas: false,
    });
    let threads = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&threads);
    callbacks.register("pre_tool_call", "sleepy", move |_: &Event| {
        std::thread::sleep(work);
        if let Ok(mut seen) = seen.lock() {
            seen.push(std::thread::current().id());
        }
        Ok(None)
    });
    (callbacks, threads)
}

fn call(id: &str) -> Event {
    Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "tool_call_id": id}),
    )
}

/// Polls `future` once: it must still be waiting for its worker.
fn poll_once_pending(future: &mut (impl Future + Unpin)) {
    let mut cx = Context::from_waker(noop_waker_ref());
    assert!(std::pin::Pin::new(future).poll(&mut cx).is_pending());
}

fn recorded(threads: &Mutex<Vec<ThreadId>>) -> Vec<ThreadId> {
    threads.lock().map(|seen| seen.clone()).unwrap_or_default()
}

/// Dispatches `event` until it is no longer skipped as still running.
fn runs_again_within(callbacks: &Callbacks, event: &Event, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if block_on(callbacks.dispatch(event)).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn a_wait_dropped_mid_call_keeps_the_gate_until_the_worker_finishes() {
    let (callbacks, threads) = sleepy_guard(Duration::from_millis(300));
    let event = call("same");
    let mut first = Box::pin(callbacks.dispatch(&event));
    poll_once_pending(&mut first);
    drop(first);
    // Still running on its worker: the same call is skipped, fail-closed.
    let skipped = block_on(callbacks.dispatch(&event));
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].value["action"], "block");
    // The worker cleans up after the dropped caller; nothing counts as abandoned.
    assert!(runs_again_within(
        &callbacks,
        &event,
        Duration::from_secs(5)
    ));
    assert_eq!(recorded(&threads).len(), 2);
    assert_eq!(callbacks.abandoned_workers(), 0);
}

#[test]
fn a_result_nobody_read_still_frees_the_gate_and_the_worker() {
    let (callbacks, threads) = sleepy_guard(Duration::from_millis(20));
    let event = call("unread");
    let mut first = Box::pin(callbacks.dispatch(&event));
    poll_once_pending(&mut first);
    let deadline = Instant::now() + Duration::from_secs(5);
    while recorded(&threads).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Give the worker ample time to leave its result after recording the thread.
    std::thread::sleep(Duration::from_millis(200));
    drop(first);
    assert!(block_on(callbacks.dispatch(&event)).is_empty());
    let seen = recorded(&threads);
    assert_eq!(seen.len(), 2);
    // The dropped caller returned the worker to the pool: it ran the second call.
    assert_eq!(seen[0], seen[1]);
    assert_eq!(callbacks.abandoned_workers(), 0);
}
