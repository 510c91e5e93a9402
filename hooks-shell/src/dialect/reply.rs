//! What an imported hook's run means, read as its own tool reads it, and the
//! merge of the hooks of one event (deny > ask > allow) into replies in the
//! Hermes wire shape.
//!
//! Claude Code and Codex: exit 2 + stderr blocks; `hookSpecificOutput`
//! `permissionDecision` `deny` / `ask` / `allow`, `updatedInput`,
//! `additionalContext`, `updatedToolOutput`; top-level `decision: block` +
//! `reason`; `continue: false` + `stopReason`. Cursor: `permission` with
//! `user_message` / `agent_message`, `updated_input`, `additional_context`,
//! `followup_message`. Other exits are non-blocking errors (a warning) unless
//! the hook fails closed.

use hermes_hooks_core::{Event, HookEvent};
use serde_json::{Map, Value, json};

use super::events::our_args;
use super::{Dialect, ImportedHook};
use crate::reply::{DEFAULT_BLOCK_MESSAGE, first_chars, format_seconds};
use crate::run::RunResult;
use crate::verdict_words::{Format, unreadable_text};

/// How much of stderr becomes a block reason (Claude Code caps output at 10,000 characters).
const STDERR_CHARS: usize = 10_000;

/// A tool-gate decision of one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Deny, with the reason the model sees.
    Deny(String),
    /// Ask the user (`ToolGate::Approve`), with the reason shown.
    Ask(Option<String>),
}

/// What one run of one hook contributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Contribution {
    /// A tool-gate decision (`pre_tool_call`).
    pub gate: Option<Gate>,
    /// New tool arguments, in Hermes names (`pre_tool_call`).
    pub modify: Option<Map<String, Value>>,
    /// Text for the model: `additionalContext`, or plain stdout where the tool reads it so.
    pub context: Vec<String>,
    /// A `decision: block` reason: fed back after a tool result, or the reason to keep going at Stop.
    pub feedback: Vec<String>,
    /// A replacement tool result (`updatedToolOutput`).
    pub replace: Option<String>,
}

/// Cursor's message to the agent, in both spellings its versions write
/// (`agent_message`, and the camelCase `agentMessage` of its current docs).
const AGENT_MESSAGE: &[&str] = &["agent_message", "agentMessage"];
/// Cursor's message to the user, in both spellings.
const USER_MESSAGE: &[&str] = &["user_message", "userMessage"];

fn first_text<'a>(object: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .filter_map(|key| object.get(*key).and_then(Value::as_str))
        .map(str::trim)
        .find(|text| !text.is_empty())
}

/// Reads one run of `hook` for the Hermes event `event`. A fail-closed
/// hook whose answer does not deny, from a run its sandbox denied
/// something, is denied naming what (`sandboxing::guard_failure`).
pub fn interpret(hook: &ImportedHook, event: HookEvent, result: &RunResult) -> Contribution {
    let mut out = read_run(hook, event, result);
    let blocks = matches!(out.gate, Some(Gate::Deny(_)));
    if let Some(why) = crate::sandboxing::guard_failure(hook.fail_closed, blocks, result) {
        out.gate = Some(failed_closed(hook, &why));
    }
    out
}

/// The deny of a fail-closed `hook` that failed: `hook <command> failed closed: <reason>`.
pub(super) fn failed_closed(hook: &ImportedHook, reason: &str) -> Gate {
    Gate::Deny(format!(
        "hook {} failed closed: {reason}",
        hook.shown_command()
    ))
}

/// [`interpret`] but the sandbox's denials.
fn read_run(hook: &ImportedHook, event: HookEvent, result: &RunResult) -> Contribution {
    let mut out = Contribution::default();
    let name = format!(
        "{} hook {} ({})",
        hook.dialect,
        hook.key,
        hook.source.display()
    );
    let fail = |out: &mut Contribution, reason: &str| {
        if hook.fail_closed {
            out.gate = Some(failed_closed(hook, reason));
        }
    };
    if let Some(error) = &result.error {
        tracing::warn!("{name} could not run: {error}");
        fail(&mut out, error);
        return out;
    }
    if result.timed_out {
        // What it means for the call, said (sweep 58, U58-2: "no
        // decision" read as let through, for a guard that blocked).
        let effect = match hook.fail_closed {
            true => "it fails closed, so the call is blocked",
            false => "no decision from it (the call goes on)",
        };
        tracing::warn!(
            "{name} timed out after {}s; {effect}",
            format_seconds(hook.timeout)
        );
        fail(
            &mut out,
            &format!("timed out after {}s", format_seconds(hook.timeout)),
        );
        return out;
    }
    let object = json_object(&result.stdout);
    let stderr = first_chars(result.stderr.trim(), STDERR_CHARS);
    if result.exit_code == Some(2) {
        match event {
            HookEvent::PreToolCall => {
                let reason = object.as_ref().and_then(|o| json_reason(hook.dialect, o));
                let reason = reason.or((!stderr.is_empty()).then(|| stderr.to_owned()));
                out.gate = Some(Gate::Deny(
                    reason.unwrap_or_else(|| DEFAULT_BLOCK_MESSAGE.to_owned()),
                ));
            }
            HookEvent::TransformToolResult | HookEvent::PreVerify if !stderr.is_empty() => {
                out.feedback.push(stderr.to_owned());
            }
            HookEvent::PreLlmCall => {
                tracing::warn!(
                    "{name} exited 2 to reject the prompt; Hermes cannot reject a prompt, it goes on: {stderr}"
                );
            }
            _ => tracing::info!("{name} exited 2: {stderr}"),
        }
        return out;
    }
    match object {
        Some(object) => {
            apply_json(hook, event, &object, &mut out, &name);
            let denied = matches!(out.gate, Some(Gate::Deny(_)));
            if event == HookEvent::PreToolCall && !denied {
                let format = match hook.dialect {
                    Dialect::Cursor => Format::Cursor,
                    _ => Format::Claude,
                };
                if let Some(why) = unreadable_text(format, &result.stdout, &object) {
                    // A verdict in words its format does not read is none (R9-1).
                    fail(&mut out, &why);
                }
            }
            if result.exit_code != Some(0) {
                // A fail-closed guard that failed blocks whatever it printed first
                // (an EXIT trap's `{}` decides nothing); a fail-open one's JSON decides.
                let status = run_status(result);
                tracing::info!("{name} {status}; its JSON decides unless it fails closed");
                if !matches!(out.gate, Some(Gate::Deny(_))) {
                    fail(&mut out, &status);
                }
            }
        }
        None if result.exit_code == Some(0) => {
            let text = result.stdout.trim();
            // Plain text on stdout is context only where Claude Code reads it so.
            if !text.is_empty()
                && matches!(event, HookEvent::PreLlmCall | HookEvent::OnSessionStart)
            {
                out.context.push(text.to_owned());
            } else if !text.is_empty() && hook.fail_closed {
                fail(&mut out, "unparseable stdout (expected a JSON object)");
            }
        }
        None => {
            let status = run_status(result);
            let first = stderr.lines().next().unwrap_or("");
            // A fail-closed guard's failure blocks: the warning says so (R33b-3).
            match hook.fail_closed && event == HookEvent::PreToolCall {
                true => tracing::warn!("{name} failed ({status}), failing closed: {first}"),
                false => {
                    tracing::warn!("{name} failed with non-blocking status ({status}): {first}")
                }
            }
            fail(&mut out, &status);
        }
    }
    out
}

/// How a run that did not exit 0 ended: `exited with status N` or `killed by signal N`.
fn run_status(result: &RunResult) -> String {
    result.exit_code.map_or_else(
        || format!("killed by signal {}", result.signal.unwrap_or(0)),
        |code| format!("exited with status {code}"),
    )
}

/// A run's stdout read as its tool reads it: a JSON object, or nothing.
pub(super) fn json_object(stdout: &str) -> Option<Map<String, Value>> {
    let stdout = stdout.trim_start();
    match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(object)) if stdout.starts_with('{') => Some(object),
        _ => None,
    }
}

/// The deny reason a JSON reply gives alongside exit 2.
fn json_reason(dialect: Dialect, object: &Map<String, Value>) -> Option<String> {
    let specific = object.get("hookSpecificOutput").and_then(Value::as_object);
    let text = match dialect {
        Dialect::Cursor => first_text(object, &[AGENT_MESSAGE, USER_MESSAGE, &["reason"]].concat()),
        _ => specific
            .and_then(|s| first_text(s, &["permissionDecisionReason"]))
            .or_else(|| first_text(object, &["reason", "stopReason"])),
    };
    text.map(str::to_owned)
}

fn apply_json(
    hook: &ImportedHook,
    event: HookEvent,
    object: &Map<String, Value>,
    out: &mut Contribution,
    name: &str,
) {
    if let Some(message) = first_text(object, &["systemMessage"]) {
        tracing::warn!("{name}: {message}");
    }
    if hook.dialect == Dialect::Cursor {
        return apply_cursor(event, object, out, name);
    }
    if object.get("continue") == Some(&Value::Bool(false)) {
        let reason = first_text(object, &["stopReason"]).unwrap_or("stopped by hook");
        match event {
            HookEvent::PreToolCall => out.gate = Some(Gate::Deny(reason.to_owned())),
            // Stopping means not continuing: nothing to add.
            HookEvent::PreVerify => return,
            _ => tracing::warn!(
                "{name} asked to stop the agent ({reason}); Hermes hooks cannot stop it here"
            ),
        }
    }
    let specific = object.get("hookSpecificOutput").and_then(Value::as_object);
    if let Some(specific) = specific {
        if specific.get("hookEventName").and_then(Value::as_str) != Some(hook.their_event.as_str())
        {
            // Claude Code ignores such a reply; a guard that silently stops guarding is worse.
            tracing::warn!(
                "{name}: hookSpecificOutput.hookEventName should be '{}'; Claude Code would ignore this reply, it is honoured here",
                hook.their_event
            );
        }
        let context = first_text(specific, &["additionalContext"]);
        match event {
            HookEvent::PreToolCall => {
                let reason = first_text(specific, &["permissionDecisionReason"]);
                match specific.get("permissionDecision").and_then(Value::as_str) {
                    Some("deny") => {
                        out.gate = Some(Gate::Deny(
                            reason.unwrap_or(DEFAULT_BLOCK_MESSAGE).to_owned(),
                        ));
                    }
                    // `defer` hands the call to the host's own decision
                    // (Claude Code: deny > defer > ask > allow): asked here.
                    Some("ask" | "defer") => {
                        out.gate = out
                            .gate
                            .take()
                            .or(Some(Gate::Ask(reason.map(str::to_owned))))
                    }
                    _ => {}
                }
                if let Some(Value::Object(input)) = specific.get("updatedInput") {
                    out.modify = Some(our_args(input));
                }
            }
            HookEvent::TransformToolResult => {
                out.context.extend(context.map(str::to_owned));
                let updated = specific
                    .get("updatedToolOutput")
                    .or_else(|| specific.get("updatedMCPToolOutput"));
                out.replace = updated.map(|value| {
                    value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned)
                });
            }
            HookEvent::PreLlmCall | HookEvent::OnSessionStart => {
                out.context.extend(context.map(str::to_owned))
            }
            HookEvent::PreApprovalRequest if specific.contains_key("decision") => {
                tracing::warn!(
                    "{name}: Hermes hooks cannot answer an approval request; use PreToolUse to deny a tool"
                );
            }
            _ => {}
        }
    }
    match object.get("decision").and_then(Value::as_str) {
        Some("block") => {
            let reason = first_text(object, &["reason"]);
            match event {
                HookEvent::PreToolCall => {
                    out.gate = Some(Gate::Deny(
                        reason.unwrap_or(DEFAULT_BLOCK_MESSAGE).to_owned(),
                    ));
                }
                HookEvent::TransformToolResult | HookEvent::PreVerify => {
                    out.feedback.extend(reason.map(str::to_owned));
                }
                HookEvent::PreLlmCall => {
                    tracing::warn!(
                        "{name} blocked the prompt; Hermes cannot reject a prompt, it goes on"
                    );
                }
                HookEvent::PostLlmCall => {
                    tracing::warn!(
                        "{name} asked to keep the agent going after a turn that edited no code; \
                         Hermes only lets Stop hooks do that at pre_verify"
                    );
                }
                _ => {}
            }
        }
        Some(other) if event == HookEvent::PreToolCall && other != "approve" => {
            tracing::warn!("{name}: unknown decision '{other}'; ignored");
        }
        _ => {}
    }
}

fn apply_cursor(event: HookEvent, object: &Map<String, Value>, out: &mut Contribution, name: &str) {
    match event {
        HookEvent::PreToolCall => {
            let message = first_text(object, &[AGENT_MESSAGE, USER_MESSAGE].concat());
            match object.get("permission").and_then(Value::as_str) {
                Some("deny") => {
                    out.gate = Some(Gate::Deny(
                        message.unwrap_or(DEFAULT_BLOCK_MESSAGE).to_owned(),
                    ))
                }
                Some("ask") => {
                    out.gate = Some(Gate::Ask(
                        first_text(object, USER_MESSAGE).map(str::to_owned),
                    ))
                }
                _ => {}
            }
            if let Some(Value::Object(input)) = object.get("updated_input") {
                out.modify = Some(our_args(input));
            }
        }
        HookEvent::TransformToolResult => {
            out.context
                .extend(first_text(object, &["additional_context"]).map(str::to_owned));
            let updated = object
                .get("updated_mcp_tool_output")
                .or_else(|| object.get("updated_tool_output"));
            out.replace = updated.map(|value| {
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            });
        }
        HookEvent::OnSessionStart => out
            .context
            .extend(first_text(object, &["additional_context"]).map(str::to_owned)),
        HookEvent::PreVerify => out
            .feedback
            .extend(first_text(object, &["followup_message"]).map(str::to_owned)),
        HookEvent::PreLlmCall if object.get("continue") == Some(&Value::Bool(false)) => {
            tracing::warn!("{name} blocked the prompt; Hermes cannot reject a prompt, it goes on");
        }
        _ => {}
    }
}

/// The contributions of one event's hooks (config order) as Hermes replies:
/// deny > ask > allow for the tool gate, every context delivered, feedback
/// and replacements folded into the tool result.
pub fn merge(event: &Event, contributions: &[Contribution]) -> Vec<Value> {
    let Some(hook_event) = event.hook() else {
        return Vec::new();
    };
    match hook_event {
        HookEvent::PreToolCall => {
            if let Some(message) = contributions.iter().find_map(|c| match &c.gate {
                Some(Gate::Deny(message)) => Some(message.clone()),
                _ => None,
            }) {
                return vec![json!({"action": "block", "message": message})];
            }
            let mut replies: Vec<Value> = contributions
                .iter()
                .filter_map(|c| c.modify.as_ref())
                .map(|args| json!({"action": "modify", "args": args}))
                .collect();
            if let Some(message) = contributions.iter().find_map(|c| match &c.gate {
                Some(Gate::Ask(message)) => Some(message.clone()),
                _ => None,
            }) {
                let mut approve = json!({"action": "approve"});
                if let Some(message) = message {
                    approve["message"] = message.into();
                }
                replies.push(approve);
            }
            replies
        }
        HookEvent::TransformToolResult => {
            let replaced = contributions.iter().rev().find_map(|c| c.replace.clone());
            let extra: Vec<&String> = contributions
                .iter()
                .flat_map(|c| c.context.iter().chain(&c.feedback))
                .collect();
            if replaced.is_none() && extra.is_empty() {
                return Vec::new();
            }
            let mut result = replaced.unwrap_or_else(|| {
                event
                    .get("result")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            });
            for piece in extra {
                result.push_str("\n\n");
                result.push_str(piece);
            }
            vec![Value::String(result)]
        }
        HookEvent::PreVerify => {
            let reasons: Vec<&str> = contributions
                .iter()
                .flat_map(|c| &c.feedback)
                .map(String::as_str)
                .collect();
            if reasons.is_empty() {
                return Vec::new();
            }
            vec![json!({"action": "continue", "message": reasons.join("\n\n")})]
        }
        _ => contributions
            .iter()
            .flat_map(|c| &c.context)
            .map(|context| json!({"context": context}))
            .collect(),
    }
}
