//! The managed scope moved away from its guards (red team round 74,
//! R74-3): an administrator's fail-closed guard in
//! `$HERMES_MANAGED_DIR/config.yaml` vanished when the agent later ran
//! with the variable unset, empty, relative or naming another folder:
//! gone from `emit`, `list` and `doctor` without a word, and every call
//! allowed. As a user folder that moved ([`crate::dialect`]'s
//! `moved_folder.rs`), the managed file read is remembered per
//! `config.yaml`; when another (or none) is read, each fail-closed
//! `pre_tool_call` guard of the file read before (read again where it is
//! there, else its last good read) whose command the configuration read
//! now does not guard with blocks every call, naming the variable and
//! both places. The new place is remembered once nothing is lost: the
//! variable set back, or the guards moved along or taken out on purpose.

use std::path::{Path, PathBuf};

use hermes_hooks_core::config::scope::MANAGED_DIR_ENV;
use hermes_hooks_core::{Config, ConfigWarning, HookEvent};
use serde_json::{Value, json};

use super::ShellConfig;
use super::lost_guards::LostGuard;
use crate::guard_record::{Remembered, read_part, recall, write_part};

/// The record's part naming the managed file last read.
const PART: &str = "managed_file";

/// After `parsed` was read from `config`: blocks the guards of the managed
/// file read before that the one read now does not hold, as above, and
/// remembers the file read.
pub(super) fn keep_managed_guards(config: &Config, parsed: &mut ShellConfig) {
    // Only a file on disk has a memory (not a host's in-memory config).
    if std::fs::symlink_metadata(config.path()).is_err() {
        return;
    }
    let now = (config.managed_path())
        .or(config.managed_unread())
        .or(config.managed_candidate());
    let earlier = read_part(config.home(), config.path(), PART).and_then(|record| {
        record
            .get("file")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    });
    let moved = earlier.filter(|earlier| Some(earlier.as_path()) != now);
    let lost = moved
        .as_deref()
        .map_or(0, |earlier| lost_count(config, parsed, earlier));
    let Some(earlier) = moved.filter(|_| lost > 0) else {
        let record = now.map(|file| json!({ "file": file.to_string_lossy() }));
        write_part(config.home(), config.path(), PART, record.as_ref());
        return;
    };
    let place = now.map_or("no managed file".to_owned(), |file| {
        format!("{}", file.display())
    });
    let guard = LostGuard {
        file: earlier.clone(),
        event: HookEvent::PreToolCall,
        count: lost,
        reason: format!(
            "the managed scope read now is {place} (${MANAGED_DIR_ENV} changed), and this \
             file, the managed scope read before, is no longer read: set ${MANAGED_DIR_ENV} \
             back to its folder, or move its guards along"
        ),
    };
    let key = format!("hooks.{}", guard.event);
    parsed
        .warnings
        .push(ConfigWarning::new(&earlier, key, guard.warning()));
    parsed.lost_guards.push(guard);
}

/// How many fail-closed `pre_tool_call` guards the managed file `earlier`
/// holds whose command the configuration read now does not guard with:
/// read again where it is there and reads; else as its last good read
/// recorded them.
fn lost_count(config: &Config, parsed: &ShellConfig, earlier: &Path) -> usize {
    let guarded_now: Vec<&str> = parsed
        .specs
        .iter()
        .filter(|spec| spec.event == HookEvent::PreToolCall && spec.blocks_on_failure())
        .map(|spec| spec.command.as_str())
        .collect();
    match guard_commands(earlier) {
        Some(commands) => commands
            .iter()
            .filter(|command| !guarded_now.contains(&command.as_str()))
            .count(),
        None => match recall(config.home(), earlier) {
            Remembered::Guarded(events) => events
                .iter()
                .filter(|event| **event == HookEvent::PreToolCall)
                .count(),
            _ => 0,
        },
    }
}

/// The commands of `file`'s fail-closed `pre_tool_call` entries; `None`
/// when it is not there or does not read.
fn guard_commands(file: &Path) -> Option<Vec<String>> {
    let limit = u64::try_from(hermes_hooks_core::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let bytes = hermes_hooks_core::regular_file::read_capped(file, limit).ok()?;
    let root = hermes_hooks_core::yaml::parse(&String::from_utf8_lossy(&bytes)).ok()?;
    let entries = root.get("hooks")?.get("pre_tool_call")?.as_array()?;
    let fails_closed = |entry: &serde_json::Map<String, Value>| {
        entry.iter().any(|(key, value)| {
            crate::dialect::is_fail_closed_key(key)
                && !matches!(value, Value::Bool(false) | Value::Null)
        })
    };
    Some(
        entries
            .iter()
            .filter_map(Value::as_object)
            .filter(|entry| fails_closed(entry))
            .filter_map(|entry| entry.get("command")?.as_str())
            .map(|command| command.trim().to_owned())
            .collect(),
    )
}
