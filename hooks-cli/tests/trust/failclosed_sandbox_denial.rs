//! A fail-closed guard its sandbox denied what it needed (red team round 7,
//! R7b-8): the user's guard reads its deny list from `~/.config`; under
//! `hooks_sandbox: {user: strict}` the read is denied, the loop never runs
//! and the guard exits 0 saying nothing. That must block (a failed run
//! naming the denied file), never allow; unsandboxed the guard blocks by its
//! answer; a fail-open guard keeps today's behaviour (allowed, the denial a
//! diagnostic). The same for the user's Claude Code guard
//! (`~/.claude/settings.json`, `failClosed`) and a native `config.yaml`
//! hook (`fail_closed`).

use serde_json::{Value, json};

use super::linked_tool_folder::sandbox_applies;
use super::sandbox::Scene;

/// Where the guard reads its patterns, under HOME.
const DENY_LIST: &str = ".config/myguard/deny.txt";

/// Blocks a call whose input holds a pattern of the deny list (both the
/// native and Claude Code dialects read `decision: block`).
const GUARD: &str = r#"#!/bin/sh
input=$(cat)
while read -r pat; do
  case "$input" in *"$pat"*) echo '{"decision":"block","reason":"denied by list"}'; exit 0;; esac
done < "$HOME/.config/myguard/deny.txt"
exit 0
"#;

/// The two ways the user writes a guard.
#[derive(Clone, Copy, Debug)]
enum Dialect {
    /// `~/.claude/settings.json`, `failClosed`.
    Claude,
    /// A `config.yaml` hook, `fail_closed`.
    Native,
}

/// A scene whose user guard (`dialect`, failing closed or not) reads
/// [`DENY_LIST`], under `hooks_sandbox: {user: <profile>}`, approved.
fn user_guard(profile: &str, dialect: Dialect, fail_closed: bool) -> Scene {
    let scene = Scene::new(false);
    let list = scene.home.join(DENY_LIST);
    std::fs::create_dir_all(list.parent().expect("folder")).expect("mkdir");
    std::fs::write(&list, "rm -rf\n").expect("deny list");
    let guard = scene.home.join(".claude/hooks/guard.sh");
    std::fs::create_dir_all(guard.parent().expect("folder")).expect("mkdir");
    std::fs::write(&guard, GUARD).expect("guard");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let sandbox = format!("hooks_sandbox: {{user: {profile}}}\n");
    match dialect {
        Dialect::Claude => {
            let handler = json!({"type": "command", "command": guard.display().to_string(),
                "failClosed": fail_closed});
            let settings =
                json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
            std::fs::write(
                scene.home.join(".claude/settings.json"),
                settings.to_string(),
            )
            .expect("settings");
            scene.config(&format!("hooks_from: [claude]\n{sandbox}"));
        }
        Dialect::Native => {
            scene.config(&format!(
                "{sandbox}hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: {fail_closed}\n",
                guard.display()
            ));
        }
    }
    let approved = emit(&scene, "ls", true);
    assert_eq!(
        approved["runs"].as_array().map(Vec::len),
        Some(1),
        "{approved}"
    );
    scene
}

/// `hooks emit pre_tool_call --json` of a `terminal` call running `command`.
fn emit(scene: &Scene, command: &str, accept: bool) -> Value {
    let payload = scene.home.join("payload.json");
    let call = json!({"tool_name": "terminal", "args": {"command": command}, "task_id": "t"});
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

#[test]
fn a_fail_closed_guard_its_sandbox_denied_its_list_blocks() {
    if !sandbox_applies("fail-closed guard denied by its sandbox") {
        return;
    }
    for dialect in [Dialect::Claude, Dialect::Native] {
        let scene = user_guard("strict", dialect, true);
        let emitted = emit(&scene, "rm -rf /", false);
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "{dialect:?}: {emitted}"
        );
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        let list = scene.home.join(DENY_LIST);
        for words in [
            "failed closed",
            "'strict' denied",
            &*list.to_string_lossy(),
            "`read`",
            "`sandbox: none`",
        ] {
            assert!(
                message.contains(words),
                "{dialect:?}: {words} missing: {emitted}"
            );
        }
        let run = &emitted["runs"][0];
        assert_eq!(run["sandbox"], json!("strict"), "{dialect:?}: {emitted}");
        assert_eq!(run["status"], json!("failed"), "{dialect:?}: {emitted}");
        assert!(
            run["diagnostics"]
                .to_string()
                .contains("failed closed: the tool call is blocked"),
            "{dialect:?}: {emitted}"
        );
    }
}

#[test]
fn the_same_guard_unsandboxed_blocks_by_its_answer() {
    for dialect in [Dialect::Claude, Dialect::Native] {
        let scene = user_guard("none", dialect, true);
        let emitted = emit(&scene, "rm -rf /", false);
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "{dialect:?}: {emitted}"
        );
        assert_eq!(
            emitted["outcome"]["message"],
            json!("denied by list"),
            "{dialect:?}: {emitted}"
        );
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("blocked"),
            "{dialect:?}: {emitted}"
        );
    }
}

#[test]
fn a_fail_open_guard_its_sandbox_denied_allows_with_the_diagnostic() {
    if !sandbox_applies("fail-open guard denied by its sandbox") {
        return;
    }
    for dialect in [Dialect::Claude, Dialect::Native] {
        let scene = user_guard("strict", dialect, false);
        let emitted = emit(&scene, "rm -rf /", false);
        assert_eq!(emitted["outcome"], Value::Null, "{dialect:?}: {emitted}");
        let run = &emitted["runs"][0];
        assert_eq!(run["status"], json!("completed"), "{dialect:?}: {emitted}");
        assert!(
            run["diagnostics"]
                .to_string()
                .contains("sandbox 'strict' denied (filesystem)"),
            "{dialect:?}: {emitted}"
        );
    }
}
