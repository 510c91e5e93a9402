//! One request per event, measured (issue 31 items 2 and 5): a Python
//! `pre_tool_call` guard and a plugin with three `pre_tool_call` callbacks,
//! through `Callbacks` as the host fires them, as joint members (one `calls`
//! request per event, what `register_plugins` does now) and as plain
//! callbacks calling `PythonHost::call` (one `call` request per callback,
//! as before), against the worker alone (`PythonHost::call_payload` on the
//! calling thread, no core hand-off). All on one worker, alternating in
//! rounds, so every ratio is same-run. Prints p50 and p99 per variant and
//! the load (`/proc/loadavg`) before and after.
//!
//! `cargo bench -p hermes-hooks-plugin --bench python_joint`
//! (`ROUNDS`, `CALLS` in the environment change the sample sizes.)

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use hermes_hooks_callbacks::{Callbacks, Joint};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::interpreter::{InterpreterSource, PythonInterpreter};
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use hermes_hooks_plugin::PythonHost;
use hermes_hooks_plugin::python::PluginSpec;
use serde_json::json;

const THREE: &str = r#"
import re
PATTERN = re.compile(r"rm\s+-rf?\s+/")
def guard_one(tool_name, args, **kwargs):
    if tool_name == "terminal" and PATTERN.search(args.get("command", "")):
        return {"action": "block", "message": "one"}
def guard_two(tool_name, args, **kwargs):
    if tool_name == "terminal" and "mkfs" in args.get("command", ""):
        return {"action": "block", "message": "two"}
def guard_three(tool_name, args, **kwargs):
    if tool_name == "write_file" and args.get("path", "").startswith("/etc"):
        return {"action": "block", "message": "three"}
def register(ctx):
    ctx.register_hook("pre_tool_call", guard_one)
    ctx.register_hook("pre_tool_call", guard_two)
    ctx.register_hook("pre_tool_call", guard_three)
"#;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn tool_call(call: u64) -> Event {
    Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls -la"}, "task_id": "task-1",
               "session_id": "sess-1", "tool_call_id": format!("call-{call}"), "turn_id": "turn-1",
               "api_request_id": "req-1", "middleware_trace": []}),
    )
}

fn spec(home: &Path, key: &str, module: &str) -> PluginSpec {
    PluginSpec::directory(
        key,
        module,
        "user",
        home.join("plugins").join(key).display().to_string(),
    )
}

/// `Callbacks` with `callbacks` registered as joint members of `host`, or
/// (`joint: false`) as plain callbacks, each calling `PythonHost::call`.
fn through(host: &Arc<PythonHost>, callbacks: &[String], joint: bool) -> Arc<Callbacks> {
    let core = Callbacks::new(PluginSettings::default());
    for callback in callbacks {
        if joint {
            let member: Arc<dyn Joint> = Arc::clone(host) as Arc<dyn Joint>;
            core.register_joint("pre_tool_call", "bench", member, callback);
        } else {
            let (host, callback) = (Arc::clone(host), callback.clone());
            core.register("pre_tool_call", "bench", move |event| {
                host.call(&callback, event)
            });
        }
    }
    core
}

fn percentile(sorted: &[u64], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted.get(index).copied().unwrap_or(0) as f64 / 1000.0
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join(".hermes");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python-plugins/rm-guard");
    let guard = home.join("plugins/rm-guard");
    let three = home.join("plugins/three");
    for folder in [&guard, &three] {
        std::fs::create_dir_all(folder).expect("mkdir");
    }
    for file in ["plugin.yaml", "__init__.py"] {
        std::fs::copy(example.join(file), guard.join(file)).expect("copy the example");
    }
    std::fs::write(three.join("plugin.yaml"), "name: three\n").expect("write");
    std::fs::write(three.join("__init__.py"), THREE).expect("write");
    let python = std::env::var_os("HERMES_BENCH_PYTHON").unwrap_or_else(|| "python3".into());
    let interpreter = PythonInterpreter::new(python, InterpreterSource::Default);
    let host = PythonHost::start(&home, interpreter).expect("the worker starts");
    eprintln!("Python plugins run with {}", host.status());
    let guard = host
        .load(&spec(&home, "rm-guard", "rm_guard"))
        .expect("rm-guard loads");
    let three = host
        .load(&spec(&home, "three", "three"))
        .expect("three loads");
    let guard: Vec<String> = guard.hooks.iter().map(|h| h.callback.clone()).collect();
    let three: Vec<String> = three.hooks.iter().map(|h| h.callback.clone()).collect();
    {
        // Without Callbacks: PythonHost::call against Joint::start + result.
        let members: Vec<Arc<str>> = guard.iter().map(|c| Arc::from(c.as_str())).collect();
        let mut direct = [Vec::new(), Vec::new()];
        for round in 0..=10u64 {
            for (which, samples) in direct.iter_mut().enumerate() {
                for call in 0..1000 {
                    let event = tool_call(round * 10_000 + call);
                    let started = Instant::now();
                    let _ = if which == 0 {
                        host.call(&guard[0], &event)
                    } else {
                        Joint::start(&*host, &event, &members).result(0)
                    };
                    if round > 0 {
                        samples.push(started.elapsed().as_nanos() as u64);
                    }
                }
            }
        }
        for (name, samples) in ["direct: PythonHost::call", "direct: Joint::start + result"]
            .iter()
            .zip(direct.iter_mut())
        {
            samples.sort_unstable();
            println!("{name:<42} p50 {:>8.1} us", percentile(samples, 0.5));
        }
    }
    let variants: Vec<(&str, Option<Arc<Callbacks>>)> = vec![
        ("guard: worker alone (call_payload)", None),
        (
            "guard: Callbacks, joint (1 calls)",
            Some(through(&host, &guard, true)),
        ),
        (
            "guard: Callbacks, plain (1 call)",
            Some(through(&host, &guard, false)),
        ),
        (
            "3 callbacks: Callbacks, joint (1 calls)",
            Some(through(&host, &three, true)),
        ),
        (
            "3 callbacks: Callbacks, plain (3 calls)",
            Some(through(&host, &three, false)),
        ),
    ];
    let (rounds, calls) = (env_or("ROUNDS", 10), env_or("CALLS", 1000));
    let mut samples: Vec<Vec<u64>> = vec![Vec::with_capacity(rounds * calls); variants.len()];
    let before = load();
    let mut call = 0u64;
    for round in 0..=rounds {
        for (index, (_, core)) in variants.iter().enumerate() {
            for _ in 0..calls {
                call += 1;
                let event = tool_call(call);
                let started = Instant::now();
                let blocked = match core {
                    None => host
                        .call_payload(&guard[0], "pre_tool_call", event.payload())
                        .map(|reply| reply.is_some())
                        .unwrap_or(true),
                    Some(core) => !futures::executor::block_on(core.dispatch(&event)).is_empty(),
                };
                let took = started.elapsed().as_nanos() as u64;
                assert!(!blocked, "{} blocked an allowed call", variants[index].0);
                // Round 0 warms up.
                if round > 0 {
                    samples[index].push(took);
                }
            }
        }
    }
    println!(
        "{rounds} rounds x {calls} calls per variant, alternating; load before {before}, after {}",
        load()
    );
    let mut medians = Vec::new();
    for ((name, _), samples) in variants.iter().zip(samples.iter_mut()) {
        samples.sort_unstable();
        let (p50, p99) = (percentile(samples, 0.5), percentile(samples, 0.99));
        medians.push(p50);
        println!("{name:<42} p50 {p50:>8.1} us   p99 {p99:>8.1} us");
    }
    if let [alone, joint, plain, three_joint, three_plain] = medians[..] {
        println!(
            "p50 ratios: guard joint / worker alone {:.2}x; plain / alone {:.2}x; 3 joint / guard joint {:.2}x; 3 plain / 3 joint {:.2}x",
            joint / alone,
            plain / alone,
            three_joint / joint,
            three_plain / three_joint
        );
    }
}
