//! The managed scope moved away from its guards (red team round 74,
//! R74-3): an administrator's fail-closed guard in
//! `$HERMES_MANAGED_DIR/config.yaml` vanished when the agent later ran
//! with the variable unset, empty, relative or naming another folder:
//! gone from `emit`, `list` and `doctor` without a word, and every call
//! allowed. As a user folder that moved ([`crate::dialect`]'s
//! `moved_folder.rs`), the managed file read is remembered per
//! `config.yaml`, with its fail-closed `pre_tool_call` guards (command and
//! matcher as written); when another file (or none) is read, each guard of
//! the file read before (read again where it is there, so guards taken out
//! of it on purpose are gone; else as recorded) that the configuration
//! read now does not hold, the same command with the same matcher, blocks
//! every call, naming the variable and both places (round 75, R75-1: the
//! same command under another matcher counted as held). The new place is
//! remembered once nothing is lost: the variable set back, or the guards
//! moved along (a folder renamed with the variable following it), or taken
//! out of the old file.

use std::path::{Path, PathBuf};

use hermes_hooks_core::config::scope::MANAGED_DIR_ENV;
use hermes_hooks_core::{Config, ConfigWarning, HookEvent};
use serde_json::{Value, json};

use super::ShellConfig;
use super::lost_guards::LostGuard;
use crate::guard_record::{read_part, unwritten_part_warning, write_part};

/// The record's part naming the managed file last read, and its guards.
const PART: &str = "managed_file";

/// One fail-closed guard as written: its command and its matcher (`""`
/// for none).
type Written = (String, String);

/// After `parsed` was read from `config`: blocks the guards of the managed
/// file read before that the configuration read now does not hold, as
/// above, and remembers the file read, with its guards.
pub(super) fn keep_managed_guards(config: &Config, parsed: &mut ShellConfig) {
    // Only a file on disk has a memory (not a host's in-memory config).
    if std::fs::symlink_metadata(config.path()).is_err() {
        return;
    }
    let now = (config.managed_path())
        .or(config.managed_unread())
        .or(config.managed_candidate());
    let record = read_part(config.home(), config.path(), PART);
    let recorded_file = record
        .as_ref()
        .and_then(|record| record.get("file")?.as_str().map(PathBuf::from));
    let recorded_here = recorded_file
        .as_deref()
        .is_some_and(|file| Some(file) == now);
    let earlier = recorded_file.filter(|_| !recorded_here);
    let held = written_guards(config.root());
    let lost: Vec<Written> = match &earlier {
        Some(earlier) => {
            let before = written_in_file(earlier).unwrap_or_else(|| recorded(record.as_ref()));
            before
                .into_iter()
                .filter(|guard| !held.contains(guard))
                .collect()
        }
        None => Vec::new(),
    };
    let Some(earlier) = earlier.filter(|_| !lost.is_empty()) else {
        // The managed document was read already; a file not merged is read
        // here. One that does not read, or is gone from where the record
        // has it, leaves the record as it was: its guards are what it held
        // at its last good read (round 76, R76-1: a broken file's emit
        // wrote no guards, and the variable unset later lost them).
        let mine = match (config.managed_document(), now) {
            (Some(document), _) => Some(written_guards(document)),
            (None, Some(file)) if std::fs::symlink_metadata(file).is_ok() => written_in_file(file),
            (None, Some(_)) if recorded_here => None,
            (None, _) => Some(Vec::new()),
        };
        let Some(mine) = mine else {
            return;
        };
        let fresh = now.map(|file| json!({ "file": file.to_string_lossy(), "guards": mine }));
        // Written only when it changes: an emit reads it, and writes seldom.
        if fresh != record
            && let Err(why) = write_part(config.home(), config.path(), PART, fresh.as_ref())
            && !mine.is_empty()
        {
            let risk = format!(
                "if ${MANAGED_DIR_ENV} later names another folder, or none, the guards of the \
                 managed file read now are not known to be left behind"
            );
            let message = unwritten_part_warning(&why, &risk);
            parsed
                .warnings
                .push(ConfigWarning::new(config.path(), "hooks", message));
        }
        return;
    };
    let place = now.map_or("no managed file".to_owned(), |file| {
        format!("{}", file.display())
    });
    let guard = LostGuard {
        file: earlier.clone(),
        event: HookEvent::PreToolCall,
        count: lost.len(),
        reason: format!(
            "the managed scope read now is {place} (${MANAGED_DIR_ENV} changed), and this \
             file, the managed scope read before, is no longer read: set ${MANAGED_DIR_ENV} \
             back to its folder, or move its guards along (the same command and matcher)"
        ),
    };
    let key = format!("hooks.{}", guard.event);
    parsed
        .warnings
        .push(ConfigWarning::new(&earlier, key, guard.warning()));
    parsed.lost_guards.push(guard);
}

/// The guards a record kept (none in a record without them).
fn recorded(record: Option<&Value>) -> Vec<Written> {
    let guards = record.and_then(|record| record.get("guards")?.as_array().cloned());
    guards
        .unwrap_or_default()
        .iter()
        .filter_map(|pair| {
            let pair = pair.as_array()?;
            Some((
                pair.first()?.as_str()?.to_owned(),
                pair.get(1)?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// The fail-closed `pre_tool_call` guards `file` holds as written; `None`
/// when it is not there or does not read.
fn written_in_file(file: &Path) -> Option<Vec<Written>> {
    let limit = u64::try_from(hermes_hooks_core::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let bytes = hermes_hooks_core::regular_file::read_capped(file, limit).ok()?;
    let mut root = hermes_hooks_core::yaml::parse(&String::from_utf8_lossy(&bytes)).ok()?;
    // `${VAR}` as the configuration read now has it.
    let env = hermes_hooks_core::config::ConfigEnv::process();
    hermes_hooks_core::config::scope::expand_vars(&mut root, &env);
    Some(written_guards(&root))
}

/// The fail-closed `pre_tool_call` guards of the settings `root` as
/// written (the merged configuration's: what is read now), under the
/// event as written or as it looks (round 76, R76-2), failing closed as
/// the entry parser reads them: `fail_closed` decides where it is given
/// (round 76, R76-3: `fail_closed: false` beside `failClosed: true` fails
/// open, so it holds no guard).
fn written_guards(root: &Value) -> Vec<Written> {
    let lists = root
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten();
    let entries = lists
        .filter(|(event, _)| crate::dialect::look_alikes::reads_as(event, "pre_tool_call"))
        .filter_map(|(_, list)| list.as_array());
    let says = |value: &Value| !matches!(value, Value::Bool(false) | Value::Null);
    let fails_closed = |entry: &serde_json::Map<String, Value>| match entry.get("fail_closed") {
        Some(value) => says(value),
        None => entry
            .iter()
            .any(|(key, value)| crate::dialect::is_fail_closed_key(key) && says(value)),
    };
    entries
        .flatten()
        .filter_map(Value::as_object)
        .filter(|entry| fails_closed(entry))
        .filter_map(|entry| {
            let command = entry.get("command")?.as_str()?.trim().to_owned();
            let matcher = entry.get("matcher").and_then(Value::as_str).unwrap_or("");
            Some((command, matcher.trim().to_owned()))
        })
        .collect()
}
