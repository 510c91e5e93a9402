//! The hook document to JSON bytes: the owned map (`hook_document`, copying the
//! payload, then `serde_json`) against the borrowed serialiser
//! (`write_hook_document`, no copy).
//!
//! Run: `cargo bench -p hermes-hooks-core --bench wire -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use hermes_hooks_core::wire::{WireContext, hook_document, write_hook_document};
use hermes_hooks_core::{Event, HookEvent};
use serde_json::{Value, json};

fn context() -> WireContext {
    WireContext::new("/home/user/project", "default")
}

/// Payloads of increasing size: a small session event, a ~1 KB tool call, a ~16 KB one.
fn events() -> Vec<(&'static str, Event)> {
    let tool_call = |result_len: usize| {
        Event::from_json(
            HookEvent::PostToolCall,
            json!({"tool_name": "terminal", "args": {"command": "ls -la /work/project/src", "timeout": 60},
                   "result": "x".repeat(result_len), "session_id": "sess_abc123", "task_id": "task_1",
                   "tool_call_id": "call_0123456789", "duration_ms": 42}),
        )
    };
    vec![
        (
            "session_end",
            Event::from_json(
                HookEvent::OnSessionEnd,
                json!({"session_id": "sess_abc123", "completed": true, "interrupted": false,
                       "model": "m", "platform": "cli"}),
            ),
        ),
        ("tool_call_1k", tool_call(700)),
        ("tool_call_16k", tool_call(16_000)),
    ]
}

fn serialise(criterion: &mut Criterion) {
    let context = context();
    let mut group = criterion.benchmark_group("hook document to bytes");
    for (name, event) in events() {
        group.bench_with_input(BenchmarkId::new("owned map", name), &event, |b, event| {
            b.iter(|| serde_json::to_vec(&Value::Object(hook_document(black_box(event), &context))))
        });
        group.bench_with_input(BenchmarkId::new("borrowed", name), &event, |b, event| {
            b.iter(|| {
                let mut out = Vec::new();
                let written = write_hook_document(black_box(event), &context, &mut out);
                (written, out)
            })
        });
        group.bench_with_input(
            BenchmarkId::new("borrowed, reused buffer", name),
            &event,
            |b, event| {
                let mut out = Vec::new();
                b.iter(|| {
                    out.clear();
                    write_hook_document(black_box(event), &context, &mut out)
                })
            },
        );
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    serialise(&mut criterion);
    criterion.final_summary();
}
