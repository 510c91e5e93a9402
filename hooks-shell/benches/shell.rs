//! Per-event cost of one shell hook through `ShellHooks::dispatch`, next to
//! the floor (spawning the same script bare with `std::process::Command` and
//! pipes) and, when installed, the Python reference's `invoke_hook` path.
//!
//! Then the rows issue 31 asks for, timed by hand in one interleaved run so
//! they share the machine's load (p50 and p99 of `HERMES_BENCH_ROUNDS`
//! rounds, default 300): one hook against the bare spawn, and ten hooks on
//! an observer event (`post_tool_call`, spawned together) against the same
//! ten on `pre_tool_call` (one after another: their serial time).
//!
//! Run: `cargo bench -p hermes-hooks-shell --bench shell`.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_main};
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use hermes_hooks_shell::{ShellHookSpec, ShellHooks};
use serde_json::json;

const HOOK: &str = "#!/bin/sh\ncat >/dev/null; echo '{}'\n";

fn write_hook(dir: &Path) -> String {
    let path = dir.join("hook.sh");
    std::fs::write(&path, HOOK).expect("write the hook");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.display().to_string()
}

fn event() -> Event {
    Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "ls -la"}, "session_id": "bench-session",
               "task_id": "bench-task", "tool_call_id": "bench-call"}),
    )
}

fn spawn_bare(command: &str, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        let _ = pipe.read_to_end(&mut stdout);
    }
    let _ = child.wait();
    stdout
}

fn reference_p50(command: &str, home: &Path) {
    let python = std::env::var_os("HERMES_REFERENCE_PYTHON").unwrap_or_else(|| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/reference_shell.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(command)
        .arg("200")
        .env("HERMES_HOME", home)
        .output();
    match output {
        Ok(output) if output.status.success() => {
            println!(
                "reference (Python invoke_hook): {}",
                String::from_utf8_lossy(&output.stdout).trim()
            );
        }
        Ok(output) => println!(
            "reference failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(error) => println!("reference not run ({error}): compared nothing"),
    }
}

fn shell_hook_per_event(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let command = write_hook(dir.path());
    let context = WireContext::current();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let spec = ShellHookSpec::new(HookEvent::PreToolCall, command.clone(), dir.path());
    let hooks = ShellHooks::from_approved_specs(dir.path(), context.clone(), vec![spec]);
    let event = event();
    let input = hermes_hooks_shell::run::stdin_bytes(&event, &context);

    let mut group = c.benchmark_group("shell_hook_per_event");
    group.sample_size(60);
    group.bench_function("floor_std_process_command", |b| {
        b.iter(|| spawn_bare(&command, &input));
    });
    group.bench_function("shell_hooks_dispatch", |b| {
        b.iter(|| runtime.block_on(hooks.dispatch(&event)));
    });
    group.finish();
    reference_p50(&command, dir.path());
}

/// The `p`-th percentile of `samples` (sorted here).
fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let at = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[at.min(samples.len() - 1)]
}

/// Times `rows` in turn, round after round, and prints p50 / p99 of each
/// and the ratios of each row to the first one it is compared with.
fn interleaved(rows: &mut [(&str, &mut dyn FnMut())], rounds: usize) -> Vec<(Duration, Duration)> {
    let mut samples: Vec<Vec<Duration>> = rows.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds {
        for (row, (_, run)) in rows.iter_mut().enumerate() {
            let started = Instant::now();
            run();
            samples[row].push(started.elapsed());
        }
    }
    let mut figures = Vec::new();
    for ((name, _), samples) in rows.iter().zip(&mut samples) {
        let (p50, p99) = (percentile(samples, 0.5), percentile(samples, 0.99));
        println!(
            "{name:<44} p50 {:>9.1} us   p99 {:>9.1} us",
            micros(p50),
            micros(p99)
        );
        figures.push((p50, p99));
    }
    figures
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// Issue 31's shell rows: one hook vs a bare spawn (aim <= 1.2x), ten
/// observer hooks vs their serial time (aim <= 0.5x), same run.
fn spawn_rows(_: &mut Criterion) {
    let rounds = std::env::var("HERMES_BENCH_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().expect("temporary directory");
    let command = write_hook(dir.path());
    let context = WireContext::current();
    // `HERMES_BENCH_RUNTIME=current`: everything on the calling thread (no
    // hand-off to a runtime worker); else two workers, as a host's
    // background runtime has.
    let current = std::env::var("HERMES_BENCH_RUNTIME").is_ok_and(|value| value == "current");
    let runtime = if current {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    }
    .enable_all()
    .build()
    .expect("runtime");
    let spec = |event| ShellHookSpec::new(event, command.clone(), dir.path());
    let one = ShellHooks::from_approved_specs(
        dir.path(),
        context.clone(),
        vec![spec(HookEvent::PreToolCall)],
    );
    let ten = |event| {
        ShellHooks::from_approved_specs(
            dir.path(),
            context.clone(),
            (0..10).map(|_| spec(event)).collect(),
        )
    };
    let (serial, together) = (ten(HookEvent::PreToolCall), ten(HookEvent::PostToolCall));
    let pre = event();
    let post = Event::from_json(
        "post_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "ls -la"}, "result": "ok",
               "session_id": "bench-session", "task_id": "bench-task", "tool_call_id": "bench-call"}),
    );
    let input = hermes_hooks_shell::run::stdin_bytes(&pre, &context);
    println!(
        "\nshell spawn rows ({rounds} interleaved rounds, {} runtime; load: {})",
        if current {
            "current-thread"
        } else {
            "two-worker"
        },
        load()
    );
    let figures = interleaved(
        &mut [
            ("bare spawn (std::process::Command)", &mut || {
                spawn_bare(&command, &input);
            }),
            ("one shell hook (pre_tool_call)", &mut || {
                runtime.block_on(one.dispatch(&pre));
            }),
            ("ten shell hooks, pre_tool_call (serial)", &mut || {
                runtime.block_on(serial.dispatch(&pre));
            }),
            ("ten shell hooks, post_tool_call (together)", &mut || {
                runtime.block_on(together.dispatch(&post));
            }),
        ],
        rounds,
    );
    let [bare, one, serial, together] = figures[..] else {
        return;
    };
    println!(
        "one hook / bare spawn:        p50 {:.2}x  p99 {:.2}x  (aim <= 1.2x)",
        ratio(one.0, bare.0),
        ratio(one.1, bare.1)
    );
    println!(
        "ten together / ten serial:    p50 {:.2}x  p99 {:.2}x  (aim <= 0.5x)",
        ratio(together.0, serial.0),
        ratio(together.1, serial.1)
    );
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

// criterion's macro generates an undocumented `pub fn`.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::shell_hook_per_event, super::spawn_rows);
}
criterion_main!(group::benches);
