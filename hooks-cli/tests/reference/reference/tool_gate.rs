//! `pre_tool_call` stdout in both dialects: blocks, default messages, modify,
//! and everything that must contribute nothing. `§7.n` = reference test n.

use serde_json::json;

use super::model::{Case, block, context, nothing, parsed, prints};

const TOOL: &str = "pre_tool_call";

pub fn cases() -> Vec<Case> {
    vec![
        // §7.2, §7.30
        Case::new("Hermes block", TOOL)
            .hook(prints(r#"{"action": "block", "message": "hermes says no"}"#))
            .expect(vec![parsed(block("hermes says no"))]),
        // §7.1
        Case::new("Claude Code block", TOOL)
            .hook(prints(r#"{"decision": "block", "reason": "claude says no"}"#))
            .expect(vec![parsed(block("claude says no"))]),
        Case::new("Claude Code block with `message` only", TOOL)
            .hook(prints(r#"{"decision": "block", "message": "from message"}"#))
            .expect(vec![parsed(block("from message"))]),
        // §7.3
        Case::new("both dialects: Hermes wins", TOOL)
            .hook(prints(
                r#"{"action": "block", "message": "hermes", "decision": "block", "reason": "claude"}"#,
            ))
            .expect(vec![parsed(block("hermes"))]),
        Case::new("non-block action, Claude Code block", TOOL)
            .hook(prints(
                r#"{"action": "allow", "decision": "block", "reason": "claude"}"#,
            ))
            .expect(vec![parsed(block("claude"))]),
        // §7.11
        Case::new("block without message: default", TOOL)
            .hook(prints(r#"{"action": "block"}"#))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        // §7.12
        Case::new("Claude Code block without reason: default", TOOL)
            .hook(prints(r#"{"decision": "block"}"#))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        // §7.13
        Case::new("empty message: default", TOOL)
            .hook(prints(r#"{"action": "block", "message": ""}"#))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        // §7.14
        Case::new("non-string message: default", TOOL)
            .hook(prints(r#"{"action": "block", "message": 42}"#))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        Case::new("truthy non-string message hides a valid reason", TOOL)
            .hook(prints(r#"{"action": "block", "message": 42, "reason": "r"}"#))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        Case::new("empty message falls back to reason", TOOL)
            .hook(prints(r#"{"action": "block", "message": "", "reason": "from reason"}"#))
            .expect(vec![parsed(block("from reason"))]),
        Case::new("null message falls back to reason", TOOL)
            .hook(prints(r#"{"action": "block", "message": null, "reason": "r2"}"#))
            .expect(vec![parsed(block("r2"))]),
        Case::new("message kept unstripped", TOOL)
            .hook(prints(r#"{"action": "block", "message": "  padded  "}"#))
            .expect(vec![parsed(block("  padded  "))]),
        Case::new("non-ASCII message", TOOL)
            .hook(prints(r#"{"action": "block", "message": "禁止 — ✋"}"#))
            .expect(vec![parsed(block("禁止 — ✋"))]),
        Case::new("verbs are case-sensitive", TOOL)
            .hook(prints(r#"{"action": "BLOCK", "message": "m"}"#))
            .expect(vec![nothing()]),
        // §7.38
        Case::new("Hermes modify", TOOL)
            .hook(prints(r#"{"action": "modify", "args": {"command": "echo safe"}}"#))
            .expect(vec![parsed(
                json!({"action": "modify", "args": {"command": "echo safe"}}),
            )]),
        // §7.39
        Case::new("Claude Code modify", TOOL)
            .hook(prints(
                r#"{"decision": "modify", "tool_input": {"command": "echo safe"}}"#,
            ))
            .expect(vec![parsed(
                json!({"action": "modify", "args": {"command": "echo safe"}}),
            )]),
        Case::new("modify with non-object args", TOOL)
            .hook(prints(r#"{"action": "modify", "args": "echo safe"}"#))
            .expect(vec![nothing()]),
        Case::new("context is not a pre_tool_call directive", TOOL)
            .hook(prints(r#"{"context": "ignored"}"#))
            .expect(vec![nothing()]),
        // §7.7
        Case::new("decision allow", TOOL)
            .hook(prints(r#"{"decision": "allow"}"#))
            .expect(vec![nothing()]),
        Case::new("no shell approve", TOOL)
            .hook(prints(r#"{"action": "approve", "message": "ok"}"#))
            .expect(vec![nothing()]),
        // §7.4
        Case::new("empty stdout", TOOL)
            .hook(prints(""))
            .expect(vec![nothing()]),
        Case::new("whitespace-only stdout", TOOL)
            .hook(prints(" \t\n\n   "))
            .expect(vec![nothing()]),
        Case::new("JSON surrounded by whitespace", TOOL)
            .hook(prints("\n\n   {\"action\": \"block\", \"message\": \"spaced\"}   \n\n"))
            .expect(vec![parsed(block("spaced"))]),
        // §7.5, §7.28
        Case::new("invalid JSON", TOOL)
            .hook(prints("not json {"))
            .expect(vec![nothing()]),
        Case::new("a log line before the JSON", TOOL)
            .hook(prints("checking...\n{\"action\": \"block\", \"message\": \"m\"}"))
            .expect(vec![nothing()]),
        Case::new("two JSON objects", TOOL)
            .hook(prints(r#"{"action": "block"} {"action": "block"}"#))
            .expect(vec![nothing()]),
        // §7.6
        Case::new("JSON array", TOOL)
            .hook(prints(r#"[{"action": "block", "message": "m"}]"#))
            .expect(vec![nothing()]),
        Case::new("JSON string", TOOL)
            .hook(prints(r#""block""#))
            .expect(vec![nothing()]),
        Case::new("duplicate keys: the last wins", TOOL)
            .hook(prints(r#"{"action": "block", "message": "first", "message": "last"}"#))
            .expect(vec![parsed(block("last"))]),
        Case::new("UTF-8 BOM before the JSON", TOOL)
            .hook(prints("\u{feff}{\"action\": \"block\", \"message\": \"bom\"}"))
            .expect(vec![nothing()]),
        Case::new("two hooks report in config order", TOOL)
            .hook(prints(r#"{"context": "first contributes nothing"}"#))
            .hook(prints(r#"{"decision": "block", "reason": "second blocks"}"#))
            .expect(vec![nothing(), parsed(block("second blocks"))]),
        Case::new("context on a tool event other than pre_tool_call", "post_tool_call")
            .hook(prints(r#"{"context": "after the tool"}"#))
            .expect(vec![parsed(context("after the tool"))]),
    ]
}
