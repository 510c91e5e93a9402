//! What gateway events cost: an unhooked name, events per second through a
//! warm `handler.py` worker (queued, then flushed), one awaited round trip
//! (`command:*`), an executable handler spawned per event, and, in the same
//! run, the floor of starting Python per event (`python3` reading the event
//! JSON from stdin and answering).
//!
//! Run: `cargo bench -p hermes-hooks-gateway --bench gateway_dispatch`.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hermes_hooks_core::{Dispatcher, Event};
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
use serde_json::json;

/// Events per throughput sample.
const BATCH: u64 = 200;

const HANDLER: &str = "def handle(event_type, context):\n    return {'seen': event_type}\n";

fn write_hook(home: &Path, name: &str, events: &str, file: &str, body: &str) {
    let dir = home.join("hooks").join(name);
    std::fs::create_dir_all(&dir).expect("hook dir");
    std::fs::write(
        dir.join("HOOK.yaml"),
        format!("name: {name}\nevents: {events}\n"),
    )
    .expect("HOOK.yaml");
    let handler = dir.join(file);
    std::fs::write(&handler, body).expect("handler");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&handler, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn bench(c: &mut Criterion) {
    let home = tempfile::tempdir().expect("temp home");
    write_hook(
        home.path(),
        "py",
        "[agent:step, command:status]",
        "handler.py",
        HANDLER,
    );
    write_hook(
        home.path(),
        "guard",
        "[command:model]",
        "handler",
        "#!/bin/sh\ncat >/dev/null\nprintf '{\"decision\": \"allow\"}\\n'\n",
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let options = GatewayOptions::default()
        .with_handler_timeout(Duration::from_secs(30))
        .with_queue_size(usize::try_from(BATCH).unwrap_or(256) * 2);
    let python = options.python_interpreter();
    eprintln!("python: {python}");
    let (gateway, _) = GatewayHooks::discover(home.path(), options);

    let payload = json!({
        "platform": "telegram", "user_id": "42", "session_id": "s-1",
        "iteration": 3, "tool_names": ["terminal", "read_file"],
    });
    let step = Event::from_json("agent:step", payload.clone());
    let unhooked = Event::from_json("session:reset", payload.clone());
    let py_command = Event::from_json("command:status", json!({"command": "status"}));
    let exe_command = Event::from_json("command:model", json!({"command": "model", "args": "gpt"}));
    let step_line =
        serde_json::to_vec(&json!({"event_type": "agent:step", "context": payload})).expect("json");

    let mut group = c.benchmark_group("gateway");
    group.bench_function("unhooked_event_interest", |b| {
        b.iter(|| black_box(gateway.interest(black_box(unhooked.name()))))
    });
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(20);
    group.bench_function("handler_py_events_queued_and_flushed", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..BATCH {
                    gateway.dispatch(black_box(&step)).await;
                }
                gateway.flush(Duration::from_secs(60)).await;
            })
        })
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("handler_py_command_round_trip", |b| {
        b.iter(|| runtime.block_on(gateway.dispatch(black_box(&py_command))))
    });
    group.bench_function("executable_handler_per_event", |b| {
        b.iter(|| runtime.block_on(gateway.dispatch(black_box(&exe_command))))
    });
    group.bench_function("baseline_python3_started_per_event", |b| {
        b.iter(|| {
            let mut child = Command::new(&python.program)
                .args([
                    "-c",
                    "import json, sys; print(json.dumps(json.load(sys.stdin)['event_type']))",
                ])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .expect("python");
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(&step_line);
            }
            child.wait()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
