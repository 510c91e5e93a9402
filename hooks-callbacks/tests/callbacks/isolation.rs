//! Failure isolation, fail-closed raises, warn-once, threads (§7.8 200, 216–221).

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use futures::executor::block_on;
use hermes_hooks_callbacks::{CallbackError, Callbacks};
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use serde_json::json;

use super::support::{capture_logs, debugs, settings, tool_event, warnings};

fn failing_then_ok(callbacks: &Callbacks, event: &str, owner: &str) {
    callbacks.register(event, owner, |_: &Event| {
        Err(CallbackError::new("RuntimeError", "db down"))
    });
    callbacks.register(
        event,
        &format!("{owner}-panics"),
        |_: &Event| -> hermes_hooks_callbacks::CallbackResult { panic!("plugin bug") },
    );
    callbacks.register(event, "survivor", |_: &Event| Ok(Some(json!("still here"))));
}

#[test]
fn failures_do_not_propagate_inline_or_under_the_timeout_path() {
    for timeout in [0, 2_000] {
        let callbacks = Callbacks::new(settings(timeout));
        failing_then_ok(&callbacks, "post_tool_call", "iso-observer");
        let replies = block_on(callbacks.dispatch(&tool_event(HookEvent::PostToolCall, "c")));
        assert_eq!(replies.len(), 1, "timeout {timeout}: {replies:?}");
        assert_eq!(replies[0].value, json!("still here"));
    }
}

#[test]
fn pre_tool_call_failures_fail_closed_on_both_paths() {
    for timeout in [0, 2_000] {
        let callbacks = Callbacks::new(settings(timeout));
        failing_then_ok(&callbacks, "pre_tool_call", "guard");
        let replies = block_on(callbacks.dispatch(&tool_event(HookEvent::PreToolCall, "c")));
        let messages: Vec<_> = replies.iter().map(|r| r.value.clone()).collect();
        assert_eq!(
            messages,
            vec![
                json!({"action": "block", "message": "pre_tool_call plugin callback guard raised RuntimeError: db down"}),
                json!({"action": "block", "message": "pre_tool_call plugin callback guard-panics raised panic: plugin bug"}),
                json!("still here"),
            ],
            "timeout {timeout}"
        );
        assert_eq!(&*replies[0].source, "plugin:guard");
    }
}

#[test]
fn block_message_keeps_only_the_first_200_characters() {
    let callbacks = Callbacks::new(settings(0));
    callbacks.register("pre_tool_call", "verbose", |_: &Event| {
        Err(CallbackError::new("ValueError", "x".repeat(500)))
    });
    let replies = block_on(callbacks.dispatch(&tool_event(HookEvent::PreToolCall, "c")));
    let message = replies[0].value["message"].as_str().unwrap_or_default();
    let prefix = "pre_tool_call plugin callback verbose raised ValueError: ";
    assert!(message.starts_with(prefix));
    assert_eq!(message.len(), prefix.len() + 200);
}

#[test]
fn identical_failures_warn_once_then_go_to_debug() {
    capture_logs();
    let callbacks = Callbacks::new(settings(0));
    let count = Arc::new(Mutex::new(0_u32));
    let calls = count.clone();
    callbacks.register("on_session_reset", "warn-once-plugin", move |_: &Event| {
        let mut calls = calls.lock().unwrap_or_else(|e| e.into_inner());
        *calls += 1;
        let message = if *calls <= 3 { "same" } else { "different" };
        Err(CallbackError::msg(message))
    });
    let event = Event::from_json(HookEvent::OnSessionReset, json!({}));
    for _ in 0..4 {
        block_on(callbacks.dispatch(&event));
    }
    let warned = warnings("callback warn-once-plugin raised");
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(warned[0].contains(
        "Hook 'on_session_reset' callback warn-once-plugin raised: same (identical failures are logged at DEBUG from now on)"
    ));
    assert!(warned[1].contains("raised: different"));
    assert_eq!(
        debugs("callback warn-once-plugin raised again: same").len(),
        2
    );
}

fn thread_recorder(callbacks: &Callbacks, event: &str) -> Arc<Mutex<Vec<ThreadId>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    callbacks.register(event, "threads", move |_: &Event| {
        record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(std::thread::current().id());
        Ok(None)
    });
    seen
}

fn threads(seen: &Mutex<Vec<ThreadId>>) -> Vec<ThreadId> {
    seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

#[test]
fn subagent_stop_and_inline_events_run_on_the_callers_thread() {
    let callbacks = Callbacks::new(settings(2_000));
    let stop = thread_recorder(&callbacks, "subagent_stop");
    let finalize = thread_recorder(&callbacks, "on_session_finalize");
    block_on(callbacks.dispatch(&Event::from_json(HookEvent::SubagentStop, json!({}))));
    block_on(callbacks.dispatch(&Event::from_json(HookEvent::OnSessionFinalize, json!({}))));
    let me = std::thread::current().id();
    assert_eq!(threads(&stop), vec![me]);
    assert_eq!(threads(&finalize), vec![me]);
}

#[test]
fn bounded_events_run_on_a_reused_worker_and_timeout_zero_runs_inline() {
    let me = std::thread::current().id();
    let bounded = Callbacks::new(settings(2_000));
    let seen = thread_recorder(&bounded, "post_tool_call");
    let other = thread_recorder(&bounded, "post_tool_call");
    for id in 0..20 {
        block_on(bounded.dispatch(&tool_event(HookEvent::PostToolCall, &id.to_string())));
    }
    let mut workers = threads(&seen);
    workers.extend(threads(&other));
    assert_eq!(workers.len(), 40);
    assert!(!workers.contains(&me));
    workers.dedup();
    assert_eq!(
        workers.len(),
        1,
        "sequential calls of every callback reuse one worker"
    );

    let unbounded = Callbacks::new(settings(0));
    let seen = thread_recorder(&unbounded, "post_tool_call");
    block_on(unbounded.dispatch(&tool_event(HookEvent::PostToolCall, "x")));
    assert_eq!(threads(&seen), vec![me]);
}
