//! The user's guards decide on the arguments the tool will receive.
//!
//! The hooks of one event run in parallel on the same input (as Claude Code
//! and Hermes run them), so a hook that answers `updatedInput` rewrites the
//! arguments after the other hooks judged the original ones. When the
//! replies of a `pre_tool_call` rewrite its arguments and nothing blocked,
//! every hook of the user's own files (user and managed scope) that did not
//! itself rewrite them runs once more, on the final arguments, matched
//! against them again (an `if` rule that skipped `ls` may match the `rm -rf`
//! it became). A deny there blocks the call, naming the guard, the hooks
//! that rewrote the input and the guard's reason. Their own rewrites on the
//! second run are ignored: one round, never a loop. See
//! `docs/decisions/guards-see-the-final-input.md`.

use std::sync::Arc;

use hermes_hooks_core::{Event, HookEvent, HookRun};
use serde_json::Value;

use super::{ImportedHooks, applies, record};
use crate::dialect::Scope;
use crate::dialect::reply::{Contribution, Gate};

/// The arguments after every rewrite in `contributions` (shallow-merged in
/// order, as the tool gate merges them); `None` when none rewrote them.
fn rewritten_args(event: &Event, contributions: &[Contribution]) -> Option<Value> {
    let mut modifies = contributions
        .iter()
        .filter_map(|c| c.modify.as_ref())
        .filter(|args| !args.is_empty())
        .peekable();
    modifies.peek()?;
    let mut args = match event.get("args") {
        Some(Value::Object(args)) => args.clone(),
        _ => serde_json::Map::new(),
    };
    for modify in modifies {
        args.extend(modify.clone());
    }
    Some(Value::Object(args))
}

impl ImportedHooks {
    /// The re-check of the module documentation, after `ran` (hook indices)
    /// contributed `contributions`: the contributions of the user's guards
    /// on the rewritten input that decide (deny or ask), each with its
    /// source; records of the re-runs go to `runs`.
    pub(super) async fn recheck(
        &self,
        event: &Event,
        ran: &[usize],
        contributions: &[Contribution],
        runs: Option<&mut Vec<HookRun>>,
    ) -> Vec<(Contribution, Arc<str>)> {
        let denied = contributions
            .iter()
            .any(|c| matches!(c.gate, Some(Gate::Deny(_))));
        if event.hook() != Some(HookEvent::PreToolCall) || denied {
            return Vec::new();
        }
        let Some(args) = rewritten_args(event, contributions) else {
            return Vec::new();
        };
        let shared = &self.shared;
        let modifiers: Vec<usize> = ran
            .iter()
            .zip(contributions)
            .filter(|(_, c)| c.modify.as_ref().is_some_and(|m| !m.is_empty()))
            .map(|(&index, _)| index)
            .collect();
        let mut payload = event.payload().clone();
        payload.insert("args".to_owned(), args);
        let rewritten = Event::new(event.name().clone(), payload);
        let guards: Vec<usize> = self
            .hooks_of(HookEvent::PreToolCall)
            .iter()
            .copied()
            .filter(|index| !modifiers.contains(index))
            .filter(|&index| {
                let hook = &shared.hooks[index];
                hook.scope != Scope::Project && !hook.is_async && applies(hook, &rewritten)
            })
            .collect();
        if guards.is_empty() {
            return Vec::new();
        }
        let rewriters = modifiers
            .iter()
            .map(|&index| shared.sources[index].as_ref())
            .collect::<Vec<_>>()
            .join(", ");
        let started = guards
            .iter()
            .map(|&index| self.run_one(index, &rewritten, HookEvent::PreToolCall));
        let results = futures::future::join_all(started).await;
        let mut runs = runs;
        let mut deciding = Vec::new();
        for (&index, (contribution, result)) in guards.iter().zip(results) {
            let source = &shared.sources[index];
            if let Some(runs) = runs.as_deref_mut() {
                let run = record(
                    source,
                    &shared.hooks[index],
                    &rewritten,
                    &contribution,
                    &result,
                )
                .diagnostic(format!("re-run on the input rewritten by {rewriters}"));
                runs.push(run);
            }
            let gate = match contribution.gate {
                Some(Gate::Deny(reason)) => Gate::Deny(format!(
                    "{reason} (guard {source} re-checked the input {rewriters} rewrote)"
                )),
                Some(ask @ Gate::Ask(_)) => ask,
                None => continue,
            };
            let decision = Contribution {
                gate: Some(gate),
                ..Contribution::default()
            };
            deciding.push((decision, Arc::clone(source)));
        }
        deciding
    }
}
