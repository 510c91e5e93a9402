//! OTLP export of hook runs, checked against a real OTLP/HTTP receiver: a
//! hyper server that decodes each POST with the official protobuf definitions
//! (`opentelemetry-proto`) and keeps the spans.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;

use crate::support::TempHome;

/// The spans received so far, with the path each request came to.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<(String, Span)>>>);

impl Received {
    fn spans(&self) -> Vec<(String, Span)> {
        self.0.lock().map(|spans| spans.clone()).unwrap_or_default()
    }
}

/// Starts the receiver on a loopback port, on a thread and runtime of its own.
fn receiver() -> (SocketAddr, Received) {
    let received = Received::default();
    let store = received.clone();
    let (ready, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            ready.send(listener.local_addr().expect("addr")).ok();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let store = store.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let store = store.clone();
                        async move {
                            let path = request.uri().path().to_owned();
                            let body = request
                                .into_body()
                                .collect()
                                .await
                                .map(|body| body.to_bytes())
                                .unwrap_or_default();
                            let decoded = ExportTraceServiceRequest::decode(body.as_ref())
                                .expect("the body is an OTLP ExportTraceServiceRequest");
                            let spans = decoded
                                .resource_spans
                                .into_iter()
                                .flat_map(|resource| resource.scope_spans)
                                .flat_map(|scope| scope.spans);
                            if let Ok(mut stored) = store.0.lock() {
                                stored.extend(spans.map(|span| (path.clone(), span)));
                            }
                            Ok::<_, Infallible>(Response::new(Full::new(Bytes::new())))
                        }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
    });
    (address.recv().expect("receiver started"), received)
}

fn attributes(span: &Span) -> HashMap<String, Any> {
    span.attributes
        .iter()
        .filter_map(|kv| {
            let value = kv.value.as_ref()?.value.clone()?;
            Some((kv.key.clone(), value))
        })
        .collect()
}

fn text(attributes: &HashMap<String, Any>, key: &str) -> String {
    match attributes.get(key) {
        Some(Any::StringValue(text)) => text.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn hooks_emit_exports_one_span_per_hook_run_with_its_attributes() {
    let (address, received) = receiver();
    let home = TempHome::new();
    let block = home.script(
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'no rm' >&2\nexit 2\n",
    );
    let slow = home.script("slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 5\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n    - command: {}\n      timeout: 1\n",
        block.display(),
        slow.display()
    ));
    let payload = home.write(
        "payload.json",
        &json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}).to_string(),
    );
    let run = crate::harness::command(
        &home,
        &[
            "emit",
            "pre_tool_call",
            "--accept-hooks",
            "--json",
            "--payload-file",
            &payload.display().to_string(),
        ],
    )
    .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{address}"))
    .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    // Every span must arrive: wait for the collector as long as a loaded machine needs.
    .env("HOOKS_OTLP_WAIT_MS", "20000")
    .output()
    .expect("run hooks");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // `emit` flushes the exporter before it exits; allow the receiver a moment.
    crate::harness::wait_until("both spans at the receiver", || received.spans().len() >= 2);
    let spans = received.spans();
    assert_eq!(spans.len(), 2, "one span per hook run: {spans:?}");
    let mut by_status = HashMap::new();
    for (path, span) in &spans {
        assert_eq!(path, "/v1/traces");
        assert_eq!(span.name, "hook_run");
        assert!(span.end_time_unix_nano > span.start_time_unix_nano);
        let attributes = attributes(span);
        assert_eq!(text(&attributes, "hook.mechanism"), "shell");
        assert_eq!(text(&attributes, "hook.event"), "pre_tool_call");
        assert!(
            matches!(attributes.get("hook.elapsed_ms"), Some(Any::DoubleValue(ms)) if *ms > 0.0)
        );
        assert!(matches!(
            attributes.get("hook.diagnostics"),
            Some(Any::ArrayValue(_))
        ));
        by_status.insert(text(&attributes, "hook.status"), (span.clone(), attributes));
    }
    let (blocked, attributes) = &by_status["blocked"];
    assert_eq!(
        text(attributes, "hook.source"),
        format!("shell:{}", block.display())
    );
    assert_eq!(
        text(attributes, "hook.decision"),
        r#"{"action":"block","message":"no rm"}"#
    );
    assert_ne!(blocked.status.as_ref().map(|s| s.code), Some(2));
    let (timed_out, _) = &by_status["timed_out"];
    // Status code 2 is STATUS_CODE_ERROR.
    assert_eq!(timed_out.status.as_ref().map(|s| s.code), Some(2));
    assert!(
        timed_out.end_time_unix_nano - timed_out.start_time_unix_nano >= 900_000_000,
        "the span covers the run"
    );
}

/// A collector that accepts connections and never answers (nor reads): the
/// listener's connections are kept open until the returned sender is dropped.
fn hanging_collector() -> (SocketAddr, std::sync::mpsc::Sender<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("addr");
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        // Until the test ends: accept, hold, never reply.
        while let Err(std::sync::mpsc::TryRecvError::Empty) = stopped.try_recv() {
            if let Ok((stream, _)) = listener.accept() {
                held.push(stream);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    (address, stop)
}

#[test]
fn a_collector_that_never_answers_does_not_hold_hooks_emit() {
    let (address, _stop) = hanging_collector();
    let home = TempHome::new();
    let hook = home.script("ok.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n",
        hook.display()
    ));
    let payload = home.write(
        "payload.json",
        &json!({"tool_name": "terminal", "args": {"command": "ls"}}).to_string(),
    );
    let mut command = crate::harness::command(
        &home,
        &[
            "emit",
            "pre_tool_call",
            "--accept-hooks",
            "--json",
            "--payload-file",
            &payload.display().to_string(),
        ],
    );
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{address}"))
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("HOOKS_OTLP_WAIT_MS");
    // A hang guard only: the report below says the run gave up on the export
    // while the collector still held it, not that the export ended.
    let run = crate::harness::within(command, crate::harness::HANG_GUARD)
        .expect("hooks emit did not wait for a collector that never answers");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert!(
        run.stderr().contains("OTLP export of hook runs abandoned"),
        "{}",
        run.stderr()
    );
    assert_eq!(
        run.json()["runs"][0]["status"],
        "completed",
        "{}",
        run.stdout()
    );
}

#[test]
fn an_endpoint_that_cannot_be_used_never_shows_its_password() {
    // Red team R46-5: the exporter's error quoted the endpoint whole.
    let home = TempHome::new();
    for endpoint in [
        "http://u:PWSECRET@exa mple.com/",
        "http://user:PWSECRET@[bad",
    ] {
        let run = crate::harness::command(&home, &["emit", "on_session_end", "--json"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .output()
            .expect("run hooks");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains("OTLP export of hook runs is off"),
            "{stderr}"
        );
        assert!(!stderr.contains("PWSECRET"), "{endpoint}: {stderr}");
    }
}
