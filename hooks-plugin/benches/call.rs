//! The cost of calling into a native plugin built on `hermes-hooks-plugin-sdk`
//! (the examples, release build):
//!
//! - `native_plugin_call`: one `NativePlugin::call`, end to end: payload
//!   serialisation, the FFI call, the SDK's typed decode, the copy and parse
//!   of the reply.
//! - `payload_decode`: the plugin's decode of the same payload alone: the
//!   SDK's typed decode (fresh, and in place as it is done now) against
//!   serde_json skimming the text (its floor).
//! - `pre_tool_call_round_trip`: a `pre_tool_call` through the `Hooks` bus
//!   and the in-process callback registry, as a host fires it, with one
//!   guard that allows the call: the native `plugin-guard` registered the way
//!   hooks-cli registers plugins, next to the same guard as a Rust closure.
//!
//! `cargo bench -p hermes-hooks-plugin --bench call -- --warm-up-time 1 --measurement-time 3`

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_hooks_callbacks::{CallbackError, Callbacks};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::payloads::{HookPayload, PreToolCall};
use hermes_hooks_core::{Event, HookEvent, Hooks};
use hermes_hooks_plugin::NativePlugin;
use serde_json::{Value, json};

// The fixture build helpers of the integration tests; the bench uses some only.
#[allow(dead_code)]
#[path = "../tests/it/support.rs"]
mod support;

/// The kwargs the reference passes to `pre_tool_call` callbacks.
fn pre_tool_call_payload(tool: &str, command: &str) -> Value {
    json!({
        "tool_name": tool,
        "args": {"command": command},
        "task_id": "task-1",
        "session_id": "20260101_120000_abcd",
        "tool_call_id": "call_0123456789",
        "turn_id": "turn-7",
        "api_request_id": "req-42",
        "middleware_trace": [],
    })
}

fn load(package: &str) -> Arc<NativePlugin> {
    match NativePlugin::load(&support::example_library_release(package)) {
        Ok(plugin) => Arc::new(plugin),
        Err(error) => panic!("{package} does not load: {error}"),
    }
}

fn bench_calls(c: &mut Criterion) {
    let guard = load("plugin-guard");
    let context = load("plugin-context");
    let redactor = load("plugin-redactor");
    let allow = Event::from_json(
        HookEvent::PreToolCall,
        pre_tool_call_payload("terminal", "ls -la"),
    );
    let block = Event::from_json(
        HookEvent::PreToolCall,
        pre_tool_call_payload("terminal", "rm -rf /"),
    );
    let mut transformed = pre_tool_call_payload("terminal", "env");
    transformed["result"] = json!(format!("OPENAI_API_KEY=sk-{}\nHOME=/root", "x".repeat(40)));
    let transform = Event::from_json(HookEvent::TransformToolResult, transformed);
    let llm = Event::from_json(
        HookEvent::PreLlmCall,
        json!({"user_message": "tidy the build dir"}),
    );

    let mut group = c.benchmark_group("native_plugin_call");
    group.bench_function("pre_tool_call_no_reply", |b| {
        b.iter(|| black_box(guard.call(black_box(&allow))))
    });
    group.bench_function("pre_tool_call_block_reply", |b| {
        b.iter(|| black_box(guard.call(black_box(&block))))
    });
    group.bench_function("transform_tool_result_redacted", |b| {
        b.iter(|| black_box(redactor.call(black_box(&transform))))
    });
    group.bench_function("pre_llm_call_context_reply", |b| {
        b.iter(|| black_box(context.call(black_box(&llm))))
    });
    let payload = serde_json::to_vec(allow.payload()).unwrap_or_default();
    group.bench_function("call_json_preserialised_no_reply", |b| {
        b.iter(|| black_box(guard.call_json("pre_tool_call", black_box(&payload))))
    });
    group.finish();

    // The plugin side alone, on the same payload: the SDK's decode before
    // (a fresh struct from bytes), now (in place, from text), and serde_json
    // skimming the text without building anything (the floor of a decode).
    let mut group = c.benchmark_group("payload_decode");
    group.bench_function("floor_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&payload)).is_ok())
    });
    group.bench_function("fresh_from_slice", |b| {
        b.iter(|| black_box(serde_json::from_slice::<PreToolCall>(black_box(&payload)).is_ok()))
    });
    let mut place = PreToolCall::default();
    group.bench_function("in_place_from_str", |b| {
        b.iter(|| {
            let text = std::str::from_utf8(black_box(&payload)).unwrap_or_default();
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let decoded = PreToolCall::decode_in_place(&mut deserializer, &mut place)
                .and_then(|()| deserializer.end());
            black_box((decoded.is_ok(), &place));
        })
    });
    group.finish();
}

fn settings(timeout: Option<Duration>) -> PluginSettings {
    PluginSettings::default()
        .with_callback_timeout(timeout)
        .with_stream_reasoning_deltas(false)
}

/// A bus whose only callback is the native guard, registered as hooks-cli does.
fn native_bus(plugin: &Arc<NativePlugin>, timeout: Option<Duration>) -> Hooks {
    let callbacks = Callbacks::new(settings(timeout));
    let plugin = Arc::clone(plugin);
    callbacks.register("pre_tool_call", "plugin-guard", move |event: &Event| {
        plugin
            .call(event)
            .map_err(|error| CallbackError::new("PluginError", error.to_string()))
    });
    Hooks::builder().with_shared(callbacks).build()
}

/// The same guard as a Rust closure.
fn closure_bus(timeout: Option<Duration>) -> Hooks {
    let callbacks = Callbacks::new(settings(timeout));
    callbacks.register("pre_tool_call", "guard", |event: &Event| {
        let command = event
            .get("args")
            .and_then(|args| args.get("command"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(
            (event.tool_name() == Some("terminal") && command.contains("rm -rf"))
                .then(|| json!({"action": "block", "message": format!("refusing `{command}`")})),
        )
    });
    Hooks::builder().with_shared(callbacks).build()
}

fn bench_round_trip(c: &mut Criterion) {
    let guard = load("plugin-guard");
    let event = Event::from_json(
        HookEvent::PreToolCall,
        pre_tool_call_payload("terminal", "ls -la"),
    );
    let mut group = c.benchmark_group("pre_tool_call_round_trip");
    for (label, timeout) in [
        ("timeout-30s", Some(Duration::from_secs(30))),
        ("timeout-off", None),
    ] {
        let closure = closure_bus(timeout);
        group.bench_function(format!("rust-closure/{label}"), |b| {
            b.iter(|| futures::executor::block_on(closure.collect(black_box(&event))))
        });
        let native = native_bus(&guard, timeout);
        group.bench_function(format!("native-plugin/{label}"), |b| {
            b.iter(|| futures::executor::block_on(native.collect(black_box(&event))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_calls, bench_round_trip);
criterion_main!(benches);
