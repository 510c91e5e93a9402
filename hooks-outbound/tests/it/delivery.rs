//! Happy-path deliveries: body, headers, signatures, filtering, flush.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, EventName, HookEvent, Hooks, Outcome};
use hermes_hooks_outbound::request::{DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER};
use hermes_hooks_outbound::signing::hermes_signature;
use hermes_hooks_outbound::verify::verify;
use hermes_hooks_outbound::{DeliveryOutcome, Outbound};

use crate::support::Sink;
use crate::*;

// 136
#[tokio::test]
async fn signed_delivery_carries_body_fields_and_a_correct_hmac() {
    let sink = Sink::status(200).await;
    let secret = "shared-s3cret";
    let outbound = Outbound::new(
        vec![signed_target(
            &sink.url("/hook"),
            &[HookEvent::OnSessionEnd],
            secret,
        )],
        options(),
    )
    .expect("outbound");
    outbound.dispatch(&session_end()).await;
    let requests = sink.wait_for(1, SOON).await;
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/hook");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.header("user-agent"),
        Some("Hermes-Agent-Outbound-Webhook")
    );
    assert_eq!(request.header(EVENT_HEADER), Some("on_session_end"));
    // Signed over the raw bytes as received.
    let expected = hermes_signature(secret.as_bytes(), &request.body);
    assert_eq!(request.header(SIGNATURE_HEADER), Some(expected.as_str()));
    assert_eq!(
        request.header("x-hub-signature-256"),
        Some(expected.as_str())
    );
    let body = request.json();
    assert_eq!(body["hook_event_name"], "on_session_end");
    assert_eq!(body["session_id"], "sess_abc123");
    assert_eq!(body["tool_name"], serde_json::Value::Null);
    assert_eq!(body["cwd"], "/work");
    assert_eq!(
        body["extra"],
        json!({"completed": true, "interrupted": false})
    );
    assert!(
        body["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z') && t.contains('.'))
    );
    // Our own verifier accepts it.
    let verified = verify(
        secret.as_bytes(),
        &request.headers,
        &request.body,
        std::time::SystemTime::now(),
        Duration::from_secs(300),
    );
    assert!(verified.is_ok(), "{verified:?}");
}

// 137
#[tokio::test]
async fn unsigned_delivery_has_no_signature_header() {
    let sink = Sink::status(204).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    outbound.dispatch(&session_end()).await;
    let requests = sink.wait_for(1, SOON).await;
    assert!(requests[0].header(SIGNATURE_HEADER).is_none());
    assert!(requests[0].header("x-hub-signature-256").is_none());
    assert!(requests[0].header("webhook-signature").is_none());
    assert!(outbound.wait_idle(SOON).await);
    assert_eq!(outbound.stats().delivered, 1);
}

// 142
#[tokio::test]
async fn delivery_id_matches_header_and_body_and_is_new_per_target() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![
            target(&sink.url("/a"), &[HookEvent::OnSessionEnd]),
            target(&sink.url("/b"), &[HookEvent::OnSessionEnd]),
        ],
        options(),
    )
    .expect("outbound");
    let accepted = outbound.enqueue(&session_end());
    assert_eq!(accepted.len(), 2);
    let requests = sink.wait_for(2, SOON).await;
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let id = request.header(DELIVERY_HEADER).expect("delivery header");
        assert_eq!(request.json()["delivery_id"], id);
        assert!(accepted.iter().any(|a| a.delivery_id == id));
    }
    assert_ne!(
        requests[0].header(DELIVERY_HEADER),
        requests[1].header(DELIVERY_HEADER)
    );
}

/// Each target of one event gets the same document with its own id and
/// timestamp, signed with its own secret over exactly its own bytes (the
/// earlier targets copy the serialised document, the last one takes it).
#[tokio::test]
async fn every_target_gets_the_same_document_signed_over_its_own_bytes() {
    let sink = Sink::status(200).await;
    let secrets = ["first-secret", "second-secret", "third-secret"];
    let targets = secrets
        .iter()
        .map(|secret| {
            signed_target(
                &sink.url(&format!("/{secret}")),
                &[HookEvent::PostToolCall],
                secret,
            )
        })
        .collect();
    let outbound = Outbound::new(targets, options()).expect("outbound");
    let event = tool_event(HookEvent::PostToolCall, "terminal");
    assert_eq!(outbound.enqueue(&event).len(), 3);
    let requests = sink.wait_for(3, SOON).await;
    assert_eq!(requests.len(), 3);
    let mut documents = Vec::new();
    for request in &requests {
        let secret = request.path.trim_start_matches('/');
        let expected = hermes_signature(secret.as_bytes(), &request.body);
        assert_eq!(request.header(SIGNATURE_HEADER), Some(expected.as_str()));
        let mut body = request.json();
        let id = request.header(DELIVERY_HEADER).expect("delivery header");
        assert_eq!(body["delivery_id"], id);
        if let Some(map) = body.as_object_mut() {
            map.remove("delivery_id");
        }
        documents.push(body);
    }
    assert_eq!(documents[0]["tool_input"], json!({"command": "ls -la"}));
    assert!(documents.iter().all(|document| *document == documents[0]));
}

// 138
#[tokio::test]
async fn matcher_filters_tool_events() {
    let sink = Sink::status(200).await;
    let mut spec = target(&sink.url("/"), &[HookEvent::PostToolCall]);
    spec.matcher = hermes_hooks_core::matcher::ToolMatcher::build(Some("terminal")).matcher;
    let outbound = Outbound::new(vec![spec], options()).expect("outbound");
    for tool in ["browser", "terminal", "terminal_extra", "file"] {
        outbound
            .dispatch(&tool_event(HookEvent::PostToolCall, tool))
            .await;
    }
    assert!(outbound.wait_idle(SOON).await);
    let requests = sink.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json()["tool_name"], "terminal");
    assert_eq!(
        requests[0].json()["tool_input"],
        json!({"command": "ls -la"})
    );
}

#[tokio::test]
async fn only_configured_events_are_interesting_and_sent() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    assert_eq!(outbound.name(), "outbound");
    assert!(outbound.interest(&EventName::Hook(HookEvent::OnSessionEnd)));
    assert!(!outbound.interest(&EventName::Hook(HookEvent::PreToolCall)));
    assert!(!outbound.interest(&EventName::parse("agent:start")));
    assert!(
        outbound
            .enqueue(&tool_event(HookEvent::PreToolCall, "terminal"))
            .is_empty()
    );
    outbound.dispatch(&session_end()).await;
    assert!(outbound.wait_idle(SOON).await);
    assert_eq!(sink.requests().len(), 1);
}

// 134
#[tokio::test]
async fn callbacks_never_return_directives() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::PreToolCall])],
        options(),
    )
    .expect("outbound");
    let event = tool_event(HookEvent::PreToolCall, "terminal");
    assert!(outbound.dispatch(&event).await.is_empty());
    let hooks = Hooks::builder().with(outbound).build();
    let outcome = hooks.emit(&event).await;
    assert!(
        matches!(
            outcome,
            Outcome::Nothing | Outcome::Tool(hermes_hooks_core::ToolGate::Proceed)
        ),
        "{outcome:?}"
    );
    hooks.flush(SOON).await;
    assert_eq!(sink.wait_for(2, SOON).await.len(), 2);
}

// 144
#[tokio::test]
async fn events_enqueued_right_before_shutdown_are_delivered_by_flush() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    for _ in 0..20 {
        outbound.dispatch(&session_end()).await;
    }
    outbound
        .flush(hermes_hooks_outbound::outbound::SHUTDOWN_FLUSH_TIMEOUT)
        .await;
    assert_eq!(sink.requests().len(), 20);
    let stats = outbound.stats();
    assert_eq!(
        (stats.enqueued, stats.delivered, stats.pending),
        (20, 20, 0)
    );
    let reports = outbound.take_reports();
    assert_eq!(reports.len(), 20);
    assert!(
        reports
            .iter()
            .all(|r| r.outcome == DeliveryOutcome::Delivered
                && r.attempts == 1
                && r.status == Some(200))
    );
    assert!(outbound.take_reports().is_empty());
}

#[tokio::test]
async fn subscribers_see_every_report() {
    let sink = Sink::status(200).await;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        options(),
    )
    .expect("outbound");
    let mut reports = outbound.subscribe();
    let accepted = outbound.enqueue(&session_end());
    let report = tokio::time::timeout(SOON, reports.recv())
        .await
        .expect("in time")
        .expect("a report");
    assert_eq!(report.delivery_id, accepted[0].delivery_id);
    assert_eq!(report.event, "on_session_end");
    assert_eq!(
        report.target,
        sink.addr.to_string(),
        "host and path, no scheme"
    );
}

#[tokio::test]
async fn standard_webhooks_headers_verify_end_to_end() {
    let sink = Sink::status(200).await;
    let secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    let mut spec = signed_target(&sink.url("/"), &[HookEvent::OnSessionEnd], secret);
    spec.standard_webhooks = true;
    let outbound = Outbound::new(vec![spec], options()).expect("outbound");
    outbound.dispatch(&session_end()).await;
    let request = sink.wait_for(1, SOON).await.remove(0);
    assert_eq!(
        request.header("webhook-id"),
        request.header(DELIVERY_HEADER)
    );
    assert!(
        request
            .header("webhook-signature")
            .is_some_and(|s| s.starts_with("v1,"))
    );
    let verified = verify(
        secret.as_bytes(),
        &request.headers,
        &request.body,
        std::time::SystemTime::now(),
        Duration::from_secs(300),
    )
    .expect("verified");
    assert_eq!(
        verified.scheme,
        hermes_hooks_outbound::verify::Scheme::StandardWebhooks
    );
}

// 133
#[tokio::test]
async fn safe_mode_option_registers_nothing() {
    let sink = Sink::status(200).await;
    let mut safe = options();
    safe.safe_mode = true;
    let outbound = Outbound::new(
        vec![target(&sink.url("/"), &[HookEvent::OnSessionEnd])],
        safe,
    )
    .expect("outbound");
    assert_eq!(outbound.targets().count(), 0);
    assert!(!outbound.interest(&EventName::Hook(HookEvent::OnSessionEnd)));
    outbound.dispatch(&session_end()).await;
    assert!(outbound.wait_idle(SOON).await);
    assert!(sink.requests().is_empty());
}

// 133, through the environment variable (in a child process: no set_var here).
#[test]
fn safe_mode_environment_variable_registers_nothing() {
    if std::env::var_os("HOOKS_OUTBOUND_SAFE_MODE_CHILD").is_some() {
        let home = tempfile::tempdir().expect("tempdir");
        let config = hermes_hooks_core::Config::from_value(
            home.path(),
            json!({"hooks": {"outbound": [{"url": "https://x.example/h", "events": ["on_session_end"]}]}}),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (outbound, warnings) = runtime
            .block_on(async {
                Outbound::from_config(&config, hermes_hooks_outbound::OutboundOptions::default())
            })
            .expect("outbound");
        assert!(warnings.is_empty());
        assert_eq!(outbound.targets().count(), 0);
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "delivery::safe_mode_environment_variable_registers_nothing",
            "--quiet",
        ])
        .env("HOOKS_OUTBOUND_SAFE_MODE_CHILD", "1")
        .env("HERMES_SAFE_MODE", "1")
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[tokio::test]
async fn from_config_builds_targets_and_returns_warnings() {
    let sink = Sink::status(200).await;
    let home = tempfile::tempdir().expect("tempdir");
    let config = hermes_hooks_core::Config::from_value(
        home.path(),
        json!({"hooks": {"outbound": [{"url": sink.url("/"), "events": ["on_session_end", "nope"], "name": "local"}]}}),
    );
    let (outbound, warnings) = Outbound::from_config(&config, options()).expect("outbound");
    assert_eq!(
        outbound
            .targets()
            .map(|t| t.label().to_owned())
            .collect::<Vec<_>>(),
        ["local"]
    );
    // Plain http and the unknown event.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    outbound.dispatch(&session_end()).await;
    assert!(outbound.wait_idle(SOON).await);
    assert_eq!(outbound.take_reports()[0].target, "local");
}

#[test]
fn building_outside_a_runtime_is_an_error_not_a_panic() {
    let result = Outbound::new(Vec::new(), options());
    assert!(matches!(
        result,
        Err(hermes_hooks_outbound::OutboundError::NoRuntime)
    ));
}

// What `hooks emit` does: wait for this event's deliveries, bounded.
#[tokio::test]
async fn emit_and_wait_reports_this_events_deliveries() {
    let ok = Sink::status(200).await;
    let hanging = Sink::start(|_, _| crate::support::Answer::Hang).await;
    let outbound = Outbound::new(
        vec![
            target(&ok.url("/"), &[HookEvent::OnSessionEnd]),
            target(&hanging.url("/"), &[HookEvent::OnSessionEnd]),
        ],
        options(),
    )
    .expect("outbound");
    // Returning at all, with the hanging target unfinished below, is the
    // bound (a hang guard on it, no clock).
    let result = tokio::time::timeout(
        crate::HANG_GUARD,
        outbound.emit_and_wait(&session_end(), Duration::from_millis(500)),
    )
    .await
    .expect("emit_and_wait returned while a target hung");
    assert_eq!(result.finished.len(), 1);
    assert_eq!(result.finished[0].target, ok.addr.to_string());
    assert_eq!(result.finished[0].outcome, DeliveryOutcome::Delivered);
    assert_eq!(result.unfinished.len(), 1);
    assert_eq!(result.unfinished[0].target, hanging.addr.to_string());
    // An event no target wants returns at once with nothing.
    let nothing = outbound
        .emit_and_wait(&tool_event(HookEvent::PreToolCall, "t"), SOON)
        .await;
    assert!(nothing.finished.is_empty() && nothing.unfinished.is_empty());
}

#[tokio::test]
async fn each_target_offered_an_event_is_a_queued_run() {
    let sink = Sink::status(200).await;
    let mut named = target(&sink.url("/a"), &[HookEvent::OnSessionEnd]);
    named.name = Some("audit".into());
    let outbound = std::sync::Arc::new(
        Outbound::new(
            vec![named, target(&sink.url("/b"), &[HookEvent::OnSessionEnd])],
            options(),
        )
        .expect("outbound"),
    );
    let hooks = Hooks::builder().with(outbound.clone()).build();
    let report = hooks.emit_with_report(&session_end()).await;
    assert_eq!(report.outcome, Outcome::Nothing);
    assert_eq!(report.runs.len(), 2, "{:?}", report.runs);
    assert_eq!(&*report.runs[0].source, "webhook:audit");
    assert!(report.runs.iter().all(|run| {
        run.status == hermes_hooks_core::RunStatus::Queued
            && &*run.mechanism == "outbound"
            && &*run.event == "on_session_end"
            && run.decision.is_none()
    }));
    assert!(outbound.wait_idle(SOON).await);
    assert_eq!(sink.requests().len(), 2);
}
