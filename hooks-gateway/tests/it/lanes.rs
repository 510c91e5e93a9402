//! Gateway hooks never hold up the host: emit returns at once, each hook has
//! its own ordered lane, `command:*` answers are awaited within one bound, the
//! worker's event loop runs between events, stray protocol lines are ignored.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, Event, Payload};
use hermes_hooks_gateway::{GatewayOptions, HandlerKind};
use serde_json::json;

use crate::support::{Home, TEST_TIMEOUT, hang_guarded, values, wait_for};
use crate::worker::process_alive;

/// Appends `event_type` and the context's `n` to `<HERMES_HOME>/<file>`.
fn recorder(file: &str) -> String {
    format!(
        "import os\ndef handle(event_type, context):\n    \
         with open(os.path.join(os.environ['HERMES_HOME'], '{file}'), 'a') as f:\n        \
         f.write(f\"{{event_type}} {{context.get('n')}}\\n\")\n"
    )
}

fn read(home: &Home, file: &str) -> String {
    std::fs::read_to_string(home.path().join(file)).unwrap_or_default()
}

#[tokio::test]
async fn a_sleeping_handler_delays_neither_emit_nor_another_hook() {
    let home = Home::new();
    home.python_hook(
        "a-slow",
        "[agent:start]",
        "import os, time\ndef handle(event_type, context):\n    time.sleep(10)\n    \
         open(os.path.join(os.environ['HERMES_HOME'], 'slow.done'), 'a').write('x')\n",
    );
    home.python_hook("b-fast", "[agent:start]", &recorder("fast.log"));
    let (gateway, _) = home.gateway();
    for n in 0..2 {
        let event = Event::from_json("agent:start", json!({"n": n}));
        assert!(gateway.dispatch(&event).await.is_empty());
    }
    // Emit returned before the slow handler finished its first event: an
    // ordering, not a clock (waiting for it would leave `slow.done`).
    assert!(
        !home.path().join("slow.done").exists(),
        "emit waited for the sleeping handler"
    );
    assert!(wait_for(|| read(&home, "fast.log").lines().count() == 2));
    assert_eq!(read(&home, "fast.log"), "agent:start 0\nagent:start 1\n");
    assert!(
        !home.path().join("slow.done").exists(),
        "the fast hook finished both events while the slow one still slept"
    );
}

#[tokio::test]
async fn a_task_the_handler_schedules_runs_between_events() {
    let home = Home::new();
    home.python_hook(
        "later",
        "[agent:start]",
        r#"
import asyncio, os
async def _later():
    await asyncio.sleep(0.3)
    with open(os.path.join(os.environ["HERMES_HOME"], "task.done"), "w") as f:
        f.write("done")
async def handle(event_type, context):
    asyncio.get_running_loop().create_task(_later())
"#,
    );
    let (gateway, _) = home.gateway();
    let event = Event::from_json("agent:start", json!({}));
    assert!(gateway.dispatch(&event).await.is_empty());
    // No further event: only a loop that keeps running completes the task.
    assert!(wait_for(|| home.path().join("task.done").exists()));
}

#[tokio::test]
async fn a_stray_protocol_line_changes_no_later_answer() {
    let home = Home::new();
    home.python_hook(
        "stray",
        "[command:*]",
        r#"
import os, stat
def _write_everywhere(data):
    # Writes to every pipe the worker holds, the protocol channel included.
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass
def handle(event_type, context):
    n = context["n"]
    if n == 1:
        _write_everywhere(b'not json\n{"ok": true, "result": "stale"}\n{"id": 99, "ok": true, "result": "stale"}\n')
    return {"n": n}
"#,
    );
    let (gateway, _) = home.gateway();
    for n in 0..4 {
        let event = Event::from_json("command:x", json!({"n": n}));
        let replies = gateway.dispatch(&event).await;
        assert_eq!(values(&replies), [json!({"n": n})], "event {n}");
    }
}

#[tokio::test]
async fn a_command_is_awaited_within_one_bound_for_all_its_handlers() {
    let home = Home::new();
    home.python_hook(
        "a-hangs",
        "[command:*]",
        "import time\ndef handle(e, c):\n    time.sleep(600)\n",
    );
    home.executable_hook("b-hangs-too", "[command:*]", "sleep 600\n");
    home.executable_hook(
        "c-denies",
        "[command:*]",
        "echo '{\"decision\": \"deny\", \"message\": \"no\"}'\n",
    );
    let options = GatewayOptions::default()
        .with_handler_timeout(Duration::from_secs(600))
        .with_command_timeout(Duration::from_secs(5));
    let (gateway, _) = home.gateway_with(options);
    let event = Event::from_json("command:model", json!({"command": "model"}));
    // A hang guard: past the 5 s command bound, only the 600 s handler timeout would end it.
    let replies = hang_guarded(
        "the command waited for its hung handlers",
        gateway.dispatch(&event),
    )
    .await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "deny", "message": "no"})]
    );
}

#[tokio::test]
async fn an_executable_deny_arrives_while_its_background_child_holds_stdout() {
    let home = Home::new();
    home.executable_hook(
        "guard",
        "[command:*]",
        "sleep 600 &\necho $! > \"$HERMES_HOME/child.pid\"\n\
         echo '{\"decision\": \"deny\", \"message\": \"blocked\"}'\n",
    );
    let (gateway, _) = home.gateway();
    let event = Event::from_json("command:model", json!({"command": "model"}));
    // Well under a second when the machine is idle; the old code waited for
    // the child (and lost the deny at the command bound): a hang guard only.
    let replies = hang_guarded(
        "the deny waited for the background child",
        gateway.dispatch(&event),
    )
    .await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "deny", "message": "blocked"})]
    );
    let pid = read(&home, "child.pid").trim().parse::<i64>().unwrap_or(-1);
    assert!(pid > 0);
    assert!(!process_alive(pid), "the background child was killed");
}

#[tokio::test]
async fn a_full_lane_drops_its_oldest_event_and_counts_it() {
    let home = Home::new();
    home.python_hook(
        "blocked",
        "[agent:step]",
        r#"
import os, time
def handle(event_type, context):
    home = os.environ["HERMES_HOME"]
    with open(os.path.join(home, "seen.log"), "a") as f:
        f.write(f"{context['n']}\n")
    while context["n"] == 0 and not os.path.exists(os.path.join(home, "go")):
        time.sleep(0.05)
"#,
    );
    let options = GatewayOptions::default()
        .with_handler_timeout(TEST_TIMEOUT)
        .with_queue_size(2);
    let (gateway, _) = home.gateway_with(options);
    let step = |n: i64| Event::from_json("agent:step", json!({"n": n}));
    gateway.dispatch(&step(0)).await;
    assert!(wait_for(|| read(&home, "seen.log") == "0\n"));
    for n in 1..=4 {
        gateway.dispatch(&step(n)).await;
    }
    assert_eq!(gateway.stats()[0].dropped, 2);
    assert_eq!(gateway.stats()[0].queued, 2);
    std::fs::write(home.path().join("go"), "").ok();
    gateway.flush(TEST_TIMEOUT).await;
    assert_eq!(
        read(&home, "seen.log"),
        "0\n3\n4\n",
        "the oldest were dropped"
    );
    assert_eq!(gateway.pending(), 0);
}

#[tokio::test]
async fn flush_waits_for_queued_events() {
    let home = Home::new();
    home.python_hook(
        "slowish",
        "[agent:end]",
        "import os, time\ndef handle(e, c):\n    time.sleep(0.5)\n    \
         open(os.path.join(os.environ['HERMES_HOME'], 'end.log'), 'a').write('x')\n",
    );
    let (gateway, _) = home.gateway();
    for _ in 0..2 {
        gateway
            .dispatch(&Event::from_json("agent:end", json!({})))
            .await;
    }
    gateway.flush(TEST_TIMEOUT).await;
    assert_eq!(read(&home, "end.log"), "xx");
}

#[tokio::test]
async fn a_python_handlers_forked_child_is_gone_after_shutdown() {
    let home = Home::new();
    home.python_hook(
        "forker",
        "[gateway:startup]",
        r#"
import os, time
def handle(event_type, context):
    path = os.path.join(os.environ["HERMES_HOME"], "grandchild.pid")
    if os.fork() == 0:
        # The child leaves the group and session, forks a grandchild and exits.
        os.setsid()
        if os.fork() == 0:
            with open(path + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(path + ".tmp", path)
            time.sleep(120)
        os._exit(0)
"#,
    );
    let (gateway, discovery) = home.gateway();
    assert_eq!(discovery.hooks[0].handler, HandlerKind::Python);
    gateway
        .dispatch(&Event::from_json("gateway:startup", json!({})))
        .await;
    let pid_file = home.path().join("grandchild.pid");
    assert!(wait_for(|| pid_file.exists()));
    let pid = read(&home, "grandchild.pid")
        .trim()
        .parse::<i64>()
        .unwrap_or(-1);
    assert!(pid > 0 && crate::worker::running(pid));
    gateway.shutdown();
    assert!(
        !process_alive(pid),
        "the forked grandchild outlived the shutdown"
    );
    let after = gateway
        .call_hook("forker", "gateway:startup", &Payload::new())
        .await;
    assert!(
        matches!(after, Some(Err(_))),
        "a stopped gateway runs nothing"
    );
}
