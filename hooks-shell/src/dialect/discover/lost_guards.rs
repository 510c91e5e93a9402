//! A fail-closed guard that a file still holds but that no longer reads
//! (red team round 9, R9-3): after a good read, `hooks.PreToolUse` became
//! `null` or an object, or its handler lost its `command`. The file parses,
//! so the broken-file rule (`guards.rs`) did not apply, and the entry was
//! skipped with a warning: the guard was gone. An event the file guarded
//! fail-closed at its last good read, that it guards no more, where an
//! entry of that event (or of an event name it does not know) could not be
//! read, is blocked until the file reads cleanly; the record keeps it.
//! Guards are told apart (round 10, R10-3; round 11, R11-3): of two guards
//! of one event, the one lost blocks though the other still runs, or
//! another appears. A guard taken out cleanly (no unreadable entry) is
//! gone, as the user meant.

#[allow(unused_imports)]
use super::*;

use sha2::{Digest, Sha256};

use super::super::guards::{FIX, GuardDown};
use crate::guard_record::{Guard, Remembered, recall, recall_guards};

/// After a good parse of `source`, whose fail-closed entries are
/// `guarded` and whose warnings start at `warnings_from`: blocks every
/// event lost as above and returns the guards to record for the file.
/// Guards are told apart by identity (round 11, R11-3: a guard lost while
/// another of its event appears, or a group split in two with a typo in
/// one half, is still lost); a record that keeps events only is compared
/// by count.
pub(super) fn keep_lost_guards(
    source: &Source,
    home: &Path,
    discovery: &mut Discovery,
    guarded: Vec<Guard>,
    warnings_from: usize,
) -> Vec<Guard> {
    let before: Vec<Guard> = match recall_guards(home, &source.path) {
        Some(guards) => guards,
        None => match recall(home, &source.path) {
            // Counted: each recorded guard of an event stands for any.
            Remembered::Guarded(events) => counted(&events, &guarded),
            _ => return guarded,
        },
    };
    let unreadable: Vec<Option<HookEvent>> = discovery.warnings[warnings_from..]
        .iter()
        .filter(|warning| warning.file == source.path)
        .filter_map(|warning| {
            // A matcher or `if` given twice: only the last was read, so the
            // guard written first is lost, not read another way (round 74,
            // R74-2: `Bash` then `Read` let every Bash call through).
            let twice = warning.message.contains("is given more than once");
            event_of_key(source.dialect, &warning.key, twice)
        })
        .collect();
    let mut left = guarded.clone();
    let mut lost: Vec<Guard> = Vec::new();
    for guard in before {
        if let Some(at) = left.iter().position(|now| *now == guard) {
            left.remove(at);
        } else if unreadable
            .iter()
            .any(|of| of.is_none_or(|of| of == guard.0))
        {
            lost.push(guard);
        }
    }
    // An event this read already blocks (a guard down in this file) needs
    // no second block, and no second warning.
    let down = |event: HookEvent| {
        let mut mine = discovery
            .guards_down
            .iter()
            .filter(|g| g.source == source.path);
        mine.any(|guard| guard.event == event)
    };
    lost.retain(|(event, _)| !down(*event));
    let mut shown: Vec<HookEvent> = lost.iter().map(|(event, _)| *event).collect();
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
fn event_of_key(dialect: Dialect, key: &str, twice: bool) -> Option<Option<HookEvent>> {
    let last = key.rsplit('.').next().unwrap_or(key);
    if matches!(last, "matcher" | "if") && !twice {
        // A matcher or rule read another way: the entry is read (R13-6).
        return None;
    }
    if key == "hooks" || super::super::entries::is_fail_closed_key(last) {
        // The whole object (given twice), or a failClosed read as failing
        // open (a guard moved to an event that cannot fail closed): any event.
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

/// Blocks `pre_tool_call` when `root` has a `failClosed` key where no
/// handler is read (`stray_places`): a guard there never runs.
pub(super) fn stray_guards(source: &Source, root: &Value, discovery: &mut Discovery) {
    let places = stray_places(source.dialect, root);
    let Some(first) = places.first() else {
        return;
    };
    let event = HookEvent::PreToolCall;
    let reason = format!(
        "has a failClosed key where no hook is read ({}), so the guard it meant never runs",
        places.join(", ")
    );
    let message = format!("{reason}: every {event} call is BLOCKED until it is fixed: {FIX}");
    super::warn_file(discovery, source, first, message);
    discovery.guards_down.push(GuardDown {
        dialect: source.dialect,
        source: source.path.clone(),
        key: first.clone(),
        event,
        reason,
        fix: FIX.to_owned(),
    });
}

/// Where `root` (a file whose `hooks` was read) has a `failClosed` key
/// (any spelling) that is not `false` in a place no handler is read from
/// (red team round 11, R11-4): on a group, at the top level, under
/// `settings.hooks`, `Hooks` or `hooks_backup`, under an event name inside
/// a group. Such a guard never runs; its places, by key. Bounded walk.
pub(super) fn stray_places(dialect: Dialect, root: &Value) -> Vec<String> {
    let handler_at = |path: &[String]| {
        let index = |i: usize| path.get(i).is_some_and(|token| token.starts_with('['));
        match dialect {
            Dialect::Cursor => path.len() == 3 && path[0] == "hooks" && index(2),
            _ => {
                path.len() == 5 && path[0] == "hooks" && index(2) && path[3] == "hooks" && index(4)
            }
        }
    };
    let mut places = Vec::new();
    let mut stack: Vec<(&Value, Vec<String>)> = vec![(root, Vec::new())];
    let mut seen = 0usize;
    while let Some((value, path)) = stack.pop() {
        seen += 1;
        if seen > 100_000 || path.len() > 64 || places.len() >= 5 {
            break;
        }
        match value {
            Value::Object(object) => {
                for (key, inner) in object {
                    let off = matches!(inner, Value::Bool(false) | Value::Null);
                    if super::super::entries::is_fail_closed_key(key) && !off && !handler_at(&path)
                    {
                        places.push(place(&path, key));
                    }
                    let mut deeper = path.clone();
                    deeper.push(key.clone());
                    stack.push((inner, deeper));
                }
            }
            Value::Array(items) => {
                for (at, item) in items.iter().enumerate() {
                    let mut deeper = path.clone();
                    deeper.push(format!("[{at}]"));
                    stack.push((item, deeper));
                }
            }
            _ => {}
        }
    }
    places.sort();
    places
}

/// The dotted place of `key` under `path` (`hooks.PreToolUse[0].failClosed`).
fn place(path: &[String], key: &str) -> String {
    let mut text = String::new();
    for token in path.iter().map(String::as_str).chain(std::iter::once(key)) {
        if !text.is_empty() && !token.starts_with('[') {
            text.push('.');
        }
        text.push_str(token);
    }
    text
}

/// Whether the record of `path` says it had a fail-closed guard.
pub(super) fn guarded_before(home: &Path, path: &Path) -> bool {
    matches!(recall(home, path), Remembered::Guarded(events) if !events.is_empty())
}

/// The guards of `events` (recorded by event only) as identities matched
/// by `now` where they can be: of each event, as many of `now`'s guards as
/// were recorded, the rest unmatched.
fn counted(events: &[HookEvent], now: &[Guard]) -> Vec<Guard> {
    let mut left: Vec<&Guard> = now.iter().collect();
    events
        .iter()
        .map(
            |event| match left.iter().position(|guard| guard.0 == *event) {
                Some(at) => left.remove(at).clone(),
                None => (*event, "recorded by count".to_owned()),
            },
        )
        .collect()
}

/// The fail-closed guards `discovery` gained since `before` (hooks,
/// unsupported handlers) and `down_before` (guards down), each with its
/// event and identity.
pub(super) fn fail_closed_guards(
    discovery: &Discovery,
    before: (usize, usize),
    down_before: usize,
) -> Vec<Guard> {
    let hooks = discovery.hooks[before.0..]
        .iter()
        .filter(|hook| hook.fail_closed)
        .filter_map(|hook| {
            let id = identity(&[
                &hook.their_event,
                &hook.matcher.describe().unwrap_or_default(),
                &hook.consent_command(),
            ]);
            Some((hook.event()?, id))
        });
    let unsupported = discovery.unsupported[before.1..]
        .iter()
        .filter(|entry| entry.fail_closed)
        .filter_map(|entry| {
            let id = identity(&[
                &entry.their_event,
                entry.matcher.as_deref().unwrap_or(""),
                &entry.kind,
                &entry.key,
            ]);
            Some((entry.mapping.ours?, id))
        });
    let down = discovery.guards_down[down_before..]
        .iter()
        .map(|guard| (guard.event, identity(&["down", &guard.key])));
    hooks.chain(unsupported).chain(down).collect()
}

/// The events of `guards`, once per guard.
pub(super) fn events_of(guards: &[Guard]) -> Vec<HookEvent> {
    guards.iter().map(|(event, _)| *event).collect()
}

/// A short digest of `parts`, told apart by their boundaries.
fn identity(parts: &[&str]) -> String {
    let mut digest = Sha256::new();
    for part in parts {
        digest.update(part.len().to_le_bytes());
        digest.update(part.as_bytes());
    }
    digest
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}
