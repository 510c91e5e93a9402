//! The cases: for every documented event a generic one (mixed replies, a
//! raising callback), and for each merge rule the shapes the documentation
//! names, with the edges the reference's loops decide (empty messages,
//! non-string values, several valid replies, order).

use hermes_hooks_core::HookEvent;
use hermes_hooks_core::catalog::{EventSource, MergeRule, RunPolicy};
use serde_json::{Value, json};

use super::Observed;

/// One event fired with one set of callback replies.
pub struct Case {
    pub event: &'static str,
    pub payload: Value,
    /// What callbacks 0, 1, 2 return (`"__raise__"` raises; missing: None).
    pub replies: Value,
    /// A documented difference: the decision file and the outcome we give.
    pub by_design: Option<(&'static str, Value)>,
}

/// The user documentation's 37 events, in catalog order.
pub fn documented_events() -> Vec<&'static str> {
    HookEvent::ALL
        .iter()
        .filter(|event| event.meta().source == EventSource::Doc)
        .map(|event| event.as_str())
        .collect()
}

fn case(event: &'static str, payload: Value, replies: Value) -> Case {
    Case {
        event,
        payload,
        replies,
        by_design: None,
    }
}

impl Case {
    fn by_design(mut self, file: &'static str, ours: Value) -> Case {
        self.by_design = Some((file, ours));
        self
    }

    /// `None` when ours matches the reference (or differs exactly as documented).
    pub fn compare(&self, ours: &Observed, theirs: &Observed) -> Option<String> {
        let label = format!("{} with replies {}", self.event, self.replies);
        let mut problems = Vec::new();
        // Queued observers (stream events) answer nothing to the host: only
        // the outcome, null for both, is compared.
        let queued = self
            .event
            .parse::<HookEvent>()
            .is_ok_and(|event| event.meta().run == RunPolicy::Queued);
        // A documented difference changes the outcome, and may add the reply that made it.
        if !queued && self.by_design.is_none() && ours.results != theirs.results {
            problems.push(format!(
                "  results: ours {} / reference {}",
                ours.results, theirs.results
            ));
        }
        match &self.by_design {
            Some((file, expected)) => {
                if ours.outcome != *expected {
                    problems.push(format!(
                        "  outcome: ours {}, docs/decisions/{file} says {expected}",
                        ours.outcome
                    ));
                }
                if theirs.outcome == *expected {
                    problems.push(format!(
                        "  the reference now agrees ({}): remove docs/decisions/{file}'s case",
                        theirs.outcome
                    ));
                }
            }
            None if ours.outcome != theirs.outcome => problems.push(format!(
                "  outcome: ours {} / reference {}",
                ours.outcome, theirs.outcome
            )),
            None => {}
        }
        (!problems.is_empty()).then(|| format!("{label}:\n{}", problems.join("\n")))
    }
}

fn tool_payload() -> Value {
    json!({"tool_name": "terminal", "args": {"command": "ls -la"}, "task_id": "t1",
           "session_id": "s1", "tool_call_id": "c1"})
}

fn verify_payload() -> Value {
    json!({"session_id": "s1", "platform": "cli", "model": "m", "coding": true, "attempt": 0,
           "final_response": "done", "changed_paths": ["src/lib.rs"]})
}

fn classification_payload() -> Value {
    json!({"provider": "p", "model": "m", "status_code": 429, "error_type": "RateLimitError",
           "error_code": "", "error_message": "slow down", "error_body": {},
           "approx_tokens": 10, "context_length": 100, "num_messages": 2})
}

fn payload_for(event: &str) -> Value {
    match event {
        "pre_tool_call" => tool_payload(),
        "pre_verify" => verify_payload(),
        "transform_api_error_classification" => classification_payload(),
        "post_tool_call" | "transform_tool_result" => {
            json!({"tool_name": "terminal", "args": {"command": "ls"}, "result": "a\nb",
                   "session_id": "s1", "task_id": "t1"})
        }
        "transform_terminal_output" => {
            json!({"command": "ls", "output": "a\nb", "returncode": 0, "task_id": "t1"})
        }
        "transform_llm_output" => json!({"response_text": "hi", "session_id": "s1", "model": "m"}),
        "pre_llm_call" => json!({"session_id": "s1", "user_message": "hello", "model": "m"}),
        "pre_transcription" => json!({"file_path": "/tmp/a.ogg", "provider": "local",
                                      "model": "base", "language": "en", "prompt": "",
                                      "source": "telegram"}),
        "pre_gateway_dispatch" => json!({"event": {"text": "hi", "source": {"chat_id": "c1"}}}),
        _ => json!({"session_id": "s1", "platform": "cli"}),
    }
}

/// Every case: one generic per documented event, then the shapes of each rule.
pub fn all_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = documented_events()
        .into_iter()
        .map(|event| {
            let generic = case(
                event,
                payload_for(event),
                json!(["__raise__", {"context": "seen"}, "text"]),
            );
            if event == "pre_tool_call" {
                generic.by_design(RAISING_GUARD, raised_block(0))
            } else {
                generic
            }
        })
        .collect();
    cases.extend(tool_gate_cases());
    cases.extend(directive_cases());
    cases.extend(transform_cases());
    for case in &cases {
        let rule = case.event.parse::<HookEvent>().map(|e| e.meta().merge);
        debug_assert!(rule.is_ok_and(|rule| rule != MergeRule::CommandDecision));
    }
    cases
}

/// The decision file of a `pre_tool_call` callback that raises.
const RAISING_GUARD: &str = "a-raising-pre-tool-call-callback-blocks.md";

/// The block a raising `pre_tool_call` callback `index` of the plugin gives.
fn raised_block(index: usize) -> Value {
    json!({"action": "block", "message": format!(
        "pre_tool_call plugin callback conformance raised RuntimeError: conformance callback {index} raised"
    )})
}

fn tool_gate_cases() -> Vec<Case> {
    let tool = |replies: Value| case("pre_tool_call", tool_payload(), replies);
    vec![
        tool(json!([{"action": "block", "message": "no"}])),
        tool(json!([{"action": "block", "message": ""}, {"action": "block", "message": "second"}])),
        tool(json!([{"action": "block"}])),
        tool(json!([{"action": "approve", "message": "ask me", "rule_key": " terminal:rm "}])),
        tool(json!([{"action": "approve"}])),
        tool(json!([{"action": "approve", "rule_key": "   "}])),
        tool(json!([{"action": "modify", "args": {"command": "ls"}},
                    {"action": "modify", "args": {"cwd": "/tmp"}}])),
        tool(json!([{"action": "modify", "args": {}}, {"action": "modify", "args": "x"}])),
        tool(json!([{"action": "modify", "args": {"command": "ls"}},
                    {"action": "block", "message": "after modify"}])),
        tool(json!([{"action": "modify", "args": {"command": "ls"}},
                    {"action": "approve", "message": "check"}])),
        tool(json!(["__raise__", "block", {"action": "block", "message": "third"}]))
            .by_design(RAISING_GUARD, raised_block(0)),
        tool(json!([{"action": "block", "message": "first"}, {"action": "approve"}])),
        tool(json!([{"action": "BLOCK", "message": "case"}, {"action": "deny", "message": "x"}])),
        tool(json!([{"action": "block", "message": 5}, {"decision": "block", "reason": "claude"}])),
        tool(json!([{"action": "approve", "message": "first"},
                    {"action": "block", "message": "then block"}]))
        .by_design(
            "call-01-pre-tool-call-merge.md",
            json!({"action": "block", "message": "then block"}),
        ),
    ]
}

fn directive_cases() -> Vec<Case> {
    let llm = |replies: Value| case("pre_llm_call", payload_for("pre_llm_call"), replies);
    let verify = |replies: Value| case("pre_verify", verify_payload(), replies);
    let classify = |replies: Value| {
        case(
            "transform_api_error_classification",
            classification_payload(),
            replies,
        )
    };
    let dispatch = |replies: Value| {
        case(
            "pre_gateway_dispatch",
            payload_for("pre_gateway_dispatch"),
            replies,
        )
    };
    vec![
        llm(json!([{"context": "a"}, "b", {"context": " c "}])),
        llm(json!([{"context": ""}, "   ", {"context": null}])),
        llm(json!([{"context": ["x", 1]}, {"context": {"k": true}}, {"context": 2.5}])),
        llm(json!([{"other": "x"}, ["list"], 7])),
        verify(json!([{"action": "continue", "message": " run the tests "}])),
        verify(json!([{"decision": "block", "reason": "claude stop"}])),
        verify(json!([{"action": "continue", "message": "  "},
                      {"action": " CONTINUE ", "message": "second"}])),
        verify(json!([{"action": "stop", "message": "x"}, {"action": "continue"}])),
        verify(
            json!([{"action": "continue", "message": 3}, {"decision": "block", "message": "m"}]),
        ),
        classify(
            json!([{"reason": "rate_limit", "retryable": 1, "message": "  m  "},
                        {"reason": "billing"}]),
        ),
        classify(
            json!([{"reason": "nope"}, {"reason": " AUTH ", "error_context": {"a": 1},
                                             "should_fallback": ""}]),
        ),
        classify(json!([{"reason": 5}, {"message": "no reason"}])),
        dispatch(json!([{"action": "skip", "reason": "spam"}])),
        dispatch(json!([{"action": "skip"}])),
        dispatch(json!([{"action": "rewrite", "text": "new text"}])),
        dispatch(json!([{"action": "rewrite", "text": 5}, {"action": "skip", "reason": "late"}])),
        dispatch(json!([{"action": "allow"}, {"action": "skip", "reason": "late"}])),
        dispatch(json!([{"action": "other"}, "skip", {"action": "skip", "reason": "third"}])),
    ]
}

fn transform_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for event in ["transform_tool_result", "transform_terminal_output"] {
        cases.push(case(event, payload_for(event), json!(["", "a", "b"])));
        cases.push(case(event, payload_for(event), json!([{"x": 1}, 5, "c"])));
    }
    let llm_output = |replies: Value| {
        case(
            "transform_llm_output",
            payload_for("transform_llm_output"),
            replies,
        )
    };
    cases.push(llm_output(json!(["", "replaced", "later"])));
    cases.push(llm_output(json!([{"x": 1}, null, ""])));
    let transcription = |replies: Value| {
        case(
            "pre_transcription",
            payload_for("pre_transcription"),
            replies,
        )
    };
    cases.push(transcription(json!([
        {"model": "m1", "prompt": "p1"},
        {"model": "m2", "file_path": "/x", "language": 3}
    ])));
    cases.push(transcription(
        json!([{"prompt": ""}, {"language": "fr", "extra": "x"}]),
    ));
    cases
}
