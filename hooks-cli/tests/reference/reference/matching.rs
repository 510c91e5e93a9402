//! Which hooks fire (matchers and `--for-tool`) and what they read on stdin
//! (the synthetic payload, `--payload-file`). `§7.n` = reference test n.

use super::model::{Case, block, context, nothing, parsed, prints, script};

const TOOL: &str = "pre_tool_call";
const BLOCKS: &str = r#"{"action": "block", "message": "matched"}"#;

/// A hook that blocks with `message` when its stdin matches the extended regex `pattern`.
fn blocks_when_stdin_has(pattern: &str, message: &str) -> super::model::Hook {
    script(&format!(
        "if grep -Eq '{pattern}'; then\n  echo '{{\"action\": \"block\", \"message\": \"{message}\"}}'\nfi"
    ))
}

pub fn cases() -> Vec<Case> {
    vec![
        // §7.20
        Case::new("matcher matches --for-tool", TOOL)
            .for_tool("terminal")
            .hook(prints(BLOCKS).option("matcher: terminal"))
            .expect(vec![parsed(block("matched"))]),
        // §7.32
        Case::new("matcher filters --for-tool out", TOOL)
            .for_tool("write_file")
            .hook(prints(BLOCKS).option("matcher: terminal"))
            .expect(vec![]),
        // §7.21
        Case::new("alternation is a full match", TOOL)
            .for_tool("write_file")
            .hook(prints(BLOCKS).option("matcher: 'terminal|write_file'"))
            .hook(prints(BLOCKS).option("matcher: 'terminal|write'"))
            .hook(prints(BLOCKS).option("matcher: 'write_.*'"))
            .expect(vec![parsed(block("matched")), parsed(block("matched"))]),
        // §7.24, §7.25
        Case::new("matcher whitespace is stripped", TOOL)
            .for_tool("terminal")
            .hook(prints(BLOCKS).option("matcher: ' terminal '"))
            .hook(prints(BLOCKS).option("matcher: \"terminal\\n\""))
            .expect(vec![parsed(block("matched")), parsed(block("matched"))]),
        // §7.19, §7.26
        Case::new("no matcher, or a blank one, fires for any tool", TOOL)
            .for_tool("read_file")
            .hook(prints(BLOCKS))
            .hook(prints(BLOCKS).option("matcher: '   '"))
            .expect(vec![parsed(block("matched")), parsed(block("matched"))]),
        // §7.22
        Case::new("invalid regex compares literally", TOOL)
            .for_tool("foo[bar")
            .hook(prints(BLOCKS).option("matcher: 'foo[bar'"))
            .expect(vec![parsed(block("matched"))]),
        // Look-around needs a backtracking engine: fancy-regex, as Python's `re`.
        Case::new("regex only a backtracking engine accepts", TOOL)
            .for_tool("terminal")
            .hook(prints(BLOCKS).option("matcher: '(?!write_file).*'"))
            .hook(prints(BLOCKS).option("matcher: '(?!term).*'"))
            .hook(prints(BLOCKS).option(r"matcher: '(t)e.*\1?l'"))
            .expect(vec![parsed(block("matched")), parsed(block("matched"))]),
        Case::new("without --for-tool every hook fires", "post_tool_call")
            .hook(prints(r#"{"context": "c"}"#).option("matcher: write_file"))
            .expect(vec![parsed(context("c"))]),
        // §7.47
        Case::new("matcher ignored on a non-tool event", "pre_llm_call")
            .for_tool("write_file")
            .hook(prints(r#"{"context": "c"}"#).option("matcher: terminal"))
            .expect(vec![parsed(context("c"))]),
        Case::new("non-string matcher ignored", TOOL)
            .for_tool("read_file")
            .hook(prints(BLOCKS).option("matcher: 42"))
            .expect(vec![parsed(block("matched"))]),
        // §7.15, §7.33
        Case::new("stdin carries the synthetic pre_tool_call payload", TOOL)
            .hook(blocks_when_stdin_has(
                r#""hook_event_name": ?"pre_tool_call".*"tool_name": ?"terminal".*"tool_input": ?\{"command": ?"echo hello"\}.*"session_id": ?"test-session""#,
                "saw payload",
            ))
            .expect(vec![parsed(block("saw payload"))]),
        Case::new("--for-tool sets tool_name on stdin", TOOL)
            .for_tool("read_file")
            .hook(blocks_when_stdin_has(r#""tool_name": ?"read_file""#, "read_file"))
            .expect(vec![parsed(block("read_file"))]),
        Case::new("payload file args become tool_input", TOOL)
            .for_tool("terminal")
            .payload_file("write-file-rm-rf.json")
            .hook(blocks_when_stdin_has(
                r#""tool_input": ?\{"command": ?"rm -rf /"\}"#,
                "no rm -rf",
            ))
            .expect(vec![parsed(block("no rm -rf"))]),
        Case::new("payload file overrides --for-tool on stdin, not in matching", TOOL)
            .for_tool("terminal")
            .payload_file("write-file-rm-rf.json")
            .hook(
                blocks_when_stdin_has(r#""tool_name": ?"write_file""#, "payload wins")
                    .option("matcher: terminal"),
            )
            .expect(vec![parsed(block("payload wins"))]),
        // §7.17
        Case::new("subagent_stop session_id from parent_session_id", "subagent_stop")
            .hook(script(
                "if grep -Eq '\"session_id\": ?\"parent-sess\"'; then\n  echo '{\"context\": \"parent\"}'\nfi",
            ))
            .expect(vec![parsed(context("parent"))]),
        // §7.82 (the payload half): 0.20.1's stdin document has no `profile` key.
        Case::new("stdin carries no `profile`", "pre_llm_call")
            .hook(script(
                "if grep -q '\"profile\"'; then\n  echo '{\"context\": \"profile seen\"}'\nfi",
            ))
            .expect(vec![nothing()]),
    ]
}
