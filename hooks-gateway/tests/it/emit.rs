//! Emitting gateway events to Python handlers (reference §7.6, tests 173–185).

use hermes_hooks_core::{Dispatcher, Event, EventName, Hooks, Payload};
use hermes_hooks_gateway::HandlerError;
use serde_json::json;

use crate::support::{Home, emit, sources, values};

const RETURN_EVENT: &str = "def handle(event_type, context):\n    return event_type\n";

#[tokio::test]
async fn emit_calls_sync_handler() {
    let home = Home::new();
    home.python_hook(
        "sync-hook",
        r#"["agent:start"]"#,
        "results = []\ndef handle(event_type, context):\n    results.append(event_type)\n    \
         return {'results': results, 'context': context}\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "agent:start", json!({"test": true})).await;
    assert_eq!(
        values(&replies),
        [json!({"results": ["agent:start"], "context": {"test": true}})]
    );
    assert_eq!(sources(&replies), ["gateway:sync-hook"]);
}

#[tokio::test]
async fn emit_calls_async_handler() {
    let home = Home::new();
    home.python_hook(
        "async-hook",
        "['agent:end']",
        "import asyncio\nresults = []\nasync def handle(event_type, context):\n    \
         await asyncio.sleep(0.01)\n    results.append(event_type)\n    return results\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "agent:end", json!({})).await;
    assert_eq!(values(&replies), [json!(["agent:end"])]);
}

#[tokio::test]
async fn wildcard_matching() {
    let home = Home::new();
    home.python_hook("wildcard-hook", r#"["command:*"]"#, RETURN_EVENT);
    let (gateway, _) = home.gateway();
    assert!(gateway.interest(&EventName::parse("command:reset")));
    assert!(gateway.interest(&EventName::parse("command:model")));
    assert!(!gateway.interest(&EventName::parse("agent:start")));
    let replies = emit(&gateway, "command:reset", json!({})).await;
    assert_eq!(values(&replies), [json!("command:reset")]);
}

#[tokio::test]
async fn no_bare_prefix_or_global_wildcard_and_no_catalog_events() {
    let home = Home::new();
    home.python_hook(
        "odd",
        r#"["agent", "*", "pre_tool_call", "agent:*:x"]"#,
        RETURN_EVENT,
    );
    let (gateway, discovery) = home.gateway();
    assert_eq!(discovery.hooks.len(), 1);
    for name in ["agent:start", "session:start", "pre_tool_call", "agent"] {
        assert!(!gateway.interest(&EventName::parse(name)), "{name}");
    }
    assert!(emit(&gateway, "agent:start", json!({})).await.is_empty());
    let plugin_event = Event::from_json(hermes_hooks_core::HookEvent::PreToolCall, json!({}));
    assert!(gateway.dispatch(&plugin_event).await.is_empty());
}

#[tokio::test]
async fn no_handlers_for_event() {
    let home = Home::new();
    home.python_hook("a", "[agent:start]", RETURN_EVENT);
    let (gateway, _) = home.gateway();
    assert!(!gateway.interest(&EventName::parse("unknown:event")));
    assert!(emit(&gateway, "unknown:event", json!({})).await.is_empty());
}

#[tokio::test]
async fn handler_error_does_not_propagate() {
    let home = Home::new();
    home.python_hook(
        "bad-hook",
        r#"["agent:start"]"#,
        "def handle(event_type, context):\n    raise ValueError('boom')\n",
    );
    let (gateway, _) = home.gateway();
    assert!(emit(&gateway, "agent:start", json!({})).await.is_empty());
    let error = gateway
        .call_hook("bad-hook", "agent:start", &Payload::new())
        .await;
    match error {
        Some(Err(HandlerError::Failed { handler, message })) => {
            assert_eq!(message, "ValueError: boom");
            assert_eq!(handler, home.hooks_dir().join("bad-hook/handler.py"));
        }
        other => panic!("expected Failed, got {other:?}"),
    }
}

#[tokio::test]
async fn emit_default_context() {
    let home = Home::new();
    home.python_hook(
        "ctx-hook",
        r#"["agent:start"]"#,
        "def handle(event_type, context):\n    return [event_type, context]\n",
    );
    let (gateway, _) = home.gateway();
    let event = Event::new("agent:start", Payload::new());
    let replies = gateway.collect(&event).await;
    assert_eq!(values(&replies), [json!(["agent:start", {}])]);
}

#[tokio::test]
async fn collects_sync_return_values() {
    let home = Home::new();
    home.python_hook(
        "a",
        "[command:status]",
        "def handle(e, c):\n    return {'decision': 'allow'}\n",
    );
    home.python_hook(
        "b",
        "[command:status]",
        "def handle(e, c):\n    return {'decision': 'deny', 'message': 'nope'}\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "command:status", json!({})).await;
    assert_eq!(
        values(&replies),
        [
            json!({"decision": "allow"}),
            json!({"decision": "deny", "message": "nope"})
        ]
    );
    assert_eq!(sources(&replies), ["gateway:a", "gateway:b"]);
}

#[tokio::test]
async fn collects_async_return_values() {
    let home = Home::new();
    home.python_hook(
        "ping",
        "[command:ping]",
        "async def handle(_event_type, _ctx):\n    return {'decision': 'handled', 'message': 'done'}\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "command:ping", json!({})).await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "handled", "message": "done"})]
    );
}

#[tokio::test]
async fn drops_none_return_values() {
    let home = Home::new();
    home.python_hook("a", "[command:x]", "def handle(e, c):\n    return None\n");
    home.python_hook(
        "b",
        "[command:x]",
        "def handle(e, c):\n    return {'decision': 'deny'}\n",
    );
    home.python_hook("c", "[command:x]", "def handle(e, c):\n    pass\n");
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "command:x", json!({})).await;
    assert_eq!(values(&replies), [json!({"decision": "deny"})]);
    assert_eq!(sources(&replies), ["gateway:b"]);
}

#[tokio::test]
async fn handler_exception_does_not_abort_chain() {
    let home = Home::new();
    home.python_hook(
        "a",
        "[command:x]",
        "def handle(e, c):\n    raise ValueError('boom')\n",
    );
    home.python_hook(
        "b",
        "[command:x]",
        "def handle(e, c):\n    return {'decision': 'allow'}\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "command:x", json!({})).await;
    assert_eq!(values(&replies), [json!({"decision": "allow"})]);
}

#[tokio::test]
async fn wildcard_match_also_collected() {
    let home = Home::new();
    // Folder order puts the wildcard hook first; exact subscriptions still run first.
    home.python_hook(
        "a-wild",
        r#"["command:*"]"#,
        "def handle(e, c):\n    return {'decision': 'allow'}\n",
    );
    home.python_hook(
        "b-exact",
        "[command:reset]",
        "def handle(e, c):\n    return {'decision': 'deny'}\n",
    );
    let (gateway, _) = home.gateway();
    let order: Vec<_> = gateway
        .handlers_for("command:reset")
        .iter()
        .map(|h| h.name.clone())
        .collect();
    assert_eq!(order, ["b-exact", "a-wild"]);
    let replies = emit(&gateway, "command:reset", json!({})).await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "deny"}), json!({"decision": "allow"})]
    );
    assert_eq!(sources(&replies), ["gateway:b-exact", "gateway:a-wild"]);
}

#[tokio::test]
async fn no_handlers_returns_empty_list() {
    let gateway = hermes_hooks_gateway::GatewayHooks::empty();
    assert!(
        emit(&gateway, "unknown:event", json!({"a": 1}))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn default_context() {
    let home = Home::new();
    home.python_hook(
        "h",
        "[agent:start]",
        "captured = []\ndef handle(event_type, context):\n    captured.append((event_type, context))\n    \
         return None if len(captured) < 2 else captured\n",
    );
    let (gateway, _) = home.gateway();
    assert!(
        gateway
            .collect(&Event::new("agent:start", Payload::new()))
            .await
            .is_empty()
    );
    let replies = gateway
        .collect(&Event::new("agent:start", Payload::new()))
        .await;
    assert_eq!(
        values(&replies),
        [json!([["agent:start", {}], ["agent:start", {}]])]
    );
}

#[tokio::test]
async fn unserialisable_results_arrive_as_text() {
    let home = Home::new();
    home.python_hook(
        "odd",
        "[agent:start]",
        "import datetime\ndef handle(e, c):\n    if c.get('kind') == 'nan':\n        return float('nan')\n    \
         return {'when': datetime.date(2024, 1, 2), 'ok': True}\n",
    );
    let (gateway, _) = home.gateway();
    let replies = emit(&gateway, "agent:start", json!({})).await;
    assert_eq!(
        values(&replies),
        [json!({"when": "2024-01-02", "ok": true})]
    );
    let replies = emit(&gateway, "agent:start", json!({"kind": "nan"})).await;
    assert_eq!(values(&replies), [json!("nan")]);
}

#[tokio::test]
async fn through_the_hooks_bus() {
    let home = Home::new();
    home.python_hook(
        "guard",
        "[command:*]",
        "def handle(e, c):\n    return {'decision': 'deny', 'message': c['command']}\n",
    );
    let (gateway, _) = home.gateway();
    let hooks = Hooks::builder().with(gateway).build();
    assert!(hooks.is_interested(&EventName::parse("command:model")));
    let event = Event::from_json("command:model", json!({"command": "model", "args": "x"}));
    let replies = hooks.collect(&event).await;
    assert_eq!(
        values(&replies),
        [json!({"decision": "deny", "message": "model"})]
    );
}

#[tokio::test]
async fn command_hooks_are_recorded_with_their_answer_and_queued_events_as_queued() {
    let home = Home::new();
    home.python_hook(
        "a",
        "[command:status]",
        "def handle(e, c):\n    return {'decision': 'allow'}\n",
    );
    home.python_hook(
        "b",
        "[command:status]",
        "def handle(e, c):\n    return {'decision': 'deny', 'message': 'nope'}\n",
    );
    home.python_hook(
        "c",
        "[command:status, agent:start]",
        "def handle(e, c):\n    raise ValueError('broken')\n",
    );
    let (gateway, _) = home.gateway();
    let hooks = Hooks::builder().with(gateway).build();
    let event = Event::from_json("command:status", json!({}));
    let report = hooks.emit_with_report(&event).await;
    let statuses: Vec<_> = report
        .runs
        .iter()
        .map(|run| (&*run.source, run.status.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("gateway:a", "completed"),
            ("gateway:b", "blocked"),
            ("gateway:c", "failed")
        ]
    );
    assert_eq!(
        report.runs[1].decision,
        Some(json!({"decision": "deny", "message": "nope"}))
    );
    assert!(
        report.runs[2].diagnostics[0].contains("broken"),
        "{:?}",
        report.runs[2]
    );
    assert!(report.runs.iter().all(|run| &*run.mechanism == "gateway"));
    let queued = hooks
        .emit_with_report(&Event::from_json("agent:start", json!({})))
        .await;
    assert_eq!(queued.runs.len(), 1);
    assert_eq!(queued.runs[0].status, hermes_hooks_core::RunStatus::Queued);
}
