//! The scale table (issue 31): one event with 1, 10, 100 and 1,000 bounded
//! observer callbacks (`post_tool_call`), and with 1 and 10 guards
//! (`pre_tool_call`), under the default 30 s callback timeout, so every
//! call goes through the worker hand-off. Each dispatch is timed on its own
//! (a fresh `tool_call_id` each, as a host sends them) and the table gives
//! p50 and p99 in µs, to set beside the reference timed the same way:
//! `$HERMES_REFERENCE_PYTHON hooks-callbacks/benches/reference/invoke_hook.py scale`.
//!
//! Run: `cargo bench -p hermes-hooks-callbacks --bench scale`
//! (under load: start `for i in 1 2; do (while :; do :; done) & done` first,
//! and kill both loops after).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use serde_json::json;

/// Dispatches timed before the measured ones.
const WARMUP: usize = 200;

/// One row: what is registered and how many dispatches are timed.
struct Scenario {
    label: &'static str,
    event: HookEvent,
    callbacks: usize,
    iterations: usize,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        label: "1 observer",
        event: HookEvent::PostToolCall,
        callbacks: 1,
        iterations: 20_000,
    },
    Scenario {
        label: "10 observers",
        event: HookEvent::PostToolCall,
        callbacks: 10,
        iterations: 20_000,
    },
    Scenario {
        label: "100 observers",
        event: HookEvent::PostToolCall,
        callbacks: 100,
        iterations: 5_000,
    },
    Scenario {
        label: "1000 observers",
        event: HookEvent::PostToolCall,
        callbacks: 1000,
        iterations: 1_000,
    },
    Scenario {
        label: "1 guard",
        event: HookEvent::PreToolCall,
        callbacks: 1,
        iterations: 20_000,
    },
    Scenario {
        label: "10 guards",
        event: HookEvent::PreToolCall,
        callbacks: 10,
        iterations: 20_000,
    },
];

/// Callbacks with `count` callbacks of `event` under a 30 s timeout: guards
/// that block `rm` on `pre_tool_call`, observers that read a field otherwise.
fn registered(event: HookEvent, count: usize) -> Arc<Callbacks> {
    let callbacks = Callbacks::new(
        PluginSettings::default()
            .with_callback_timeout(Some(Duration::from_secs(30)))
            .with_stream_reasoning_deltas(false),
    );
    for index in 0..count {
        let owner = format!("bench-{index}");
        if event == HookEvent::PreToolCall {
            callbacks.register(event.as_str(), &owner, |event: &Event| {
                Ok((event.tool_name() == Some("rm"))
                    .then(|| json!({"action": "block", "message": "no rm"})))
            });
        } else {
            callbacks.register(event.as_str(), &owner, |event: &Event| {
                black_box(event.get("tool_name"));
                Ok(None)
            });
        }
    }
    callbacks
}

/// The payload the reference script sends, with call number `call`.
fn payload(event: HookEvent, call: usize) -> Event {
    let mut payload = json!({
        "tool_name": "terminal",
        "args": {"command": "ls -la"},
        "task_id": "task-1",
        "session_id": "sess-1",
        "tool_call_id": format!("call-{call}"),
        "turn_id": "turn-1",
        "api_request_id": "req-1",
        "middleware_trace": [],
    });
    if event == HookEvent::PostToolCall {
        payload["result"] = json!("{}");
        payload["status"] = json!("ok");
        payload["duration_ms"] = json!(3);
    }
    Event::from_json(event, payload)
}

/// The `share` quantile of sorted `samples`, in µs (the reference's index rule).
fn quantile(samples: &[Duration], share: f64) -> f64 {
    let rank = ((samples.len() as f64 * share) as usize).saturating_sub(1);
    samples
        .get(rank.min(samples.len().saturating_sub(1)))
        .map_or(f64::NAN, |sample| sample.as_secs_f64() * 1e6)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter word picks rows by label.
    let filter: Option<String> = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    for scenario in SCENARIOS {
        if filter
            .as_deref()
            .is_some_and(|filter| !scenario.label.contains(filter))
        {
            continue;
        }
        let callbacks = registered(scenario.event, scenario.callbacks);
        let mut samples = Vec::with_capacity(scenario.iterations);
        for call in 0..WARMUP + scenario.iterations {
            let event = payload(scenario.event, call);
            let started = Instant::now();
            let replies = block_on(callbacks.dispatch(&event));
            let elapsed = started.elapsed();
            black_box(replies);
            if call >= WARMUP {
                samples.push(elapsed);
            }
        }
        samples.sort_unstable();
        println!(
            "{:<16} {:<16} p50={:9.2} us  p99={:9.2} us",
            scenario.label,
            scenario.event.as_str(),
            quantile(&samples, 0.5),
            quantile(&samples, 0.99),
        );
        callbacks.shutdown(Duration::from_secs(1));
    }
}
