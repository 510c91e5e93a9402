//! A user folder that moved away from a guard (sweep 59, H5; red team
//! R47-7): the user's fail-closed guard is kept where `$CODEX_HOME` (or
//! `$CLAUDE_CONFIG_DIR`, or `HOME`) put the user folder, and the agent later
//! runs with the variable unset, or set to a folder a project ships: the
//! tool reads the user's hooks from the other folder only, so the guard was
//! never read, and every call was allowed without a word.
//!
//! The folder each format's user hooks were read from is remembered, per
//! `config.yaml` (a record beside it, `crate::guard_record`). When the
//! folder read now is another, the files of the one read before are read
//! again: every fail-closed guard they hold that the folder read now does
//! not hold too (the same event, matcher and command) blocks every call of
//! its event, naming the variable and both folders. A file gone keeps what
//! its last good read guarded, as a standard file gone does. The new folder
//! is remembered once nothing is lost: the variable set back, the guards
//! moved along, or taken out of the old files on purpose.

#[allow(unused_imports)]
use super::*;

use serde_json::json;

use super::super::user_dirs::{CLAUDE_CONFIG_DIR_ENV, CODEX_HOME_ENV};
use super::lost_guards::fail_closed_guards;
use crate::guard_record::{Guard, read_part, recall_guards, unwritten_part_warning, write_part};

/// After the standard files of `dialect` were read into `discovery` (its
/// entries from `before`, guards down from `down_before`): blocks each
/// fail-closed guard of the user folder read before that is not read now,
/// as above, and remembers the folder read.
pub(super) fn keep_guards_moved_away(
    config: &Config,
    (project, user): (&Path, &UserDirs),
    dialect: Dialect,
    discovery: &mut Discovery,
    (before, down_before): ((usize, usize), usize),
) {
    // Only a file on disk has a memory, not a host's in-memory config.
    if std::fs::symlink_metadata(config.path()).is_err() {
        return;
    }
    let Some(now) = user.folder(dialect) else {
        return;
    };
    let part = format!("user_folder/{dialect}");
    let remembered = read_part(config.home(), config.path(), &part);
    let earlier = remembered
        .as_ref()
        .and_then(|record| record.get("folder"))
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let lost = match earlier.as_deref() {
        Some(earlier) if earlier != now => {
            let now_guards = fail_closed_guards(discovery, before, down_before);
            lost_guards(config.home(), project, dialect, earlier, &now_guards)
        }
        _ => Vec::new(),
    };
    let Some(earlier) = earlier.filter(|_| !lost.is_empty()) else {
        let record = json!({ "folder": now.to_string_lossy() });
        if remembered.as_ref() != Some(&record)
            && let Err(why) = write_part(config.home(), config.path(), &part, Some(&record))
            && !fail_closed_guards(discovery, before, down_before).is_empty()
        {
            let risk = format!(
                "if another {dialect} user folder is read later, the guards of this one are not \
                 known to be left behind"
            );
            let message = unwritten_part_warning(&why, &risk);
            discovery
                .warnings
                .push(config.warning("hooks_from", message));
        }
        return;
    };
    let home = user.home().map(|home| home.display().to_string());
    let home = format!("HOME is {}", home.as_deref().unwrap_or("unknown"));
    let (set_now, variables) = match (variable_of(dialect), user.moved(dialect)) {
        (Some(variable), Some(folder)) => (
            format!("{variable} names {}", folder.display()),
            format!("{variable} and HOME"),
        ),
        (Some(variable), None) => (
            format!("{variable} is not set, {home}"),
            format!("{variable} and HOME"),
        ),
        (None, _) => (home, "HOME".to_owned()),
    };
    let fix = format!(
        "run the agent with {variables} as when {} was read; or, if the user folder moved on \
         purpose, move those hooks to {} or take them out of the old file(s)",
        earlier.display(),
        now.display()
    );
    let mut shown: Vec<(PathBuf, HookEvent)> = Vec::new();
    for (file, (event, _)) in lost {
        if shown.contains(&(file.clone(), event)) {
            continue;
        }
        shown.push((file.clone(), event));
        let reason = format!(
            "the user's failClosed hook on {event} in {} is no longer read: {dialect} reads the \
             user's hooks from {} now ({set_now}), not from {} where they were read before",
            file.display(),
            now.display(),
            earlier.display()
        );
        discovery.warnings.push(ConfigWarning::new(
            file.clone(),
            String::new(),
            format!("({dialect} hooks) {reason}: every {event} call is BLOCKED: {fix}"),
        ));
        discovery.guards_down.push(GuardDown {
            dialect,
            source: file,
            key: String::new(),
            event,
            reason,
            fix: fix.clone(),
        });
    }
}

/// The variable that moves `dialect`'s user folder (Cursor's moves with
/// `HOME` only).
fn variable_of(dialect: Dialect) -> Option<&'static str> {
    match dialect {
        Dialect::Claude => Some(CLAUDE_CONFIG_DIR_ENV),
        Dialect::Codex => Some(CODEX_HOME_ENV),
        Dialect::Cursor => None,
    }
}

/// The fail-closed guards of the user files in `earlier` (`dialect`'s user
/// folder as read before) that `now` does not hold, each with its file:
/// read again where the file is there, else as its last good read recorded.
fn lost_guards(
    home: &Path,
    project: &Path,
    dialect: Dialect,
    earlier: &Path,
    now: &[Guard],
) -> Vec<(PathBuf, Guard)> {
    // Cursor's folder moves with `HOME` only: the home above it.
    let there = UserDirs::under(earlier.parent()).with_moved(dialect, earlier);
    let sources = standard_files(dialect, project, &there);
    let mut scratch = Discovery::default();
    let mut held: Vec<(PathBuf, Guard)> = Vec::new();
    for source in sources
        .iter()
        .filter(|source| source.scope == Scope::User && source.path.starts_with(earlier))
    {
        let guards = match std::fs::symlink_metadata(&source.path) {
            Ok(_) => {
                let before = (scratch.hooks.len(), scratch.unsupported.len());
                let down_before = scratch.guards_down.len();
                read_source(source, home, &mut scratch);
                fail_closed_guards(&scratch, before, down_before)
            }
            Err(_) => recalled(home, &source.path),
        };
        held.extend(guards.into_iter().map(|guard| (source.path.clone(), guard)));
    }
    let mut left: Vec<&Guard> = now.iter().collect();
    held.retain(
        |(_, guard)| match left.iter().position(|now| *now == guard) {
            Some(at) => {
                left.remove(at);
                false
            }
            None => true,
        },
    );
    held
}

/// The guards the last good read of `file` recorded (by event only when
/// its record keeps no identities, or cannot be read: then a tool gate).
fn recalled(home: &Path, file: &Path) -> Vec<Guard> {
    if let Some(guards) = recall_guards(home, file) {
        return guards;
    }
    match recall(home, file) {
        Remembered::Never => Vec::new(),
        Remembered::Guarded(events) => events
            .into_iter()
            .map(|event| (event, "recorded by event".to_owned()))
            .collect(),
        Remembered::Unreadable(why) => vec![(HookEvent::PreToolCall, why)],
    }
}
