//! Pipelined Python observers: queued events reach the worker without a
//! round trip, yet `flush` and `shutdown` still wait until they ran, in
//! order per callback; their failures and drops reach warnings.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::Dispatcher;
use serde_json::json;

use crate::python::{fire, options, python_available, python_plugin, register};
use crate::support::Home;

/// Generous: the machine is shared.
const BOUND: Duration = Duration::from_secs(60);

/// An observer that is a little slow (so events pile up in the worker), and
/// a `pre_llm_call` hook that says what it saw, in order.
const OBSERVER: &str = r#"
import os, time
HERE = os.path.dirname(__file__)
seen = []
def on_delta(delta, **kwargs):
    if delta == "boom":
        raise ValueError("observer-boom-7f3a")
    if delta == "hang":
        time.sleep(120)
    time.sleep(0.0005)
    seen.append(delta)
    with open(os.path.join(HERE, "seen.txt"), "a") as f:
        f.write(delta + "\n")
def total(**kwargs):
    return {"context": ",".join(seen)}
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
    ctx.register_hook("pre_llm_call", total)
"#;

fn delta(text: &str) -> serde_json::Value {
    json!({"delta": text, "kind": "text", "turn_id": "t", "iteration": 1})
}

/// Every warning any thread logs in this test binary (set up once).
/// Flushes, then asks the plugin's `pre_llm_call` hook for what it recorded
/// (a JSON document in its context reply; `null` when there is none).
fn context_after_flush(callbacks: &Callbacks) -> serde_json::Value {
    futures::executor::block_on(callbacks.flush(BOUND));
    let replies = fire(callbacks, "pre_llm_call", json!({}));
    let context = replies
        .first()
        .and_then(|reply| reply["context"].as_str())
        .unwrap_or("{}");
    serde_json::from_str(context).unwrap_or_default()
}

fn logs() -> Arc<Mutex<Vec<u8>>> {
    static BUFFER: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    Arc::clone(BUFFER.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&buffer);
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || Writer(Arc::clone(&sink)))
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    }))
}

fn logged_text() -> String {
    let bytes = logs().lock().map(|b| b.clone()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

struct Writer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Writer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut buffer) = self.0.lock() {
            buffer.extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn flush_waits_until_the_worker_ran_every_observer_event_in_order() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "counter", OBSERVER);
    let loaded = register(
        &home,
        "plugins: {enabled: [counter]}",
        options(),
        Some(30.0),
    );
    let sent: Vec<String> = (0..300).map(|n| format!("d{n}")).collect();
    for text in &sent {
        assert!(fire(&loaded.callbacks, "on_stream_delta", delta(text)).is_empty());
    }
    futures::executor::block_on(loaded.callbacks.flush(BOUND));
    let replies = fire(&loaded.callbacks, "pre_llm_call", json!({}));
    assert_eq!(replies, [json!({"context": sent.join(",")})]);
}

#[test]
fn shutdown_drains_the_observer_events_the_worker_was_posted() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let dir = python_plugin(&home, "counter", OBSERVER);
    let loaded = register(
        &home,
        "plugins: {enabled: [counter]}",
        options(),
        Some(30.0),
    );
    for n in 0..200 {
        fire(
            &loaded.callbacks,
            "on_stream_delta",
            delta(&format!("s{n}")),
        );
    }
    assert!(loaded.callbacks.shutdown(BOUND), "drained");
    let seen = std::fs::read_to_string(dir.join("seen.txt")).unwrap_or_default();
    assert_eq!(seen.lines().count(), 200, "{seen}");
}

#[test]
fn observer_failures_reach_warnings() {
    if !python_available() {
        return;
    }
    logs();
    let home = Home::new();
    python_plugin(&home, "boomer", OBSERVER);
    let loaded = register(&home, "plugins: {enabled: [boomer]}", options(), Some(30.0));
    fire(&loaded.callbacks, "on_stream_delta", delta("boom"));
    fire(&loaded.callbacks, "on_stream_delta", delta("after"));
    futures::executor::block_on(loaded.callbacks.flush(BOUND));
    let text = logged_text();
    assert!(
        text.lines()
            .any(|line| line.contains("boomer:on_stream_delta:on_delta")
                && line.contains("observer-boom-7f3a")),
        "{text}"
    );
    // The callback keeps running after a failure.
    let replies = fire(&loaded.callbacks, "pre_llm_call", json!({}));
    assert_eq!(replies, [json!({"context": "after"})]);
}

#[test]
fn a_callback_with_too_many_events_in_flight_drops_and_says_so() {
    if !python_available() {
        return;
    }
    logs();
    let home = Home::new();
    python_plugin(&home, "dropper", OBSERVER);
    let loaded = register(
        &home,
        "plugins: {enabled: [dropper]}",
        options(),
        Some(30.0),
    );
    fire(&loaded.callbacks, "on_stream_delta", delta("hang"));
    for n in 0..12_000 {
        fire(
            &loaded.callbacks,
            "on_stream_delta",
            delta(&format!("x{n}")),
        );
    }
    // The hung observer never settles: flush returns at its bound (returning
    // at all is the proof).
    futures::executor::block_on(loaded.callbacks.flush(Duration::from_millis(500)));
    let text = logged_text();
    assert!(
        text.lines()
            .any(|line| line.contains("dropper:on_stream_delta:on_delta")
                && line.contains("newer ones are dropped")),
        "{text}"
    );
}

/// Records each call's keywords, in order, and mutates a nested value (which
/// must not reach the next call); a second callback takes two named fields.
const RECORDER: &str = r#"
import copy, json
seen = []
narrow = []
def on_delta(**kwargs):
    seen.append(copy.deepcopy(list(kwargs.items())))
    extra = kwargs.get("extra")
    if isinstance(extra, dict):
        extra["mutated"] = True
def named(delta, iteration):
    narrow.append([delta, iteration])
def total(**kwargs):
    return {"context": json.dumps({"seen": seen, "narrow": narrow})}
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
    ctx.register_hook("on_stream_delta", named)
    ctx.register_hook("pre_llm_call", total)
"#;

#[test]
fn an_observer_gets_each_payload_whole_in_its_key_order() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "recorder", RECORDER);
    let loaded = register(
        &home,
        "plugins: {enabled: [recorder]}",
        options(),
        Some(30.0),
    );
    // Runs of the same shape (sent with a template) and other shapes between;
    // enough that the writer batches some (fewer than the core's queue holds).
    let mut sent = Vec::new();
    for n in 0..1000 {
        sent.push(match n % 10 {
            7 => json!({"kind": "text", "delta": format!("d{n}"), "iteration": n}),
            8 => json!({"delta": format!("d{n}"), "iteration": 1,
                        "telemetry_schema_version": "mine"}),
            _ => json!({"delta": if n % 3 == 0 { "same".to_owned() } else { format!("d{n}") },
                        "kind": "text", "iteration": 1, "extra": {"x": n % 2}, "none": null}),
        });
    }
    for payload in &sent {
        assert!(fire(&loaded.callbacks, "on_stream_delta", payload.clone()).is_empty());
    }
    let got = context_after_flush(&loaded.callbacks);
    let expected: Vec<serde_json::Value> = sent
        .iter()
        .map(|payload| {
            let mut pairs: Vec<serde_json::Value> = payload
                .as_object()
                .into_iter()
                .flatten()
                .map(|(key, value)| json!([key, value]))
                .collect();
            if payload.get("telemetry_schema_version").is_none() {
                pairs.push(json!(["telemetry_schema_version", "hermes.observer.v1"]));
            }
            serde_json::Value::from(pairs)
        })
        .collect();
    let seen = got["seen"].as_array().cloned().unwrap_or_default();
    assert_eq!(seen.len(), sent.len());
    let wrong = (0..sent.len()).find(|&n| seen[n] != expected[n]);
    assert_eq!(
        wrong.map(|n| (n, &seen[n], &expected[n])),
        None,
        "call, got, sent"
    );
    let narrow: Vec<serde_json::Value> = sent
        .iter()
        .map(|payload| json!([payload["delta"], payload["iteration"]]))
        .collect();
    assert!(
        got["narrow"] == serde_json::Value::from(narrow),
        "{}",
        got["narrow"]
    );
}

/// Observers of several kinds (a function, a method, a callable object) that
/// change and keep the keywords they got: the next call must not see it.
const KEEPERS: &str = r#"
import json
kept = []
seen = {"function": [], "method": [], "object": []}
def record(kind, kwargs):
    seen[kind].append(kwargs.get("delta"))
    kwargs["delta"] = "changed by " + kind
    kwargs.pop("kind", None)
    kept.append(kwargs)
def function(**kwargs):
    record("function", kwargs)
class Holder:
    def method(self, **kwargs):
        record("method", kwargs)
    def __call__(self, **kwargs):
        record("object", kwargs)
def total(**kwargs):
    return {"context": json.dumps({"seen": seen, "distinct": len(set(map(id, kept))) == len(kept)})}
def register(ctx):
    ctx.register_hook("on_stream_delta", function)
    ctx.register_hook("on_stream_delta", Holder().method)
    ctx.register_hook("on_stream_delta", Holder())
    ctx.register_hook("pre_llm_call", total)
"#;

#[test]
fn a_stream_of_equal_payloads_reaches_callbacks_that_change_and_keep_their_keywords() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "keepers", KEEPERS);
    let loaded = register(
        &home,
        "plugins: {enabled: [keepers]}",
        options(),
        Some(30.0),
    );
    // Mostly payloads equal to the first (sent as empty differences, so the
    // worker may reuse the template), some that differ in between.
    let sent: Vec<String> = (0..600)
        .map(|n| {
            if n % 7 == 3 {
                format!("d{n}")
            } else {
                "same".to_owned()
            }
        })
        .collect();
    for text in &sent {
        let payload = json!({"delta": text, "kind": "text", "turn_id": "t", "iteration": 1});
        assert!(fire(&loaded.callbacks, "on_stream_delta", payload).is_empty());
    }
    let got = context_after_flush(&loaded.callbacks);
    for kind in ["function", "method", "object"] {
        assert_eq!(got["seen"][kind], json!(sent), "{kind}");
    }
    assert_eq!(got["distinct"], json!(true), "each call got its own dict");
}

#[test]
fn an_observer_whose_plugin_name_has_a_percent_sign_is_settled() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let code = "count = 0\ndef on_delta(**kwargs):\n    global count\n    count += 1\ndef total(**kwargs):\n    return {\"context\": str(count)}\ndef register(ctx):\n    ctx.register_hook(\"on_stream_delta\", on_delta)\n    ctx.register_hook(\"pre_llm_call\", total)\n";
    python_plugin(&home, "100%d-sure", code);
    let loaded = register(
        &home,
        "plugins: {enabled: [100%d-sure]}",
        options(),
        Some(30.0),
    );
    for _ in 0..50 {
        assert!(fire(&loaded.callbacks, "on_stream_delta", delta("x")).is_empty());
    }
    // The worker's notices name the callback (with its '%'): flush sees them.
    let started = Instant::now();
    futures::executor::block_on(loaded.callbacks.flush(BOUND));
    // A hang guard: a flush that never saw the worker settle returns only
    // at its bound.
    assert!(started.elapsed() < BOUND, "flush returned at its bound");
    let replies = fire(&loaded.callbacks, "pre_llm_call", json!({}));
    assert_eq!(
        replies.first().map(|reply| &reply["context"]),
        Some(&json!("50"))
    );
}

/// An observer held up by its first event until the test lets it go; it
/// counts the `late` deltas it runs in a file (no round trip reads them).
const HELD: &str = r#"
import os, time
HERE = os.path.dirname(__file__)
def on_delta(delta, **kwargs):
    if delta == "first":
        while not os.path.exists(os.path.join(HERE, "go")):
            time.sleep(0.01)
    if delta == "late":
        with open(os.path.join(HERE, "late.txt"), "a") as f:
            f.write("x")
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
"#;

#[test]
fn a_callback_that_dropped_events_takes_new_ones_once_its_worker_caught_up() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let folder = python_plugin(&home, "held", HELD);
    let loaded = register(&home, "plugins: {enabled: [held]}", options(), Some(30.0));
    fire(&loaded.callbacks, "on_stream_delta", delta("first"));
    // More than the callback may have in flight: the newest are dropped.
    for _ in 0..6_000 {
        fire(&loaded.callbacks, "on_stream_delta", delta("flood"));
    }
    std::fs::write(folder.join("go"), "").expect("write go");
    // Only streaming events from now on (no round trip, no flush, which
    // would read the worker's notices themselves): once the worker ran the
    // flood, its notices must make room for new events again.
    let late = || {
        std::fs::read(folder.join("late.txt"))
            .map(|bytes| bytes.len())
            .unwrap_or(0)
    };
    let started = Instant::now();
    while late() < 20 && started.elapsed() < BOUND {
        fire(&loaded.callbacks, "on_stream_delta", delta("late"));
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        late() >= 20,
        "the late deltas were still dropped after {:?}",
        started.elapsed()
    );
}
