//! Claude Code hook scripts written the way public ones are (Python reading
//! the whole of stdin with `json.load`, bash reading `$CLAUDE_PROJECT_DIR`),
//! wired in `.claude/settings.json` as their authors wire them (executable
//! files run as `"$CLAUDE_PROJECT_DIR"/.claude/hooks/<name>`), give through
//! `hooks emit` the decisions they give under Claude Code: deny with exit 0 +
//! `permissionDecision` and with exit 2, ask, `{}`, `additionalContext` on
//! UserPromptSubmit and PostToolUse, Stop's `decision: block`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_json, home_with, write};

/// A Bash guard: deny `rm -rf` (exit 0 + JSON), refuse `sudo` (exit 2 +
/// stderr), ask before `git push`, `{}` for the rest.
const BASH_GUARD: &str = r#"#!/usr/bin/env python3
import json
import re
import sys

data = json.load(sys.stdin)
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if re.search(r"\brm\s+-[a-z]*r[a-z]*f", command):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Destructive command blocked: " + command,
        }
    }))
    sys.exit(0)
if re.match(r"\s*sudo\b", command):
    print("sudo is not allowed in this project", file=sys.stderr)
    sys.exit(2)
if "git push" in command:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "Pushing needs a human",
        }
    }))
    sys.exit(0)
print("{}")
"#;

/// Context for every prompt: plain text on stdout (Claude Code adds it).
const PROMPT_CONTEXT: &str = r#"#!/usr/bin/env bash
cat > /dev/null
echo "Project: $(basename "$CLAUDE_PROJECT_DIR")"
"#;

/// Context for prompts that mention tests, as JSON.
const PROMPT_TESTS: &str = r#"#!/usr/bin/env python3
import json, sys
prompt = json.load(sys.stdin).get("prompt", "")
if "test" in prompt.lower():
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                      "additionalContext": "Run tests with: cargo test"}}))
"#;

/// After an edit: a reminder naming the file.
const POST_EDIT: &str = r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".rs"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                      "additionalContext": "Edited " + path + ": run cargo fmt"}}))
"#;

/// Before stopping: keep going once, then let it stop.
const STOP_GUARD: &str = r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
print(json.dumps({"decision": "block", "reason": "Run the test suite before you finish."}))
"#;

fn script(project: &Path, name: &str, body: &str) -> String {
    let path = write(project, &format!(".claude/hooks/{name}"), body);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{name}")
}

fn command(command: String) -> Value {
    json!({"type": "command", "command": command})
}

#[test]
fn public_style_scripts_decide_as_under_claude_code() {
    let (home, project) = home_with("[claude]");
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [command(script(&project, "bash-guard.py", BASH_GUARD))]}],
        "UserPromptSubmit": [{"hooks": [
            command(script(&project, "prompt-context.sh", PROMPT_CONTEXT)),
            command(script(&project, "prompt-tests.py", PROMPT_TESTS))
        ]}],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [command(script(&project, "post-edit.py", POST_EDIT))]}],
        "Stop": [{"hooks": [command(script(&project, "stop-guard.py", STOP_GUARD))]}]
    }});
    write(&project, ".claude/settings.json", &settings.to_string());
    let emit = |event: &str, payload: Value| {
        emit_json(&home, &project, &["--accept-hooks"], event, &payload)["outcome"].clone()
    };
    let bash = |command: &str| json!({"tool_name": "terminal", "args": {"command": command}, "session_id": "s"});

    assert_eq!(
        emit("pre_tool_call", bash("rm -rf build")),
        json!({"action": "block", "message": "Destructive command blocked: rm -rf build"})
    );
    assert_eq!(
        emit("pre_tool_call", bash("sudo make install")),
        json!({"action": "block", "message": "sudo is not allowed in this project"})
    );
    let ask = emit("pre_tool_call", bash("git push origin main"));
    assert_eq!(ask["action"], "approve", "{ask}");
    assert_eq!(ask["message"], "Pushing needs a human", "{ask}");
    assert_eq!(emit("pre_tool_call", bash("ls -la")), Value::Null);

    let name = project.file_name().unwrap().to_str().unwrap();
    let prompt = json!({"session_id": "s", "user_message": "add a test for the parser"});
    assert_eq!(
        emit("pre_llm_call", prompt),
        json!({"context": format!("Project: {name}\n\nRun tests with: cargo test")})
    );
    let plain = json!({"session_id": "s", "user_message": "hello"});
    assert_eq!(
        emit("pre_llm_call", plain),
        json!({"context": format!("Project: {name}")})
    );

    let edit = json!({"tool_name": "patch", "args": {"path": "src/lib.rs", "old_string": "a", "new_string": "b"},
                      "result": "{\"success\": true}", "status": "ok", "session_id": "s"});
    let file = project.join("src/lib.rs");
    assert_eq!(
        emit("transform_tool_result", edit),
        json!(format!(
            "{{\"success\": true}}\n\nEdited {}: run cargo fmt",
            file.display()
        ))
    );

    let stop = |attempt: u64| json!({"session_id": "s", "attempt": attempt, "final_response": "Done.", "changed_paths": ["src/lib.rs"]});
    assert_eq!(
        emit("pre_verify", stop(0)),
        json!({"action": "continue", "message": "Run the test suite before you finish."})
    );
    assert_eq!(
        emit("pre_verify", stop(1)),
        Value::Null,
        "stop_hook_active: it may stop"
    );
}
