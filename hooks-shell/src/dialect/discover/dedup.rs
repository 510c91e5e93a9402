//! Handlers that several imported files give alike run once.

use std::collections::HashMap;

use super::super::{ImportedHook, Scope};

/// Identical handlers across files run once (Claude Code dedups settings
/// files). The copy that stays is the one from the user's file when there is
/// one (a project's copy of the user's guard never replaces it), keeping the
/// place of the first; it fails closed if any copy does. Handlers given
/// different `env` blocks are not identical.
pub(super) fn dedup(hooks: &mut Vec<ImportedHook>) {
    let mut first: HashMap<_, usize> = HashMap::new();
    let mut kept: Vec<ImportedHook> = Vec::with_capacity(hooks.len());
    for hook in hooks.drain(..) {
        let key = (
            hook.dialect,
            hook.their_event.clone(),
            hook.matcher.describe(),
            hook.condition.clone(),
            hook.consent_command(),
            hook.settings_env.clone(),
        );
        match first.get(&key) {
            None => {
                first.insert(key, kept.len());
                kept.push(hook);
            }
            Some(&at) => {
                let fail_closed = kept[at].fail_closed || hook.fail_closed;
                if kept[at].scope == Scope::Project && hook.scope == Scope::User {
                    kept[at] = hook;
                }
                kept[at].fail_closed = fail_closed;
            }
        }
    }
    *hooks = kept;
}
