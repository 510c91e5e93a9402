//! Tests of the caller path that need the crate's internals: body buffers
//! come back from the lane workers and are reused.

use std::time::Duration;

use hermes_hooks_core::{Dispatcher, HookEvent};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// Answers every request on `stream` with an empty 200, keeping the connection.
async fn answer_ok(mut stream: TcpStream) {
    let mut pending = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let Some(head_end) = pending.windows(4).position(|w| w == b"\r\n\r\n") else {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => pending.extend_from_slice(&chunk[..read]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&pending[..head_end]).to_ascii_lowercase();
        let body_len: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        let request_len = head_end + 4 + body_len;
        while pending.len() < request_len {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => pending.extend_from_slice(&chunk[..read]),
            }
        }
        pending.drain(..request_len);
        let reply = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        if stream.write_all(reply).await.is_err() {
            return;
        }
    }
}

async fn ok_sink() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer_ok(stream));
        }
    });
    url
}

#[tokio::test]
async fn delivered_bodies_come_back_to_the_pool_and_are_reused() {
    let url = ok_sink().await;
    let options = OutboundOptions {
        safe_mode: false,
        queue_capacity: 8,
        ..OutboundOptions::default()
    };
    let outbound = Outbound::new(
        vec![TargetSpec::new(&url, [HookEvent::OnSessionEnd])],
        options,
    )
    .expect("outbound");
    let event = Event::from_json(HookEvent::OnSessionEnd, json!({"session_id": "s"}));
    for _ in 0..3 {
        assert_eq!(outbound.enqueue(&event).len(), 1);
        assert!(outbound.wait_idle(Duration::from_secs(10)).await);
    }
    assert_eq!(outbound.stats().delivered, 3);
    // Each delivery's buffer came back and the next event took it: one in the pool.
    assert_eq!(outbound.shared.pool.len(), 1);
}

#[tokio::test]
async fn bodies_of_dropped_deliveries_come_back_too() {
    // A lane whose worker has stopped: every offer fails after building.
    let options = OutboundOptions {
        safe_mode: false,
        queue_capacity: 4,
        ..OutboundOptions::default()
    };
    let shared = Shared::new(options.queue_capacity, 16);
    let target = Arc::new(TargetSpec::new(
        "http://127.0.0.1:9/",
        [HookEvent::OnSessionEnd],
    ));
    let (lane, receiver) = Lane::new(target, 4);
    drop(receiver);
    let document = EventDocument::new(
        &Event::from_json(HookEvent::OnSessionEnd, json!({})),
        &options.context,
    )
    .expect("document");
    let delivery = PreparedDelivery::from_document(document, SystemTime::now(), "t");
    let job = Job {
        event: HookEvent::OnSessionEnd,
        delivery,
        enqueued: Instant::now(),
    };
    assert!(!lane.offer(job, &shared));
    assert_eq!(shared.pool.len(), 1);
    assert_eq!(shared.stats().dropped, 1);
}

#[tokio::test]
async fn dispatch_now_queues_on_the_spot_and_replies_nothing() {
    let url = ok_sink().await;
    let options = OutboundOptions {
        safe_mode: false,
        ..OutboundOptions::default()
    };
    let outbound = Outbound::new(
        vec![TargetSpec::new(&url, [HookEvent::OnSessionEnd])],
        options,
    )
    .expect("outbound");
    let event = Event::from_json(HookEvent::OnSessionEnd, json!({"session_id": "s"}));
    let mut replies = Vec::new();
    assert!(outbound.dispatch_now(&event, &mut replies));
    assert!(replies.is_empty());
    assert!(outbound.wait_idle(Duration::from_secs(10)).await);
    assert_eq!(outbound.stats().delivered, 1);
}
