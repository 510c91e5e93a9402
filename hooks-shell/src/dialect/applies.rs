//! Whether an imported hook runs for an event: its event's tool and outcome
//! filters, its matcher on the event's match field, its `if` rule.

use hermes_hooks_core::{Event, HookEvent};
use serde_json::{Map, Value};

use super::calls::{TheirCall, rule_inputs, their_call, their_tool_of};
use super::events::{ToolFilter, ToolOutcome, answers_to, rule_names, their_tool};
use super::matcher::{Condition, DialectMatcher};
use super::{EventMapping, ImportedHook};

/// The value an event's matcher is compared with (Claude Code's match field;
/// for a tool event `tool`, the call's Claude tool).
fn match_value(event: &Event, tool: &str) -> Option<String> {
    let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
    match event.hook()? {
        HookEvent::PreToolCall | HookEvent::PostToolCall | HookEvent::TransformToolResult => {
            Some(tool.to_owned())
        }
        HookEvent::OnSessionStart => Some(text("source").unwrap_or_else(|| "startup".to_owned())),
        HookEvent::OnSessionFinalize => Some(text("reason").unwrap_or_else(|| "other".to_owned())),
        HookEvent::SubagentStart | HookEvent::SubagentStop => Some(
            text("agent_type")
                .or_else(|| text("child_role"))
                .unwrap_or_else(|| "general-purpose".to_owned()),
        ),
        HookEvent::PreApprovalRequest => Some("Bash".to_owned()),
        _ => None,
    }
}

/// Whether `hook` runs for `event`: its event's tool and outcome filters,
/// its matcher on the event's match field, its `if` rule (a fail-closed
/// hook's rule read cautiously: [`Condition::may_allow`]).
pub fn applies(hook: &ImportedHook, event: &Event) -> bool {
    applies_to(
        &hook.mapping,
        &hook.matcher,
        hook.condition.as_ref(),
        hook.fail_closed,
        event,
    )
}

/// [`applies`] from the parts of a hook.
pub(crate) fn applies_to(
    mapping: &EventMapping,
    matcher: &DialectMatcher,
    condition: Option<&Condition>,
    guarding: bool,
    event: &Event,
) -> bool {
    let tool = event.tool_name().unwrap_or("");
    let no_args = Map::new();
    let args = match event.get("args") {
        Some(Value::Object(args)) => args,
        _ => &no_args,
    };
    let their_name = their_tool_of(tool, args);
    if let ToolFilter::Only(tools) = mapping.tools
        && !tools.contains(&tool)
        && !tools
            .iter()
            .any(|t| their_tool(t) == tool || their_tool(t) == their_name)
    {
        return false;
    }
    let failed = event.get("status").and_then(Value::as_str) == Some("error");
    match mapping.outcome {
        ToolOutcome::Succeeded if failed => return false,
        ToolOutcome::Failed if !failed => return false,
        _ => {}
    }
    if let Some(value) = match_value(event, their_name)
        && !answers_to(&value).iter().any(|name| {
            // A guard's `mcp__github` guards every tool of it, as its `if` would (R17-6).
            let server_wide = |listed: &[String]| listed.iter().any(|w| rule_names(w, name));
            matcher.matches(name)
                || guarding
                    && matches!(matcher, DialectMatcher::Exact(listed) if server_wide(listed))
        })
    {
        return false;
    }
    match condition {
        None | Some(Condition::Unparsed(_)) => true,
        Some(condition) => {
            let tool_event = matches!(
                event.hook(),
                Some(
                    HookEvent::PreToolCall
                        | HookEvent::PostToolCall
                        | HookEvent::TransformToolResult
                )
            );
            // On other events a handler with `if` never runs (as in Claude Code).
            tool_event && {
                // Each input the call acts on is tried (every URL of `urls`).
                let TheirCall {
                    tool,
                    input,
                    settled,
                } = their_call(tool, args);
                let mut inputs = rule_inputs(&tool, input).into_iter();
                if guarding {
                    // A fail-closed guard runs whenever its rule cannot rule
                    // the call out: text typed into a running program is
                    // read by whatever program that is.
                    (!settled && condition.covers(&tool))
                        || inputs.any(|input| condition.may_allow(&tool, &input))
                } else {
                    inputs.any(|input| condition.allows(&tool, &input))
                }
            }
        }
    }
}
