//! A fail-closed guard that a file still holds but that no longer reads
//! (red team round 9, R9-3): after a good read, `hooks.PreToolUse` became
//! `null` or an object, or its handler lost its `command`. The file parses,
//! so the broken-file rule (`guards.rs`) did not apply, and the entry was
//! skipped with a warning: the guard was gone. An event the file guarded
//! fail-closed at its last good read, that it guards no more, where an
//! entry of that event (or of an event name it does not know) could not be
//! read, is blocked until the file reads cleanly; the record keeps it.
//! Guards are counted (round 10, R10-3): of two guards of one event, the
//! one lost blocks though the other still runs. A guard taken out cleanly
//! (no unreadable entry) is gone, as the user meant.

#[allow(unused_imports)]
use super::*;

use super::super::guards::{FIX, GuardDown};
use crate::guard_record::{Remembered, recall};

/// After a good parse of `source`, whose fail-closed entries guard
/// `guarded` and whose warnings start at `warnings_from`: blocks every
/// event lost as above and returns the events to record for the file.
pub(super) fn keep_lost_guards(
    source: &Source,
    home: &Path,
    discovery: &mut Discovery,
    guarded: Vec<HookEvent>,
    warnings_from: usize,
) -> Vec<HookEvent> {
    let Remembered::Guarded(before) = recall(home, &source.path) else {
        return guarded;
    };
    let unreadable: Vec<Option<HookEvent>> = discovery.warnings[warnings_from..]
        .iter()
        .filter(|warning| warning.file == source.path)
        .filter_map(|warning| event_of_key(source.dialect, &warning.key))
        .collect();
    // Counted per guard: an event guarded twice that lost one guard lost it.
    let count =
        |events: &[HookEvent], event: HookEvent| events.iter().filter(|e| **e == event).count();
    let mut lost: Vec<HookEvent> = Vec::new();
    let mut events = before.clone();
    events.dedup();
    for event in events {
        let missing = count(&before, event).saturating_sub(count(&guarded, event));
        if missing > 0 && unreadable.iter().any(|of| of.is_none_or(|of| of == event)) {
            lost.extend(std::iter::repeat_n(event, missing));
        }
    }
    let mut shown = lost.clone();
    shown.dedup();
    for &event in &shown {
        let reason = format!(
            "at its last good read it had a failClosed hook on {event}, and an entry of that \
             event can no longer be read"
        );
        discovery.warnings.push(ConfigWarning::new(
            source.path.clone(),
            String::new(),
            format!(
                "({} hooks) {reason}: every {event} call is BLOCKED until it reads cleanly: {FIX}",
                source.dialect
            ),
        ));
        discovery.guards_down.push(GuardDown {
            dialect: source.dialect,
            source: source.path.clone(),
            key: String::new(),
            event,
            reason,
            fix: FIX.to_owned(),
        });
    }
    guarded.into_iter().chain(lost).collect()
}

/// The event of a warning's key `hooks.<Event>...`: `Some(Some(event))` for a
/// known event, `Some(None)` for a name the format does not know (it may be
/// any event, misspelled), `None` for a key outside the events.
fn event_of_key(dialect: Dialect, key: &str) -> Option<Option<HookEvent>> {
    if key == "hooks" {
        // The whole object (given twice): any event.
        return Some(None);
    }
    let rest = key.strip_prefix("hooks.")?;
    let name = rest.split(['[', '.']).next().unwrap_or(rest);
    Some(event_mapping(dialect, name).and_then(|mapping| mapping.ours))
}

/// Why `root` (a file with no `hooks` where its format reads them) cannot
/// be read as holding no guard: a `failClosed` key (any spelling) that is
/// not `false`, anywhere (round 10, R10-4: `{"Hooks": …}`, `{"hooks ": …}`,
/// `{"settings": {"hooks": …}}`). Bounded walk.
pub(super) fn stray_fail_closed(root: &Value) -> Option<String> {
    stray(root).then(|| {
        "has a failClosed hook outside its \"hooks\" object (a \"Hooks\" or \"hooks \" key, \
         or one nested under another key?)"
            .to_owned()
    })
}

fn stray(root: &Value) -> bool {
    let mut stack = vec![(root, 0usize)];
    let mut seen = 0usize;
    while let Some((value, depth)) = stack.pop() {
        seen += 1;
        if seen > 100_000 || depth > 64 {
            // Too large to tell: a guard may be in it.
            return true;
        }
        match value {
            Value::Object(object) => {
                for (key, inner) in object {
                    let off = matches!(inner, Value::Bool(false) | Value::Null);
                    if super::super::entries::is_fail_closed_key(key) && !off {
                        return true;
                    }
                    stack.push((inner, depth + 1));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    false
}

/// The Hermes events guarded fail-closed by what `discovery` gained since
/// `before` (hooks, unsupported handlers) and `down_before` (guards down).
pub(super) fn fail_closed_events(
    discovery: &Discovery,
    before: (usize, usize),
    down_before: usize,
) -> Vec<HookEvent> {
    let hooks = discovery.hooks[before.0..]
        .iter()
        .filter(|hook| hook.fail_closed)
        .filter_map(|hook| hook.event());
    let unsupported = discovery.unsupported[before.1..]
        .iter()
        .filter(|entry| entry.fail_closed)
        .filter_map(|entry| entry.mapping.ours);
    let down = discovery.guards_down[down_before..]
        .iter()
        .map(|guard| guard.event);
    hooks.chain(unsupported).chain(down).collect()
}
