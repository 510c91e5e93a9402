//! The downstream agent against a temporary home: a shell hook and the
//! agent's Rust guard both gate tool calls; an unapproved hook never runs
//! under the library's default consent.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A home whose one shell hook refuses `curl` (exit 2: block, stderr the message).
fn home_with_a_curl_gate(dir: &Path) {
    let script = dir.join("no-curl.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncase \"$(cat)\" in *curl*) echo 'no-curl: no network' >&2; exit 2;; esac\necho '{}'\n",
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        dir.join("config.yaml"),
        format!(
            "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: \"{}\"\n      timeout: 10\n",
            script.display()
        ),
    )
    .expect("config");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shell_hook_and_the_rust_guard_both_gate_tool_calls() {
    let home = tempfile::tempdir().expect("home");
    home_with_a_curl_gate(home.path());
    let calls = [
        ("terminal", "ls"),
        ("terminal", "curl example.com"),
        ("terminal", "cat /etc/passwd"),
    ];
    let (host, lines) = downstream_agent::run(home.path(), true, &calls)
        .await
        .expect("loads");
    assert_eq!(
        host.describe(),
        "0 plugin(s), 1 shell hook(s)",
        "{:?}",
        host.warnings()
    );
    assert!(
        lines[0].starts_with(
            r#"ran: {"command":"ls","color":"never"} (modified by host:downstream-guard (host, "#
        ),
        "{lines:?}"
    );
    let gate = home.path().join("no-curl.sh");
    assert!(
        lines[1].starts_with(&format!("blocked by shell:{} (shell, ", gate.display()))
            && lines[1].ends_with(" ms): no-curl: no network"),
        "{lines:?}"
    );
    assert!(
        lines[2].starts_with("blocked by host:downstream-guard (host, ")
            && lines[2].ends_with(" ms): downstream-guard: /etc is off limits"),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 3);
    host.shutdown(std::time::Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn without_consent_the_unapproved_hook_does_not_run_and_says_so() {
    let home = tempfile::tempdir().expect("home");
    home_with_a_curl_gate(home.path());
    let (host, lines) = downstream_agent::run(home.path(), false, &[("terminal", "curl x")])
        .await
        .expect("loads");
    assert_eq!(lines, [r#"ran: {"command":"curl x"}"#]);
    let shell = host
        .mechanisms()
        .iter()
        .find(|m| m.mechanism == "shell")
        .expect("shell status");
    assert_eq!((shell.registered, shell.failed), (0, 1));
    host.shutdown(std::time::Duration::from_secs(5)).await;
}
