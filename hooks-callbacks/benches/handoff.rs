//! The floor under a bounded callback: what a hand-off to another thread and
//! back costs on this machine with nothing else in the way, next to the real
//! hand-off (`Callbacks::dispatch` of one `pre_tool_call` guard, no bus).
//!
//! - `guard/inline`: the guard closure called directly (the work itself).
//! - `floor/padded-slot-round-trip`: one cache-padded atomic per direction,
//!   both threads spinning hot: the caller stores a sequence number, the
//!   worker runs the guard on the shared event and stores it back.
//! - `floor/futex-wake-round-trip`: the same with a parked worker (std's
//!   futex park/unpark), 1 ms after the previous call so it really sleeps:
//!   the floor of the parked-worker path.
//! - `floor/one-cpu-yield-round-trip`: the same slots with both threads
//!   pinned to one CPU, each yielding until the other answered: the floor of
//!   a crowded machine, where caller and worker share a CPU and every hand-off
//!   is two context switches.
//! - `callbacks/...`: `Callbacks::dispatch` with a 30 s timeout, warm (back
//!   to back) and cold (1 ms pause, the worker has parked).
//!
//! Run: `cargo bench -p hermes-hooks-callbacks --bench handoff -- --warm-up-time 1 --measurement-time 3`

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use crossbeam_utils::CachePadded;
use hermes_hooks_callbacks::{CallbackResult, Callbacks};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;
use serde_json::{Value, json};

#[path = "support/cold.rs"]
mod cold;

/// Tells the floor's worker thread to exit.
const STOP: u64 = u64::MAX;

/// The guard of the dispatch bench: blocks only `rm`.
fn guard(event: &Event) -> CallbackResult {
    Ok((event.tool_name() == Some("rm")).then(|| json!({"action": "block", "message": "no rm"})))
}

fn tool_call() -> Event {
    Event::from_json(
        HookEvent::PreToolCall,
        json!({
            "tool_name": "terminal",
            "args": {"command": "ls -la"},
            "task_id": "task-1",
            "session_id": "sess-1",
            "tool_call_id": "call-1",
            "turn_id": "turn-1",
            "api_request_id": "req-1",
            "middleware_trace": Value::Array(Vec::new()),
        }),
    )
}

/// One padded slot per direction between the bench thread and a worker.
#[derive(Default)]
struct Slots {
    request: CachePadded<AtomicU64>,
    response: CachePadded<AtomicU64>,
}

/// How the floor's two threads wait for each other.
#[derive(Clone, Copy, PartialEq)]
enum Wait {
    /// Spinning hot (`spin_loop`).
    Hot,
    /// The worker parks; the caller unparks it.
    Park,
    /// Both yield between checks, pinned to one CPU.
    OneCpu,
}

/// Pins the calling thread to the first CPU it may run on; returns the CPUs
/// it could run on before, or `None` if it could not be pinned.
fn pin_to_one_cpu() -> Option<CpuSet> {
    let before = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let cpu = (0..CpuSet::count()).find(|&cpu| before.is_set(cpu).unwrap_or(false))?;
    let mut one = CpuSet::new();
    one.set(cpu).ok()?;
    sched_setaffinity(Pid::from_raw(0), &one).ok()?;
    Some(before)
}

/// Starts the floor's worker: it waits for each new request (as `wait`
/// says), runs the guard and answers with the same number.
fn floor_worker(slots: &Arc<Slots>, event: &Event, wait: Wait) -> std::thread::JoinHandle<()> {
    let (slots, event) = (Arc::clone(slots), event.clone());
    std::thread::spawn(move || {
        if wait == Wait::OneCpu && pin_to_one_cpu().is_none() {
            eprintln!("floor/one-cpu-yield-round-trip: could not pin the worker");
        }
        let mut last = 0;
        loop {
            let request = loop {
                let request = slots.request.load(Ordering::Acquire);
                if request != last {
                    break request;
                }
                match wait {
                    Wait::Hot => std::hint::spin_loop(),
                    Wait::Park => std::thread::park(),
                    Wait::OneCpu => std::thread::yield_now(),
                }
            };
            if request == STOP {
                return;
            }
            black_box(guard(black_box(&event)).ok());
            slots.response.store(request, Ordering::Release);
            last = request;
        }
    })
}

/// One round trip: hand `n` over and wait until it comes back.
fn round_trip(slots: &Slots, worker: &std::thread::Thread, n: u64, wait: Wait) {
    slots.request.store(n, Ordering::Release);
    if wait == Wait::Park {
        worker.unpark();
    }
    while slots.response.load(Ordering::Acquire) != n {
        if wait == Wait::OneCpu {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

fn floor(c: &mut Criterion) {
    let event = tool_call();
    let mut group = c.benchmark_group("handoff");
    group.bench_function("guard/inline", |b| {
        b.iter(|| black_box(guard(black_box(&event)).ok()))
    });
    for wait in [Wait::Hot, Wait::Park, Wait::OneCpu] {
        let slots = Arc::new(Slots::default());
        let worker = floor_worker(&slots, &event, wait);
        let thread = worker.thread().clone();
        let mut n = 0;
        match wait {
            Wait::Park => {
                group.bench_function("floor/futex-wake-round-trip", |b| {
                    b.iter_custom(|iterations| {
                        cold::timed_after_pause(iterations, || {
                            n += 1;
                            round_trip(&slots, &thread, n, wait);
                        })
                    })
                });
            }
            Wait::Hot => {
                group.bench_function("floor/padded-slot-round-trip", |b| {
                    b.iter(|| {
                        n += 1;
                        round_trip(&slots, &thread, n, wait);
                    })
                });
            }
            Wait::OneCpu => {
                // The worker pinned itself to the same CPU; the bench thread
                // gets its CPUs back afterwards (later workers inherit them).
                let before = pin_to_one_cpu();
                if before.is_none() {
                    eprintln!("floor/one-cpu-yield-round-trip: could not pin the bench thread");
                }
                group.bench_function("floor/one-cpu-yield-round-trip", |b| {
                    b.iter(|| {
                        n += 1;
                        round_trip(&slots, &thread, n, wait);
                    })
                });
                if let Some(before) = before {
                    let _ = sched_setaffinity(Pid::from_raw(0), &before);
                }
            }
        }
        slots.request.store(STOP, Ordering::Release);
        thread.unpark();
        let _ = worker.join();
    }
    group.finish();
}

fn callbacks(c: &mut Criterion) {
    let event = tool_call();
    let callbacks = Callbacks::new(
        PluginSettings::default()
            .with_callback_timeout(Some(Duration::from_secs(30)))
            .with_stream_reasoning_deltas(false),
    );
    callbacks.register("pre_tool_call", "guard", guard);
    let mut group = c.benchmark_group("handoff");
    group.bench_function("callbacks/timeout-30s/warm", |b| {
        b.iter(|| futures::executor::block_on(callbacks.dispatch(black_box(&event))))
    });
    group.bench_function("callbacks/timeout-30s/cold", |b| {
        b.iter_custom(|iterations| {
            cold::timed_after_pause(iterations, || {
                black_box(futures::executor::block_on(
                    callbacks.dispatch(black_box(&event)),
                ));
            })
        })
    });
    group.finish();
}

criterion_group!(benches, floor, callbacks);
criterion_main!(benches);
