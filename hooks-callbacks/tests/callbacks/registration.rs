//! Registration, ordering, interest, async callbacks (§7.8 198, 201–205, 212, 213).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::FutureExt;
use futures::executor::block_on;
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::{Dispatcher, Event, EventName, HookEvent, Hooks};
use serde_json::{Value, json};

use super::support::{capture_logs, settings, tool_event, warnings};

#[test]
fn replies_come_back_in_registration_order_without_nones() {
    let callbacks = Callbacks::new(settings(2_000));
    callbacks.register("post_tool_call", "first", |_: &Event| {
        Ok(Some(json!("one")))
    });
    callbacks.register("post_tool_call", "silent", |_: &Event| Ok(None));
    callbacks.register("post_tool_call", "null", |_: &Event| Ok(Some(Value::Null)));
    callbacks.register("post_tool_call", "second", |_: &Event| {
        Ok(Some(json!({"n": 2})))
    });
    let replies = block_on(callbacks.dispatch(&tool_event(HookEvent::PostToolCall, "c1")));
    let values: Vec<_> = replies
        .iter()
        .map(|r| (&*r.source, r.value.clone()))
        .collect();
    assert_eq!(
        values,
        vec![
            ("plugin:first", json!("one")),
            ("plugin:second", json!({"n": 2}))
        ]
    );
}

#[test]
fn callbacks_receive_the_payload() {
    let callbacks = Callbacks::new(settings(0));
    callbacks.register("on_session_finalize", "p", |event: &Event| {
        Ok(event.get("session_id").cloned())
    });
    let event = Event::from_json(HookEvent::OnSessionFinalize, json!({"session_id": "s-9"}));
    let replies = block_on(callbacks.dispatch(&event));
    assert_eq!(replies[0].value, json!("s-9"));
}

#[test]
fn unknown_hook_name_warns_and_is_still_called() {
    capture_logs();
    let callbacks = Callbacks::new(settings(0));
    callbacks.register("on_banana", "fruity", |_: &Event| Ok(Some(json!("peeled"))));
    let warned = warnings("registered unknown hook 'on_banana'");
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains(
            "Plugin 'fruity' registered unknown hook 'on_banana' (valid: agent_loop_stopped, api_request_error, "
        ),
        "{}",
        warned[0]
    );
    let replies = block_on(callbacks.dispatch(&Event::from_json("on_banana", json!({}))));
    assert_eq!(replies[0].value, json!("peeled"));
}

#[test]
fn interest_follows_registration_and_the_bus_sees_it() {
    let callbacks = Callbacks::new(settings(0));
    let hooks = Hooks::builder().with_shared(callbacks.clone()).build();
    let pre_api = EventName::Hook(HookEvent::PreApiRequest);
    assert!(!callbacks.has(&pre_api));
    assert!(!hooks.is_hooked(HookEvent::PreApiRequest));
    let id = callbacks.register("pre_api_request", "obs", |_: &Event| Ok(None));
    callbacks.register("api_request_error", "obs", |_: &Event| Ok(None));
    callbacks.register("api_request_error", "other", |_: &Event| Ok(None));
    assert!(callbacks.has(&pre_api));
    assert!(callbacks.interest(&pre_api));
    assert!(hooks.is_hooked(HookEvent::PreApiRequest));
    assert!(!hooks.is_hooked(HookEvent::PostApiRequest));

    assert!(callbacks.unregister(id));
    assert!(!callbacks.unregister(id));
    assert!(!hooks.is_hooked(HookEvent::PreApiRequest));
    assert_eq!(callbacks.unregister_owner("obs"), 1);
    assert!(hooks.is_hooked(HookEvent::ApiRequestError));
    assert_eq!(callbacks.unregister_owner("other"), 1);
    assert!(!hooks.is_hooked(HookEvent::ApiRequestError));
}

#[test]
fn gateway_and_private_names_are_separate_events() {
    let callbacks = Callbacks::new(settings(0));
    callbacks.register("memory_prefetch", "p", |_: &Event| Ok(Some(json!(1))));
    assert!(callbacks.has(&EventName::parse("memory_prefetch")));
    assert!(!callbacks.has(&EventName::parse("memory_flush")));
    assert!(block_on(callbacks.dispatch(&Event::from_json("memory_flush", json!({})))).is_empty());
}

#[test]
fn async_callbacks_are_awaited_alongside_sync_ones() {
    let callbacks = Callbacks::new(settings(2_000));
    for event in ["on_session_finalize", "post_llm_call"] {
        callbacks.register(event, "sync", |_: &Event| Ok(Some(json!("sync"))));
        callbacks.register_async(event, "async", |event: Event| {
            async move { Ok(Some(json!(format!("async {}", event.name())))) }.boxed()
        });
    }
    let inline =
        block_on(callbacks.dispatch(&Event::from_json(HookEvent::OnSessionFinalize, json!({}))));
    assert_eq!(inline[1].value, json!("async on_session_finalize"));
    let bounded =
        block_on(callbacks.dispatch(&Event::from_json(HookEvent::PostLlmCall, json!({}))));
    assert_eq!(
        bounded.iter().map(|r| r.value.clone()).collect::<Vec<_>>(),
        vec![json!("sync"), json!("async post_llm_call")]
    );
}

#[test]
fn async_bounded_callback_can_use_the_callers_tokio_runtime() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let callbacks = Callbacks::new(settings(5_000));
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    callbacks.register_async("post_tool_call", "sleepy", move |_event: Event| {
        let counter = counter.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(Some(json!("slept")))
        }
        .boxed()
    });
    let hooks = Hooks::builder().with_shared(callbacks).build();
    let replies = runtime.block_on(hooks.collect(&tool_event(HookEvent::PostToolCall, "t1")));
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].value, json!("slept"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
