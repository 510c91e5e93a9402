//! Events other than the tool gate: context injection, `pre_verify`'s
//! continue, and events only we know. `§7.n` = reference test n.

use super::model::{Case, context, keep_going, nothing, parsed, prints};

const LLM: &str = "pre_llm_call";
const VERIFY: &str = "pre_verify";

pub fn cases() -> Vec<Case> {
    vec![
        // §7.8, §7.34
        Case::new("context on pre_llm_call", LLM)
            .hook(prints(r#"{"context": "Today is Friday"}"#))
            .expect(vec![parsed(context("Today is Friday"))]),
        Case::new("context kept unstripped", LLM)
            .hook(prints(r#"{"context": "  env-note\n"}"#))
            .expect(vec![parsed(context("  env-note\n"))]),
        Case::new("blank context", LLM)
            .hook(prints(r#"{"context": " \t\n "}"#))
            .expect(vec![nothing()]),
        Case::new("non-string context", LLM)
            .hook(prints(r#"{"context": ["a", "b"]}"#))
            .expect(vec![nothing()]),
        // §7.10
        Case::new("block on pre_llm_call ignored", LLM)
            .hook(prints(r#"{"action": "block", "message": "no"}"#))
            .hook(prints(r#"{"decision": "block", "reason": "no"}"#))
            .expect(vec![nothing(), nothing()]),
        Case::new("bare string on pre_llm_call", LLM)
            .hook(prints(r#""just text""#))
            .expect(vec![nothing()]),
        // §7.9
        Case::new("context on subagent_stop", "subagent_stop")
            .hook(prints(r#"{"context": "child done"}"#))
            .expect(vec![parsed(context("child done"))]),
        Case::new(
            "a shell hook cannot transform a tool result",
            "transform_tool_result",
        )
        .hook(prints(
            r#"{"result": "replaced", "context": "only context"}"#,
        ))
        .expect(vec![parsed(context("only context"))]),
        Case::new("Hermes continue", VERIFY)
            .hook(prints(
                r#"{"action": "continue", "message": "run the tests"}"#,
            ))
            .expect(vec![parsed(keep_going("run the tests"))]),
        Case::new("Claude Code Stop block means continue", VERIFY)
            .hook(prints(
                r#"{"decision": "block", "reason": "  lint first  "}"#,
            ))
            .expect(vec![parsed(keep_going("lint first"))]),
        Case::new("Hermes-shape block on pre_verify means continue", VERIFY)
            .hook(prints(r#"{"action": "block", "message": "not yet"}"#))
            .expect(vec![parsed(keep_going("not yet"))]),
        Case::new("continue verb trimmed and lower-cased", VERIFY)
            .hook(prints(r#"{"action": " CONTINUE ", "message": "m"}"#))
            .expect(vec![parsed(keep_going("m"))]),
        Case::new("falsy action falls back to decision", VERIFY)
            .hook(prints(
                r#"{"action": "", "decision": "continue", "reason": "r"}"#,
            ))
            .expect(vec![parsed(keep_going("r"))]),
        Case::new("continue without message", VERIFY)
            .hook(prints(r#"{"action": "continue"}"#))
            .hook(prints(r#"{"action": "continue", "message": "   "}"#))
            .hook(prints(r#"{"action": "continue", "message": 7}"#))
            .expect(vec![nothing(), nothing(), nothing()]),
        Case::new("other verbs let the turn finish", VERIFY)
            .hook(prints(r#"{"action": "stop", "message": "m"}"#))
            .hook(prints(r#"{"context": "c"}"#))
            .expect(vec![nothing(), nothing()]),
        Case::new("an event added after 0.19.0", "agent_loop_stopped")
            .hook(prints(r#"{"context": "loop ended"}"#))
            .expect(vec![parsed(context("loop ended"))])
            .reference_lacks_event(
                "the agent_loop_stopped event (call 8; docs/decisions/call-08-catalog-events.md)",
            ),
    ]
}
