//! Stop hooks run once per turn, as in Claude Code: at `pre_verify` when the
//! turn reached Hermes's verification gate (it edited code), else at the
//! turn's `post_llm_call` ([`super::events::also_fires_on`]).

use std::collections::HashSet;
use std::sync::Mutex;

use hermes_hooks_core::{Event, HookEvent};
use serde_json::Value;

use super::ImportedHook;
use super::events::also_fires_on;

/// The sessions whose Stop hooks already ran on `pre_verify` this turn.
#[derive(Debug, Default)]
pub struct StopTurns {
    noted: Mutex<HashSet<String>>,
}

impl StopTurns {
    /// Leaves out of `running` (indices into `hooks`) the Stop hooks that
    /// already ran this turn: on `pre_verify` the session is noted; on its
    /// `post_llm_call` a noted session's Stop hooks are left out and the note
    /// cleared, so the next turn runs them again.
    pub fn filter(
        &self,
        hooks: &[ImportedHook],
        hook_event: HookEvent,
        event: &Event,
        running: &mut Vec<usize>,
    ) {
        let is_stop = |index: &usize| also_fires_on(&hooks[*index].mapping).is_some();
        if !running.iter().any(is_stop) {
            return;
        }
        let session = event
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut noted = self
            .noted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match hook_event {
            HookEvent::PreVerify => {
                noted.insert(session);
            }
            HookEvent::PostLlmCall if noted.remove(&session) => {
                running.retain(|index| !is_stop(index));
            }
            _ => {}
        }
    }
}
