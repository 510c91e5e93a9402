//! The memory of `config.yaml`'s own fail-closed guards (red team round 10,
//! R10-5): a `fail_closed: true` `pre_tool_call` entry, read well once, that
//! a later read no longer yields, where the file does not read cleanly
//! (`hooks: null`, an event's list `null` or a mapping, an entry without
//! `command`, a misspelled event, `Hooks:`, a `fail_closed` that is not a
//! boolean, a `hooks` key given twice, the managed file unreadable, the
//! whole file emptied), keeps blocking every `pre_tool_call` until the
//! file reads cleanly; so does a file cut short (its last line without a
//! newline, or the head of its last good read cut at a line's end:
//! `crate::guard_record::line_prefixes`). A guard taken out cleanly (its entry deleted,
//! `pre_tool_call: []`, `hooks: {}`, no `hooks:` in a file that holds
//! other settings) is gone, as the user meant. The record is the one
//! imported files keep (`crate::guard_record`), keyed by the file's path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermes_hooks_core::{Config, ConfigWarning, HookEvent};
use serde_json::Value;

use super::guard_identity::{identity, not_read_as_recorded};
use super::{ShellConfig, ShellHookSpec};
use crate::guard_record::{
    Guard, Remembered, line_prefixes, recall, recall_guards, remember_guards, unwritten_warning,
};

/// Fail-closed guards a config file no longer reads: every call of `event`
/// is blocked in their place, without running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LostGuard {
    /// The file (the user's `config.yaml`, or the managed scope's).
    pub file: PathBuf,
    /// The event they guarded (`pre_tool_call`).
    pub event: HookEvent,
    /// How many of its guards were lost.
    pub count: usize,
    /// Why the file does not read cleanly.
    pub reason: String,
}

impl LostGuard {
    /// What each blocked call is told: the file, what was lost, why, and
    /// what to do.
    pub fn block_reason(&self) -> String {
        format!("{}: {}", self.file.display(), self.warning())
    }

    /// The warning about the file (which names it): what was lost, why, and
    /// what to do.
    pub fn warning(&self) -> String {
        format!(
            "at its last good read it had {} fail_closed {} hook(s) that it no longer reads as they \
             were ({}): every {} call is BLOCKED until it reads cleanly: {FIX}",
            self.count, self.event, self.reason, self.event
        )
    }

    /// The hooks that stand in for `lost`, each with its block reason, to
    /// register as refused (they block without running).
    pub(crate) fn stand_ins<T>(
        lost: &[LostGuard],
        home: &Path,
    ) -> Vec<(ShellHookSpec, Option<Arc<str>>, Option<T>)> {
        let stand_in = |lost: &LostGuard| {
            (
                lost.blocking_spec(home),
                Some(lost.block_reason().into()),
                None,
            )
        };
        lost.iter().map(stand_in).collect()
    }

    /// The hook that stands in for the lost guards: it matches every call
    /// of the event and blocks it without running.
    pub fn blocking_spec(&self, home: &Path) -> ShellHookSpec {
        let mut spec = ShellHookSpec::new(
            self.event,
            format!("<lost guard of {}>", self.file.display()),
            home,
        );
        spec.fail_closed = true;
        spec
    }
}

/// What the user runs or changes to lift the block.
const FIX: &str = "fix the file (`hooks doctor` shows what is wrong), or take the guard out \
                   cleanly: delete its entry, and an event or hooks: it leaves empty (or write [] / {})";

/// After `parsed` was read from `config`: blocks the guards each of its
/// files lost as above, and records what each file guards now.
pub(super) fn keep_lost_guards(config: &Config, parsed: &mut ShellConfig) {
    let user = config.path().to_owned();
    let managed = (config.managed_path())
        .or(config.managed_unread())
        .or(config.managed_candidate());
    for file in std::iter::once(user.as_path()).chain(managed) {
        // Only a file on disk has a memory (not a host's in-memory config);
        // the user's or the managed file gone keeps what it guarded (red
        // team R46-1; sweep 59, H4).
        if std::fs::symlink_metadata(file).is_err() {
            if let Some(guard) = gone(config.home(), file) {
                let key = format!("hooks.{}", guard.event);
                parsed
                    .warnings
                    .push(ConfigWarning::new(file, key, guard.warning()));
                parsed.lost_guards.push(guard);
            }
            continue;
        }
        let now_guards: Vec<Guard> = parsed
            .specs
            .iter()
            .filter(|spec| spec.blocks_on_failure() && config.file_of(&spec.key()) == file)
            .map(|spec| (spec.event, identity(spec)))
            .collect();
        let now: Vec<HookEvent> = now_guards.iter().map(|(event, _)| *event).collect();
        // The file's text, read once: how it ends and whether it is a cut
        // copy of its last good read (an unreadable file counts as neither;
        // it is reported, and blocks, where it is read).
        let limit = u64::try_from(hermes_hooks_core::yaml::MAX_BYTES).unwrap_or(u64::MAX);
        let text = line_prefixes::read_text(file, limit);
        let own = line_prefixes::OWN_GUARDS;
        let mut lost = Vec::new();
        let cut = || {
            (text.as_deref()).and_then(|text| line_prefixes::cut(config.home(), file, own, text))
        };
        let remembered = recall(config.home(), file);
        if let Remembered::Unreadable(why) = &remembered {
            // What it guarded is unknown (a record emptied by a crash, or
            // garbage): a read that is not clean blocks, as one with a guard
            // on record would (round 79, R79-3: read as never guarded).
            let cut = cut();
            let reasons = unclean(config, parsed, file, text.as_deref(), cut.as_deref());
            if !reasons.is_empty() {
                lost.push(LostGuard {
                    file: file.to_owned(),
                    event: HookEvent::PreToolCall,
                    count: 1,
                    reason: format!(
                        "{why}, so what it guarded is unknown; {}",
                        reasons.join("; ")
                    ),
                });
            }
        }
        if let Remembered::Guarded(before) = remembered {
            let cut = cut();
            let reasons = unclean(config, parsed, file, text.as_deref(), cut.as_deref());
            let count = |events: &[HookEvent]| {
                events
                    .iter()
                    .filter(|e| **e == HookEvent::PreToolCall)
                    .count()
            };
            // The event's list given twice: only the last was read, and it
            // may hold as many guards as the lost one (round 74, R74-2).
            let list_twice = config.load_warnings().iter().any(|warning| {
                warning.file == file
                    && (warning.key.strip_prefix("hooks.")).is_some_and(|event| {
                        crate::dialect::look_alikes::reads_as(event, "pre_tool_call")
                    })
                    && warning.message.contains("is given more than once")
            });
            // A file cut short mid-line may still read as YAML, its last
            // guard's matcher cut to one that names no tool (round 77, R77-1).
            let cut_matchers = match line_prefixes::ends_inside_a_line(text.as_deref()) {
                true => never_running_guards(parsed, file),
                false => 0,
            };
            let missing = match (cut.is_some(), list_twice) {
                // A cut copy: a guard not read as it was recorded is lost,
                // its matcher cut to fewer tools too (round 78, R78-2).
                (true, _) => match recall_guards(config.home(), file) {
                    Some(recorded) => not_read_as_recorded(&recorded, &now_guards),
                    None => count(&before),
                },
                (false, true) => count(&before),
                (false, false) => {
                    count(&before).saturating_sub(count(&now).saturating_sub(cut_matchers))
                }
            };
            let mut reasons = reasons;
            if missing > 0 && reasons.is_empty() {
                reasons.extend(unkept_records(config.home(), file, own));
            }
            if missing > 0 && !reasons.is_empty() {
                lost.push(LostGuard {
                    file: file.to_owned(),
                    event: HookEvent::PreToolCall,
                    count: missing,
                    reason: reasons.join("; "),
                });
            }
        }
        // A read that lost guards keeps the record of the last good read
        // (its guards and its line prefixes) as it was: the lost guards
        // stay lost, and the cut copy stays one, until the file changes.
        if lost.is_empty() {
            if let Err(why) = remember_guards(config.home(), file, &now_guards)
                && !now_guards.is_empty()
            {
                let message = unwritten_warning(file, &why);
                parsed
                    .warnings
                    .push(ConfigWarning::new(file, "hooks", message));
            }
            if let Some(text) = text.as_deref()
                && let Err(message) =
                    line_prefixes::remember(config.home(), file, own, text, !now.is_empty())
            {
                parsed
                    .warnings
                    .push(ConfigWarning::new(file, "hooks", message));
            }
        }
        for guard in &lost {
            let message = guard.warning();
            let key = format!("hooks.{}", guard.event);
            parsed.warnings.push(ConfigWarning::new(file, key, message));
        }
        // A guard never read (a file written with `Hooks:` from the start):
        // no block, as none was ever active, but said (acceptance sweep 65,
        // A65-U2: emit and doctor said nothing).
        if lost.is_empty()
            && let Some(why) = stray_fail_closed_key(config, parsed, file)
        {
            parsed.warnings.push(ConfigWarning::new(file, "hooks", why));
        }
        parsed.lost_guards.extend(lost);
    }
}

/// The guards `file` (the user's `config.yaml`, gone: deleted, or moved
/// with its folder) had at its last good read: each `pre_tool_call` guard
/// it recorded keeps blocking, as an emptied file's do (red team R46-1: a
/// deleted file read as "no guards", without a word). Its record is kept;
/// a file written back that takes the guards out cleanly lifts the block.
fn gone(home: &Path, file: &Path) -> Option<LostGuard> {
    let Remembered::Guarded(before) = recall(home, file) else {
        return None;
    };
    let count = before
        .iter()
        .filter(|event| **event == HookEvent::PreToolCall)
        .count();
    (count > 0).then(|| LostGuard {
        file: file.to_owned(),
        event: HookEvent::PreToolCall,
        count,
        reason: "the file is gone (deleted or moved); restore it, or write one holding \
                 `hooks: {}` to take its guards out"
            .to_owned(),
    })
}

/// Why `file` does not read cleanly: each way a guard in it could have been
/// dropped without the user taking it out. Empty when it reads cleanly.
fn unclean(
    config: &Config,
    parsed: &ShellConfig,
    file: &Path,
    text: Option<&str>,
    cut: Option<&str>,
) -> Vec<String> {
    let mut reasons = Vec::new();
    let ours = |key: &str| config.file_of(key) == file;
    // The file's own load warnings: a `hooks` key given twice, a whole file
    // that is `null`, aliases left unexpanded, a managed file ignored.
    let loaded = config.load_warnings().iter();
    let loaded = loaded.filter(|w| w.file == file && (w.key.is_empty() || in_hooks(&w.key)));
    reasons.extend(loaded.map(|warning| warning.message.clone()));
    if let Some(cut) = cut {
        // The head of its last good read, cut at a line's end: it reads,
        // every line whole, the guards after the cut gone (round 77).
        reasons.push(format!("it {cut}"));
    } else if line_prefixes::ends_inside_a_line(text) {
        // What a write cut short leaves: YAML cut mid-line often still
        // reads, a guard's `fail_closed` or matcher gone (round 77, R77-1).
        reasons.push(
            "it ends inside a line (no newline at its end), as a file cut short does; if you \
             changed it on purpose, end it with a newline"
                .to_owned(),
        );
    }
    // Emptied (zero bytes, blanks, comments, `---`): what a crashed editor,
    // a failed sync or a stray `>` leaves; not a guard taken out (red team
    // R39-1). `hooks: {}` takes it out.
    if holds_nothing(file) {
        reasons.push("the whole file is empty".to_owned());
    } else if file == config.path() && config.root().as_object().is_some_and(|m| m.is_empty()) {
        // `{}`, `<<: ~`: a file that holds no setting at all (R40-9).
        reasons.push("the whole file holds no setting".to_owned());
    }
    match config.get("hooks") {
        Some(Value::Null) if ours("hooks") => reasons.push("hooks: is empty (null)".to_owned()),
        Some(Value::Object(events)) => {
            let empty = events.iter().filter(|(_, value)| value.is_null());
            for (name, _) in empty.filter(|(name, _)| ours(&format!("hooks.{name}"))) {
                reasons.push(format!("hooks.{name} is empty (null)"));
            }
        }
        _ => {}
    }
    let dropped = parsed
        .warnings
        .iter()
        .filter(|warning| warning.file == file && drops_an_entry(&warning.key));
    reasons.extend(dropped.map(|warning| warning.message.clone()));
    reasons.extend(stray_fail_closed_key(config, parsed, file));
    reasons
}

/// Why `file` holds a `fail_closed` key it does not read as a guard (a
/// `Hooks:` key, a misspelled event, an entry it skips), when it does.
fn stray_fail_closed_key(config: &Config, parsed: &ShellConfig, file: &Path) -> Option<String> {
    let ours = |key: &str| config.file_of(key) == file;
    // The file's own document: the managed one's `Hooks:` too (sweep 59, H3).
    let document = match file == config.path() {
        true => Some(config.root()),
        false => config.managed_document(),
    };
    let read = (parsed.specs.iter())
        .filter(|spec| spec.fail_closed)
        .filter(|spec| file == config.path() || ours(&spec.key()))
        .count();
    document
        .is_some_and(|document| fail_closed_keys(document) > read)
        .then(|| {
            "it has a fail_closed key it does not read as a guard (a Hooks: key, a misspelled \
             event, or an entry it skips?)"
                .to_owned()
        })
}

/// Whether `file` holds no YAML at all: nothing but blanks, comments and
/// document markers (an unreadable file is reported where it is read).
fn holds_nothing(file: &Path) -> bool {
    // As much as the YAML reader accepts, and one byte more (a file past it
    // is refused there): a file of 2 MiB of blanks is empty too (R40-8).
    let limit = u64::try_from(hermes_hooks_core::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let Ok(bytes) = hermes_hooks_core::regular_file::read_capped(file, limit.saturating_add(1))
    else {
        return false;
    };
    String::from_utf8_lossy(&bytes)
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .all(|line| line.is_empty() || line.starts_with('#') || matches!(line, "---" | "..."))
}

/// Why a guard `file` lost cleanly cannot be told from one a cut lost: the
/// records of the file's last good read cannot be kept (a folder made
/// read-only, a full disk), so they may be of an older read (red team
/// round 78, R78-3: a cut then read as an edit, without a word), or its
/// line record (`part`) is there but cannot be read (round 79, R79-3).
pub(crate) fn unkept_records(home: &Path, file: &Path, part: &str) -> Option<String> {
    if let Some(why) = crate::guard_record::unreadable_part(home, file, part) {
        return Some(format!(
            "{why}, so a guard it no longer reads cannot be told from one a file cut short lost; \
             put the guard back, or, only if you took it out on purpose, delete that record"
        ));
    }
    let why = crate::guard_record::store_writable(home).err()?;
    Some(format!(
        "its guard records cannot be kept ({why}), so a guard it no longer reads cannot be told \
         from one a file cut short lost; make the folder writable"
    ))
}

/// How many of `file`'s fail-closed `pre_tool_call` guards were read with
/// a matcher that names no tool (warned "NEVER RUNS").
fn never_running_guards(parsed: &ShellConfig, file: &Path) -> usize {
    let warned = parsed.warnings.iter().filter(|warning| {
        warning.file == file
            && warning.key.ends_with("].matcher")
            && warning.key.starts_with("hooks.pre_tool_call[")
            && warning.message.contains("NEVER RUNS")
    });
    warned.count()
}

/// Whether a key is `hooks` or inside it.
fn in_hooks(key: &str) -> bool {
    key == "hooks" || key.starts_with("hooks.") || key.starts_with("hooks[")
}

/// Whether a warning at `key` means an entry (or more) was not read, or was
/// read as failing open: `hooks`, `hooks.<event>`, `hooks.<event>[i]`, and
/// an entry's `command` or `fail_closed`.
fn drops_an_entry(key: &str) -> bool {
    let Some(rest) = key.strip_prefix("hooks") else {
        return false;
    };
    let field = rest.rsplit_once("].").map(|(_, field)| field);
    match field {
        None => rest.is_empty() || rest.starts_with('.'),
        Some(field) => field == "command" || crate::dialect::is_fail_closed_key(field),
    }
}

/// How many `fail_closed` / `failClosed` keys anywhere in `root` are set to
/// something other than `false` or `null`. Bounded walk.
fn fail_closed_keys(root: &Value) -> usize {
    let mut stack = vec![(root, 0usize)];
    let (mut seen, mut found) = (0usize, 0usize);
    while let Some((value, depth)) = stack.pop() {
        seen += 1;
        if seen > 100_000 || depth > 64 {
            // Too large to tell: a guard may be in it.
            return usize::MAX;
        }
        match value {
            Value::Object(object) => {
                for (key, inner) in object {
                    let off = matches!(inner, Value::Bool(false) | Value::Null);
                    if crate::dialect::is_fail_closed_key(key) && !off {
                        found += 1;
                    }
                    stack.push((inner, depth + 1));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_that_drop_an_entry() {
        for key in [
            "hooks",
            "hooks.pre_tool_call",
            "hooks.pre_tool_cal",
            "hooks.pre_tool_call[0]",
            "hooks.pre_tool_call[2].command",
            "hooks.pre_tool_call[0].fail_closed",
        ] {
            assert!(drops_an_entry(key), "{key}");
        }
        for key in [
            "hooks.pre_tool_call[0].timeout",
            "hooks.pre_tool_call[0].matcher",
            "hooks_from",
            "hooks_sandbox.user",
        ] {
            assert!(!drops_an_entry(key), "{key}");
        }
    }

    #[test]
    fn fail_closed_keys_are_counted_wherever_they_are() {
        let root = serde_json::json!({
            "Hooks": {"pre_tool_call": [{"command": "a", "fail_closed": true}]},
            "hooks": {"pre_tool_call": [{"command": "b", "failClosed": "yes"},
                                        {"command": "c", "fail_closed": false}]},
        });
        assert_eq!(fail_closed_keys(&root), 2);
    }
}
