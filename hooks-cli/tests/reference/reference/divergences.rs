//! Hook output that Python reads differently from Rust: its `str.strip()`
//! (which also strips U+001C..U+001F — we strip the same way now, so those rows
//! agree), its lenient `json` module, strict UTF-8 decoding, and our output cap. Each is either a design call or a finding reported to
//! the lead (`Diverges`): there the expected report is what `hooks test` does
//! today, so fixing one makes its row fail until it moves to `Agrees`.

use super::model::{Case, block, context, keep_going, nothing, parsed, script};

const TOOL: &str = "pre_tool_call";
const LLM: &str = "pre_llm_call";
const PYTHON_JSON: &str = "Python's json module accepts what serde_json rejects \
     (NaN/Infinity, lone surrogates, out-of-range numbers, nesting deeper than 128)";

/// A hook that prints `format` through `printf` (octal escapes give raw bytes).
fn printf(format: &str) -> super::model::Hook {
    script(&format!("cat >/dev/null\nprintf '{format}'"))
}

pub fn cases() -> Vec<Case> {
    vec![
        Case::new("stdout starts with \\x1c", LLM)
            .hook(printf(r#"\034{"context": "x"}"#))
            .expect(vec![parsed(context("x"))]),
        Case::new("context of only \\x1f", LLM)
            .hook(printf(r#"{"context": "\\u001f"}"#))
            .expect(vec![nothing()]),
        Case::new("pre_verify message padded with \\x1e", "pre_verify")
            .hook(printf(
                r#"{"action": "continue", "message": "\\u001emore\\u001e"}"#,
            ))
            .expect(vec![parsed(keep_going("more"))]),
        Case::new("NaN in the reply", TOOL)
            .hook(printf(
                r#"{"action": "block", "message": "nan", "score": NaN}"#,
            ))
            .expect(vec![nothing()])
            .diverges(PYTHON_JSON, vec![parsed(block("nan"))]),
        Case::new("Infinity in the reply", LLM)
            .hook(printf(r#"{"context": "inf", "score": -Infinity}"#))
            .expect(vec![nothing()])
            .diverges(PYTHON_JSON, vec![parsed(context("inf"))]),
        Case::new("lone surrogate in the reply", TOOL)
            .hook(printf(
                r#"{"action": "block", "message": "s", "junk": "\\ud800"}"#,
            ))
            .expect(vec![nothing()])
            .diverges(PYTHON_JSON, vec![parsed(block("s"))]),
        Case::new("number out of f64 range", TOOL)
            .hook(printf(
                r#"{"action": "block", "message": "big", "n": 1e400}"#,
            ))
            .expect(vec![nothing()])
            .diverges(PYTHON_JSON, vec![parsed(block("big"))]),
        Case::new("nesting 200 deep", TOOL)
            .hook(script(&format!(
                "printf '{{\"action\": \"block\", \"message\": \"deep\", \"n\": {}{}}}'",
                "[".repeat(200),
                "]".repeat(200)
            )))
            .expect(vec![nothing()])
            .diverges(PYTHON_JSON, vec![parsed(block("deep"))]),
        Case::new("invalid UTF-8 in a block", TOOL)
            .hook(printf(r#"{"action": "block", "message": "caf\351"}"#))
            .expect(vec![parsed(block("caf\u{fffd}"))]),
        Case::new("stdout over the 1 MiB cap", TOOL)
            .hook(script(
                "printf '{\"action\": \"block\", \"message\": \"big\", \"pad\": \"'\n\
                 head -c 1100000 /dev/zero | tr '\\000' x\nprintf '\"}'",
            ))
            .expect(vec![nothing()])
            .by_design(
                "STYLE.md subprocesses: stdout is capped at 1 MiB, so a longer reply is cut \
                 and no longer JSON",
                vec![parsed(block("big"))],
            ),
    ]
}
