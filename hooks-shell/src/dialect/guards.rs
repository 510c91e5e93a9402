//! Fail-closed guards of imported files that cannot run as written, and the
//! memory that lets a file that no longer parses still guard.
//!
//! A file that cannot be parsed cannot say which of its entries were
//! `failClosed`. So every good parse records, by the file's path, the Hermes
//! events its fail-closed entries guarded (`crate::guard_record`). When the
//! file later fails to parse, each of those events is blocked
//! ([`GuardDown`]) until it parses again. A file named explicitly
//! (`{format, path}` in `hooks_from:`) that was never parsed blocks
//! `pre_tool_call` (docs/decisions/fail-closed-guard-that-cannot-run.md), and
//! so does any file whose record cannot be read or written (R10-7); a
//! standard file that was never parsed only warns.

use std::path::{Path, PathBuf};

use hermes_hooks_core::HookEvent;

use super::Dialect;
use crate::guard_record::{Remembered, recall, store_writable};

/// A fail-closed guard that cannot run as written: every call of `event` it
/// could have guarded is blocked instead, with `reason` and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GuardDown {
    /// The format of its file.
    pub dialect: Dialect,
    /// Its file.
    pub source: PathBuf,
    /// The field at fault (`hooks.PreToolUse[0].matcher`); empty for the whole file.
    pub key: String,
    /// The Hermes event whose every call is blocked.
    pub event: HookEvent,
    /// Why the guard cannot run, e.g. `cannot be parsed (...)`.
    pub reason: String,
    /// What the user runs or changes to lift the block.
    pub fix: String,
}

impl GuardDown {
    /// The message of the block each call gets (config text escaped).
    pub fn block_message(&self) -> String {
        let field = if self.key.is_empty() {
            String::new()
        } else {
            format!(" {}:", self.key)
        };
        hermes_hooks_core::display::escape(&format!(
            "Blocked: a fail-closed {} hook cannot run: {}{field} {}; {}",
            self.dialect,
            self.source.display(),
            self.reason,
            self.fix
        ))
        .into_owned()
    }
}

/// An imported file that gave no hooks: it cannot be read or parsed, or it
/// is a hooks file without its top-level `hooks` key. `doctor` counts each
/// as a problem; loading warns about each.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BrokenFile {
    /// Its format.
    pub dialect: Dialect,
    /// The file.
    pub path: PathBuf,
    /// What is wrong, e.g. `is not valid JSON (...)`.
    pub problem: String,
    /// The events now blocked because of it (see [`GuardDown`]).
    pub blocked: Vec<HookEvent>,
    /// Whether the file was ever parsed well (its fail-closed events are known).
    pub known: bool,
}

/// The fix every message of a broken file names.
pub(super) const FIX: &str = "fix the file (`hooks doctor` shows what is wrong), or take it out of hooks_from: in config.yaml";

/// What to do about `file`: which events block, and the warning to give.
/// `explicit`: named by `{format, path}` in `hooks_from:`; `found`: the
/// events the file's own fail-closed entries guard, when its content could
/// be read (a hooks file without its `hooks` key), `None` when it could not.
pub(super) fn broken_file(
    home: &Path,
    dialect: Dialect,
    path: &Path,
    problem: String,
    explicit: bool,
    found: Option<Vec<HookEvent>>,
) -> (BrokenFile, String) {
    // Why which calls it guards is unknown, when nothing says (R10-7: a
    // record that cannot be read, or a store where none could be written).
    let unknown = match (recall(home, path), found.is_some()) {
        (Remembered::Guarded(events), _) => Err(events),
        (_, true) => Ok(None),
        (Remembered::Unreadable(why), false) => Ok(Some(why)),
        (Remembered::Never, false) if explicit => Ok(Some(
            "it is named in hooks_from: and was never read".to_owned(),
        )),
        (Remembered::Never, false) => Ok(store_writable(home)
            .err()
            .map(|why| format!("it was never read, and its guard record {why}"))),
    };
    let (mut blocked, mut known, mut unknown) = match unknown {
        Err(events) => (events, true, None),
        Ok(Some(why)) => (vec![HookEvent::PreToolCall], false, Some(why)),
        Ok(None) => (Vec::new(), found.is_some(), None),
    };
    // Its text names a fail-closed setting its record does not hold (a
    // guard added with a typo, a record lost: red team R35-2, R36-4).
    if found.is_none()
        && !blocked.contains(&HookEvent::PreToolCall)
        && super::guard_text::names_fail_closed(path)
    {
        blocked.push(HookEvent::PreToolCall);
        known = false;
        unknown = Some("its text names failClosed, which no good read of it recorded".to_owned());
    }
    let read = found.is_some();
    blocked.extend(found.into_iter().flatten());
    blocked.sort_by_key(|event| event.index());
    blocked.dedup();
    let events = blocked
        .iter()
        .map(|event| event.as_str())
        .collect::<Vec<_>>()
        .join(" / ");
    let effect = match (blocked.is_empty(), known, read) {
        (false, _, true) => format!(
            "its failClosed hooks cannot run, so every {events} call is BLOCKED until it is fixed: {FIX}"
        ),
        (false, true, false) => format!(
            "at its last good read it had failClosed hooks on {events}, so every {events} call is BLOCKED until it parses again: {FIX}"
        ),
        (false, false, false) => format!(
            "{}, so which calls it guards is unknown: every {events} call is BLOCKED until it parses: {FIX}",
            unknown.unwrap_or_default()
        ),
        (true, true, _) => format!("none of its hooks run: {FIX}"),
        (true, false, _) => format!(
            "it was never read, so whether it holds failClosed guards is unknown: ANY GUARD IN IT IS NOT RUNNING: {FIX}"
        ),
    };
    let warning = format!("{problem}; nothing imported from it. {effect}");
    let file = BrokenFile {
        dialect,
        path: path.to_owned(),
        problem,
        blocked,
        known,
    };
    (file, warning)
}

impl BrokenFile {
    /// The blocks it puts in place, one per event.
    pub fn guards_down(&self) -> Vec<GuardDown> {
        self.blocked
            .iter()
            .map(|&event| GuardDown {
                dialect: self.dialect,
                source: self.path.clone(),
                key: String::new(),
                event,
                reason: self.problem.clone(),
                fix: FIX.to_owned(),
            })
            .collect()
    }
}
