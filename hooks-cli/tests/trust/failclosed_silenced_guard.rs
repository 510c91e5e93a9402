//! A fail-closed guard that silences what its sandbox told it (red team
//! round 7, R7c-3): a project guard whose rules are behind loopback (a
//! local policy server) runs under `project` (no network), fails to
//! connect, and says nothing (`curl -s ... 2>/dev/null || exit 0`, a
//! Python `try/except: sys.exit(0)`). The kernel's record of its network
//! attempts makes that block, naming what to do; the same guard fail-open
//! keeps allowing. As root and as an unprivileged user.

use serde_json::{Value, json};

use super::sandbox::{Scene, nobody_has_user_namespaces};

/// The guard asks a policy server on loopback and allows when it cannot.
const CURL_GUARD: &str = "#!/bin/sh\ncat >/dev/null\n\
    curl -s --max-time 5 http://127.0.0.1:1/v1/data/policy 2>/dev/null || exit 0\n\
    echo '{\"decision\":\"block\",\"reason\":\"policy says no\"}'\n";

/// The same in Python: every error swallowed.
const PYTHON_GUARD: &str = "#!/usr/bin/env python3\nimport json, socket, sys\n\
    sys.stdin.read()\n\
    try:\n    socket.create_connection(('127.0.0.1', 1), 5).close()\n\
    except Exception:\n    sys.exit(0)\n\
    print(json.dumps({'decision': 'block', 'reason': 'policy says no'}))\n";

/// `hooks emit pre_tool_call --json` of a `terminal` call of `rm -rf /`.
fn emit(scene: &Scene, accept: bool) -> Value {
    let payload = scene.home.join("payload.json");
    let call = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"});
    std::fs::write(&payload, call.to_string()).expect("payload");
    let mut args = vec!["emit", "pre_tool_call", "--json", "--payload-file"];
    args.push(payload.to_str().expect("UTF-8 path"));
    if accept {
        args.insert(0, "--accept-hooks");
    }
    let output = scene.hooks(&args, &[]);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "not JSON ({error}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A scene whose project guard `script` fails closed or not, approved.
/// `None` where the unprivileged user has no user namespaces (the sandbox
/// then cannot be applied: tested elsewhere).
fn project_guard(unprivileged: bool, script: &str, fail_closed: bool) -> Option<Scene> {
    if unprivileged && !nobody_has_user_namespaces() {
        return None;
    }
    let scene = Scene::new(unprivileged);
    scene.config("hooks_from: [claude]\n").claude_hook(
        "guard",
        script,
        json!({"failClosed": fail_closed}),
    );
    let approved = emit(&scene, true);
    assert_eq!(
        approved["runs"][0]["sandbox"],
        json!("project"),
        "{approved}"
    );
    Some(scene)
}

fn silenced_network_guard_blocks(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return;
    }
    for (name, script) in [("curl", CURL_GUARD), ("python", PYTHON_GUARD)] {
        let Some(scene) = project_guard(unprivileged, script, true) else {
            return;
        };
        let emitted = emit(&scene, false);
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "{name}: {emitted}"
        );
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        for words in [
            "failed closed",
            "'project' denied network access",
            "`sandbox: {network: true}`",
            "`sandbox: none`",
        ] {
            assert!(
                message.contains(words),
                "{name}: {words} missing: {emitted}"
            );
        }
        let run = &emitted["runs"][0];
        assert_eq!(run["status"], json!("failed"), "{name}: {emitted}");
        assert!(
            run["diagnostics"]
                .to_string()
                .contains("sandbox 'project' denied (network)"),
            "{name}: {emitted}"
        );
        // Fail-open, the same guard allows as before.
        let Some(scene) = project_guard(unprivileged, script, false) else {
            return;
        };
        let emitted = emit(&scene, false);
        assert_eq!(emitted["outcome"], Value::Null, "{name}: {emitted}");
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("completed"),
            "{name}: {emitted}"
        );
    }
}

#[test]
fn a_fail_closed_guard_silenced_on_a_denied_network_blocks_as_root() {
    silenced_network_guard_blocks(false);
}

#[test]
fn a_fail_closed_guard_silenced_on_a_denied_network_blocks_as_an_unprivileged_user() {
    silenced_network_guard_blocks(true);
}
