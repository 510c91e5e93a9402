//! Dispatch cost through the `Hooks` bus with in-process callbacks:
//! unhooked events, inline and bounded observers, a guarded `pre_tool_call`.
//!
//! Run: `cargo bench -p hermes-hooks-callbacks --bench dispatch -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use futures::FutureExt;
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::catalog::RunPolicy;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{Event, HookEvent, Hooks, Outcome};
use serde_json::{Value, json};

#[path = "support/cold.rs"]
mod cold;

fn settings(timeout: Option<Duration>) -> PluginSettings {
    PluginSettings::default()
        .with_callback_timeout(timeout)
        .with_stream_reasoning_deltas(false)
}

/// A bus whose plugins have `count` observers of `event` (returning nothing).
fn bus(event: &str, count: usize, timeout: Option<Duration>) -> Hooks {
    let callbacks = Callbacks::new(settings(timeout));
    for index in 0..count {
        callbacks.register(event, &format!("observer-{index}"), |event: &Event| {
            black_box(event.get("tool_name"));
            Ok(None)
        });
    }
    Hooks::builder().with_shared(callbacks).build()
}

/// A bus with one `pre_tool_call` guard that allows everything but `rm`.
fn guarded(timeout: Option<Duration>) -> Hooks {
    let callbacks = Callbacks::new(settings(timeout));
    callbacks.register("pre_tool_call", "guard", |event: &Event| {
        Ok((event.tool_name() == Some("rm"))
            .then(|| json!({"action": "block", "message": "no rm"})))
    });
    Hooks::builder().with_shared(callbacks).build()
}

fn tool_payload(event: HookEvent) -> Event {
    Event::from_json(
        event,
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

fn current_thread() -> tokio::runtime::Runtime {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("tokio runtime: {error}"),
    }
}

fn unhooked(c: &mut Criterion) {
    let mut group = c.benchmark_group("unhooked");
    let hooks = bus("pre_llm_call", 1, Some(Duration::from_secs(30)));
    let event = tool_payload(HookEvent::PostToolCall);
    group.bench_function("is_hooked", |b| {
        b.iter(|| hooks.is_hooked(black_box(HookEvent::PostToolCall)))
    });
    // The floor of the poll-once rows: a future that is ready at once with
    // the (large) `Outcome`, polled and dropped the same way.
    group.bench_function("ready-outcome-floor/poll-once", |b| {
        b.iter(|| futures::future::ready(black_box(Outcome::Nothing)).now_or_never())
    });
    group.bench_function("emit/poll-once", |b| {
        b.iter(|| hooks.emit(black_box(&event)).now_or_never())
    });
    group.bench_function("emit/futures", |b| {
        b.iter(|| futures::executor::block_on(hooks.emit(black_box(&event))))
    });
    let runtime = current_thread();
    group.bench_function("emit/tokio-current-thread", |b| {
        b.iter(|| runtime.block_on(hooks.emit(black_box(&event))))
    });
    group.finish();
}

fn observers(c: &mut Criterion) {
    let runtime = current_thread();
    let cases = [
        (
            "inline/on_session_finalize",
            HookEvent::OnSessionFinalize,
            Some(Duration::from_secs(30)),
        ),
        (
            "bounded/post_tool_call",
            HookEvent::PostToolCall,
            Some(Duration::from_secs(30)),
        ),
        (
            "bounded-timeout-off/post_tool_call",
            HookEvent::PostToolCall,
            None,
        ),
        // Queued: the agent's thread only hands the delta to each callback's
        // queue; what it pays is the enqueue (and the wake-up, when the
        // consumer blocked).
        (
            "queued/on_stream_delta",
            HookEvent::OnStreamDelta,
            Some(Duration::from_secs(30)),
        ),
    ];
    let mut group = c.benchmark_group("observers");
    for (label, event_kind, timeout) in cases {
        for count in [1, 10] {
            let hooks = bus(event_kind.as_str(), count, timeout);
            let event = tool_payload(event_kind);
            if timeout.is_none() || event_kind.meta().run != RunPolicy::Bounded {
                // Inline work completes on the first poll: no executor cost at all.
                group.bench_with_input(
                    BenchmarkId::new(format!("{label}/poll-once"), count),
                    &count,
                    |b, _| b.iter(|| hooks.emit(black_box(&event)).now_or_never()),
                );
            }
            group.bench_with_input(
                BenchmarkId::new(format!("{label}/futures"), count),
                &count,
                |b, _| b.iter(|| futures::executor::block_on(hooks.emit(black_box(&event)))),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("{label}/tokio-current-thread"), count),
                &count,
                |b, _| b.iter(|| runtime.block_on(hooks.emit(black_box(&event)))),
            );
        }
    }
    group.finish();
}

fn guard(c: &mut Criterion) {
    let runtime = current_thread();
    let mut group = c.benchmark_group("pre_tool_call");
    let event = tool_payload(HookEvent::PreToolCall);
    for (label, timeout) in [
        ("timeout-30s", Some(Duration::from_secs(30))),
        ("timeout-off", None),
    ] {
        let hooks = Arc::new(guarded(timeout));
        if timeout.is_none() {
            group.bench_function(format!("1-guard/{label}/poll-once"), |b| {
                b.iter(|| hooks.collect(black_box(&event)).now_or_never())
            });
        }
        group.bench_function(format!("1-guard/{label}/futures"), |b| {
            b.iter(|| futures::executor::block_on(hooks.collect(black_box(&event))))
        });
        group.bench_function(format!("1-guard/{label}/tokio-current-thread"), |b| {
            b.iter(|| runtime.block_on(hooks.collect(black_box(&event))))
        });
    }
    // A host fires tool calls far apart: by then the worker has stopped
    // spinning and parked, so each hand-off starts with a wake-up. Only the
    // call is timed, not the pause before it.
    let hooks = guarded(Some(Duration::from_secs(30)));
    group.bench_function("1-guard/timeout-30s/cold-worker/futures", |b| {
        b.iter_custom(|iterations| {
            cold::timed_after_pause(iterations, || {
                black_box(futures::executor::block_on(
                    hooks.collect(black_box(&event)),
                ));
            })
        })
    });
    group.finish();
}

// criterion_group! generates an undocumented pub fn.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, unhooked, observers, guard);
}
use group::benches;
criterion_main!(benches);
