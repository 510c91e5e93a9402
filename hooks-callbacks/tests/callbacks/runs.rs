//! Run records of in-process callbacks: one per callback touched, with the
//! status each way a callback can end (issue 16).

use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use hermes_hooks_callbacks::{CallbackError, Callbacks};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{
    BlockSource, Dispatcher, Event, HookEvent, HookRun, Hooks, RunStatus, ToolGate,
};
use serde_json::json;

use super::support::{Gate, settings, tool_event};

fn recorded(callbacks: &Arc<Callbacks>, event: &Event) -> Vec<HookRun> {
    let hooks = Hooks::builder().with(callbacks.clone()).build();
    block_on(hooks.emit_with_report(event)).runs
}

#[test]
fn completed_and_blocked_callbacks_are_recorded_in_order_with_their_decision() {
    let callbacks = Callbacks::new(settings(2_000));
    callbacks.register("pre_tool_call", "quiet", |_: &Event| Ok(None));
    callbacks.register("pre_tool_call", "guard", |_: &Event| {
        Ok(Some(json!({"action": "block", "message": "no"})))
    });
    let event = tool_event(HookEvent::PreToolCall, "a");
    let hooks = Hooks::builder().with(callbacks.clone()).build();
    let report = block_on(hooks.emit_with_report(&event));
    let runs = &report.runs;
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(&*runs[0].source, "plugin:quiet");
    assert_eq!(runs[0].status, RunStatus::Completed);
    assert_eq!(runs[0].decision, None);
    assert_eq!(&*runs[1].source, "plugin:guard");
    assert_eq!(&*runs[1].mechanism, "plugins");
    assert_eq!(&*runs[1].event, "pre_tool_call");
    assert_eq!(runs[1].status, RunStatus::Blocked);
    assert_eq!(
        runs[1].decision,
        Some(json!({"action": "block", "message": "no"}))
    );
    // The outcome names who blocked: the report adds the run's mechanism
    // and time to the source the merge knows, which `emit` gives alone.
    let gate = report.outcome.tool_gate();
    let source = gate
        .block_source()
        .expect("the report's outcome is a block");
    assert_eq!(&*source.source, "plugin:guard");
    assert_eq!(source.mechanism.as_deref(), Some("plugins"));
    assert_eq!(source.elapsed, Some(runs[1].elapsed));
    assert_eq!(
        block_on(hooks.emit(&event)).tool_gate(),
        ToolGate::block("no", BlockSource::new("plugin:guard"))
    );
    assert_eq!(report.block_source.as_deref(), Some("plugin:guard"));
    assert_eq!(
        report.blocked_by().map(|run| &*run.source),
        Some("plugin:guard")
    );
}

#[test]
fn a_panic_and_an_error_are_failed_and_fail_closed_on_pre_tool_call() {
    let callbacks = Callbacks::new(settings(2_000));
    callbacks.register("pre_tool_call", "panics", |_: &Event| panic!("kaboom"));
    callbacks.register("post_tool_call", "errs", |_: &Event| {
        Err(CallbackError::new("ValueError", "bad"))
    });
    let runs = recorded(&callbacks, &tool_event(HookEvent::PreToolCall, "a"));
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, RunStatus::Failed);
    assert!(runs[0].diagnostics[0].contains("kaboom"), "{runs:?}");
    assert_eq!(
        runs[0].decision.as_ref().map(|d| d["action"].clone()),
        Some(json!("block"))
    );
    let runs = recorded(&callbacks, &tool_event(HookEvent::PostToolCall, "a"));
    assert_eq!(runs[0].status, RunStatus::Failed);
    assert_eq!(runs[0].diagnostics, ["raised ValueError: bad"]);
    // Observers fail open: nothing goes into the merge.
    assert_eq!(runs[0].decision, None);
}

#[test]
fn a_hung_callback_times_out_then_is_skipped_while_suppressed() {
    let gate = Gate::default();
    let callbacks = Callbacks::new(settings(100));
    let waiting = gate.clone();
    callbacks.register("pre_tool_call", "stuck", move |_: &Event| {
        waiting.wait();
        Ok(None)
    });
    let runs = recorded(&callbacks, &tool_event(HookEvent::PreToolCall, "a"));
    assert_eq!(runs[0].status, RunStatus::TimedOut, "{runs:?}");
    assert!(runs[0].elapsed >= Duration::from_millis(100));
    assert!(runs[0].diagnostics[0].contains("timed out after 0.1s"));
    assert_eq!(
        runs[0].decision.as_ref().map(|d| d["action"].clone()),
        Some(json!("block"))
    );
    let runs = recorded(&callbacks, &tool_event(HookEvent::PreToolCall, "b"));
    assert!(
        matches!(&runs[0].status, RunStatus::Skipped(why) if why.contains("suppressed")),
        "{runs:?}"
    );
    gate.open();
}

#[test]
fn queued_observers_are_recorded_as_queued() {
    let callbacks = Callbacks::new(PluginSettings::default());
    callbacks.register("on_stream_delta", "stream", |_: &Event| Ok(None));
    let event = Event::from_json(
        HookEvent::OnStreamDelta,
        json!({"kind": "text", "delta": "x"}),
    );
    let runs = recorded(&callbacks, &event);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, RunStatus::Queued);
    assert!(callbacks.shutdown(Duration::from_secs(5)));
}

#[test]
fn plain_dispatch_and_emit_record_nothing_and_observers_see_every_emit() {
    let callbacks = Callbacks::new(settings(2_000));
    callbacks.register("pre_tool_call", "guard", |_: &Event| Ok(None));
    let seen = Arc::new(std::sync::Mutex::new(Vec::<HookRun>::new()));
    let sink = seen.clone();
    let hooks = Hooks::builder()
        .with(callbacks.clone())
        .observe_runs(Arc::new(move |runs: &[HookRun]| {
            sink.lock()
                .map(|mut seen| seen.extend_from_slice(runs))
                .ok();
        }))
        .build();
    let event = tool_event(HookEvent::PreToolCall, "a");
    block_on(hooks.emit(&event));
    block_on(hooks.collect(&event));
    let seen = seen.lock().map(|seen| seen.len()).unwrap_or(0);
    assert_eq!(seen, 2, "emit and collect both reach the observer");
    // Unhooked: no runs, whatever the observer.
    let unhooked = tool_event(HookEvent::PostToolCall, "a");
    assert!(block_on(hooks.emit_with_report(&unhooked)).runs.is_empty());
    // Without observer a plain dispatch is unchanged.
    let replies = block_on(callbacks.dispatch(&event));
    assert!(replies.is_empty());
}

#[test]
fn a_callback_reply_with_a_wrong_field_fails_its_run_naming_the_field() {
    let callbacks = Callbacks::new(settings(2_000));
    callbacks.register("pre_tool_call", "typo", |_: &Event| {
        Ok(Some(
            json!({"action": "block", "message": "no", "rule_key": 7}),
        ))
    });
    callbacks.register("pre_tool_call", "unknown", |_: &Event| {
        Ok(Some(json!({"action": "allow"})))
    });
    callbacks.register("transform_tool_result", "object", |_: &Event| {
        Ok(Some(json!({"text": "not a string"})))
    });
    let event = tool_event(HookEvent::PreToolCall, "a");
    let hooks = Hooks::builder().with(callbacks.clone()).build();
    let report = block_on(hooks.emit_with_report(&event));
    let runs = &report.runs;
    assert_eq!(runs[0].status, RunStatus::Failed);
    assert_eq!(
        runs[0].diagnostics,
        ["reply field `rule_key`: expected string, got number 7"]
    );
    // The merge still reads what it can: a guard never fails open on a typo.
    assert_eq!(report.outcome.block_message(), Some("no"));
    assert_eq!(runs[1].status, RunStatus::Failed);
    assert!(
        runs[1].diagnostics[0].starts_with("reply field `action`: expected one of"),
        "{:?}",
        runs[1].diagnostics
    );
    let transform = recorded(&callbacks, &tool_event(HookEvent::TransformToolResult, "b"));
    assert_eq!(transform[0].status, RunStatus::Failed);
    assert_eq!(
        transform[0].diagnostics,
        ["reply field `(reply)`: expected string, got an object"]
    );
    // A reply that fits keeps its status and gets no diagnostic.
    let fits = Callbacks::new(settings(2_000));
    fits.register("pre_tool_call", "guard", |_: &Event| {
        Ok(Some(json!({"action": "block", "message": "no"})))
    });
    let fine = recorded(&fits, &event);
    assert_eq!(fine[0].status, RunStatus::Blocked);
    assert!(fine[0].diagnostics.is_empty());
}
