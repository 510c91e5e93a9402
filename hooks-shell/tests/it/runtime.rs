//! Queued events run on the runtime the hooks were registered with (a
//! host's), or the process default, never only when the caller happens to be
//! inside a tokio runtime.

use std::path::Path;
use std::time::Duration;

use hermes_hooks_core::Dispatcher;
use hermes_hooks_process::runtime::{Background, Stopped};
use hermes_hooks_shell::{Consent, RegisterOptions, ShellHooks};
use serde_json::json;

use crate::support::{Home, context, event};

/// Shell hooks with one `on_stream_delta` hook appending each stdin to `log`.
fn delta_hooks(home: &Home, log: &Path, runtime: Option<&Background>) -> ShellHooks {
    let body = format!("cat >> {0}; echo >> {0}", log.display());
    let command = home.sh("delta.sh", &body);
    let mut options = RegisterOptions::new(Consent::accept_all())
        .with_context(context())
        .with_safe_mode(false);
    if let Some(runtime) = runtime {
        options = options.with_runtime(runtime.clone());
    }
    let config = home.config(json!({"hooks": {"on_stream_delta": [{"command": command}]}}));
    ShellHooks::register(&config, options).hooks
}

fn deltas(log: &Path) -> Vec<i64> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|doc| doc["extra"]["delta"].as_i64())
        .collect()
}

/// Emits deltas `range` and flushes, from a thread without any tokio runtime.
fn emit_without_a_runtime(shell: &ShellHooks, range: std::ops::Range<i64>) {
    futures::executor::block_on(async {
        for index in range {
            let replies = shell
                .dispatch(&event("on_stream_delta", json!({"delta": index})))
                .await;
            assert!(replies.is_empty());
        }
        shell.flush(Duration::from_secs(20)).await;
    });
}

#[test]
fn queued_events_run_on_the_given_runtime() {
    let runtime = Background::with_threads("sh-given", 1).expect("runtime");
    let home = Home::new();
    let log = home.path().join("deltas");
    let shell = delta_hooks(&home, &log, Some(&runtime));
    emit_without_a_runtime(&shell, 0..3);
    assert_eq!(deltas(&log), [0, 1, 2], "in order, none lost");
    // The queue's worker lived on that runtime: stopped with it, later events wait.
    assert_eq!(runtime.shutdown(Duration::from_secs(10)), Stopped::Clean);
    futures::executor::block_on(shell.dispatch(&event("on_stream_delta", json!({"delta": 3}))));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(deltas(&log), [0, 1, 2]);
}

#[test]
fn without_a_runtime_queued_events_run_on_the_process_default() {
    let home = Home::new();
    let log = home.path().join("deltas");
    let shell = delta_hooks(&home, &log, None);
    emit_without_a_runtime(&shell, 0..2);
    assert_eq!(deltas(&log), [0, 1], "queued events ran, none wait");
}
