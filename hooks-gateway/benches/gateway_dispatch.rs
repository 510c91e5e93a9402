//! What one gateway event costs: an unhooked name, a warm Python worker round
//! trip, and an executable handler spawned per event.
//!
//! Run: `cargo bench -p hooks-gateway --bench gateway_dispatch`.
//! Baseline in the same run: `python3 -c pass` spawned per iteration, the floor
//! of any approach that starts Python per event.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::{Dispatcher, Event};
use hooks_gateway::{GatewayHooks, GatewayOptions};
use serde_json::json;

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
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&handler, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

fn bench(c: &mut Criterion) {
    let home = tempfile::tempdir().expect("temp home");
    write_hook(
        home.path(),
        "py",
        "[agent:step]",
        "handler.py",
        "def handle(event_type, context):\n    return None\n",
    );
    write_hook(
        home.path(),
        "guard",
        "[command:*]",
        "handler",
        "#!/bin/sh\ncat >/dev/null\nprintf '{\"decision\": \"allow\"}\\n'\n",
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let options = GatewayOptions::default().with_handler_timeout(Duration::from_secs(30));
    let (gateway, _) = GatewayHooks::discover(home.path(), options);

    let payload = json!({
        "platform": "telegram", "user_id": "42", "session_id": "s-1",
        "iteration": 3, "tool_names": ["terminal", "read_file"],
    });
    let step = Event::from_json("agent:step", payload.clone());
    let unhooked = Event::from_json("session:reset", payload);
    let command = Event::from_json("command:model", json!({"command": "model", "args": "gpt"}));

    let mut group = c.benchmark_group("gateway");
    group.bench_function("unhooked_event_interest", |b| {
        b.iter(|| black_box(gateway.interest(black_box(unhooked.name()))))
    });
    group.bench_function("python_worker_round_trip", |b| {
        b.iter(|| runtime.block_on(gateway.dispatch(black_box(&step))))
    });
    group.sample_size(30);
    group.bench_function("executable_handler_per_event", |b| {
        b.iter(|| runtime.block_on(gateway.dispatch(black_box(&command))))
    });
    group.sample_size(20);
    group.bench_function("baseline_spawn_python3_c_pass", |b| {
        b.iter(|| {
            Command::new(GatewayOptions::default().resolved_python())
                .args(["-c", "pass"])
                .stdout(Stdio::null())
                .status()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
