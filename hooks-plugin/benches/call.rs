//! The cost of one call into a native plugin (the example fixture), end to
//! end: payload serialisation, the FFI call, the copy and parse of the reply.
//!
//! `cargo bench -p hooks-plugin --bench call`

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::{Event, HookEvent};
use hooks_plugin::NativePlugin;
use serde_json::json;

// The fixture build helpers of the integration tests; the bench uses some only.
#[allow(dead_code)]
#[path = "../tests/it/support.rs"]
mod support;

/// The kwargs the reference passes to `pre_tool_call` callbacks.
fn pre_tool_call_payload(tool: &str) -> serde_json::Value {
    json!({
        "tool_name": tool,
        "args": {"path": "notes/todo.md", "content": "- buy milk\n- write benchmarks\n"},
        "task_id": "task-1",
        "session_id": "20260101_120000_abcd",
        "tool_call_id": "call_0123456789",
        "turn_id": "turn-7",
        "api_request_id": "req-42",
        "middleware_trace": [],
    })
}

fn bench_calls(c: &mut Criterion) {
    let plugin = match NativePlugin::load(support::example_library_release()) {
        Ok(plugin) => plugin,
        Err(error) => panic!("example plugin does not load: {error}"),
    };
    let allow = Event::from_json(HookEvent::PreToolCall, pre_tool_call_payload("read_file"));
    let modify = Event::from_json(HookEvent::PreToolCall, pre_tool_call_payload("write_file"));
    let mut observed = pre_tool_call_payload("write_file");
    observed["result"] = json!("{\"ok\": true}");
    observed["status"] = json!("ok");
    observed["duration_ms"] = json!(3);
    let observer = Event::from_json(HookEvent::PostToolCall, observed);
    let context = Event::from_json(HookEvent::PreLlmCall, json!({"user_message": "hi"}));

    let mut group = c.benchmark_group("native_plugin_call");
    group.bench_function("pre_tool_call_no_reply", |b| {
        b.iter(|| black_box(plugin.call(black_box(&allow))))
    });
    group.bench_function("pre_tool_call_modify_reply", |b| {
        b.iter(|| black_box(plugin.call(black_box(&modify))))
    });
    group.bench_function("post_tool_call_observer", |b| {
        b.iter(|| black_box(plugin.call(black_box(&observer))))
    });
    group.bench_function("pre_llm_call_context_reply", |b| {
        b.iter(|| black_box(plugin.call(black_box(&context))))
    });
    let payload = serde_json::to_vec(allow.payload()).unwrap_or_default();
    group.bench_function("call_json_preserialised_no_reply", |b| {
        b.iter(|| black_box(plugin.call_json("pre_tool_call", black_box(&payload))))
    });
    group.finish();
}

criterion_group!(benches, bench_calls);
criterion_main!(benches);
