//! The worker hand-off when a caller stops waiting without timing out: its
//! dispatch future is dropped while the callback runs, or after the result
//! arrived but before it was read.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Context;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use futures::task::noop_waker_ref;
use serde_json::json;

use super::Callbacks;
use hermes_hooks_core::catalog::HookEvent;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::dispatch::Dispatcher;
use hermes_hooks_core::event::Event;

/// Callbacks with one `pre_tool_call` guard that counts its starts, sleeps
/// `work`, records its thread and never objects.
fn sleepy_guard(work: Duration) -> (Arc<Callbacks>, Arc<Mutex<Vec<ThreadId>>>) {
    let (callbacks, threads, _) = counted_sleepy_guard(work);
    (callbacks, threads)
}

/// [`sleepy_guard`] and how many calls have started.
fn counted_sleepy_guard(
    work: Duration,
) -> (Arc<Callbacks>, Arc<Mutex<Vec<ThreadId>>>, Arc<AtomicUsize>) {
    let callbacks = Callbacks::new(
        PluginSettings::default()
            .with_callback_timeout(Some(Duration::from_secs(10)))
            .with_stream_reasoning_deltas(false),
    );
    let threads = Arc::new(Mutex::new(Vec::new()));
    let started = Arc::new(AtomicUsize::new(0));
    let (seen, starts) = (Arc::clone(&threads), Arc::clone(&started));
    callbacks.register("pre_tool_call", "sleepy", move |_: &Event| {
        starts.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(work);
        if let Ok(mut seen) = seen.lock() {
            seen.push(std::thread::current().id());
        }
        Ok(None)
    });
    (callbacks, threads, started)
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
    let (callbacks, threads, started) = counted_sleepy_guard(Duration::from_millis(300));
    let event = call("same");
    let mut first = Box::pin(callbacks.dispatch(&event));
    poll_once_pending(&mut first);
    // Mid-call: a batch dropped before its worker took it up runs nothing
    // (its calls are cancelled and their gates freed), so wait for the start.
    let deadline = Instant::now() + Duration::from_secs(5);
    while started.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
        std::thread::yield_now();
    }
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

/// Callbacks with one `pre_tool_call` guard that waits `work(id)` and then
/// blocks with a message naming the call it saw, so every caller can check
/// that the reply it got is its own.
fn echo_guard(
    timeout: Duration,
    work: impl Fn(&str) -> Duration + Send + Sync + 'static,
) -> Arc<Callbacks> {
    let callbacks = Callbacks::builder(
        PluginSettings::default()
            .with_callback_timeout(Some(timeout))
            .with_stream_reasoning_deltas(false),
    )
    .suppression_window(Duration::ZERO)
    .build();
    callbacks.register("pre_tool_call", "echo", move |event: &Event| {
        let id = event.call_identity().unwrap_or("").to_owned();
        let pause = work(&id);
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
        Ok(Some(
            json!({"action": "block", "message": format!("echo:{id}")}),
        ))
    });
    callbacks
}

fn message(callbacks: &Callbacks, event: &Event) -> Vec<String> {
    block_on(callbacks.dispatch(event))
        .iter()
        .map(|reply| reply.value["message"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn concurrent_callers_each_get_their_own_result() {
    let callbacks = echo_guard(Duration::from_secs(30), |_| Duration::ZERO);
    let threads: Vec<_> = (0..6)
        .map(|thread| {
            let callbacks = Arc::clone(&callbacks);
            std::thread::spawn(move || {
                for round in 0..300 {
                    let id = format!("t{thread}-r{round}");
                    assert_eq!(message(&callbacks, &call(&id)), [format!("echo:{id}")]);
                }
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().is_ok(), "a caller saw another call's result");
    }
    assert_eq!(callbacks.abandoned_workers(), 0);
}

#[test]
fn a_caller_that_waits_is_woken_by_the_result_every_time() {
    // Past the caller's spin: it registers its waker and sleeps, so a lost
    // wake-up would show as a timeout (a fail-closed block of another text).
    let callbacks = echo_guard(Duration::from_secs(10), |_| Duration::from_millis(2));
    for round in 0..40 {
        let id = format!("slow-{round}");
        assert_eq!(message(&callbacks, &call(&id)), [format!("echo:{id}")]);
    }
}

#[test]
fn results_racing_the_deadline_are_either_taken_or_cleaned_up() {
    // Each callback takes about as long as the timeout, so results land just
    // before, at and after the deadline, on several callers at once.
    let timeout = Duration::from_micros(800);
    let callbacks = echo_guard(timeout, |id| {
        let spread = id.bytes().map(u64::from).sum::<u64>() % 9;
        Duration::from_micros(500 + spread * 75)
    });
    let threads: Vec<_> = (0..4)
        .map(|thread| {
            let callbacks = Arc::clone(&callbacks);
            std::thread::spawn(move || {
                for round in 0..60 {
                    let id = format!("race-{thread}-{round}");
                    let got = message(&callbacks, &call(&id));
                    // Its own result, or a fail-closed block (timed out, or
                    // skipped while hung workers are capped): never another's.
                    assert_eq!(got.len(), 1, "{got:?}");
                    assert!(
                        got[0] == format!("echo:{id}")
                            || got[0].contains(" timed out after ")
                            || got[0].contains(" was not run: "),
                        "{id}: {got:?}"
                    );
                }
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().is_ok());
    }
    // Every given-up call is cleaned up by its worker: no hung worker stays
    // counted, and no call identity stays gated.
    let deadline = Instant::now() + Duration::from_secs(10);
    while callbacks.abandoned_workers() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(callbacks.abandoned_workers(), 0);
    callbacks.set_settings(
        PluginSettings::default()
            .with_callback_timeout(Some(Duration::from_secs(30)))
            .with_stream_reasoning_deltas(false),
    );
    for thread in 0..4 {
        for round in 0..60 {
            let id = format!("race-{thread}-{round}");
            assert_eq!(message(&callbacks, &call(&id)), [format!("echo:{id}")]);
        }
    }
}

/// Calls that answer at once (the caller's hot phase), past the caller's hot
/// phase and spin (its waker), and after a pause (a parked worker woken:
/// the yielding pace), mixed so each wait starts from what the last taught.
fn mixed_paces(callbacks: &Callbacks, rounds: usize) {
    for round in 0..rounds {
        if round % 16 == 15 {
            // Past the worker's 50 µs spin: it parks and the next call wakes it.
            std::thread::sleep(Duration::from_millis(1));
        }
        let id = format!("pace-{round}");
        assert_eq!(message(callbacks, &call(&id)), [format!("echo:{id}")]);
    }
}

/// The work of a `mixed_paces` call: most answer at once, every 7th after
/// 30 µs (past the hot phase, within the spin), every 11th after 200 µs
/// (past the spin: the caller registers its waker).
fn mixed_work(id: &str) -> Duration {
    let round: u64 = id.trim_start_matches("pace-").parse().unwrap_or(0);
    match (round % 7, round % 11) {
        (_, 0) => Duration::from_micros(200),
        (0, _) => Duration::from_micros(30),
        _ => Duration::ZERO,
    }
}

#[test]
fn hot_late_and_woken_waits_each_take_their_own_result() {
    let callbacks = echo_guard(Duration::from_secs(10), mixed_work);
    mixed_paces(&callbacks, 400);
    assert_eq!(callbacks.abandoned_workers(), 0);
}

#[cfg(target_os = "linux")]
#[test]
fn a_caller_and_its_worker_sharing_one_cpu_hand_over_every_result() {
    use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
    use nix::unistd::Pid;
    // On its own thread: the pinning (inherited by the workers it spawns)
    // must not leak into other tests.
    let pinned = std::thread::spawn(|| {
        let me = Pid::from_raw(0);
        let Some(cpu) = sched_getaffinity(me)
            .ok()
            .and_then(|set| (0..CpuSet::count()).find(|&cpu| set.is_set(cpu).unwrap_or(false)))
        else {
            return false;
        };
        let mut one = CpuSet::new();
        if one.set(cpu).is_err() || sched_setaffinity(me, &one).is_err() {
            return false;
        }
        // Both threads on one CPU: each side sees the other "here" and yields
        // at once; a lost wake-up would show as a timeout's block.
        let callbacks = echo_guard(Duration::from_secs(10), mixed_work);
        mixed_paces(&callbacks, 200);
        assert_eq!(callbacks.abandoned_workers(), 0);
        true
    });
    match pinned.join() {
        Ok(ran) => assert!(ran, "could not pin the test thread to one CPU"),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

#[test]
fn dropping_the_callbacks_lets_every_parked_worker_exit() {
    // Several callers at once leave several workers parked: one in the
    // pool's hot slot, the others in its list. Each worker thread holds the
    // pool, so the pool is gone only when every one of them exited.
    let callbacks = echo_guard(Duration::from_secs(30), |_| Duration::from_millis(1));
    let callers: Vec<_> = (0..4)
        .map(|thread| {
            let callbacks = Arc::clone(&callbacks);
            std::thread::spawn(move || {
                for round in 0..5 {
                    let id = format!("p{thread}-{round}");
                    assert_eq!(message(&callbacks, &call(&id)), [format!("echo:{id}")]);
                }
            })
        })
        .collect();
    for caller in callers {
        assert!(caller.join().is_ok());
    }
    let pool = Arc::downgrade(&callbacks.workers);
    assert!(pool.strong_count() > 2, "several workers were started");
    drop(callbacks);
    let deadline = Instant::now() + Duration::from_secs(10);
    while pool.strong_count() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(pool.strong_count(), 0, "a parked worker outlived its pool");
}
