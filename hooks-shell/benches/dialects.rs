//! Imported hooks, same run: a Claude Code hook (`.claude/settings.json`
//! shape) next to the same script as a native shell hook, and a `type: http`
//! hook round trip to a local server next to spawning the script.
//!
//! Run: `cargo bench -p hermes-hooks-shell --bench dialects`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use criterion::{Criterion, criterion_main};
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Config, Dispatcher, Event, HookEvent};
use hermes_hooks_process::RunLimits;
use hermes_hooks_shell::dialect::discover;
use hermes_hooks_shell::dialect::dispatch::applies;
use hermes_hooks_shell::dialect::exec::command_of;
use hermes_hooks_shell::dialect::reply::{interpret, merge};
use hermes_hooks_shell::dialect::stdin::stdin_document;
use hermes_hooks_shell::run::stdin_bytes;
use hermes_hooks_shell::{ImportedHooks, RunResult, ShellHookSpec, ShellHooks, evaluate};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HOOK: &str = "#!/bin/sh\ncat >/dev/null; echo '{}'\n";

fn event() -> Event {
    Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "ls -la"}, "session_id": "bench-session",
               "task_id": "bench-task", "tool_call_id": "bench-call"}),
    )
}

/// A local HTTP/1.1 server answering every request `{}` on one kept-alive connection per client.
async fn serve(listener: tokio::net::TcpListener) {
    while let Ok((mut socket, _)) = listener.accept().await {
        tokio::spawn(async move {
            let mut buffer = vec![0u8; 64 * 1024];
            let mut pending = Vec::new();
            loop {
                let Ok(n) = socket.read(&mut buffer).await else {
                    return;
                };
                if n == 0 {
                    return;
                }
                pending.extend_from_slice(&buffer[..n]);
                // One request: its head, then Content-Length bytes.
                while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&pending[..end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| {
                            l.strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if pending.len() < end + 4 + length {
                        break;
                    }
                    pending.drain(..end + 4 + length);
                    let reply = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}";
                    if socket.write_all(reply).await.is_err() {
                        return;
                    }
                }
            }
        });
    }
}

fn imported(home: &Path, project: &Path, hooks: serde_json::Value) -> ImportedHooks {
    let settings = project.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &settings,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hooks]}]}}).to_string(),
    )
    .expect("settings");
    let config = Config::from_value(home, json!({"hooks_from": ["claude"]}));
    let found = discover(&config, project, None);
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    ImportedHooks::from_approved(found.hooks)
}

fn imported_vs_native(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let project = dir.path().join("project");
    let script = project.join(".claude/hooks/hook.sh");
    std::fs::create_dir_all(script.parent().expect("parent")).expect("mkdir");
    std::fs::write(&script, HOOK).expect("write the hook");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    let spec = ShellHookSpec::new(
        HookEvent::PreToolCall,
        script.display().to_string(),
        dir.path(),
    );
    let native =
        ShellHooks::from_approved_specs(dir.path(), WireContext::current(), vec![spec.clone()]);
    let claude = imported(
        dir.path(),
        &project,
        json!({"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/hook.sh"}),
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    runtime.spawn(serve(listener));
    let http = imported(
        dir.path(),
        &project,
        json!({"type": "http", "url": url, "timeout": 5}),
    );
    let event = event();
    // The first dispatch in this process took ~1.7 s here (one-time set-up,
    // cause not pinned down; `hooks test` does not show it): it is kept out
    // of criterion's estimate, which otherwise ran one iteration per sample.
    runtime.block_on(native.dispatch(&event));
    runtime.block_on(claude.dispatch(&event));

    let mut group = c.benchmark_group("imported_hook_per_event");
    group.sample_size(40);
    group.bench_function("native_shell_hook", |b| {
        b.iter(|| runtime.block_on(native.dispatch(&event)))
    });
    group.bench_function("imported_claude_hook", |b| {
        b.iter(|| runtime.block_on(claude.dispatch(&event)))
    });
    group.bench_function("imported_http_hook", |b| {
        b.iter(|| runtime.block_on(http.dispatch(&event)))
    });
    group.finish();

    // The two paths in alternating pairs (which goes first alternates too), so
    // a load change on this shared machine hits both alike: the median of the
    // pairs' ratios is the overhead, printed after the group.
    let pairs = std::cell::RefCell::new(Vec::<(f64, f64)>::new());
    let mut paired = c.benchmark_group("imported_hook_paired");
    paired.sample_size(40);
    paired.bench_function("imported_claude_hook", |b| {
        b.iter_custom(|iters| {
            let mut imported_total = std::time::Duration::ZERO;
            for i in 0..iters {
                let time = |hooks: &dyn Fn()| {
                    let started = std::time::Instant::now();
                    hooks();
                    started.elapsed()
                };
                let run_native = || drop(runtime.block_on(native.dispatch(&event)));
                let run_imported = || drop(runtime.block_on(claude.dispatch(&event)));
                let (native_time, imported_time) = if i % 2 == 0 {
                    let n = time(&run_native);
                    (n, time(&run_imported))
                } else {
                    let m = time(&run_imported);
                    (time(&run_native), m)
                };
                pairs
                    .borrow_mut()
                    .push((native_time.as_secs_f64(), imported_time.as_secs_f64()));
                imported_total += imported_time;
            }
            imported_total
        })
    });
    paired.finish();
    let mut pairs = pairs.into_inner();
    if !pairs.is_empty() {
        let median = |values: &mut Vec<f64>| {
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        let mut ratios: Vec<f64> = pairs.iter().map(|(n, m)| m / n).collect();
        let mut natives: Vec<f64> = pairs.iter().map(|(n, _)| *n).collect();
        let mut importeds: Vec<f64> = pairs.drain(..).map(|(_, m)| m).collect();
        eprintln!(
            "imported_hook_paired: imported/native median ratio {:.3} over {} pairs \
             (native median {:.3} ms, imported median {:.3} ms)",
            median(&mut ratios),
            ratios.len(),
            median(&mut natives) * 1e3,
            median(&mut importeds) * 1e3
        );
    }

    // Where the difference goes: the in-process work of each path, and the
    // spawn alone (the supervisor's run of each path's command, no dispatcher).
    let hook = &claude.hooks()[0];
    let context = WireContext::current();
    let answer = RunResult::exited(0, "{}\n", "");
    let mut parts = c.benchmark_group("imported_hook_parts");
    parts.bench_function("native_stdin_bytes", |b| {
        b.iter(|| stdin_bytes(&event, &context))
    });
    parts.bench_function("claude_stdin_document", |b| {
        b.iter(|| stdin_document(hook, &event))
    });
    parts.bench_function("claude_matcher_and_if", |b| {
        b.iter(|| applies(hook, &event))
    });
    parts.bench_function("native_evaluate", |b| b.iter(|| evaluate(&spec, &answer)));
    parts.bench_function("claude_interpret_and_merge", |b| {
        b.iter(|| merge(&event, &[interpret(hook, HookEvent::PreToolCall, &answer)]))
    });
    parts.bench_function("claude_command_build", |b| {
        b.iter(|| command_of(hook, true))
    });
    parts.finish();

    let limits = RunLimits::new(
        std::time::Duration::from_secs(10),
        1024 * 1024,
        std::time::Duration::from_millis(250),
    );
    let input = stdin_document(hook, &event);
    let mut spawn = c.benchmark_group("imported_hook_spawn");
    spawn.sample_size(40);
    spawn.bench_function("native_argv", |b| {
        b.iter(|| {
            let mut command = tokio::process::Command::new(&script);
            command.env("HERMES_HOME", dir.path());
            runtime.block_on(hermes_hooks_process::run(command, &input, &limits))
        })
    });
    spawn.bench_function("claude_command", |b| {
        b.iter(|| {
            let command = command_of(hook, true).expect("a command hook");
            runtime.block_on(hermes_hooks_process::run(command, &input, &limits))
        })
    });
    spawn.finish();
}

// criterion's macro generates an undocumented `pub fn`.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::imported_vs_native);
}
criterion_main!(group::benches);
