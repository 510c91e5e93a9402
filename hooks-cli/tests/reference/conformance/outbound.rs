//! An outbound webhook's POST from ours and from hermes-agent 0.20.1
//! (`agent/outbound_webhooks.py`), caught by one loopback receiver and
//! compared field by field: the body's keys in order and their values (the
//! per-delivery `delivery_id` and `timestamp` by shape), the signature
//! checked against each body, the headers Hermes sets.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::harness;
use crate::support::TempHome;

const SECRET: &str = "conformance-secret";

/// Drives the reference: registers the home's outbound targets, then fires
/// each `[event, payload]` of the list in turn, flushing after each (one
/// interpreter: the reference's import is most of its cost).
const REFERENCE_SCRIPT: &str = r#"
import json, os, sys
os.environ["HERMES_HOME"] = sys.argv[1]
from hermes_cli.config import load_config
from hermes_cli import plugins
from agent import outbound_webhooks
outbound_webhooks.register_from_config(load_config())
for event, payload in json.loads(sys.argv[2]):
    plugins.get_plugin_manager().invoke_hook(event, **payload)
    assert outbound_webhooks.flush(10.0), "deliveries did not finish"
"#;

/// One POST as the receiver saw it: lower-cased header names and the raw body.
#[derive(Debug, Clone)]
struct Request {
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

/// A loopback receiver answering 200 to every POST; returns its URL and what it saw.
fn receiver() -> (String, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut raw = Vec::new();
            let mut buffer = [0u8; 8192];
            let request = loop {
                let Ok(read) = stream.read(&mut buffer) else {
                    break None;
                };
                if read == 0 {
                    break None;
                }
                raw.extend_from_slice(&buffer[..read]);
                if let Some(request) = parse(&raw) {
                    break Some(request);
                }
            };
            // Kept before the answer: once a sender has its 200, the request is in `seen`.
            if let Some(request) = request {
                sink.lock().expect("lock").push(request);
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    (url, seen)
}

/// The request in `raw`, once its headers and `Content-Length` bytes of body are there.
fn parse(raw: &[u8]) -> Option<Request> {
    let end = raw.windows(4).position(|window| window == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let headers: BTreeMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let body = raw.get(end + 4..end + 4 + length)?.to_vec();
    Some(Request { headers, body })
}

fn home_for(url: &str) -> TempHome {
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: conformance\n      url: {url}\n      events: [pre_tool_call, on_session_end]\n      matcher: 'term.*'\n      secret: {SECRET}\n"
    ));
    home
}

/// The one request the receiver got since `before`.
fn one_request(seen: &Arc<Mutex<Vec<Request>>>, before: usize, who: &str) -> Request {
    let seen = seen.lock().expect("lock");
    assert_eq!(seen.len(), before + 1, "{who}: one delivery expected");
    seen[before].clone()
}

fn is_hex(text: &str, length: usize) -> bool {
    text.len() == length && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `2026-12-02T00:48:52.123456Z`: Python's `isoformat()` of a UTC time.
fn is_python_utc_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 27
        && text.ends_with('Z')
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            4 | 7 => *byte == b'-',
            10 => *byte == b'T',
            13 | 16 => *byte == b':',
            19 => *byte == b'.',
            26 => *byte == b'Z',
            _ => byte.is_ascii_digit(),
        })
}

/// Field-by-field differences between two deliveries; empty when they agree.
fn differences(ours: &Request, theirs: &Request) -> Vec<String> {
    let mut found = Vec::new();
    let document = |request: &Request| -> Map<String, Value> {
        serde_json::from_slice(&request.body).unwrap_or_default()
    };
    let (ours_body, theirs_body) = (document(ours), document(theirs));
    let keys = |body: &Map<String, Value>| body.keys().cloned().collect::<Vec<_>>();
    if keys(&ours_body) != keys(&theirs_body) {
        found.push(format!(
            "body keys: ours {:?} / reference {:?}",
            keys(&ours_body),
            keys(&theirs_body)
        ));
    }
    for (key, value) in &theirs_body {
        let mine = ours_body.get(key).unwrap_or(&Value::Null);
        match key.as_str() {
            "delivery_id" => {
                for (who, request, body) in [
                    ("ours", ours, &ours_body),
                    ("reference", theirs, &theirs_body),
                ] {
                    let id = body[key].as_str().unwrap_or_default();
                    if !is_hex(id, 32)
                        || request.headers.get("x-hermes-delivery").map(String::as_str) != Some(id)
                    {
                        found.push(format!("{who}: delivery_id {id:?} is not 32 hex digits equal to X-Hermes-Delivery"));
                    }
                }
            }
            "timestamp" => {
                for (who, body) in [("ours", &ours_body), ("reference", &theirs_body)] {
                    let stamp = body[key].as_str().unwrap_or_default();
                    if !is_python_utc_timestamp(stamp) {
                        found.push(format!("{who}: timestamp {stamp:?} is not isoformat() UTC"));
                    }
                }
            }
            _ if mine != value => {
                found.push(format!("body.{key}: ours {mine} / reference {value}"))
            }
            _ => {}
        }
    }
    for (who, request) in [("ours", ours), ("reference", theirs)] {
        let signature = request
            .headers
            .get("x-hermes-signature-256")
            .cloned()
            .unwrap_or_default();
        if let Err(error) = hermes_hooks_outbound::verify::verify_hermes_signature(
            SECRET.as_bytes(),
            &signature,
            &request.body,
        ) {
            found.push(format!(
                "{who}: X-Hermes-Signature-256 does not verify: {error}"
            ));
        }
    }
    for header in ["content-type", "user-agent", "x-hermes-event"] {
        if ours.headers.get(header) != theirs.headers.get(header) {
            found.push(format!(
                "header {header}: ours {:?} / reference {:?}",
                ours.headers.get(header),
                theirs.headers.get(header)
            ));
        }
    }
    let hermes_headers = |request: &Request| {
        request
            .headers
            .keys()
            .filter(|name| name.starts_with("x-hermes-"))
            .cloned()
            .collect::<Vec<_>>()
    };
    if hermes_headers(ours) != hermes_headers(theirs) {
        found.push(format!(
            "X-Hermes-* headers: ours {:?} / reference {:?}",
            hermes_headers(ours),
            hermes_headers(theirs)
        ));
    }
    found
}

#[test]
fn a_webhook_body_and_its_headers_are_the_references_field_by_field() {
    let (url, seen) = receiver();
    let cwd = tempfile::tempdir().expect("cwd");
    let payloads = [
        (
            "pre_tool_call",
            json!({"tool_name": "terminal", "args": {"command": "ls"},
                                 "task_id": "t1", "session_id": "s1", "tool_call_id": "c1"}),
        ),
        (
            "pre_tool_call",
            json!({"tool_name": "terminal", "args": ["not", "a", "dict"],
                                 "session_id": "", "parent_session_id": "p1"}),
        ),
        (
            "on_session_end",
            json!({"session_id": "s1", "completed": true, "reason": "exit",
                                  "nested": {"k": [1, 2.5, null]}, "text": "é\u{2028}"}),
        ),
    ];
    let mut ours = Vec::new();
    for (event, payload) in &payloads {
        let home = home_for(&url);
        let before = seen.lock().expect("lock").len();
        let run = crate::support::Run(
            harness::emit_json(&home, event, payload)
                .current_dir(cwd.path())
                .output()
                .expect("run hooks emit"),
        );
        run.ok();
        ours.push(one_request(&seen, before, "ours"));
    }
    let Some(python) = test_support::reference::python() else {
        return;
    };
    // The reference's host passes pre_tool_call args as a dict ({} otherwise), as `hooks emit` does.
    let theirs_payloads: Vec<Value> = payloads
        .iter()
        .map(|(event, payload)| {
            let mut payload = payload.clone();
            if *event == "pre_tool_call" && !payload["args"].is_object() {
                payload["args"] = json!({});
            }
            json!([event, payload])
        })
        .collect();
    let home = home_for(&url);
    let before = seen.lock().expect("lock").len();
    let output = Command::new(&python)
        .args(["-c", REFERENCE_SCRIPT])
        .arg(&home.hermes)
        .arg(Value::from(theirs_payloads.clone()).to_string())
        .current_dir(cwd.path())
        .env("HOME", &home.user_home)
        .env_remove("HERMES_SAFE_MODE")
        .output()
        .expect("run the reference");
    assert!(
        output.status.success(),
        "reference failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: Vec<Request> = {
        let seen = seen.lock().expect("lock");
        assert_eq!(
            seen.len(),
            before + payloads.len(),
            "reference: one delivery per event expected"
        );
        seen[before..].to_vec()
    };
    let mut problems = Vec::new();
    for ((sent, mine), theirs) in theirs_payloads.iter().zip(&ours).zip(&theirs) {
        problems.extend(
            differences(mine, theirs)
                .into_iter()
                .map(|difference| format!("{} {}: {difference}", sent[0], sent[1])),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
