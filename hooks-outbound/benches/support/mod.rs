//! What both outbound benches (`outbound.rs`, `durable.rs`) are made of: the
//! event, the signed target, one poll of `dispatch`, percentiles, and the
//! receivers the deliveries go to (on the bench's runtime, or on a thread of
//! their own with a minimal handler, so the receiver is not the ceiling).

// Each bench uses its own part of this module.
#![allow(dead_code)]

use std::convert::Infallible;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Dispatcher, Event, HookEvent};
use hermes_hooks_outbound::{Outbound, OutboundOptions, Secret, TargetSpec};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;

/// A `post_tool_call` shaped like a real one: ~1 KB of JSON.
pub fn event() -> Event {
    Event::from_json(
        HookEvent::PostToolCall,
        json!({"tool_name": "terminal", "args": {"command": "ls -la /work/project/src", "timeout": 60},
               "result": "x".repeat(700), "session_id": "sess_abc123", "task_id": "task_1",
               "tool_call_id": "call_0123456789", "duration_ms": 42}),
    )
}

/// The `cwd` and `profile` of every body.
pub fn context() -> WireContext {
    WireContext::new("/home/user/project", "default")
}

/// Options with `queue_capacity` slots, safe mode off, the bench's context.
pub fn options(queue_capacity: usize) -> OutboundOptions {
    OutboundOptions::default()
        .with_queue_capacity(queue_capacity)
        .with_safe_mode(false)
        .with_context(context())
}

/// A signed `post_tool_call` target at `url`.
pub fn signed(url: &str) -> TargetSpec {
    let mut target = TargetSpec::new(url, [HookEvent::PostToolCall]);
    target.secret = Some(Secret::new("bench-secret-0123456789"));
    target
}

/// Polls `dispatch` once: it never waits, so one poll completes it.
pub fn dispatch_now(outbound: &Outbound, event: &Event) {
    let mut context = Context::from_waker(Waker::noop());
    let future = pin!(outbound.dispatch(event));
    match future.poll(&mut context) {
        Poll::Ready(replies) => drop(black_box(replies)),
        Poll::Pending => panic!("dispatch waited"),
    }
}

/// The sample at fraction `p` (0–1) of `sorted`.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The middle of `values` (sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// How a receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// 200 at once.
    Ok,
    /// Never: the request is read and held open.
    Hang,
}

/// A hyper receiver on 127.0.0.1 counting requests, spawned on the current
/// runtime (it shares the lanes' worker threads).
pub async fn sink(answer: Answer) -> (String, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let count = Arc::new(AtomicU64::new(0));
    tokio::spawn(accept(listener, count.clone(), answer));
    (url, count)
}

/// The cheap receiver: the same server on a thread of its own (a
/// current-thread runtime), answering 200 with an empty body, so the
/// senders' runtime keeps both of its workers and the receiver does no more
/// than read the request.
pub fn sink_on_own_thread() -> (String, Arc<AtomicU64>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("receiver runtime");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let count = Arc::new(AtomicU64::new(0));
    let counter = count.clone();
    std::thread::Builder::new()
        .name("bench-receiver".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).expect("listener");
                accept(listener, counter, Answer::Ok).await;
            });
        })
        .expect("receiver thread");
    (url, count)
}

/// Serves every connection of `listener`: reads each request's body frame by
/// frame (nothing collected), counts it, answers as `answer` says.
async fn accept(listener: TcpListener, count: Arc<AtomicU64>, answer: Answer) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        let count = count.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<_>| {
                let count = count.clone();
                async move {
                    let mut body: hyper::body::Incoming = request.into_body();
                    while let Some(frame) = body.frame().await {
                        if frame.is_err() {
                            break;
                        }
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                    if answer == Answer::Hang {
                        std::future::pending::<()>().await;
                    }
                    Ok::<_, Infallible>(Response::new(Empty::<Bytes>::new()))
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A `http://` url nothing listens on (connection refused).
pub async fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    format!("http://{}/hook", listener.local_addr().expect("addr"))
}
