//! `type: http` hooks: the stdin document POSTed, the body read as stdout.

use std::sync::{Arc, Mutex};

use hermes_hooks_core::{Outcome, ToolGate};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::{World, bash_call, emit};

/// A one-request-at-a-time HTTP server answering `status` + `body`, keeping each request.
async fn server(status: u16, body: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            // Read the head, then as many body bytes as Content-Length says.
            loop {
                let n = socket.read(&mut buffer).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&request).to_string();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let length = head
                        .lines()
                        .find_map(|line| {
                            line.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if body.len() >= length {
                        break;
                    }
                }
            }
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&request).to_string());
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
        }
    });
    (url, seen)
}

#[tokio::test]
async fn an_http_hook_posts_the_document_and_its_body_decides() {
    let (url, seen) = server(
        200,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"remote policy says no"}}"#,
    )
    .await;
    let world = World::new();
    // SAFETY of the test: the variable name is unique to this test.
    let token_var = "HERMES_HOOKS_TEST_HTTP_TOKEN_UNSET";
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "http", "url": url, "timeout": 5,
            "headers": {"Authorization": "Bearer $PATH", "X-Other": "v=${HOME}x"},
            "allowedEnvVars": ["PATH", token_var]
        }]}]}}),
    );
    let bus = world.bus(json!(["claude"]));
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("rm -rf /"))
            .await
            .block_message(),
        Some("remote policy says no")
    );
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert!(request.starts_with("POST /hook"), "{request}");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("content-type: application/json")
    );
    let path = std::env::var("PATH").unwrap_or_default();
    assert!(
        request.contains(&format!("authorization: Bearer {path}")),
        "{request}"
    );
    // HOME is not in allowedEnvVars: it expands to nothing.
    assert!(request.contains("x-other: v=x"), "{request}");
    assert!(
        request.contains(r#""hook_event_name":"PreToolUse""#)
            && request.contains(r#""tool_name":"Bash""#)
    );
}

#[tokio::test]
async fn a_status_code_cannot_block_but_fail_closed_can() {
    let (url, _) = server(500, r#"{"decision":"block","reason":"ignored"}"#).await;
    let world = World::new();
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url}]}]}}),
    );
    assert_eq!(
        emit(
            &world.bus(json!(["claude"])),
            "pre_tool_call",
            bash_call("ls")
        )
        .await,
        Outcome::Nothing
    );
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url, "failClosed": true}]}]}}));
    let outcome = emit(
        &world.bus(json!(["claude"])),
        "pre_tool_call",
        bash_call("ls"),
    )
    .await;
    assert!(
        matches!(outcome, Outcome::Tool(ToolGate::Block { ref message, .. }) if message.contains("HTTP 500")),
        "{outcome:?}"
    );
}
