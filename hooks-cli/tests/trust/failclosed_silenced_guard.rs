//! A fail-closed guard that silences what its sandbox told it (red team
//! round 7, R7c-3): a project guard whose rules are behind loopback (a
//! local policy server) runs under `project` (no network), fails to
//! connect, and says nothing (`curl -s ... 2>/dev/null || exit 0`, a
//! Python `try/except: sys.exit(0)`); one whose rules are in the host's
//! `/tmp` finds none in its private `/tmp`, silenced too. The kernel's
//! record of what the sandbox denied makes that block, naming what to do
//! (and the map it names lets the guard read its rules); the same guard
//! fail-open keeps allowing. As root and as an unprivileged user.

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
    emit_in(scene, accept, &[])
}

/// [`emit`] with more environment variables.
pub(super) fn emit_in(scene: &Scene, accept: bool, env: &[(&str, &str)]) -> Value {
    let payload = scene.home.join("payload.json");
    let call = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"});
    std::fs::write(&payload, call.to_string()).expect("payload");
    let mut args = vec!["emit", "pre_tool_call", "--json", "--payload-file"];
    args.push(payload.to_str().expect("UTF-8 path"));
    if accept {
        args.insert(0, "--accept-hooks");
    }
    let output = scene.hooks(&args, env);
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
    project_guard_in(unprivileged, script, fail_closed, None)
}

/// [`project_guard`], with a `sandbox:` map on the source when given.
pub(super) fn project_guard_in(
    unprivileged: bool,
    script: &str,
    fail_closed: bool,
    sandbox: Option<&str>,
) -> Option<Scene> {
    if unprivileged && !nobody_has_user_namespaces() {
        return None;
    }
    let scene = Scene::new(unprivileged);
    let source = match sandbox {
        None => "hooks_from: [claude]\n".to_owned(),
        Some(sandbox) => format!(
            "hooks_from:\n  - {{format: claude, path: '{}', sandbox: {sandbox}}}\n",
            scene.project.join(".claude/settings.json").display()
        ),
    };
    scene
        .config(&source)
        .claude_hook("guard", script, json!({"failClosed": fail_closed}));
    let approved = emit(&scene, true);
    let profile = if sandbox.is_some() {
        "custom"
    } else {
        "project"
    };
    assert!(
        approved["runs"][0]["sandbox"]
            .as_str()
            .is_some_and(|name| name.starts_with(profile)),
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

/// A rules file of the host's `/tmp`, removed when dropped.
struct HostTmpRules(std::path::PathBuf);

impl HostTmpRules {
    fn new() -> HostTmpRules {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::path::PathBuf::from(format!(
            "/tmp/hermes-guard-{}-{}-rules.txt",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::write(&path, "rm -rf\n").expect("rules in /tmp");
        HostTmpRules(path)
    }

    /// A guard that blocks what its rules list, every error silenced.
    fn guard(&self) -> String {
        format!(
            "#!/bin/sh\nexec 2>/dev/null\ninput=$(cat)\nwhile read -r pat; do\n  \
             case \"$input\" in *\"$pat\"*) \
             echo '{{\"decision\":\"block\",\"reason\":\"denied by the /tmp rules\"}}'; \
             exit 0;; esac\ndone < {}\nexit 0\n",
            self.0.display()
        )
    }
}

impl Drop for HostTmpRules {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn rules_in_host_tmp_block(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a fail-closed guard with rules in /tmp") {
        return;
    }
    let rules = HostTmpRules::new();
    let Some(scene) = project_guard(unprivileged, &rules.guard(), true) else {
        return;
    };
    let emitted = emit(&scene, false);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
    let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
    let listed = format!("`sandbox: {{read: [{}]}}`", rules.0.display());
    for words in [
        "failed closed",
        &*format!("'project' hid the host's {}", rules.0.display()),
        &*listed,
        "`sandbox: none`",
    ] {
        assert!(message.contains(words), "{words} missing: {emitted}");
    }
    // The map the message names: the guard reads its rules and blocks by them.
    let map = format!("{{read: ['{}']}}", rules.0.display());
    let Some(scene) = project_guard_in(unprivileged, &rules.guard(), true, Some(&map)) else {
        return;
    };
    let emitted = emit(&scene, false);
    assert_eq!(
        emitted["outcome"]["message"],
        json!("denied by the /tmp rules"),
        "{emitted}"
    );
    // Fail-open, the guard that sees no rule allows as before.
    let Some(scene) = project_guard(unprivileged, &rules.guard(), false) else {
        return;
    };
    let emitted = emit(&scene, false);
    assert_eq!(emitted["outcome"], Value::Null, "{emitted}");
}

#[test]
fn a_fail_closed_guard_whose_rules_its_private_tmp_hides_blocks_as_root() {
    rules_in_host_tmp_block(false);
}

#[test]
fn a_fail_closed_guard_whose_rules_its_private_tmp_hides_blocks_as_an_unprivileged_user() {
    rules_in_host_tmp_block(true);
}
