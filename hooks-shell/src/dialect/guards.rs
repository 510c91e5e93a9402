//! Fail-closed guards of imported files that cannot run as written, and the
//! memory that lets a file that no longer parses still guard.
//!
//! A file that cannot be parsed cannot say which of its entries were
//! `failClosed`. So every good parse records, by the file's path, the Hermes
//! events its fail-closed entries guarded (`<home>/.hooks-cache/imported-guards/`,
//! one small JSON file per imported file, so two processes never lose each
//! other's writes). When the file later fails to parse, each of those events
//! is blocked ([`GuardDown`]) until it parses again. A file named explicitly
//! (`{format, path}` in `hooks_from:`) that was never parsed blocks
//! `pre_tool_call` (docs/decisions/fail-closed-guard-that-cannot-run.md); a standard
//! file that was never parsed only warns.

use std::path::{Path, PathBuf};

use hermes_hooks_core::HookEvent;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Dialect;

/// Where the records live, under the Hermes home.
const CACHE_DIR: &str = ".hooks-cache/imported-guards";

/// The record format; another version is ignored (read as "never parsed").
const VERSION: u64 = 1;

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
    let (mut blocked, known) = match recall(home, path) {
        Remembered::Guarded(events) => (events, true),
        Remembered::Never if explicit && found.is_none() => (vec![HookEvent::PreToolCall], false),
        Remembered::Never => (Vec::new(), found.is_some()),
    };
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
            "it is named in hooks_from: and was never read, so which calls it guards is unknown: every {events} call is BLOCKED until it parses: {FIX}"
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

/// What the records say about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Remembered {
    /// Never parsed well (or its record is unreadable).
    Never,
    /// At its last good parse, these events had a fail-closed entry.
    Guarded(Vec<HookEvent>),
}

/// The record file of the path keyed `key` under `home`.
fn record_path(home: &Path, key: &str) -> PathBuf {
    let digest = Sha256::digest(key.as_bytes());
    let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    home.join(CACHE_DIR).join(format!("{name}.json"))
}

/// The path a record is keyed by: canonical when it can be resolved.
fn key_of(source: &Path) -> String {
    source
        .canonicalize()
        .unwrap_or_else(|_| source.to_owned())
        .to_string_lossy()
        .into_owned()
}

/// The path as named (absolute): a file that turns into a link to
/// something else (`/dev/zero`, a target that is gone) keeps its record.
fn named_key(source: &Path) -> String {
    std::path::absolute(source)
        .unwrap_or_else(|_| source.to_owned())
        .to_string_lossy()
        .into_owned()
}

/// What the last good parse of `source` guarded: recorded under its path as
/// named, else where it led then.
pub(super) fn recall(home: &Path, source: &Path) -> Remembered {
    match recall_by(home, &named_key(source)) {
        Remembered::Never => recall_by(home, &key_of(source)),
        known => known,
    }
}

fn recall_by(home: &Path, key: &str) -> Remembered {
    let record: Option<Value> = std::fs::read(record_path(home, key))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let Some(record) = record else {
        return Remembered::Never;
    };
    let ours = record.get("version").and_then(Value::as_u64) == Some(VERSION)
        && record.get("path").and_then(Value::as_str) == Some(key);
    let Some(events) = record.get("fail_closed_events").and_then(Value::as_array) else {
        return Remembered::Never;
    };
    if !ours {
        return Remembered::Never;
    }
    Remembered::Guarded(
        events
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|name| name.parse().ok())
            .collect(),
    )
}

/// Records that `source` parsed and guarded `events` fail-closed (an event
/// once per guard of it). Written
/// only when it changes (atomically); a home that cannot be written is left
/// alone with a debug line (the guard still holds for this run).
pub(super) fn remember(home: &Path, source: &Path, events: &[HookEvent]) {
    let mut events: Vec<HookEvent> = events.to_vec();
    // One entry per guard (not per event): a file whose two guards of one
    // event lose one still knows it lost one (red team round 10, R10-3).
    events.sort_by_key(|event| event.index());
    let mut keys = vec![named_key(source), key_of(source)];
    keys.dedup();
    for key in keys {
        remember_by(home, source, &key, &events);
    }
}

/// [`remember`] under one key.
fn remember_by(home: &Path, source: &Path, key: &str, events: &[HookEvent]) {
    if recall_by(home, key) == Remembered::Guarded(events.to_vec()) {
        return;
    }
    let record = json!({
        "version": VERSION,
        "path": key,
        "fail_closed_events": events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
    });
    let target = record_path(home, key);
    let written = target
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            let temporary = target.with_extension(format!("json.{}", std::process::id()));
            std::fs::write(&temporary, serde_json::to_vec(&record).unwrap_or_default())?;
            std::fs::rename(&temporary, &target)
        });
    if let Err(error) = written {
        tracing::debug!(
            "cannot record the fail-closed events of {} in {}: {error}",
            source.display(),
            target.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_is_keyed_by_path() {
        let home = tempfile::tempdir().expect("home");
        let file = home.path().join("settings.json");
        std::fs::write(&file, "{}").expect("write");
        assert_eq!(recall(home.path(), &file), Remembered::Never);
        remember(home.path(), &file, &[HookEvent::PreToolCall]);
        assert_eq!(
            recall(home.path(), &file),
            Remembered::Guarded(vec![HookEvent::PreToolCall])
        );
        assert_eq!(
            recall(home.path(), &home.path().join("other.json")),
            Remembered::Never
        );
        remember(home.path(), &file, &[]);
        assert_eq!(recall(home.path(), &file), Remembered::Guarded(vec![]));
    }
}
