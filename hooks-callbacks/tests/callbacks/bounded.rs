//! Timeouts, abandonment, suppression and gates (§7.8 215, 224–230).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::executor::block_on;
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::{Dispatcher, Event, HookEvent, Hooks, Reply};
use serde_json::json;

use super::support::{Gate, capture_logs, eventually, settings, tool_event, warnings};

/// A callback that counts its runs and waits on `gate`.
fn hung(callbacks: &Callbacks, event: &str, owner: &str, gate: &Gate) -> Arc<AtomicUsize> {
    let runs = Arc::new(AtomicUsize::new(0));
    let (counter, gate) = (runs.clone(), gate.clone());
    callbacks.register(event, owner, move |_: &Event| {
        counter.fetch_add(1, Ordering::SeqCst);
        gate.wait();
        Ok(None)
    });
    runs
}

/// A block whose message says the callback of `owner` timed out on this call.
fn is_timeout_block(reply: &Reply, owner: &str) -> bool {
    is_block_starting(
        reply,
        &format!("pre_tool_call plugin callback {owner} timed out after "),
    )
}

/// A block whose message says the callback of `owner` was never run for this
/// call, and why (`why` is the start of the reason).
fn is_skip_block(reply: &Reply, owner: &str, why: &str) -> bool {
    is_block_starting(
        reply,
        &format!("pre_tool_call plugin callback {owner} was not run: {why}"),
    )
}

fn is_block_starting(reply: &Reply, start: &str) -> bool {
    reply.value["action"] == "block"
        && reply.value["message"]
            .as_str()
            .is_some_and(|message| message.starts_with(start))
}

#[test]
fn hung_observer_is_abandoned_and_the_sibling_result_returned() {
    capture_logs();
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(100));
    hung(&callbacks, "post_tool_call", "hung-observer", &gate);
    callbacks.register("post_tool_call", "sibling", |_: &Event| {
        Ok(Some(json!("ok")))
    });
    let replies = block_on(callbacks.dispatch(&tool_event(HookEvent::PostToolCall, "a")));
    // Returning at all is the proof: the gate it would wait for opens only below.
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].value, json!("ok"));
    let warned = warnings("callback hung-observer timed out");
    assert!(
        warned[0].contains(
            "Hook 'post_tool_call' callback hung-observer timed out after 0.1s — skipping"
        ),
        "{warned:?}"
    );
    gate.open();
}

#[test]
fn stuck_pre_tool_call_blocks_within_the_timeout_and_suppresses_repeats() {
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(100));
    let runs = hung(&callbacks, "pre_tool_call", "stuck-guard", &gate);
    let hooks = Hooks::builder().with_shared(callbacks.clone()).build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for fire in 0..2 {
        let replies = runtime.block_on(hooks.collect(&tool_event(HookEvent::PreToolCall, "same")));
        // Returning at all is the proof: the gate it would wait for opens only below.
        assert_eq!(replies.len(), 1);
        // The first call timed out; the second never reached the callback,
        // and its block says so rather than "timed out".
        if fire == 0 {
            assert!(is_timeout_block(&replies[0], "stuck-guard"), "{replies:?}");
        } else {
            assert!(
                is_skip_block(&replies[0], "stuck-guard", "an earlier call timed out "),
                "{replies:?}"
            );
            let message = replies[0].value["message"].as_str().unwrap_or_default();
            assert!(
                message.ends_with("calls are skipped for 60.0s after a timeout"),
                "{message}"
            );
        }
        assert_eq!(&*replies[0].source, "plugin:stuck-guard");
    }
    // One worker start for two fires: the second was skipped while suppressed.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(callbacks.abandoned_workers(), 1);
    gate.open();
    assert!(eventually(Duration::from_secs(5), || callbacks
        .abandoned_workers()
        == 0));
}

#[test]
fn a_stuck_observer_never_blocks_the_runtime_thread() {
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(300));
    hung(&callbacks, "post_llm_call", "stuck-observer", &gate);
    let hooks = Hooks::builder().with_shared(callbacks).build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let ticks = Arc::new(AtomicUsize::new(0));
    let replies = runtime.block_on(async {
        let counter = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(5)).await;
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let replies = hooks
            .collect(&Event::from_json(
                HookEvent::PostLlmCall,
                json!({"turn_id": "t"}),
            ))
            .await;
        ticker.abort();
        replies
    });
    assert!(replies.is_empty());
    // Returning at all is the proof: the gate it would wait for opens only below.
    // The ticker shared the runtime thread while the dispatch waited.
    assert!(ticks.load(Ordering::SeqCst) > 0);
    gate.open();
}

#[test]
fn distinct_call_identities_run_concurrently() {
    let callbacks = Callbacks::new(settings(5_000));
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    callbacks.register("pre_tool_call", "slow-guard", move |event: &Event| {
        counter.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        Ok(Some(
            json!({"action": "approve", "message": event.call_identity()}),
        ))
    });
    let (one, two) = (
        tool_event(HookEvent::PreToolCall, "id-1"),
        tool_event(HookEvent::PreToolCall, "id-2"),
    );
    let (first, second) =
        block_on(async { futures::join!(callbacks.dispatch(&one), callbacks.dispatch(&two)) });
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(first[0].value["message"], "id-1");
    assert_eq!(second[0].value["message"], "id-2");
}

#[test]
fn the_same_call_identity_in_flight_is_deduplicated() {
    let callbacks = Callbacks::new(settings(5_000));
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    callbacks.register("pre_tool_call", "dedup-guard", move |_: &Event| {
        counter.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        Ok(None)
    });
    let event = tool_event(HookEvent::PreToolCall, "dup");
    let (first, second) =
        block_on(async { futures::join!(callbacks.dispatch(&event), callbacks.dispatch(&event)) });
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(first.is_empty());
    assert_eq!(second.len(), 1);
    assert!(
        is_skip_block(
            &second[0],
            "dedup-guard",
            "an earlier call for the same tool call is still running"
        ),
        "{second:?}"
    );
}

#[test]
fn hung_workers_are_capped_at_three_after_suppression() {
    capture_logs();
    let gate = Gate::default();
    let callbacks = Callbacks::builder(settings(50))
        .suppression_window(Duration::ZERO)
        .build();
    let runs = hung(&callbacks, "post_tool_call", "capped-plugin", &gate);
    for id in 0..5 {
        block_on(callbacks.dispatch(&tool_event(HookEvent::PostToolCall, &format!("id-{id}"))));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(callbacks.abandoned_workers(), 3);
    let capped = warnings("callback capped-plugin skipped:");
    assert_eq!(capped.len(), 2, "{capped:?}");
    assert!(capped[0].contains(
        "Hook 'post_tool_call' callback capped-plugin skipped: 3 abandoned worker(s) still running — the plugin is hung; fix or disable it (retried when a worker finishes)"
    ));
    gate.open();
    assert!(eventually(Duration::from_secs(5), || callbacks
        .abandoned_workers()
        == 0));
    block_on(callbacks.dispatch(&tool_event(HookEvent::PostToolCall, "after")));
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[test]
fn a_recovered_guard_decides_again_after_the_window() {
    let gate = Gate::default();
    let callbacks = Callbacks::builder(settings(50))
        .suppression_window(Duration::from_millis(100))
        .build();
    let runs = hung(&callbacks, "pre_tool_call", "recovering-guard", &gate);
    let first = block_on(callbacks.dispatch(&tool_event(HookEvent::PreToolCall, "one")));
    assert!(is_timeout_block(&first[0], "recovering-guard"));
    let suppressed = block_on(callbacks.dispatch(&tool_event(HookEvent::PreToolCall, "two")));
    assert!(
        is_skip_block(
            &suppressed[0],
            "recovering-guard",
            "an earlier call timed out"
        ),
        "{suppressed:?}"
    );
    gate.open();
    assert!(eventually(Duration::from_secs(5), || callbacks
        .abandoned_workers()
        == 0));
    std::thread::sleep(Duration::from_millis(150));
    let recovered = block_on(callbacks.dispatch(&tool_event(HookEvent::PreToolCall, "three")));
    assert!(recovered.is_empty(), "{recovered:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[test]
fn workers_finishing_at_the_deadline_leave_no_phantom_abandoned_entry() {
    let callbacks = Callbacks::builder(settings(20))
        .suppression_window(Duration::ZERO)
        .build();
    callbacks.register("on_session_end", "borderline", |_: &Event| {
        std::thread::sleep(Duration::from_millis(20));
        Ok(None)
    });
    for id in 0..15 {
        let event = Event::from_json(
            HookEvent::OnSessionEnd,
            json!({"turn_id": format!("t{id}")}),
        );
        block_on(callbacks.dispatch(&event));
    }
    assert!(eventually(Duration::from_secs(5), || callbacks
        .abandoned_workers()
        == 0));
}
