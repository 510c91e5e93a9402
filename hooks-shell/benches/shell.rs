//! Per-event cost of one shell hook through `ShellHooks::dispatch`, next to
//! the floor (spawning the same script bare with `std::process::Command` and
//! pipes) and, when installed, the Python reference's `invoke_hook` path.
//!
//! Run: `cargo bench -p hermes-hooks-shell --bench shell`.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

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

// criterion's macro generates an undocumented `pub fn`.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::shell_hook_per_event);
}
criterion_main!(group::benches);
