//! What a hook's run means: stdout parsed per event into the Hermes wire
//! shape ([`parse_stdout`]), then exit status, timeout and fail mode folded in
//! ([`evaluate`]).

use std::time::Duration;

use crate::verdict_words::Format;
use hermes_hooks_core::HookEvent;
use hermes_hooks_core::replies::{ContextReply, ContinueReply, ToolDecision};
use serde_json::{Map, Value, json};

use crate::config::ShellHookSpec;
use crate::run::RunResult;
use hermes_hooks_core::pyvalue::{is_truthy, strip};

/// The block message when a hook blocks without giving one.
pub const DEFAULT_BLOCK_MESSAGE: &str = "Blocked by shell hook.";

/// How many characters of stderr become an exit-2 block message.
const STDERR_MESSAGE_CHARS: usize = 400;

/// Translates a hook's stdout into the Hermes wire shape for `event`, or `None`
/// when it contributes nothing.
///
/// - `pre_tool_call`: a block (`{"action": "block", "message"|"reason"}` or the
///   Claude Code `{"decision": "block", "reason"|"message"}`; a missing, empty
///   or non-string message gives [`DEFAULT_BLOCK_MESSAGE`]), else a modify
///   (`{"action": "modify", "args": {..}}` or `{"decision": "modify",
///   "tool_input": {..}}`) as `{"action": "modify", "args": {..}}`.
/// - `pre_verify`: `action`/`decision` of `continue` or `block` with a non-blank
///   `message`/`reason` → `{"action": "continue", "message": <stripped>}`.
/// - every other event: a non-blank string `context` → `{"context": ..}`.
///
/// Empty stdout, invalid JSON (logged) and JSON that is not an object give `None`.
pub fn parse_stdout(event: HookEvent, stdout: &str) -> Option<Value> {
    let stdout = strip(stdout);
    if stdout.is_empty() {
        return None;
    }
    let data = match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(data)) => data,
        Ok(_) => return None,
        Err(_) => {
            tracing::warn!(
                "shell hook stdout was not valid JSON (event={event}): {}",
                first_chars(stdout, 200)
            );
            return None;
        }
    };
    match event {
        HookEvent::PreToolCall => tool_gate(&data),
        HookEvent::PreVerify => verify_continue(data),
        // Stricter than the merge: a shell hook's context counts only as a
        // non-blank string (as in the reference); the encoding is the contract's.
        _ => match data.get("context") {
            Some(Value::String(context)) if !strip(context).is_empty() => {
                Some(ContextReply::new(context.clone()).into_wire())
            }
            _ => None,
        },
    }
}

fn tool_gate(data: &Map<String, Value>) -> Option<Value> {
    let is = |key: &str, word: &str| data.get(key).and_then(Value::as_str) == Some(word);
    if is("action", "block") {
        return Some(block(&block_message(
            data.get("message"),
            data.get("reason"),
        )));
    }
    if is("decision", "block") {
        return Some(block(&block_message(
            data.get("reason"),
            data.get("message"),
        )));
    }
    let modify_args = if is("action", "modify") {
        data.get("args")
    } else if is("decision", "modify") {
        data.get("tool_input")
    } else {
        None
    };
    match modify_args {
        Some(Value::Object(args)) => ToolDecision::modify(args.clone()).into_wire(),
        _ => None,
    }
}

/// The primary field if truthy, else the secondary; used only if it is a
/// non-empty string (so a truthy non-string primary gives the default).
fn block_message(primary: Option<&Value>, secondary: Option<&Value>) -> String {
    let chosen = primary.filter(|value| is_truthy(value)).or(secondary);
    match chosen {
        Some(Value::String(message)) if !message.is_empty() => message.clone(),
        _ => DEFAULT_BLOCK_MESSAGE.to_owned(),
    }
}

/// `pre_verify`: read by the contract's own reading of a continue reply, so
/// a shell hook and the merge agree on what keeps the turn going.
fn verify_continue(data: Map<String, Value>) -> Option<Value> {
    ContinueReply::from_wire(&Value::Object(data)).map(ContinueReply::into_wire)
}

/// A block in the wire shape, built by the contract's typed decision (the
/// message is never empty here: callers fill in [`DEFAULT_BLOCK_MESSAGE`]).
fn block(message: &str) -> Value {
    ToolDecision::block(message)
        .into_wire()
        .unwrap_or_else(|| json!({"action": "block", "message": message}))
}

/// The block a fail-closed hook produces: `hook <command> failed closed: <reason>`.
pub fn failed_closed(spec: &ShellHookSpec, reason: &str) -> Value {
    block(&format!("hook {} failed closed: {reason}", spec.command))
}

/// Decides what one run of `spec` contributes, in the Hermes wire shape.
///
/// 1. Could not run, or timed out: logged; a block when the hook fails closed
///    (`hook <command> failed closed: <error>` / `timed out after <timeout>s`), else nothing.
/// 2. Exit 2 on `pre_tool_call`: a block — stdout's block if it has one, else
///    the first 400 characters of stripped stderr, else [`DEFAULT_BLOCK_MESSAGE`].
/// 3. Any other non-zero exit (or death by signal): logged, stdout still parsed;
///    failing closed, an answer that does not block is no verdict: the run blocks as in 4.
/// 4. Failing closed, nothing parsed: non-empty stdout that is not a JSON
///    object blocks as `unparseable stdout (expected a JSON object)`; a
///    non-zero exit blocks as `exited with status <rc>` (or `killed by signal <n>`).
///    A clean exit with `{}` or empty stdout passes.
///
/// 5. Failing closed, an answer that does not block from a run its sandbox
///    denied something (stderr shows it): a block naming what was denied
///    (`sandboxing::guard_failure`).
///
/// `fail_closed` counts only on `pre_tool_call`, whatever the spec says.
pub fn evaluate(spec: &ShellHookSpec, result: &RunResult) -> Option<Value> {
    let reply = read_run(spec, result);
    let blocks = reply
        .as_ref()
        .is_some_and(hermes_hooks_core::runs::reply_blocks);
    match crate::sandboxing::guard_failure(spec.blocks_on_failure(), blocks, result) {
        Some(why) => Some(failed_closed(spec, &why)),
        None => reply,
    }
}

/// [`evaluate`] for a call of the tool arguments `call_args`: a fail-closed
/// `pre_tool_call` guard's `modify` that sets no argument, or none the call
/// has, blocks (red team round 11, R11-1: Hermes merges a rewrite into the
/// call's arguments, so it would run as it was).
pub(crate) fn evaluate_call(
    spec: &ShellHookSpec,
    result: &RunResult,
    call_args: Option<&Value>,
) -> Option<Value> {
    let reply = evaluate(spec, result);
    if !spec.blocks_on_failure() || spec.event != HookEvent::PreToolCall {
        return reply;
    }
    match reply
        .as_ref()
        .and_then(|reply| crate::verdict_words::unapplied_rewrite(reply, call_args))
    {
        Some(why) => Some(failed_closed(spec, &why)),
        None => reply,
    }
}

/// Steps 1 to 4 of [`evaluate`].
fn read_run(spec: &ShellHookSpec, result: &RunResult) -> Option<Value> {
    let event = spec.event;
    let command = &spec.command;
    let fails_closed = spec.blocks_on_failure();
    if let Some(error) = &result.error {
        tracing::warn!("shell hook failed (event={event}, command={command}): {error}");
        return fails_closed.then(|| failed_closed(spec, error));
    }
    if result.timed_out {
        tracing::warn!(
            "shell hook timed out after {:.2}s (event={event} command={command})",
            result.elapsed.as_secs_f64()
        );
        let reason = format!("timed out after {}s", format_seconds(spec.timeout));
        return fails_closed.then(|| failed_closed(spec, &reason));
    }
    let stderr = first_chars(strip(&result.stderr), STDERR_MESSAGE_CHARS);
    if !stderr.is_empty() {
        tracing::debug!("shell hook stderr (event={event} command={command}): {stderr}");
    }
    if event == HookEvent::PreToolCall && result.exit_code == Some(2) {
        let parsed = parse_stdout(event, &result.stdout)
            .filter(|reply| reply.get("action").and_then(Value::as_str) == Some("block"));
        let reply = parsed.unwrap_or_else(|| {
            block(if stderr.is_empty() {
                DEFAULT_BLOCK_MESSAGE
            } else {
                stderr
            })
        });
        tracing::info!("shell hook exited 2 — blocking (event={event} command={command})");
        return Some(reply);
    }
    let failure = exit_failure(result);
    if let Some(failure) = &failure {
        tracing::warn!("shell hook {failure} (event={event} command={command}); stderr={stderr}");
    }
    let parsed = parse_stdout(event, &result.stdout);
    let blocks = parsed
        .as_ref()
        .is_some_and(hermes_hooks_core::runs::reply_blocks);
    if fails_closed && event == HookEvent::PreToolCall && !blocks {
        // A verdict in words this format does not read is none (R9-1).
        let answer = serde_json::from_str::<Value>(strip(&result.stdout)).ok();
        if let Some(why) = answer
            .as_ref()
            .and_then(Value::as_object)
            .and_then(|object| {
                crate::verdict_words::unreadable_text(Format::Native, &result.stdout, object)
            })
        {
            return Some(failed_closed(spec, &why));
        }
    }
    if let (true, Some(failure), Some(reply)) = (fails_closed, &failure, &parsed) {
        // A failed run's answer that does not block (an EXIT trap's
        // `{"context": …}`) is no verdict of a fail-closed guard.
        if !hermes_hooks_core::runs::reply_blocks(reply) {
            return Some(failed_closed(spec, failure));
        }
    }
    if parsed.is_some() || !fails_closed {
        return parsed;
    }
    let stdout = strip(&result.stdout);
    let is_object = matches!(serde_json::from_str::<Value>(stdout), Ok(Value::Object(_)));
    if !stdout.is_empty() && !is_object {
        return Some(failed_closed(
            spec,
            "unparseable stdout (expected a JSON object)",
        ));
    }
    failure.map(|failure| failed_closed(spec, &failure))
}

/// `exited with status <rc>` / `killed by signal <n>` for an unsuccessful exit.
fn exit_failure(result: &RunResult) -> Option<String> {
    match (result.exit_code, result.signal) {
        (Some(0), _) => None,
        (Some(code), _) => Some(format!("exited with status {code}")),
        (None, Some(signal)) => Some(format!("killed by signal {signal}")),
        (None, None) => Some("ended without an exit status".to_owned()),
    }
}

/// Seconds as the reference prints them: `60`, `0.1`.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn format_seconds(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        duration.as_secs().to_string()
    } else {
        let text = format!("{:.3}", duration.as_secs_f64());
        text.trim_end_matches('0').to_owned()
    }
}

/// The first `count` characters of `text` (not bytes).
pub(crate) fn first_chars(text: &str, count: usize) -> &str {
    match text.char_indices().nth(count) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}
