//! §7.1 31–32, §7.3 106–110: the dispatcher, its order, its own timeouts and
//! fail modes, and queued events.

use std::time::Duration;

use hermes_hooks_core::HookEvent::{OnStreamDelta, PostToolCall, PreToolCall};
use hermes_hooks_core::{Dispatcher, EventName, Hooks};
use hermes_hooks_shell::{Consent, RegisterOptions, ShellHookSpec, ShellHooks};
use serde_json::json;

use crate::support::{Home, context, event, tool_event};

fn hooks(home: &Home, specs: Vec<ShellHookSpec>) -> ShellHooks {
    ShellHooks::from_approved_specs(home.path(), context(), specs)
}

#[tokio::test]
async fn t31_block_through_registration_and_the_bus() {
    let home = Home::new();
    let command = home.sh(
        "h.sh",
        r#"cat >/dev/null; echo '{"decision": "block", "reason": "shell says no"}'"#,
    );
    let config = home
        .config(json!({"hooks": {"pre_tool_call": [{"command": command, "matcher": "terminal"}]}}));
    let registration = ShellHooks::register(
        &config,
        RegisterOptions::new(Consent::accept_all())
            .with_context(context())
            .with_safe_mode(false)
            .with_queue_capacity(8),
    );
    let shell = registration.hooks.clone();
    let replies = shell.dispatch(&tool_event("terminal")).await;
    assert_eq!(replies.len(), 1);
    assert_eq!(&*replies[0].source, format!("shell:{command}"));
    assert_eq!(
        replies[0].value,
        json!({"action": "block", "message": "shell says no"})
    );
    let bus = Hooks::builder().with(registration.hooks).build();
    assert!(bus.is_hooked(PreToolCall));
    assert!(!bus.is_hooked(PostToolCall));
    assert_eq!(bus.collect(&tool_event("terminal")).await.len(), 1);
}

#[tokio::test]
async fn t32_matcher_filters_before_spawning() {
    let home = Home::new();
    let marker = home.path().join("spawned");
    let mut spec = home.spec(PreToolCall, &format!("touch {}", marker.display()));
    spec.matcher = hermes_hooks_core::matcher::ToolMatcher::build(Some("terminal")).matcher;
    let shell = hooks(&home, vec![spec]);
    assert!(shell.dispatch(&tool_event("read_file")).await.is_empty());
    assert!(!marker.exists(), "a non-matching call spawned the hook");
    shell.dispatch(&tool_event("terminal")).await;
    assert!(marker.exists());
}

#[tokio::test]
async fn hooks_run_in_config_order_and_each_reply_is_kept() {
    let home = Home::new();
    let log = home.path().join("order");
    let specs = ["first", "second", "third"]
        .iter()
        .map(|name| {
            let body = format!(
                r#"cat >/dev/null; echo {name} >> {}; echo '{{"context": "{name}"}}'"#,
                log.display()
            );
            home.spec(
                hermes_hooks_core::HookEvent::PreLlmCall,
                &home.sh(&format!("{name}.sh"), &body),
            )
        })
        .collect();
    let shell = hooks(&home, specs);
    let replies = shell
        .dispatch(&event("pre_llm_call", json!({"session_id": "s"})))
        .await;
    let contexts: Vec<_> = replies.iter().map(|r| r.value["context"].clone()).collect();
    assert_eq!(contexts, [json!("first"), json!("second"), json!("third")]);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default(),
        "first\nsecond\nthird\n"
    );
}

#[tokio::test]
async fn interest_follows_registrations() {
    let home = Home::new();
    let shell = hooks(&home, vec![home.spec(PreToolCall, "true")]);
    assert!(shell.interest(&EventName::Hook(PreToolCall)));
    assert!(!shell.interest(&EventName::Hook(PostToolCall)));
    assert!(!shell.interest(&EventName::parse("agent:start")));
    assert!(
        shell
            .dispatch(&event("agent:start", json!({})))
            .await
            .is_empty()
    );
    assert_eq!(shell.name(), "shell");
}

#[tokio::test]
async fn t106_t109_fail_open_hook_timeout_contributes_nothing_quickly() {
    let home = Home::new();
    let mut slow = home.spec(PreToolCall, "sleep 600");
    slow.timeout = Duration::from_secs(1);
    let shell = hooks(&home, vec![slow]);
    // A hang guard only, no speed check: only a dispatch that waited for the
    // hook's 600 s sleep gets there.
    let replies = tokio::time::timeout(
        Duration::from_secs(300),
        shell.dispatch(&tool_event("terminal")),
    )
    .await
    .expect("dispatch waited for the hook's sleep");
    assert!(replies.is_empty(), "{replies:?}");
    // 108: nothing is suppressed afterwards; the next call runs the hook again, and a
    // fail-open failure never blocks an unrelated tool.
    assert!(shell.dispatch(&tool_event("read_file")).await.is_empty());
}

#[tokio::test]
async fn t107_t110_fail_closed_hook_timeout_blocks_with_the_hook_message() {
    let home = Home::new();
    let mut slow = home.spec(PreToolCall, "sleep 30");
    slow.timeout = Duration::from_secs(1);
    slow.fail_closed = true;
    let shell = hooks(&home, vec![slow]);
    let replies = shell.dispatch(&tool_event("terminal")).await;
    assert_eq!(replies.len(), 1);
    assert_eq!(
        replies[0].value,
        json!({"action": "block", "message": "hook sleep 30 failed closed: timed out after 1s"})
    );
}

#[tokio::test]
async fn a_failing_hook_does_not_stop_the_next_one() {
    let home = Home::new();
    let ok = home.sh(
        "ok.sh",
        r#"cat >/dev/null; echo '{"action": "block", "message": "second"}'"#,
    );
    let shell = hooks(
        &home,
        vec![
            home.spec(PreToolCall, "/no/such/hook"),
            home.spec(PreToolCall, &ok),
        ],
    );
    let replies = shell.dispatch(&tool_event("terminal")).await;
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].value["message"], json!("second"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_events_do_not_make_the_caller_wait() {
    let home = Home::new();
    let log = home.path().join("deltas");
    let gate = home.path().join("gate");
    // Each run waits until the test opens the gate, after all three events
    // were dispatched: a caller that waited for the hook would wait out the
    // hook's timeout at each event, and its deltas would be lost. Ordering,
    // not a clock.
    let body = format!(
        "until [ -e {} ]; do sleep 0.05; done; cat >> {}; echo >> {}",
        gate.display(),
        log.display(),
        log.display()
    );
    let mut spec = home.spec(OnStreamDelta, &home.sh("delta.sh", &body));
    spec.timeout = Duration::from_secs(5);
    let shell = hooks(&home, vec![spec]);
    for index in 0..3 {
        let replies = shell
            .dispatch(&event("on_stream_delta", json!({"delta": index})))
            .await;
        assert!(replies.is_empty());
    }
    std::fs::write(&gate, "").expect("open the gate");
    shell.flush(Duration::from_secs(60)).await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let deltas: Vec<i64> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|doc| doc["extra"]["delta"].as_i64())
        .collect();
    assert_eq!(deltas, [0, 1, 2], "in order, none lost: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_drops_the_oldest_events() {
    let home = Home::new();
    let log = home.path().join("deltas");
    let body = format!(
        "sleep 0.3; cat >> {}; echo >> {}",
        log.display(),
        log.display()
    );
    let spec = home.spec(OnStreamDelta, &home.sh("delta.sh", &body));
    let shell = ShellHooks::register(
        &home.config(json!({"hooks": {"on_stream_delta": [{"command": spec.command}]}})),
        RegisterOptions::new(Consent::accept_all())
            .with_context(context())
            .with_safe_mode(false)
            .with_queue_capacity(2),
    )
    .hooks;
    for index in 0..10 {
        shell
            .dispatch(&event("on_stream_delta", json!({"delta": index})))
            .await;
    }
    shell.flush(Duration::from_secs(20)).await;
    assert!(shell.dropped_events() > 0);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let deltas: Vec<i64> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|doc| doc["extra"]["delta"].as_i64())
        .collect();
    assert_eq!(
        deltas.last(),
        Some(&9),
        "the newest event is kept: {deltas:?}"
    );
    assert!(deltas.len() < 10);
}
