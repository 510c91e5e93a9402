//! One hand-off per event: the bounded callbacks of one event go to a worker
//! together, the caller wakes once; after a timeout the rest run in order on
//! another worker (issue 31 item 2).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake};
use std::thread::{Thread, ThreadId};
use std::time::Duration;

use futures::executor::block_on;
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::runs::RunStatus;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use serde_json::json;

use super::support::{Gate, eventually, settings, tool_event};

/// A waker that counts its wakes and unparks the polling thread.
struct CountingWaker {
    wakes: AtomicUsize,
    poller: Thread,
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.poller.unpark();
    }
}

/// Where and in which order callbacks ran: (name, thread).
type Trail = Arc<Mutex<Vec<(&'static str, ThreadId)>>>;

fn trail(trail: &Trail) -> Vec<(&'static str, ThreadId)> {
    trail.lock().map(|seen| seen.clone()).unwrap_or_default()
}

/// Registers a callback on `event` that works for `work`, notes itself in
/// `trail` and replies its name.
fn worker(callbacks: &Callbacks, event: &str, name: &'static str, work: Duration, seen: &Trail) {
    let seen = Arc::clone(seen);
    callbacks.register(event, name, move |_: &Event| {
        std::thread::sleep(work);
        if let Ok(mut seen) = seen.lock() {
            seen.push((name, std::thread::current().id()));
        }
        Ok(Some(json!(name)))
    });
}

#[test]
fn the_caller_wakes_once_for_all_bounded_callbacks_of_one_event() {
    let callbacks = Callbacks::new(settings(10_000));
    let seen = Trail::default();
    let names = ["first", "second", "third", "fourth", "fifth"];
    for name in names {
        // Longer than the caller's spin: it registers its waker and waits.
        worker(
            &callbacks,
            "post_tool_call",
            name,
            Duration::from_millis(5),
            &seen,
        );
    }
    let event = tool_event(HookEvent::PostToolCall, "once");
    let waker = Arc::new(CountingWaker {
        wakes: AtomicUsize::new(0),
        poller: std::thread::current(),
    });
    let task_waker = std::task::Waker::from(Arc::clone(&waker));
    let mut cx = Context::from_waker(&task_waker);
    let mut future = callbacks.dispatch(&event);
    let replies = loop {
        match Pin::new(&mut future).poll(&mut cx) {
            Poll::Ready(replies) => break replies,
            Poll::Pending => std::thread::park_timeout(Duration::from_millis(100)),
        }
    };
    let values: Vec<_> = replies.iter().map(|reply| reply.value.clone()).collect();
    assert_eq!(values, names.map(|name| json!(name)).to_vec());
    // Before: one wake per callback (each handed over and awaited in turn).
    // None when the caller's spin (preempted past the callbacks' work) saw
    // them done.
    let wakes = waker.wakes.load(Ordering::SeqCst);
    assert!(wakes <= 1, "{wakes} wakes");
    let ran = trail(&seen);
    assert_eq!(ran.iter().map(|(name, _)| *name).collect::<Vec<_>>(), names);
    assert!(ran.iter().all(|(_, thread)| *thread == ran[0].1), "{ran:?}");
}

#[test]
fn callbacks_after_a_timed_out_one_run_in_order_on_another_worker() {
    let callbacks = Callbacks::new(settings(200));
    let seen = Trail::default();
    let gate = Gate::default();
    worker(&callbacks, "pre_tool_call", "before", Duration::ZERO, &seen);
    let (hung_seen, hung_gate) = (Arc::clone(&seen), gate.clone());
    callbacks.register("pre_tool_call", "hung", move |_: &Event| {
        if let Ok(mut seen) = hung_seen.lock() {
            seen.push(("hung", std::thread::current().id()));
        }
        hung_gate.wait();
        Ok(None)
    });
    worker(&callbacks, "pre_tool_call", "after", Duration::ZERO, &seen);
    worker(&callbacks, "pre_tool_call", "last", Duration::ZERO, &seen);
    let event = tool_event(HookEvent::PreToolCall, "split");
    let mut runs = Vec::new();
    let replies = block_on(callbacks.dispatch_recorded(&event, &mut runs));
    let values: Vec<_> = replies.iter().map(|reply| reply.value.clone()).collect();
    assert_eq!(values.len(), 4, "{values:?}");
    assert_eq!(values[0], json!("before"));
    assert_eq!(values[1]["action"], json!("block"));
    assert_eq!(values[2..], [json!("after"), json!("last")]);
    let statuses: Vec<_> = runs.iter().map(|run| run.status.clone()).collect();
    assert_eq!(statuses[1], RunStatus::TimedOut, "{statuses:?}");
    let ran = trail(&seen);
    let names: Vec<_> = ran.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["before", "hung", "after", "last"]);
    // The rest moved to another worker, in order, on one thread.
    assert_ne!(ran[2].1, ran[1].1);
    assert_eq!(ran[3].1, ran[2].1);
    gate.open();
}

#[test]
fn a_dropped_wait_skips_the_calls_not_started_and_frees_every_gate() {
    let callbacks = Callbacks::new(settings(10_000));
    let seen = Trail::default();
    let gate = Gate::default();
    let started = Arc::new(AtomicUsize::new(0));
    let (slow_gate, slow_seen, slow_started) = (gate.clone(), Arc::clone(&seen), started.clone());
    callbacks.register("pre_tool_call", "slow", move |_: &Event| {
        slow_started.fetch_add(1, Ordering::SeqCst);
        slow_gate.wait();
        if let Ok(mut seen) = slow_seen.lock() {
            seen.push(("slow", std::thread::current().id()));
        }
        Ok(None)
    });
    worker(&callbacks, "pre_tool_call", "later", Duration::ZERO, &seen);
    let event = tool_event(HookEvent::PreToolCall, "dropped");
    let mut future = callbacks.dispatch(&event);
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
    // Dropped while "slow" runs (a batch dropped before its worker took it
    // up runs nothing at all).
    assert!(eventually(Duration::from_secs(10), || {
        started.load(Ordering::SeqCst) == 1
    }));
    drop(future);
    gate.open();
    assert!(eventually(Duration::from_secs(10), || trail(&seen).len() == 1));
    // The same call runs again, every callback (nothing left in the gates,
    // nothing suppressed), once the slow one's worker is done.
    let attempts = AtomicUsize::new(0);
    assert!(eventually(Duration::from_secs(10), || {
        attempts.fetch_add(1, Ordering::SeqCst);
        let mut runs = Vec::new();
        block_on(callbacks.dispatch_recorded(&event, &mut runs));
        runs.len() == 2
            && runs
                .iter()
                .all(|run| !matches!(run.status, RunStatus::Skipped(_)))
    }));
    let names: Vec<_> = trail(&seen).iter().map(|(name, _)| *name).collect();
    assert_eq!(names[0], "slow");
    // "later" ran once per new dispatch, never for the dropped one.
    let laters = names.iter().filter(|name| **name == "later").count();
    assert_eq!(laters, attempts.load(Ordering::SeqCst), "{names:?}");
}
