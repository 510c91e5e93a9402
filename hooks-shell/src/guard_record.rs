//! The memory of fail-closed guards: what the last good read of a file
//! guarded, so a file that later breaks (no longer parses, or parses into a
//! shape that drops a guard) keeps blocking what it guarded.
//!
//! One small JSON file per guarded file under `<home>/guard-records/`
//! (`<home>/.hooks-cache/imported-guards/` before, still read; imported files, `config.yaml`'s
//! own `hooks:` and its `hooks_from:` list alike), so two processes never
//! lose each other's writes. A record is kept under every name of its file
//! (`keys`), and the one of the highest generation is read. A record that exists but cannot be read is
//! [`Remembered::Unreadable`], never "no guard"; a record that cannot be
//! written is an error the caller shows, and a store that cannot be written
//! at all makes a broken file's guards unknown (red team round 10, R10-7).

use std::path::{Path, PathBuf};

use hermes_hooks_core::HookEvent;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

mod keys;
pub(crate) mod line_prefixes;

use keys::{freshest, keys_of, next_generation};

/// Where the records live, under the Hermes home: state, not a cache (a
/// user clearing `.hooks-cache` wiped them, and a broken settings file then
/// read as never guarded: red team R35-2).
const RECORD_DIR: &str = "guard-records";

/// Where older versions kept them: read when the new place has none.
const OLD_RECORD_DIR: &str = ".hooks-cache/imported-guards";

/// The largest record read (a larger one is unreadable).
const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;

/// The record format; another version is ignored (read as "never parsed").
const VERSION: u64 = 1;

/// What the records say about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Remembered {
    /// Never parsed well (no record, or one of another version or path).
    Never,
    /// A record exists but cannot be read: what it guarded is unknown.
    Unreadable(String),
    /// At its last good parse, these events had a fail-closed entry (an
    /// event once per guard of it).
    Guarded(Vec<HookEvent>),
}

/// The record file of the path keyed `key` under `home`.
fn record_path(home: &Path, key: &str) -> PathBuf {
    home.join(RECORD_DIR).join(record_name(key))
}

/// The file name of the record keyed `key`.
fn record_name(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("{name}.json")
}

/// A record file read: its path and bytes.
type RecordFile = (PathBuf, Vec<u8>);

/// The bytes of the record keyed `key`: where records are kept, else
/// where older versions kept them; `Ok(None)` when neither has it.
pub(super) fn record_bytes(
    home: &Path,
    key: &str,
) -> Result<Option<RecordFile>, (PathBuf, String)> {
    for folder in [RECORD_DIR, OLD_RECORD_DIR] {
        let path = home.join(folder).join(record_name(key));
        match hermes_hooks_core::regular_file::read_capped(&path, MAX_RECORD_BYTES) {
            Ok(bytes) => return Ok(Some((path, bytes))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err((path, error.to_string())),
        }
    }
    Ok(None)
}

/// What the last good parse of `source` guarded: the record written last
/// among its keys ([`keys`]).
pub(crate) fn recall(home: &Path, source: &Path) -> Remembered {
    recall_part_events(home, source, "")
}

/// What the record kept beside `source`'s under `suffix` (`#hooks_from/claude`)
/// says, as [`recall`] reads a file's own.
pub(crate) fn recall_part_events(home: &Path, source: &Path, suffix: &str) -> Remembered {
    match freshest(home, source, suffix) {
        Some(key) => recall_key(home, &key),
        None => Remembered::Never,
    }
}

/// What the record keyed `key` says (a file's path, or a name such as
/// `<config.yaml>#hooks_from/claude`).
fn recall_key(home: &Path, key: &str) -> Remembered {
    match read_record(home, key) {
        Ok(None) => Remembered::Never,
        Ok(Some((events, _))) => Remembered::Guarded(events),
        Err(why) => Remembered::Unreadable(why),
    }
}

/// The record keyed `key`: its events and, when kept, each guard's
/// identity; `Ok(None)` for none (or one of another version or path).
type Record = (Vec<HookEvent>, Option<Vec<String>>);

fn read_record(home: &Path, key: &str) -> Result<Option<Record>, String> {
    match read_json(home, key)? {
        Some((path, record)) => record_in(key, &path, &record),
        None => Ok(None),
    }
}

/// The JSON of the record keyed `key`, with its file's path; `Ok(None)`
/// when there is none.
fn read_json(home: &Path, key: &str) -> Result<Option<(PathBuf, Value)>, String> {
    let (path, bytes) = match record_bytes(home, key) {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err((path, error)) => return Err(unreadable(&path, &error)),
    };
    let record: Value =
        serde_json::from_slice(&bytes).map_err(|error| unreadable(&path, &error.to_string()))?;
    Ok(Some((path, record)))
}

/// What the record keyed `key` (read from `path`) holds.
fn record_in(key: &str, path: &Path, record: &Value) -> Result<Option<Record>, String> {
    let version = record.get("version").and_then(Value::as_u64);
    if version != Some(VERSION) || record.get("path").and_then(Value::as_str) != Some(key) {
        return Ok(None);
    }
    let Some(events) = record.get("fail_closed_events").and_then(Value::as_array) else {
        return Err(unreadable(path, "it has no fail_closed_events list"));
    };
    let mut known = Vec::with_capacity(events.len());
    for event in events {
        match event.as_str().and_then(|name| name.parse().ok()) {
            Some(event) => known.push(event),
            None => return Err(unreadable(path, &format!("{event} is not an event"))),
        }
    }
    let ids: Option<Vec<String>> = record
        .get("guard_ids")
        .and_then(Value::as_array)
        .and_then(|ids| {
            ids.iter()
                .map(|id| id.as_str().map(str::to_owned))
                .collect()
        })
        .filter(|ids: &Vec<String>| ids.len() == known.len());
    Ok(Some((known, ids)))
}

fn unreadable(path: &Path, why: &str) -> String {
    format!("its guard record {} cannot be read ({why})", path.display())
}

/// One fail-closed guard as a record keeps it: its event, and what tells
/// it apart from the event's other guards (a digest of its matcher and
/// command), so a guard lost while another appears is still lost (red team
/// round 11, R11-3).
pub(crate) type Guard = (HookEvent, String);

/// Records that `source` parsed and guarded `events` fail-closed (an event
/// once per guard of it), under its path as named and where it leads.
/// Written only when it changes (atomically). `Err` says why it could not
/// be written: the guard still holds for this run, but a later break of the
/// file will not know it.
pub(crate) fn remember(home: &Path, source: &Path, events: &[HookEvent]) -> Result<(), String> {
    let guards: Vec<(HookEvent, Option<String>)> = events.iter().map(|e| (*e, None)).collect();
    remember_all(home, source, guards)
}

/// [`remember`] with each guard's identity, read back by [`recall_guards`].
pub(crate) fn remember_guards(home: &Path, source: &Path, guards: &[Guard]) -> Result<(), String> {
    let guards = guards
        .iter()
        .map(|(e, id)| (*e, Some(id.clone())))
        .collect();
    remember_all(home, source, guards)
}

fn remember_all(
    home: &Path,
    source: &Path,
    guards: Vec<(HookEvent, Option<String>)>,
) -> Result<(), String> {
    write_records(home, source, "", guards)
}

/// Writes the records keyed `key` + `suffix` for each key of `source`
/// unless every one already says `guards`, and then every one, as of one
/// generation past the highest there: the keys another spelling of the
/// file shares always hold the latest generation, so a key only one
/// spelling writes never outranks them with an older record (round 81,
/// R81-2: a record left unchanged kept an older generation, and a bind
/// mount's own key tied with it).
fn write_records(
    home: &Path,
    source: &Path,
    suffix: &str,
    mut guards: Vec<(HookEvent, Option<String>)>,
) -> Result<(), String> {
    // One entry per guard (not per event): a file whose two guards of one
    // event lose one still knows it lost one (red team round 10, R10-3).
    guards.sort_by(|a, b| (a.0.index(), &a.1).cmp(&(b.0.index(), &b.1)));
    let keys: Vec<String> = keys_of(source)
        .into_iter()
        .map(|key| format!("{key}{suffix}"))
        .collect();
    if keys.iter().all(|key| says(home, key, &guards)) {
        return Ok(());
    }
    let generation = next_generation(home, source, suffix);
    keys.iter()
        .try_for_each(|key| write_record(home, key, &guards, generation))
}

/// [`remember`] for the record kept beside `source`'s under `suffix`, read
/// by [`recall_part_events`].
pub(crate) fn remember_part_events(
    home: &Path,
    source: &Path,
    suffix: &str,
    events: &[HookEvent],
) -> Result<(), String> {
    let guards = events.iter().map(|e| (*e, None)).collect();
    write_records(home, source, suffix, guards)
}

/// The guards the last good parse of `source` recorded with their
/// identities; `None` when its record keeps events only (or none).
pub(crate) fn recall_guards(home: &Path, source: &Path) -> Option<Vec<Guard>> {
    match read_record(home, &freshest(home, source, "")?) {
        Ok(Some((events, Some(ids)))) => Some(events.into_iter().zip(ids).collect()),
        _ => None,
    }
}

/// Writes the record keyed `key`, as of `generation`, unless it already
/// says `guards`.
/// Whether the record keyed `key` says `guards` (sorted), with a
/// generation: an older version's record (none) is written again, as until
/// it is, which record is the latest is told by the files' times.
fn says(home: &Path, key: &str, guards: &[(HookEvent, Option<String>)]) -> bool {
    let Ok(Some((path, record))) = read_json(home, key) else {
        return false;
    };
    let events: Vec<HookEvent> = guards.iter().map(|(event, _)| *event).collect();
    let ids: Option<Vec<String>> = guards.iter().map(|(_, id)| id.clone()).collect();
    !keys::without_generation(&record)
        && record_in(key, &path, &record).ok().flatten() == Some((events, ids))
}

/// Writes the record keyed `key`: `guards` (sorted), as of `generation`.
fn write_record(
    home: &Path,
    key: &str,
    guards: &[(HookEvent, Option<String>)],
    generation: u64,
) -> Result<(), String> {
    let events: Vec<HookEvent> = guards.iter().map(|(event, _)| *event).collect();
    let ids: Option<Vec<String>> = guards.iter().map(|(_, id)| id.clone()).collect();
    let mut record = json!({
        "version": VERSION,
        "path": key,
        "fail_closed_events": events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
        "generation": generation,
    });
    if let Some(ids) = ids {
        record["guard_ids"] = json!(ids);
    }
    let target = record_path(home, key);
    write_atomically(&target, &record)
        .map_err(|error| format!("cannot write {}: {error}", target.display()))
}

/// Writes `value` to `target` whole or not at all (a temporary file renamed
/// over it), so two processes never read half a record.
fn write_atomically(target: &Path, value: &Value) -> std::io::Result<()> {
    if let Some(folder) = target.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let temporary = target.with_extension(format!("json.{}", std::process::id()));
    std::fs::write(&temporary, serde_json::to_vec(value).unwrap_or_default())?;
    std::fs::rename(&temporary, target)
}

/// Another record kept beside a file's (`<path>#<part>`): its JSON, when
/// the one written last among the file's keys reads (a home named through
/// a link: R78-4).
pub(crate) fn read_part(home: &Path, source: &Path, part: &str) -> Option<Value> {
    let key = freshest(home, source, &format!("#{part}"))?;
    let (_, bytes) = record_bytes(home, &key).ok()??;
    let record: Value = serde_json::from_slice(&bytes).ok()?;
    // Kept with its generation (`null`: removed); an older version kept
    // the value alone.
    match record.get("part") {
        Some(part) if record.get("generation").is_some() => {
            Some(part.clone()).filter(|part| !part.is_null())
        }
        _ => Some(record),
    }
}

/// Why the record [`read_part`] would read is there but cannot be read (a
/// folder in its place, garbage); `None` when it reads, or there is none.
pub(crate) fn unreadable_part(home: &Path, source: &Path, part: &str) -> Option<String> {
    let key = freshest(home, source, &format!("#{part}"))?;
    let why = match record_bytes(home, &key) {
        Ok(Some((path, bytes))) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(_) => return None,
            Err(error) => (path, error.to_string()),
        },
        Ok(None) => return None,
        Err(found) => found,
    };
    Some(unreadable(&why.0, &why.1))
}

/// Writes (`Some`) or removes (`None`) the record [`read_part`] reads,
/// under each of the file's keys; `Err` says why it could not be written
/// (a removal that fails leaves a record that no longer applies).
pub(crate) fn write_part(
    home: &Path,
    source: &Path,
    part: &str,
    value: Option<&Value>,
) -> Result<(), String> {
    // A removal is written too, as of its generation: a record deleted
    // under one spelling's keys only was outranked by another's older one
    // (round 81, R81-3).
    let generation = next_generation(home, source, &format!("#{part}"));
    let value = json!({"generation": generation, "part": value});
    keys_of(source).iter().try_for_each(|key| {
        let target = record_path(home, &format!("{key}#{part}"));
        write_atomically(&target, &value)
            .map_err(|error| format!("cannot write {}: {error}", target.display()))
    })
}

/// Whether records can be written under `home` at all (probed by writing
/// one): `Err` says why not. Asked only when a file broke with no record.
pub(crate) fn store_writable(home: &Path) -> Result<(), String> {
    let folder = home.join(RECORD_DIR);
    std::fs::create_dir_all(&folder)
        .and_then(|()| tempfile::NamedTempFile::new_in(&folder))
        // A byte written too: a full disk makes files, and fails writes.
        .and_then(|mut probe| {
            std::io::Write::write_all(&mut probe, b"{}").and_then(|()| probe.as_file().sync_all())
        })
        .map_err(|error| format!("cannot write in {}: {error}", folder.display()))
}

/// The warning of a record that could not be written, for a file with
/// fail-closed guards (`what`: the file, or its part, e.g. `hooks_from:`).
pub(crate) fn unwritten_warning(what: &Path, why: &str) -> String {
    format!(
        "the record of its failClosed guards cannot be written ({why}): if {} later cannot be \
         read, which calls it guarded is unknown, so every pre_tool_call call will be BLOCKED \
         until it reads again; make the folder writable",
        what.display()
    )
}

/// The warning of a record beside a file's that could not be written
/// (`why`), for a file with fail-closed guards: `risk` says what will then
/// not be known.
pub(crate) fn unwritten_part_warning(why: &str, risk: &str) -> String {
    format!(
        "a record of its failClosed guards cannot be written ({why}): {risk}; make the folder writable"
    )
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
        remember(home.path(), &file, &[HookEvent::PreToolCall]).expect("written");
        assert_eq!(
            recall(home.path(), &file),
            Remembered::Guarded(vec![HookEvent::PreToolCall])
        );
        assert_eq!(
            recall(home.path(), &home.path().join("other.json")),
            Remembered::Never
        );
        remember(home.path(), &file, &[]).expect("written");
        assert_eq!(recall(home.path(), &file), Remembered::Guarded(vec![]));
    }

    #[test]
    fn a_corrupted_record_is_unreadable_and_a_good_read_rewrites_it() {
        let home = tempfile::tempdir().expect("home");
        let file = home.path().join("settings.json");
        std::fs::write(&file, "{}").expect("write");
        remember(home.path(), &file, &[HookEvent::PreToolCall]).expect("written");
        let record = record_path(home.path(), &keys::named_key(&file));
        std::fs::write(&record, "garbage").expect("corrupt");
        assert!(matches!(
            recall(home.path(), &file),
            Remembered::Unreadable(why) if why.contains("cannot be read")
        ));
        remember(home.path(), &file, &[HookEvent::PreToolCall]).expect("rewritten");
        assert_eq!(
            recall(home.path(), &file),
            Remembered::Guarded(vec![HookEvent::PreToolCall])
        );
    }

    #[test]
    fn guards_are_recalled_with_their_identities() {
        let home = tempfile::tempdir().expect("home");
        let file = home.path().join("settings.json");
        std::fs::write(&file, "{}").expect("write");
        remember(home.path(), &file, &[HookEvent::PreToolCall]).expect("written");
        assert_eq!(recall_guards(home.path(), &file), None);
        let guards = [
            (HookEvent::PreToolCall, "b".to_owned()),
            (HookEvent::PreToolCall, "a".to_owned()),
        ];
        remember_guards(home.path(), &file, &guards).expect("written");
        let sorted = vec![guards[1].clone(), guards[0].clone()];
        assert_eq!(recall_guards(home.path(), &file), Some(sorted));
        assert_eq!(
            recall(home.path(), &file),
            Remembered::Guarded(vec![HookEvent::PreToolCall, HookEvent::PreToolCall])
        );
    }

    #[test]
    fn a_store_that_is_a_file_cannot_be_written() {
        let home = tempfile::tempdir().expect("home");
        std::fs::write(home.path().join(RECORD_DIR), "").expect("a file");
        let file = home.path().join("settings.json");
        assert!(store_writable(home.path()).is_err());
        let error = remember(home.path(), &file, &[HookEvent::PreToolCall]).expect_err("no store");
        assert!(error.contains(RECORD_DIR), "{error}");
    }

    #[test]
    fn the_highest_generation_is_read_whatever_the_files_times() {
        // R80-2: a record under one spelling's key, older but touched later.
        let home = tempfile::tempdir().expect("home");
        let real = home.path().join("real");
        std::fs::create_dir(&real).expect("folder");
        std::os::unix::fs::symlink(&real, home.path().join("link")).expect("link");
        let (file, linked) = (real.join("c.yaml"), home.path().join("link/c.yaml"));
        std::fs::write(&file, "").expect("file");
        remember(home.path(), &linked, &[HookEvent::PreToolCall]).expect("written");
        let guarded = vec![HookEvent::PreToolCall, HookEvent::PreToolCall];
        remember(home.path(), &file, &guarded).expect("written");
        let stale = record_path(home.path(), &keys::named_key(&linked));
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        let handle = std::fs::File::options()
            .append(true)
            .open(&stale)
            .expect("open");
        handle.set_modified(later).expect("touch");
        assert_eq!(recall(home.path(), &linked), Remembered::Guarded(guarded));
    }

    #[test]
    fn records_are_kept_apart_from_caches_and_the_old_place_is_still_read() {
        // R35-2: clearing `.hooks-cache` wiped them.
        let home = tempfile::tempdir().expect("home");
        let file = home.path().join("settings.json");
        std::fs::write(&file, "{}").expect("file");
        remember(home.path(), &file, &[HookEvent::PreToolCall]).expect("written");
        std::fs::remove_dir_all(home.path().join(".hooks-cache")).ok();
        let guarded = Remembered::Guarded(vec![HookEvent::PreToolCall]);
        assert_eq!(recall(home.path(), &file), guarded);
        let old = home.path().join(OLD_RECORD_DIR);
        std::fs::create_dir_all(&old).expect("old folder");
        std::fs::rename(home.path().join(RECORD_DIR), &old).expect("moved back");
        assert_eq!(recall(home.path(), &file), guarded);
    }
}
