//! Python plugins through the worker: a `pre_tool_call` round trip (the
//! rm-guard example) and streaming deltas per second through a Python
//! `on_stream_delta` observer, both through hooks-core `Callbacks` as a host
//! fires them; and the floor, a minimal one-thread Python echo worker over a
//! pipe driven from Rust with a line of the same size: from the bench thread
//! with blocking std pipes (`echo_floor_round_trip`), and through the same
//! `LineWorker::spawn_direct` request path (write, `poll(2)`, read, decode
//! the answer) as `PythonHost::call_payload`, with the request encoded once
//! (`echo_floor_line_worker_round_trip`, the honest floor). When the reference is installed (`HERMES_REFERENCE_PYTHON`:
//! a venv with hermes-agent 0.19.0), the same plugin files are timed in its
//! in-process `PluginManager.invoke_hook` in the same run
//! (`benches/reference/python_plugin.py`).
//!
//! After the observer batches it prints the agent's thread time per delta
//! (in `dispatch` and in `flush`, and how many flushes returned at
//! hooks-core's first 1 ms look again) and runs paced streams: 200,000
//! deltas at a set rate in bursts, one flush, how many were observed.
//!
//! `cargo bench -p hermes-hooks-plugin --bench python`

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::prompt::PromptSections;
use hermes_hooks_core::{Config, Dispatcher, Event, HookEvent};
use hermes_hooks_plugin::{DiscoverOptions, register_plugins_with};
use serde_json::json;

/// Deltas sent per measured batch (below the observer queue's 1024, so none is dropped).
const BATCH: u64 = 1000;
/// hooks-core's `flush` looks at the queues again every 1 ms: a flush that
/// took less than this returned at its first look after the one that found
/// events still running.
const FIRST_RELOOK: Duration = Duration::from_micros(1500);

const COUNTER: &str = r#"
count = 0
def on_delta(delta, kind, **kwargs):
    global count
    count += 1
def total(**kwargs):
    return {"context": str(count)}
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
    ctx.register_hook("pre_llm_call", total)
"#;

fn home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join(".hermes");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python-plugins/rm-guard");
    let guard = home.join("plugins/rm-guard");
    let counter = home.join("plugins/delta-counter");
    for folder in [&guard, &counter] {
        std::fs::create_dir_all(folder).expect("mkdir");
    }
    for file in ["plugin.yaml", "__init__.py"] {
        std::fs::copy(example.join(file), guard.join(file)).expect("copy the example");
    }
    std::fs::write(counter.join("plugin.yaml"), "name: delta-counter\n").expect("write");
    std::fs::write(counter.join("__init__.py"), COUNTER).expect("write");
    std::fs::write(
        home.join("config.yaml"),
        "plugins:\n  enabled: [rm-guard, delta-counter]\n",
    )
    .expect("write config");
    (dir, home)
}

fn tool_call(command: &str, call: u64) -> Event {
    Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": command}, "task_id": "task-1",
               "session_id": "sess-1", "tool_call_id": format!("call-{call}"), "turn_id": "turn-1",
               "api_request_id": "req-1", "middleware_trace": []}),
    )
}

fn delta() -> Event {
    Event::from_json(
        HookEvent::OnStreamDelta,
        json!({"delta": "tok ", "kind": "text", "turn_id": "turn-1", "iteration": 1,
               "session_id": "sess-1", "model": "m", "provider": "p", "surface": "cli"}),
    )
}

fn bench_python(c: &mut Criterion) {
    let (_dir, home) = home();
    let config = Config::load(&home).expect("config");
    let callbacks: Arc<Callbacks> = Callbacks::new(PluginSettings::default());
    let registration = register_plugins_with(
        &home,
        &config,
        DiscoverOptions::default(),
        &callbacks,
        &PromptSections::new(),
    );
    assert!(
        registration.warnings.is_empty(),
        "{:?}",
        registration.warnings
    );
    if let Some(interpreter) = &registration.interpreter {
        eprintln!("Python plugins run with {interpreter}");
    }
    let mut group = c.benchmark_group("python_plugin");
    let python = registration
        .interpreter
        .as_ref()
        .and_then(|status| status.executable.clone())
        .map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    echo_floor(&mut group, &python);
    echo_floor_line_worker(&mut group, &python);
    host_round_trip(&mut group, &home, &registration);
    let mut call = 0;
    group.bench_function("pre_tool_call_allowed_round_trip", |b| {
        b.iter(|| {
            call += 1;
            black_box(futures::executor::block_on(
                callbacks.dispatch(&tool_call("ls -la", call)),
            ))
        })
    });
    group.bench_function("pre_tool_call_blocked_round_trip", |b| {
        b.iter(|| {
            call += 1;
            black_box(futures::executor::block_on(
                callbacks.dispatch(&tool_call("rm -rf /", call)),
            ))
        })
    });
    group.throughput(Throughput::Elements(BATCH));
    let delta = delta();
    let mut sent = 0u64;
    // The agent's thread: time in `dispatch` (the emit) and in `flush`, and
    // how many flushes returned at the core's first look again.
    let (mut emitting, mut flushing) = (Duration::ZERO, Duration::ZERO);
    let (mut flushes, mut quick) = (0u64, 0u64);
    group.bench_function("on_stream_delta_observer_batch", |b| {
        b.iter_custom(|iterations| {
            let started = Instant::now();
            for _ in 0..iterations {
                let emit = Instant::now();
                for _ in 0..BATCH {
                    black_box(futures::executor::block_on(callbacks.dispatch(&delta)));
                }
                let flush = Instant::now();
                futures::executor::block_on(callbacks.flush(Duration::from_secs(60)));
                let flushed = flush.elapsed();
                emitting += flush - emit;
                flushing += flushed;
                flushes += 1;
                quick += u64::from(flushed < FIRST_RELOOK);
            }
            sent += iterations * BATCH;
            started.elapsed()
        })
    });
    group.finish();
    let counted = observed(&callbacks);
    eprintln!("deltas sent: {sent}, observed by the plugin: {counted:?}");
    if sent > 0 {
        let per = |total: Duration| total.as_nanos() as f64 / sent as f64;
        eprintln!(
            "the agent's thread per delta: {:.0} ns in dispatch (the emit), {:.0} ns in flush; \
             {quick} of {flushes} flushes returned within {} µs (at the core's first look again)",
            per(emitting),
            per(flushing),
            FIRST_RELOOK.as_micros()
        );
        paced_streams(&callbacks, &delta);
    }
    reference_baseline(&home);
}

/// How many deltas the counting plugin has seen (a `pre_llm_call` round trip).
fn observed(callbacks: &Callbacks) -> Option<u64> {
    let total = futures::executor::block_on(
        callbacks.dispatch(&Event::from_json(HookEvent::PreLlmCall, json!({}))),
    );
    total
        .first()
        .and_then(|reply| reply.value["context"].as_str())
        .and_then(|text| text.parse::<u64>().ok())
}

/// Deltas per paced stream, and per burst of it.
const STREAM: u64 = 200_000;
const BURST: u64 = 250;

/// A stream emitted at a set average rate in bursts (as a model's tokens
/// come in network reads: [`BURST`] deltas back to back, then the agent's
/// thread sleeps until the next burst is due), then one flush: how many the
/// plugin observed, and how many were dropped because the pipeline fell
/// more than its bound behind. Unlike the batches above, there is no flush
/// every 1,000 deltas, so hooks-core's 1 ms flush poll does not set the rate.
fn paced_streams(callbacks: &Callbacks, delta: &Event) {
    for rate in [500_000u64, 750_000, 1_000_000, 1_250_000] {
        let before = observed(callbacks).unwrap_or(0);
        let slot = Duration::from_nanos(1_000_000_000 * BURST / rate);
        let started = Instant::now();
        for burst in 0..STREAM / BURST {
            if let Some(early) = (slot * burst as u32).checked_sub(started.elapsed()) {
                std::thread::sleep(early);
            }
            for _ in 0..BURST {
                black_box(futures::executor::block_on(callbacks.dispatch(delta)));
            }
        }
        let emitted = started.elapsed();
        futures::executor::block_on(callbacks.flush(Duration::from_secs(60)));
        let flushed = started.elapsed();
        let seen = observed(callbacks).unwrap_or(0).saturating_sub(before);
        eprintln!(
            "paced stream at {rate}/s: {STREAM} deltas emitted in {:.1} ms ({:.0}/s), flushed at {:.1} ms; {seen} observed ({:.0}/s until flushed), {} dropped",
            emitted.as_secs_f64() * 1e3,
            STREAM as f64 / emitted.as_secs_f64(),
            flushed.as_secs_f64() * 1e3,
            seen as f64 / flushed.as_secs_f64(),
            STREAM.saturating_sub(seen)
        );
    }
}

/// A minimal Python echo worker: one thread, one line in, the same line out.
const ECHO: &str = "import sys\nr, w = sys.stdin.buffer, sys.stdout.buffer\nfor line in iter(r.readline, b''):\n    w.write(line)\n    w.flush()\n";

/// The floor of a round trip: the echo worker, driven from the calling thread
/// with a request line of a `pre_tool_call`'s size (no JSON work on either side).
fn echo_floor(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    python: &Path,
) {
    let mut child = Command::new(python)
        .arg("-c")
        .arg(ECHO)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the echo worker");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let payload = tool_call("ls -la", 1);
    let body = json!({"id": 1, "op": "call", "callback": "rm-guard:pre_tool_call:check",
                      "event": "pre_tool_call", "payload": payload.payload()});
    let mut request = serde_json::to_vec(&body).expect("encode");
    request.push(b'\n');
    let mut answer = Vec::new();
    group.bench_function("echo_floor_round_trip", |b| {
        b.iter(|| {
            input.write_all(&request).expect("write");
            input.flush().expect("flush");
            answer.clear();
            output.read_until(b'\n', &mut answer).expect("read");
            black_box(answer.len())
        })
    });
    drop(input);
    let _ = child.wait();
}

/// The echo worker of the line protocol: its ready line, then each request
/// line back as is (it carries the id the answer must repeat).
const LINE_ECHO: &str = "import sys\nr, w = sys.stdin.buffer, sys.stdout.buffer\nw.write(b'{\"id\": 0, \"ready\": true}\\n')\nw.flush()\nfor line in iter(r.readline, b''):\n    w.write(line)\n    w.flush()\n";

/// The honest floor: the echo worker through the direct `LineWorker` a
/// Python plugin call uses (the same encode, write, wait, read and decode;
/// the same wake-up pattern), with the same request body.
fn echo_floor_line_worker(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    python: &Path,
) {
    use hermes_hooks_process::{LineOptions, LineWorker};
    let mut command = tokio::process::Command::new(python);
    command.arg("-c").arg(LINE_ECHO);
    let worker = LineWorker::spawn_direct(command, LineOptions::new("echo"), |line, _| {
        eprintln!("echo worker: {line}")
    })
    .expect("start the echo worker");
    worker
        .wait_ready(Duration::from_secs(30))
        .expect("the echo worker is ready");
    let payload = tool_call("ls -la", 1);
    let body = json!({"op": "call", "callback": "rm-guard:pre_tool_call:check",
                      "event": "pre_tool_call", "payload": payload.payload()});
    // Encoded once: the floor is the transport (our call encodes its payload each time).
    let object = serde_json::to_vec(&body).expect("encode");
    group.bench_function("echo_floor_line_worker_round_trip", |b| {
        b.iter(|| {
            black_box(
                worker
                    .request_encoded(&object, Duration::from_secs(30))
                    .expect("an echo"),
            )
        })
    });
}

/// The worker alone: `PythonHost::call_payload` on the calling thread, without
/// the core's bounded hand-off (a second worker of the same home).
fn host_round_trip(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    home: &Path,
    registration: &hermes_hooks_plugin::PluginRegistration,
) {
    let Some(interpreter) = registration.interpreter.as_ref() else {
        return;
    };
    let host = hermes_hooks_plugin::PythonHost::start(home, interpreter.interpreter.clone())
        .expect("a second worker");
    let guard = home.join("plugins/rm-guard");
    let spec = hermes_hooks_plugin::python::PluginSpec::directory(
        "rm-guard",
        "rm_guard",
        "user",
        guard.display().to_string(),
    );
    let report = host.load(&spec).expect("loads");
    let callback = report.hooks[0].callback.clone();
    let event = tool_call("ls -la", 1);
    group.bench_function("python_host_call_allowed_no_core_handoff", |b| {
        b.iter(|| black_box(host.call_payload(&callback, "pre_tool_call", event.payload())))
    });
}

/// Times the same plugin files in the reference's in-process `invoke_hook`.
fn reference_baseline(home: &Path) {
    let python = std::env::var_os("HERMES_REFERENCE_PYTHON").map_or_else(
        || PathBuf::from("(HERMES_REFERENCE_PYTHON is not set)"),
        PathBuf::from,
    );
    if !python.is_file() {
        eprintln!("reference baseline skipped: {} not found", python.display());
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/reference/python_plugin.py");
    match std::process::Command::new(&python)
        .arg(script)
        .arg(home)
        .output()
    {
        Ok(output) => {
            eprint!("{}", String::from_utf8_lossy(&output.stdout));
            if !output.status.success() {
                eprint!("{}", String::from_utf8_lossy(&output.stderr));
            }
        }
        Err(error) => eprintln!("reference baseline failed to run: {error}"),
    }
}

criterion_group!(benches, bench_python);
criterion_main!(benches);
