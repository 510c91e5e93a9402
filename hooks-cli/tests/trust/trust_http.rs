//! http hooks at the project boundary (issue 27 item 6): the approval covers
//! the whole request (URL, header names and templates, allowed env vars), the
//! banner shows it, and the response body is read with the cap while it streams.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::dialects::{bash, home_with, in_project, write};
use crate::harness;

/// A loopback server: records each request's head, answers with `body` (or,
/// `endless`, with bytes until the client stops reading, at most 128 MiB).
struct Server {
    url: String,
    heads: Arc<Mutex<Vec<String>>>,
    sent: Arc<AtomicU64>,
}

fn serve(endless: bool) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let heads = Arc::new(Mutex::new(Vec::new()));
    let sent = Arc::new(AtomicU64::new(0));
    let (seen, total) = (Arc::clone(&heads), Arc::clone(&sent));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            seen.lock().expect("lock").push(head);
            if !endless {
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                );
                continue;
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
            );
            let block = vec![b'x'; 64 * 1024];
            while total.load(Ordering::Relaxed) < 128 * 1024 * 1024 {
                if stream.write_all(&block).is_err() {
                    break;
                }
                total.fetch_add(block.len() as u64, Ordering::Relaxed);
            }
        }
    });
    Server { url, heads, sent }
}

fn emit(home: &crate::support::TempHome, project: &std::path::Path) -> serde_json::Value {
    let file = home.write("payload.json", &bash("ls").to_string());
    let mut command = harness::command(
        home,
        &[
            "--project",
            project.to_str().unwrap_or(""),
            "emit",
            "pre_tool_call",
            "--json",
            "--payload-file",
            file.to_str().unwrap_or(""),
        ],
    );
    command.env("HOOK_SECRET", "s3cr3t-value");
    crate::support::Run(command.output().expect("run hooks")).json()
}

#[test]
fn headers_added_after_approval_need_a_new_approval() {
    let (home, project) = home_with("[claude]");
    let server = serve(false);
    let hook = |extra: serde_json::Value| {
        let mut handler = json!({"type": "http", "url": server.url, "timeout": 5});
        if let (Some(handler), Some(extra)) = (handler.as_object_mut(), extra.as_object()) {
            handler.extend(extra.clone());
        }
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}).to_string()
    };
    write(&project, ".claude/settings.json", &hook(json!({})));
    in_project(&home, &project, &["approve", "--all"]).ok();
    emit(&home, &project);
    assert_eq!(
        server.heads.lock().expect("lock").len(),
        1,
        "approved: sent"
    );
    write(
        &project,
        ".claude/settings.json",
        &hook(
            json!({"headers": {"Authorization": "Bearer $HOOK_SECRET"}, "allowedEnvVars": ["HOOK_SECRET"]}),
        ),
    );
    let emitted = emit(&home, &project);
    let heads = server.heads.lock().expect("lock").clone();
    assert!(
        heads.len() == 1 && !heads.iter().any(|h| h.contains("s3cr3t")),
        "a changed request went out unapproved: {heads:?} {emitted}"
    );
    let approved = in_project(&home, &project, &["approve", "--all"]).ok();
    assert!(
        approved.contains("Header:  Authorization: Bearer $HOOK_SECRET")
            && approved.contains("Env:     HOOK_SECRET"),
        "{approved}"
    );
}

#[test]
fn an_endless_response_is_cut_at_the_cap_while_streaming() {
    let (home, project) = home_with("[claude]");
    let server = serve(true);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": server.url, "timeout": 20}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    in_project(&home, &project, &["approve", "--all"]).ok();
    let emitted = emit(&home, &project);
    let sent = server.sent.load(Ordering::Relaxed);
    // 1 MiB kept; what the kernel's socket buffers took besides is small.
    assert!(
        sent < 32 * 1024 * 1024,
        "the body was read whole: {sent} bytes sent; {emitted}"
    );
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("timed_out"),
        "{emitted}"
    );
}

/// An http hook whose URL carries its secret in the path is shown masked
/// everywhere a person or a log sees it (issue 27 item 7): `hooks test`'s
/// skip line and its approve hint, the run record's source, `list --json`,
/// `doctor`; the hint as printed still approves it.
#[test]
fn a_path_secret_in_an_http_hooks_url_is_never_shown() {
    let (home, project) = home_with("[claude]");
    let server = serve(false);
    let url = format!("{}/Pa55w0rd!x", server.url);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": url, "timeout": 5}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let never_shown = |what: &str, text: &str| {
        assert!(
            !text.contains("Pa55w0rd"),
            "{what} shows the secret: {text}"
        );
    };

    let test = in_project(
        &home,
        &project,
        &["test", "PreToolUse", "--for-tool", "Bash", "--json"],
    );
    let tested: serde_json::Value = serde_json::from_str(test.stdout().trim()).expect("json");
    never_shown("hooks test", &format!("{}{}", test.stdout(), test.stderr()));
    let hint = tested.to_string();
    let hint = hint
        .split("hooks approve '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no approve hint: {tested}"))
        .to_owned();
    assert!(hint.starts_with("POST http://127.0.0.1:"), "{hint}");

    let approved = in_project(
        &home,
        &project,
        &["approve", &hint, "--event", "pre_tool_call"],
    );
    assert!(
        approved.ok().contains("approved"),
        "the shown hint approves"
    );

    let emitted = emit(&home, &project);
    assert_eq!(server.heads.lock().expect("lock").len(), 1, "{emitted}");
    never_shown("the run record", &emitted.to_string());
    for args in [&["list", "--json"][..], &["list"], &["doctor"]] {
        let run = in_project(&home, &project, args);
        never_shown(
            &args.join(" "),
            &format!("{}{}", run.stdout(), run.stderr()),
        );
    }
}

/// A literal header value of an http hook is never printed (red team R37-8:
/// `hooks approve` printed `Header: Authorization: Bearer hunter`): the
/// banner shows the header's name, its `$VAR` templates and auth scheme, and
/// `***` with a fingerprint that changes with the value; `list`, `--json`,
/// `doctor` and the run record do not show it either. The request still
/// carries the value the approval bound.
#[test]
fn a_literal_header_value_is_shown_masked_with_its_fingerprint() {
    let (home, project) = home_with("[claude]");
    let server = serve(false);
    let hook = |authorization: &str| {
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "http", "url": server.url, "timeout": 5,
            "headers": {
                "Authorization": authorization,
                "X-Api-Key": "hunter",
                "X-Signed": "Bearer ${HOOK_SECRET}",
            },
            "allowedEnvVars": ["HOOK_SECRET"],
        }]}]}})
        .to_string()
    };
    write(&project, ".claude/settings.json", &hook("Bearer hunter"));
    let approved = in_project(&home, &project, &["approve", "--all"]).ok();
    for line in [
        "Header:  Authorization: Bearer *** (hmac:",
        "Header:  X-Api-Key: *** (hmac:",
        "Header:  X-Signed: Bearer ${HOOK_SECRET}\n",
    ] {
        assert!(approved.contains(line), "no `{line}`: {approved}");
    }
    let first = fingerprint(&approved, "Authorization: Bearer ***");
    assert!(!approved.contains("hunter"), "{approved}");

    let emitted = emit(&home, &project);
    let heads = server.heads.lock().expect("lock").clone();
    assert!(
        heads.len() == 1 && heads[0].contains("Bearer hunter"),
        "the approved request was not sent as configured: {heads:?} {emitted}"
    );
    assert!(!emitted.to_string().contains("hunter"), "{emitted}");
    for args in [&["list", "--json"][..], &["list"], &["doctor"]] {
        let run = in_project(&home, &project, args);
        let text = format!("{}{}", run.stdout(), run.stderr());
        assert!(!text.contains("hunter"), "{args:?} shows the value: {text}");
    }

    // A changed value shows a changed fingerprint.
    write(&project, ".claude/settings.json", &hook("Bearer hunter3"));
    let approved = in_project(&home, &project, &["approve", "--all"]).ok();
    let changed = fingerprint(&approved, "Authorization: Bearer ***");
    assert_ne!(first, changed, "{approved}");
}

/// The `hmac:<8 hex>` after `shown` on a `Header:` line of `text`.
fn fingerprint(text: &str, shown: &str) -> String {
    let line = text
        .lines()
        .find(|line| line.contains(&format!("Header:  {shown} (hmac:")))
        .unwrap_or_else(|| panic!("no `{shown}` with a fingerprint: {text}"));
    let at = line.find("(hmac:").expect("fingerprint") + "(hmac:".len();
    let hex = &line[at..at + 8];
    assert!(
        hex.bytes().all(|b| b.is_ascii_hexdigit()) && line[at + 8..].starts_with(')'),
        "{line}"
    );
    hex.to_owned()
}

/// A masked header value's fingerprint is keyed (red team round 37/39): not
/// the first 8 hex digits of the plain SHA-256, which a word list finds
/// `Bearer hunter2` from in a CI log. The key is the home's, made once with
/// mode 0600 beside the allowlist, so `list --json` shows the fingerprint
/// the approval banner showed.
#[test]
fn a_header_fingerprint_is_keyed_not_the_plain_sha256() {
    use std::os::unix::fs::PermissionsExt;
    let (home, project) = home_with("[claude]");
    let hook = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
        "type": "http", "url": "http://127.0.0.1:9/hook", "timeout": 5,
        "headers": {"Authorization": "Bearer hunter2"},
    }]}]}});
    write(&project, ".claude/settings.json", &hook.to_string());
    let approved = in_project(&home, &project, &["approve", "--all"]).ok();
    // `printf %s 'Bearer hunter2' | sha256sum`: c13e77fb…
    assert!(!approved.contains("sha256:"), "{approved}");
    assert!(
        !approved.contains("c13e77fb"),
        "the unkeyed hash: {approved}"
    );
    let shown = fingerprint(&approved, "Authorization: Bearer ***");
    let key = home.hermes.join("shell-hooks-fingerprint.key");
    let meta = std::fs::metadata(&key).expect("the key beside the allowlist");
    assert_eq!((meta.permissions().mode() & 0o777, meta.len()), (0o600, 32));
    let made = std::fs::read(&key).expect("key");
    let listed = in_project(&home, &project, &["list", "--json"]).ok();
    assert!(
        listed.contains(&format!("Bearer *** (hmac:{shown})")),
        "{listed}"
    );
    assert!(!listed.contains("c13e77fb"), "{listed}");
    assert_eq!(
        std::fs::read(&key).expect("key"),
        made,
        "the key was made again"
    );
}

/// Sweep 58 (S58-1, S58-3): an http hook not approved yet, or approved
/// automatically, is named in the warning every `emit` prints and in the
/// log with its URL's secrets masked (they printed
/// `http://u:hunter2@…?token=…` whole).
#[test]
fn an_http_hooks_secrets_are_masked_in_warnings_and_logs() {
    let (home, project) = home_with("[claude]");
    let server = serve(false);
    let url =
        server.url.replacen("http://", "http://u:hunter2@", 1) + "/ok/Pa55w0rdXyz?token=pw0rd";
    for fail_closed in [false, true] {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": url, "timeout": 5, "failClosed": fail_closed}
        ]}]}});
        write(&project, ".claude/settings.json", &settings.to_string());
        for args in [
            &["emit", "pre_tool_call", "--json"][..],
            &["-v", "--accept-hooks", "emit", "pre_tool_call", "--json"],
        ] {
            let file = home.write("payload.json", &bash("ls").to_string());
            let mut full = vec!["--project", project.to_str().unwrap_or("")];
            full.extend_from_slice(args);
            full.extend(["--payload-file", file.to_str().unwrap_or("")]);
            let mut command = harness::command(&home, &full);
            command.env("HOOKS_LOG", "debug");
            let run = crate::support::Run(command.output().expect("run hooks"));
            let text = format!("{}{}", run.stdout(), run.stderr());
            for secret in ["hunter2", "pw0rd", "Pa55w0rd"] {
                assert!(!text.contains(secret), "{args:?} shows {secret}: {text}");
            }
            assert!(text.contains("127.0.0.1"), "{args:?}: {text}");
        }
        let revoked = in_project(&home, &project, &["revoke", &format!("POST {url}")]);
        assert!(
            !revoked.ok().contains("hunter2"),
            "revoke echoes the secret"
        );
    }
}
