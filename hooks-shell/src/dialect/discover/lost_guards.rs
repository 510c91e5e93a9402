//! A fail-closed guard that a file still holds but that no longer reads
//! (red team round 9, R9-3): after a good read, `hooks.PreToolUse` became
//! `null` or an object, or its handler lost its `command`. The file parses,
//! so the broken-file rule (`guards.rs`) did not apply, and the entry was
//! skipped with a warning: the guard was gone. An event the file guarded
//! fail-closed at its last good read, that it guards no more, where an
//! entry of that event (or of an event name it does not know) could not be
//! read, is blocked until the file reads cleanly; the record keeps it. A
//! guard taken out cleanly (no unreadable entry) is gone, as the user meant.

#[allow(unused_imports)]
use super::*;

use super::super::guards::{FIX, GuardDown, Remembered, recall};

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
    let lost: Vec<HookEvent> = before
        .into_iter()
        .filter(|event| !guarded.contains(event))
        .filter(|event| unreadable.iter().any(|of| of.is_none_or(|of| of == *event)))
        .collect();
    for &event in &lost {
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
    let rest = key.strip_prefix("hooks.")?;
    let name = rest.split(['[', '.']).next().unwrap_or(rest);
    Some(event_mapping(dialect, name).and_then(|mapping| mapping.ours))
}
