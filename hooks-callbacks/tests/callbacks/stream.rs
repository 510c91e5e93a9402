//! Queued observers (§7.10 287–289, 291, 294–297, 300, 301).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::executor::block_on;
use hermes_hooks_callbacks::{CallbackError, Callbacks};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use serde_json::{Value, json};

use super::support::{Gate, eventually, settings};

fn delta(text: &str, kind: &str) -> Event {
    Event::from_json(
        HookEvent::OnStreamDelta,
        json!({"turn_id": "t", "delta": text, "kind": kind, "model": "m", "provider": "p"}),
    )
}

type Seen = Arc<Mutex<Vec<Value>>>;

/// A consumer that records each event's `delta` after waiting on `gate`.
fn recorder(callbacks: &Callbacks, event: &str, owner: &str, gate: Option<Gate>) -> Seen {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    callbacks.register(event, owner, move |event: &Event| {
        if let Some(gate) = &gate {
            gate.wait();
        }
        let value = event.get("delta").cloned().unwrap_or(Value::Null);
        record.lock().unwrap_or_else(|e| e.into_inner()).push(value);
        Ok(Some(json!("ignored")))
    });
    seen
}

fn seen(values: &Seen) -> Vec<Value> {
    values.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

#[test]
fn the_producer_never_waits_for_a_blocked_consumer() {
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(100));
    let values = recorder(&callbacks, "on_stream_delta", "blocked", Some(gate.clone()));
    for index in 0..50 {
        let replies = block_on(callbacks.dispatch(&delta(&index.to_string(), "text")));
        assert!(replies.is_empty());
    }
    // Returning at all is the proof: the gate it would wait for opens only below.
    assert!(seen(&values).is_empty());
    gate.open();
    block_on(callbacks.flush(Duration::from_secs(5)));
    let delivered = seen(&values);
    let expected: Vec<_> = (0..50).map(|i| json!(i.to_string())).collect();
    assert_eq!(delivered, expected, "per-callback order is kept");
}

#[test]
fn consumer_errors_do_not_stop_the_stream() {
    let callbacks = Callbacks::new(settings(100));
    let seen_values: Seen = Arc::default();
    let record = seen_values.clone();
    callbacks.register("on_stream_delta", "flaky-stream", move |event: &Event| {
        let text = event.get("delta").cloned().unwrap_or(Value::Null);
        if text == json!("boom") {
            panic!("consumer bug");
        }
        if text == json!("err") {
            return Err(CallbackError::msg("bad delta"));
        }
        record.lock().unwrap_or_else(|e| e.into_inner()).push(text);
        Ok(None)
    });
    for text in ["a", "boom", "b", "err", "c"] {
        block_on(callbacks.dispatch(&delta(text, "text")));
    }
    block_on(callbacks.flush(Duration::from_secs(5)));
    assert_eq!(seen(&seen_values), vec![json!("a"), json!("b"), json!("c")]);
}

#[test]
fn a_full_queue_drops_the_oldest_pending_event() {
    let callbacks = Callbacks::builder(settings(100)).queue_capacity(1).build();
    let gate = Gate::default();
    let (started_tx, started_rx) = mpsc::channel();
    let started_tx = Mutex::new(started_tx);
    let seen_values: Seen = Arc::default();
    let (record, wait) = (seen_values.clone(), gate.clone());
    callbacks.register("on_stream_delta", "capacity-one", move |event: &Event| {
        let _ = started_tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(());
        wait.wait();
        let text = event.get("delta").cloned().unwrap_or(Value::Null);
        record.lock().unwrap_or_else(|e| e.into_inner()).push(text);
        Ok(None)
    });
    block_on(callbacks.dispatch(&delta("first", "text")));
    assert!(started_rx.recv_timeout(Duration::from_secs(5)).is_ok());
    block_on(callbacks.dispatch(&delta("second", "text")));
    block_on(callbacks.dispatch(&delta("third", "text")));
    gate.open();
    block_on(callbacks.flush(Duration::from_secs(5)));
    assert_eq!(seen(&seen_values), vec![json!("first"), json!("third")]);
}

#[test]
fn queues_are_isolated_per_consumer() {
    let gate = Gate::default();
    let callbacks = Callbacks::builder(settings(100)).queue_capacity(4).build();
    let slow = recorder(&callbacks, "on_stream_delta", "slow", Some(gate.clone()));
    let fast = recorder(&callbacks, "on_stream_delta", "fast", None);
    for index in 0..10 {
        block_on(callbacks.dispatch(&delta(&index.to_string(), "text")));
        // The fast consumer keeps up while the slow one is stuck.
        assert!(eventually(Duration::from_secs(5), || seen(&fast).len() == index + 1));
    }
    gate.open();
    block_on(callbacks.flush(Duration::from_secs(5)));
    // The slow consumer lost only its own backlog: the first event it was
    // running, then the newest four that fit its queue.
    let slow_seen = seen(&slow);
    assert_eq!(slow_seen.len(), 5, "{slow_seen:?}");
    assert_eq!(slow_seen[4], json!("9"));
}

#[test]
fn reasoning_deltas_are_opt_in() {
    for opted_in in [false, true] {
        let callbacks = Callbacks::new(
            PluginSettings::default()
                .with_callback_timeout(None)
                .with_stream_reasoning_deltas(opted_in),
        );
        let values = recorder(&callbacks, "on_stream_delta", "thinker", None);
        block_on(callbacks.dispatch(&delta("thinking", "reasoning")));
        block_on(callbacks.dispatch(&delta("answer", "text")));
        block_on(callbacks.flush(Duration::from_secs(5)));
        let expected = if opted_in {
            vec![json!("thinking"), json!("answer")]
        } else {
            vec![json!("answer")]
        };
        assert_eq!(seen(&values), expected);
    }
}

#[test]
fn lifecycle_interim_and_room_events_are_queued_off_the_callers_thread() {
    let callbacks = Callbacks::new(settings(100));
    let me = std::thread::current().id();
    let events = [
        "on_stream_start",
        "on_stream_end",
        "on_interim_message",
        "on_room_member_activity",
    ];
    let off_thread = Arc::new(Mutex::new(Vec::new()));
    for name in events {
        let record = off_thread.clone();
        callbacks.register(name, "lifecycle", move |event: &Event| {
            let other = std::thread::current().id() != me;
            record
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((event.name().to_string(), other));
            Ok(Some(json!({"action": "block", "message": "ignored"})))
        });
    }
    for name in events {
        let replies =
            block_on(callbacks.dispatch(&Event::from_json(name, json!({"turn_id": "t"}))));
        assert!(replies.is_empty(), "{name} returned replies");
    }
    block_on(callbacks.flush(Duration::from_secs(5)));
    let mut recorded = off_thread.lock().unwrap_or_else(|e| e.into_inner()).clone();
    recorded.sort();
    let mut expected: Vec<_> = events.iter().map(|n| (n.to_string(), true)).collect();
    expected.sort();
    assert_eq!(recorded, expected);
}

#[test]
fn shutdown_drains_pending_events() {
    let callbacks = Callbacks::new(settings(100));
    let seen_values: Seen = Arc::default();
    let record = seen_values.clone();
    callbacks.register("on_stream_delta", "drained", move |event: &Event| {
        std::thread::sleep(Duration::from_millis(10));
        let text = event.get("delta").cloned().unwrap_or(Value::Null);
        record.lock().unwrap_or_else(|e| e.into_inner()).push(text);
        Ok(None)
    });
    for index in 0..5 {
        block_on(callbacks.dispatch(&delta(&index.to_string(), "text")));
    }
    assert!(callbacks.shutdown(Duration::from_secs(5)));
    assert_eq!(seen(&seen_values).len(), 5);
    block_on(callbacks.dispatch(&delta("late", "text")));
    block_on(callbacks.flush(Duration::from_secs(1)));
    assert_eq!(
        seen(&seen_values).len(),
        5,
        "closed queues take no new events"
    );
}

#[test]
fn shutdown_and_flush_give_up_on_a_hung_consumer() {
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(100));
    recorder(
        &callbacks,
        "on_stream_delta",
        "hung-consumer",
        Some(gate.clone()),
    );
    block_on(callbacks.dispatch(&delta("x", "text")));
    block_on(callbacks.flush(Duration::from_millis(100)));
    assert!(!callbacks.shutdown(Duration::from_millis(100)));
    // Returning at all is the proof: the gate it would wait for opens only below.
    gate.open();
}

#[test]
fn flush_and_shutdown_wait_for_owners_that_hand_queued_events_on() {
    let callbacks = Callbacks::new(PluginSettings::default());
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (check, count) = (Arc::clone(&done), Arc::clone(&asked));
    callbacks.register_settled(move || {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        check.load(std::sync::atomic::Ordering::SeqCst)
    });
    // Never settled: both give up at their bound, having waited and asked
    // again (not given up at the first answer; no clock).
    block_on(callbacks.flush(Duration::from_millis(500)));
    assert!(asked.swap(0, std::sync::atomic::Ordering::SeqCst) >= 2);
    assert!(!callbacks.shutdown(Duration::from_millis(50)));
    // Settled a moment later: both return then, and shutdown says drained.
    let setter = Arc::clone(&done);
    let later = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        setter.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    block_on(callbacks.flush(Duration::from_secs(60)));
    assert!(done.load(std::sync::atomic::Ordering::SeqCst));
    assert!(callbacks.shutdown(Duration::from_secs(60)));
    later.join().expect("joins");
}
