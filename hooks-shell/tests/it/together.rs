//! The shell hooks of an observer event run together, their records in
//! config order; those of `pre_tool_call` one after another. Concurrency is
//! checked by overlap (start and end marks in a shared file), never by a clock.

use std::path::Path;
use std::time::Duration;

use hermes_hooks_core::HookEvent::{PostToolCall, PreToolCall};
use hermes_hooks_core::{Dispatcher, HookRun};
use hermes_hooks_shell::ShellHooks;
use hermes_hooks_shell::schedule::runs_together;
use serde_json::json;

use crate::support::{Home, context, event, tool_event};

/// A hook that appends `start <n>` to `marks`, waits (up to 20 s) until
/// `expected` hooks have started, then appends `end <n>`. Run one after
/// another, the first waits out its 20 s and ends before the others start.
fn rendezvous(home: &Home, n: usize, marks: &Path, expected: usize) -> String {
    let marks = marks.display();
    home.sh(
        &format!("meet{n}.sh"),
        &format!(
            "echo 'start {n}' >> {marks}\n\
             tries=0\n\
             while [ \"$(grep -c start {marks})\" -lt {expected} ] && [ $tries -lt 400 ]; do\n\
             \x20 sleep 0.05; tries=$((tries + 1))\n\
             done\n\
             echo 'end {n}' >> {marks}\n"
        ),
    )
}

fn marks_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn sources(runs: &[HookRun]) -> Vec<String> {
    runs.iter().map(|run| run.source.to_string()).collect()
}

#[test]
fn only_observer_events_run_together() {
    assert!(runs_together(PostToolCall));
    assert!(!runs_together(PreToolCall));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_of_an_observer_event_overlap_and_are_recorded_in_config_order() {
    let home = Home::new();
    let marks = home.path().join("marks");
    let specs: Vec<_> = (0..3)
        .map(|n| {
            let mut spec = home.spec(PostToolCall, &rendezvous(&home, n, &marks, 3));
            spec.timeout = Duration::from_secs(60);
            spec
        })
        .collect();
    let commands: Vec<String> = specs
        .iter()
        .map(|spec| format!("shell:{}", spec.command))
        .collect();
    let shell = ShellHooks::from_approved_specs(home.path(), context(), specs);
    let post = event(
        "post_tool_call",
        json!({"tool_name": "terminal", "args": {}, "result": "ok", "session_id": "s1"}),
    );
    let mut runs = Vec::new();
    shell.dispatch_recorded(&post, &mut runs).await;
    let marks = marks_of(&marks);
    let first_end = marks.iter().position(|mark| mark.starts_with("end"));
    let last_start = marks.iter().rposition(|mark| mark.starts_with("start"));
    assert_eq!(marks.len(), 6, "{marks:?}");
    assert!(
        last_start < first_end,
        "every hook started before any ended (they overlapped): {marks:?}"
    );
    assert_eq!(sources(&runs), commands, "records in config order");
    assert!(
        runs.iter().all(|run| run.status.as_str() == "completed"),
        "{runs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_tool_call_hooks_run_one_after_another_in_config_order() {
    let home = Home::new();
    let marks = home.path().join("marks");
    let display = marks.display();
    // The first is slow: run together, the second would start before it ends.
    let slow = home.sh(
        "slow.sh",
        &format!("echo 'start 0' >> {display}; sleep 0.5; echo 'end 0' >> {display}"),
    );
    let quick = home.sh(
        "quick.sh",
        &format!(
            "echo 'start 1' >> {display}; echo 'end 1' >> {display}; \
             echo '{{\"action\": \"block\", \"message\": \"no\"}}'"
        ),
    );
    let specs = vec![
        home.spec(PreToolCall, &slow),
        home.spec(PreToolCall, &quick),
    ];
    let shell = ShellHooks::from_approved_specs(home.path(), context(), specs);
    let mut runs = Vec::new();
    let replies = shell
        .dispatch_recorded(&tool_event("terminal"), &mut runs)
        .await;
    assert_eq!(
        marks_of(&marks),
        ["start 0", "end 0", "start 1", "end 1"],
        "one after another"
    );
    assert_eq!(replies.len(), 1);
    assert_eq!(
        sources(&runs),
        [format!("shell:{slow}"), format!("shell:{quick}")]
    );
}
