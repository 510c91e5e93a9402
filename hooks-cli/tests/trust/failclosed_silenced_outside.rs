//! A sandboxed fail-closed guard denied its rules where neither a `/tmp`
//! path nor a `connect()` shows it, silenced: one that sends its question
//! as a datagram (`sendto()`, `sendmsg()` with an address) to a policy
//! daemon its runtime folder masks or an abstract one cut off with the
//! network, and one whose rules lie in a folder its profile (`project`)
//! grants nothing beneath (`cat /srv/policy/rules 2>/dev/null || exit 0`,
//! a Python `try/except`). Each sees no rule and allows; the kernel's
//! record makes each block, naming what to do, and the map it names lets
//! the guard reach its rules. The same guard fail-open keeps allowing. As
//! root and as an unprivileged user.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::PathBuf;

use serde_json::{Value, json};

use super::failclosed_silenced_guard::{emit_in, project_guard_in};
use super::sandbox::Scene;

/// A Python guard: `body` sets `answer`; every error is swallowed (the
/// call allowed), `deny` or a rule that matches blocks.
fn python_guard(body: &str) -> String {
    format!(
        "#!/usr/bin/env python3\nimport json, os, socket, sys\nsys.stdin.read()\n\
         try:\n    {body}\nexcept Exception:\n    sys.exit(0)\n\
         if answer.strip() in ('deny', 'rm -rf'):\n    \
         print(json.dumps({{'decision': 'block', 'reason': 'policy says no'}}))\n"
    )
}

/// A guard that sends its question to the datagram socket at `address` (a
/// Python expression) with `call`, and denies once it could.
fn datagram_guard(call: &str, address: &str) -> String {
    let sent = match call {
        "sendto" => format!("s.sendto(b'q', {address})"),
        _ => format!("s.sendmsg([b'q'], [], 0, {address})"),
    };
    python_guard(&format!(
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); {sent}; answer = 'deny'"
    ))
}

fn assert_says(message: &str, words: &[&str]) {
    for words in words.iter().chain(&["failed closed", "`sandbox: none`"]) {
        assert!(message.contains(words), "{words} missing: {message}");
    }
}

/// The outcome of `rm -rf /` emitted to `scene`'s approved guard.
fn outcome(scene: &Scene, env: &[(&str, &str)]) -> Value {
    emit_in(scene, false, env)["outcome"].clone()
}

/// The scene's runtime folder (`XDG_RUNTIME_DIR`, the user's, `0700`:
/// masked), beside its project.
fn runtime_dir(scene: &Scene) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = scene.project.parent().unwrap().join("runtime");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn runtime_datagram_daemon_blocks(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return;
    }
    let address = "os.environ['CLAUDE_PROJECT_DIR'] + '/../runtime/policy.sock'";
    for call in ["sendto", "sendmsg"] {
        let guard = datagram_guard(call, address);
        let Some(scene) = project_guard_in(unprivileged, &guard, true, None) else {
            return;
        };
        let runtime = runtime_dir(&scene);
        let socket = runtime.join("policy.sock");
        let _daemon = UnixDatagram::bind(&socket).expect("named datagram socket");
        let env = [("XDG_RUNTIME_DIR", runtime.to_str().expect("UTF-8 path"))];
        let blocked = outcome(&scene, &env);
        assert_eq!(blocked["action"], json!("block"), "{call}: {blocked}");
        let socket = std::fs::canonicalize(&socket).unwrap();
        let kept = format!(
            "'project' kept the unix socket {} from it",
            socket.display()
        );
        let listed = format!("`sandbox: {{read: [{}]}}`", socket.display());
        assert_says(
            blocked["message"].as_str().unwrap_or_default(),
            &[&kept, &listed],
        );
        // The map the message names: the datagram goes, the guard denies.
        scene.config(&format!(
            "hooks_from:\n  - {{format: claude, path: '{}', sandbox: {{read: ['{}']}}}}\n",
            scene.project.join(".claude/settings.json").display(),
            socket.display()
        ));
        emit_in(&scene, true, &env);
        let reached = outcome(&scene, &env);
        assert_eq!(
            reached["message"],
            json!("policy says no"),
            "{call}: {reached}"
        );
    }
    // Fail-open, the guard that cannot send allows as before.
    let guard = datagram_guard("sendto", address);
    let fail_open = project_guard_in(unprivileged, &guard, false, None).expect("as above");
    let runtime = runtime_dir(&fail_open);
    let _daemon = UnixDatagram::bind(runtime.join("policy.sock")).unwrap();
    let env = [("XDG_RUNTIME_DIR", runtime.to_str().expect("UTF-8 path"))];
    assert_eq!(outcome(&fail_open, &env), Value::Null);
}

#[test]
fn a_fail_closed_guard_sending_a_datagram_to_its_masked_policy_daemon_blocks_as_root() {
    runtime_datagram_daemon_blocks(false);
}

#[test]
fn a_fail_closed_guard_sending_a_datagram_to_its_masked_policy_daemon_blocks_unprivileged() {
    runtime_datagram_daemon_blocks(true);
}

fn abstract_datagram_daemon_blocks(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return;
    }
    let name = format!("hermes-dgram-{}-{unprivileged}", std::process::id());
    let address = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _daemon = UnixDatagram::bind_addr(&address).expect("abstract datagram socket");
    let guard = datagram_guard("sendto", &format!("'\\0{name}'"));
    let Some(scene) = project_guard_in(unprivileged, &guard, true, None) else {
        return;
    };
    let blocked = outcome(&scene, &[]);
    assert_eq!(blocked["action"], json!("block"), "{blocked}");
    let denied = format!("'project' denied the abstract unix socket @{name}");
    let message = blocked["message"].as_str().unwrap_or_default();
    assert_says(message, &[&denied, "`sandbox: {network: true}`"]);
    let map = Some("{network: true}");
    let Some(scene) = project_guard_in(unprivileged, &guard, true, map) else {
        return;
    };
    assert_eq!(outcome(&scene, &[])["message"], json!("policy says no"));
}

#[test]
fn a_fail_closed_guard_sending_a_datagram_to_an_abstract_daemon_cut_off_blocks_as_root() {
    abstract_datagram_daemon_blocks(false);
}

#[test]
fn a_fail_closed_guard_sending_a_datagram_to_an_abstract_daemon_cut_off_blocks_unprivileged() {
    abstract_datagram_daemon_blocks(true);
}

/// A shell guard that blocks what the rules at `rules` list, every error
/// silenced.
fn shell_rules_guard(rules: &str) -> String {
    format!(
        "#!/bin/sh\ninput=$(cat)\nrules=$(cat {rules} 2>/dev/null) || exit 0\n\
         case \"$input\" in *\"$rules\"*) \
         echo '{{\"decision\":\"block\",\"reason\":\"policy says no\"}}';; esac\nexit 0\n"
    )
}

/// The same in Python.
fn python_rules_guard(rules: &str) -> String {
    python_guard(&format!("answer = open('{rules}').read()"))
}

/// A guard reading the rules at the path it is given.
type RulesGuard = fn(&str) -> String;

fn rules_outside_the_profile_block(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return;
    }
    let guards: [(&str, RulesGuard); 2] =
        [("sh", shell_rules_guard), ("python", python_rules_guard)];
    for (name, guard) in guards {
        // The scene's scratch folder is made first: the rules go beside it.
        let Some(probe) = project_guard_in(unprivileged, "#!/bin/sh\nexit 0\n", true, None) else {
            return;
        };
        let dir = probe.project.parent().unwrap().join("srv");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("rules"), "rm -rf").unwrap();
        let rules = std::fs::canonicalize(dir.join("rules")).unwrap();
        let script = guard(&rules.display().to_string());
        probe.claude_hook("guard", &script, json!({"failClosed": true}));
        emit_in(&probe, true, &[]);
        let blocked = outcome(&probe, &[]);
        assert_eq!(blocked["action"], json!("block"), "{name}: {blocked}");
        let denied = format!(
            "'project' denied {} (outside every path it may read)",
            rules.display()
        );
        let listed = format!("`sandbox: {{read: [{}]}}`", rules.display());
        let message = blocked["message"].as_str().unwrap_or_default();
        assert_says(message, &[&denied, &listed]);
        // The map the message names: the guard reads its rules, blocks by them.
        probe.config(&format!(
            "hooks_from:\n  - {{format: claude, path: '{}', sandbox: {{read: ['{}']}}}}\n",
            probe.project.join(".claude/settings.json").display(),
            rules.display()
        ));
        emit_in(&probe, true, &[]);
        let reached = outcome(&probe, &[]);
        assert_eq!(
            reached["message"],
            json!("policy says no"),
            "{name}: {reached}"
        );
        // Fail-open, the guard that reads no rule allows as before.
        probe.config("hooks_from: [claude]\n");
        probe.claude_hook("guard", &script, json!({"failClosed": false}));
        emit_in(&probe, true, &[]);
        assert_eq!(outcome(&probe, &[]), Value::Null, "{name}");
    }
}

#[test]
fn a_fail_closed_guard_whose_rules_lie_outside_its_profile_blocks_as_root() {
    rules_outside_the_profile_block(false);
}

#[test]
fn a_fail_closed_guard_whose_rules_lie_outside_its_profile_blocks_unprivileged() {
    rules_outside_the_profile_block(true);
}
