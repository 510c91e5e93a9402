//! Claude Code guard scripts in the style of public ones (bash, parsing the
//! first line of stdin with python3 or grep), wired as their authors wire
//! them, give the decisions they give under Claude Code.

use hermes_hooks_core::{Outcome, ToolGate};
use serde_json::json;

use super::{World, bash_call, emit};

/// Blocks `rm -rf` with exit 0 and `permissionDecision: deny`.
const DENY_RM: &str = r#"#!/usr/bin/env bash
# Reads the first line only, as many public guards do.
read -r input
cmd=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input",{}).get("command",""))')
if printf '%s' "$cmd" | grep -qE 'rm[[:space:]]+-rf'; then
  printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Destructive command blocked by hook"}}'
fi
exit 0
"#;

/// Protects `.env` files with exit 2 and a reason on stderr (grep, no jq).
const PROTECT_ENV: &str = r#"#!/usr/bin/env bash
input=$(head -n 1)
if echo "$input" | grep -q '"file_path":"[^"]*\.env"'; then
  echo "Blocked: .env files are protected" >&2
  exit 2
fi
exit 0
"#;

/// Asks before `git push`.
const ASK_PUSH: &str = r#"#!/usr/bin/env bash
read -r input
case "$input" in
  *'"command":"git push'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"git push needs a human"}}' ;;
  *) echo '{}' ;;
esac
"#;

#[tokio::test]
async fn deny_with_exit_0_and_permission_decision() {
    let world = World::new();
    let command = world.hook_script("no-rm.sh", DENY_RM);
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    let blocked = emit(&bus, "pre_tool_call", bash_call("rm -rf /tmp/x")).await;
    assert_eq!(
        blocked.block_message(),
        Some("Destructive command blocked by hook")
    );
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("ls")).await,
        Outcome::Nothing
    );
    // The matcher is the Claude name: a Hermes `read_file` call is not `Bash`.
    let read = json!({"tool_name": "read_file", "args": {"path": "rm -rf"}});
    assert_eq!(emit(&bus, "pre_tool_call", read).await, Outcome::Nothing);
}

#[tokio::test]
async fn deny_with_exit_2_and_stderr() {
    let world = World::new();
    let command = world.hook_script("protect-env.sh", PROTECT_ENV);
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Read|Edit|Write", "hooks": [{"type": "command", "command": command, "timeout": 10}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    // Hermes `path` reaches the script as Claude's `file_path`.
    let read = json!({"tool_name": "read_file", "args": {"path": "/p/.env"}});
    assert_eq!(
        emit(&bus, "pre_tool_call", read).await.block_message(),
        Some("Blocked: .env files are protected")
    );
    let other = json!({"tool_name": "read_file", "args": {"path": "/p/README.md"}});
    assert_eq!(emit(&bus, "pre_tool_call", other).await, Outcome::Nothing);
}

#[tokio::test]
async fn ask_becomes_approve_and_empty_object_decides_nothing() {
    let world = World::new();
    let command = world.hook_script("ask-push.sh", ASK_PUSH);
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    let outcome = emit(&bus, "pre_tool_call", bash_call("git push origin main")).await;
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Approve {
            message: Some("git push needs a human".into()),
            rule_key: None,
            args: None
        })
    );
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("git status")).await,
        Outcome::Nothing
    );
}

#[tokio::test]
async fn hooks_of_one_event_run_in_parallel_and_deny_beats_ask() {
    let world = World::new();
    let ask = world.hook_script("ask.sh", ASK_PUSH);
    let deny = world.hook_script(
        "deny-force.sh",
        r#"read -r input; case "$input" in *--force*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force pushes"}}';; esac"#,
    );
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"command": ask}]},
        {"matcher": "Bash", "hooks": [{"command": deny}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("git push --force"))
            .await
            .block_message(),
        Some("no force pushes")
    );
    assert!(matches!(
        emit(&bus, "pre_tool_call", bash_call("git push")).await,
        Outcome::Tool(ToolGate::Approve { .. })
    ));
}

#[tokio::test]
async fn updated_input_is_translated_back_into_a_modify() {
    let world = World::new();
    let command = world.hook_script(
        "redirect.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"/safe/out.txt","content":"x"}}}'"#,
    );
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"command": command}]}]}}),
    );
    let bus = world.bus(json!(["claude"]));
    let write = json!({"tool_name": "write_file", "args": {"path": "/etc/passwd", "content": "x"}});
    let Outcome::Tool(ToolGate::Modify { args }) = emit(&bus, "pre_tool_call", write).await else {
        panic!("a modify");
    };
    assert_eq!(args.get("path"), Some(&json!("/safe/out.txt")));
    assert!(!args.contains_key("file_path"));
}

#[tokio::test]
async fn additional_context_on_user_prompt_submit() {
    let world = World::new();
    let json_hook = world.hook_script(
        "branch.sh",
        r#"read -r input; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Current branch: main"}}'"#,
    );
    // Plain text on stdout with exit 0 is context too, for UserPromptSubmit.
    let text_hook = world.hook_script("date.sh", r#"cat >/dev/null; echo "Today is a test day""#);
    world.claude_settings(json!({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": json_hook}, {"type": "command", "command": text_hook}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    let outcome = emit(
        &bus,
        "pre_llm_call",
        json!({"session_id": "s", "user_message": "hi"}),
    )
    .await;
    assert_eq!(
        outcome,
        Outcome::Context("Current branch: main\n\nToday is a test day".into())
    );
}

#[tokio::test]
async fn post_tool_use_context_and_block_reason_reach_the_result() {
    let world = World::new();
    let command = world.hook_script(
        "lint.sh",
        r#"read -r input
if echo "$input" | grep -q '"tool_response"'; then
  echo '{"decision":"block","reason":"lint failed: 2 errors","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"run cargo fmt"}}'
fi"#,
    );
    world.claude_settings(json!({"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    let payload = json!({"tool_name": "patch", "args": {"path": "/p/a.rs"}, "result": "{\"ok\": true}", "status": "ok"});
    assert_eq!(
        emit(&bus, "transform_tool_result", payload).await,
        Outcome::Replace("{\"ok\": true}\n\nrun cargo fmt\n\nlint failed: 2 errors".into())
    );
    // A failed call is PostToolUseFailure's, not PostToolUse's.
    let failed = json!({"tool_name": "patch", "args": {}, "result": "{}", "status": "error"});
    assert_eq!(
        emit(&bus, "transform_tool_result", failed).await,
        Outcome::Nothing
    );
}

#[tokio::test]
async fn stop_decision_block_keeps_the_agent_going_once() {
    let world = World::new();
    let command = world.hook_script(
        "tests-first.sh",
        r#"input=$(cat)
active=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stop_hook_active"])')
if [ "$active" = "True" ]; then exit 0; fi
echo '{"decision":"block","reason":"Run the tests before stopping"}'"#,
    );
    world.claude_settings(json!({"hooks": {"Stop": [{"hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    let first =
        json!({"session_id": "s", "attempt": 0, "final_response": "done", "changed_paths": ["a"]});
    assert_eq!(
        emit(&bus, "pre_verify", first).await,
        Outcome::Continue {
            message: "Run the tests before stopping".into()
        }
    );
    let again =
        json!({"session_id": "s", "attempt": 1, "final_response": "done", "changed_paths": ["a"]});
    assert_eq!(emit(&bus, "pre_verify", again).await, Outcome::Nothing);
}

#[tokio::test]
async fn other_exits_fail_open_unless_fail_closed() {
    let world = World::new();
    let open = world.hook_script("broken.sh", "echo oops >&2; exit 1");
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [{"command": open}]}]}}));
    assert_eq!(
        emit(
            &world.bus(json!(["claude"])),
            "pre_tool_call",
            bash_call("ls")
        )
        .await,
        Outcome::Nothing
    );
    let missing = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/missing.sh";
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"hooks": [{"command": missing, "failClosed": true}]}]}}),
    );
    let Outcome::Tool(ToolGate::Block { message, .. }) = emit(
        &world.bus(json!(["claude"])),
        "pre_tool_call",
        bash_call("ls"),
    )
    .await
    else {
        panic!("a fail-closed hook that exits 127 blocks");
    };
    assert!(
        message.contains("failed closed: exited with status 127"),
        "{message}"
    );
}

#[tokio::test]
async fn a_fail_closed_guard_that_fails_after_printing_json_blocks() {
    // Red team 8 (R8-1): an EXIT trap's `{}` is no verdict of a guard that failed.
    let world = World::new();
    for (dialect, body) in [
        ("exit", "cat >/dev/null; echo '{}'; exit 1"),
        (
            "continue",
            "cat >/dev/null; echo '{\"continue\":true}'; exit 3",
        ),
        ("signal", "cat >/dev/null; echo '{}'; kill -9 $$"),
    ] {
        let guard = world.hook_script(&format!("{dialect}.sh"), body);
        world.claude_settings(
            json!({"hooks": {"PreToolUse": [{"hooks": [{"command": guard, "failClosed": true}]}]}}),
        );
        let outcome = emit(
            &world.bus(json!(["claude"])),
            "pre_tool_call",
            bash_call("rm -rf /"),
        )
        .await;
        let Outcome::Tool(ToolGate::Block { message, .. }) = outcome else {
            panic!("{dialect}: a fail-closed guard that failed must block, got {outcome:?}");
        };
        assert!(message.contains("failed closed"), "{message}");
        world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [{"command": guard}]}]}}));
        assert_eq!(
            emit(
                &world.bus(json!(["claude"])),
                "pre_tool_call",
                bash_call("ls")
            )
            .await,
            Outcome::Nothing,
            "{dialect}: fail-open, its JSON decides"
        );
    }
}

#[tokio::test]
async fn a_replayed_claude_document_reaches_the_hook_as_sent() {
    let world = World::new();
    let out = world.project().join("seen.json");
    let command = format!("head -n 1 > '{}'", out.display());
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    let sent = json!({
        "session_id": "abc", "transcript_path": "/t.jsonl", "cwd": "/w", "permission_mode": "plan",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1", "prompt_id": "p-1", "effort": {"level": "high"}
    });
    let (event, payload) =
        hermes_hooks_shell::dialect::stdin::from_claude_document(sent.as_object().unwrap())
            .expect("a Claude document");
    assert_eq!(event, hermes_hooks_core::HookEvent::PreToolCall);
    assert_eq!(payload.get("tool_name"), Some(&json!("terminal")));
    bus.emit(&hermes_hooks_core::Event::new(event, payload))
        .await;
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(seen, sent);
}

#[tokio::test]
async fn a_replayed_permission_request_keeps_its_command() {
    let world = World::new();
    let out = world.project().join("seen.json");
    let command = format!("head -n 1 > '{}'", out.display());
    world.claude_settings(
        json!({"hooks": {"PermissionRequest": [{"hooks": [{"command": command}]}]}}),
    );
    let bus = world.bus(json!(["claude"]));
    let sent = json!({
        "session_id": "abc", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build", "description": "clean the build"}
    });
    let (event, payload) =
        hermes_hooks_shell::dialect::stdin::from_claude_document(sent.as_object().unwrap())
            .expect("a Claude document");
    assert_eq!(event, hermes_hooks_core::HookEvent::PreApprovalRequest);
    assert_eq!(payload.get("command"), Some(&json!("rm -rf build")));
    bus.emit(&hermes_hooks_core::Event::new(event, payload))
        .await;
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(seen["tool_input"]["command"], "rm -rf build", "{seen}");
    assert_eq!(
        seen["tool_input"]["description"], "clean the build",
        "{seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_hook_runs_but_decides_nothing() {
    let world = World::new();
    let marker = world.project().join("ran");
    let command = world.hook_script(
        "async-deny.sh",
        &format!(
            "cat >/dev/null; touch '{}'; echo '{{\"decision\":\"block\",\"reason\":\"ignored\"}}'",
            marker.display()
        ),
    );
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"hooks": [{"command": command, "async": true}]}]}}),
    );
    let bus = world.bus(json!(["claude"]));
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("ls")).await,
        Outcome::Nothing
    );
    // It was started: give it a generous bound to show it ran.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !marker.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(marker.exists(), "the async hook ran");
}

#[tokio::test]
async fn relative_paths_reach_claude_hooks_absolute_with_the_agents_spelling() {
    let world = World::new();
    let seen = world.project().join("seen.json");
    let command = format!("head -n 1 > '{}'", seen.display());
    world.claude_settings(
        json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"command": command}]}]}}),
    );
    let bus = world.bus(json!(["claude"]));
    let write = json!({"tool_name": "write_file", "args": {"path": "conf/.env", "content": "x"}});
    emit(&bus, "pre_tool_call", write).await;
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    // Absolute, as Claude Code's hooks expect (Hermes resolves it against
    // its terminal's folder, which no hook is told), and the agent's own
    // spelling beside it.
    let guess = world.project().join("conf/.env");
    assert_eq!(
        document["tool_input"]["file_path"],
        json!(guess.to_string_lossy())
    );
    assert_eq!(
        document["tool_input"]["file_path_as_given"],
        json!("conf/.env")
    );
    assert_eq!(document["tool_name"], "Write");
    assert_eq!(document["cwd"], json!(world.project().to_string_lossy()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_of_one_event_really_run_together() {
    // Each hook waits (up to 10 s) for the other's flag: run one after the
    // other, the first gives up and decides nothing; run together, it denies.
    let world = World::new();
    let dir = world.project().display().to_string();
    let waiter = |mine: &str, theirs: &str, reply: &str| {
        format!(
            "cat >/dev/null; touch '{dir}/{mine}'; i=0; while [ ! -e '{dir}/{theirs}' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e '{dir}/{theirs}' ] && echo '{reply}'; exit 0"
        )
    };
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"both ran"}}"#;
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"hooks": [{"command": waiter("a", "b", deny), "timeout": 30}]},
        {"hooks": [{"command": waiter("b", "a", "{}"), "timeout": 30}]}
    ]}}));
    let bus = world.bus(json!(["claude"]));
    assert_eq!(
        emit(&bus, "pre_tool_call", bash_call("ls"))
            .await
            .block_message(),
        Some("both ran")
    );
}
