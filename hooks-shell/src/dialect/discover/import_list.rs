//! The memory of `hooks_from:` itself (red team round 10, R10-6): a format
//! whose files gave fail-closed guards at the last good read, that the list
//! no longer names though it does not read cleanly (`hooks_from: null`, a
//! mapping, an entry it cannot read, the key given twice, a near-miss
//! spelling such as `hooks-from:`, the whole file `null`), keeps blocking the
//! events those guards guarded, until `config.yaml` reads cleanly. A format
//! taken out cleanly (out of the list, `hooks_from: []`, the key deleted)
//! is gone, as the user meant; a `config.yaml` cut short is not clean (its
//! last line without a newline, or the head of its last good read cut at a
//! line's end: `crate::guard_record::line_prefixes`). One record per format, keyed
//! `<config.yaml>#hooks_from/<format>` (`crate::guard_record`).

#[allow(unused_imports)]
use super::*;

use super::super::guards::GuardDown;
use crate::guard_record::{
    Remembered, line_prefixes, recall_part_events, remember_part_events, unwritten_warning,
};

/// The formats a record is kept for.
const FORMATS: [Dialect; 3] = [Dialect::Claude, Dialect::Codex, Dialect::Cursor];

/// Whether `config` imports hooks, or did at its last good read with a
/// fail-closed guard (so a list that is gone must still be looked at).
pub fn imports_or_remembers(config: &Config) -> bool {
    if config.get("hooks_from").is_some() {
        return true;
    }
    // A `config.yaml` gone keeps what it imported (red team R46-1).
    let file = std::path::absolute(config.path()).unwrap_or_else(|_| config.path().to_owned());
    FORMATS.iter().any(|dialect| {
        match recall_part_events(config.home(), &file, &suffix(*dialect)) {
            Remembered::Never => false,
            Remembered::Guarded(events) => !events.is_empty(),
            Remembered::Unreadable(_) => true,
        }
    })
}

/// The config file's absolute path, when it is a file on disk (only such a
/// file has a memory, not a host's in-memory config).
fn on_disk(config: &Config) -> Option<std::path::PathBuf> {
    std::fs::symlink_metadata(config.path()).ok()?;
    Some(std::path::absolute(config.path()).unwrap_or_else(|_| config.path().to_owned()))
}

/// The name of the record of `dialect`'s guards imported by the config
/// file, beside the file's own (`<config.yaml>#hooks_from/<format>`).
fn suffix(dialect: Dialect) -> String {
    format!("#hooks_from/{dialect}")
}

/// After `discovery` read the files of every format in `read`: blocks the
/// guards of each format the list dropped as above, and records what each
/// format guards now.
pub(super) fn keep_lost_imports(config: &Config, discovery: &mut Discovery, read: &[Dialect]) {
    let Some(file) = on_disk(config) else {
        return keep_when_gone(config, discovery);
    };
    let limit = u64::try_from(hermes_hooks_core::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let text = line_prefixes::read_text(&file, limit);
    let reasons = unclean(config, discovery, &file, text.as_deref()).join("; ");
    let (mut lost_any, mut guards_now) = (false, false);
    for dialect in FORMATS {
        let key = suffix(dialect);
        let mut guarded = fail_closed_events(discovery, dialect);
        guards_now |= !guarded.is_empty();
        let (before, unknown) = match recall_part_events(config.home(), &file, &key) {
            Remembered::Guarded(before) => (before, None),
            // What it imported is unknown (a record emptied by a crash, or
            // garbage): as a guard, not as none (round 79, R79-3).
            Remembered::Unreadable(why) => (vec![HookEvent::PreToolCall], Some(why)),
            Remembered::Never => (Vec::new(), None),
        };
        if !before.is_empty()
            && !read.contains(&dialect)
            && let Some(reasons) = (!reasons.is_empty()).then(|| reasons.clone()).or_else(|| {
                let part = line_prefixes::IMPORTED_GUARDS;
                crate::config::unkept_records(config.home(), &file, part)
            })
        {
            let reasons = match unknown {
                Some(why) => format!("{why}, so what it imported is unknown; {reasons}"),
                None => reasons,
            };
            block(config, discovery, dialect, &before, &reasons);
            guarded.extend(before);
            lost_any = true;
        }
        if let Err(why) = remember_part_events(config.home(), &file, &key, &guarded)
            && !guarded.is_empty()
        {
            let message = format!("({dialect} hooks) {}", unwritten_warning(&file, &why));
            discovery
                .warnings
                .push(config.warning("hooks_from", message));
        }
    }
    // A read that lost a format keeps the last good read's line prefixes:
    // the cut copy stays one until it changes.
    let part = line_prefixes::IMPORTED_GUARDS;
    if let Some(text) = text.as_deref()
        && !lost_any
        && let Err(message) = line_prefixes::remember(config.home(), &file, part, text, guards_now)
    {
        discovery
            .warnings
            .push(config.warning("hooks_from", message));
    }
}

/// `config.yaml` gone (deleted or moved): each format it imported with
/// fail-closed guards at its last good read keeps blocking what they
/// guarded (red team R46-1); the records are kept.
fn keep_when_gone(config: &Config, discovery: &mut Discovery) {
    let file = std::path::absolute(config.path()).unwrap_or_else(|_| config.path().to_owned());
    for dialect in FORMATS {
        if let Remembered::Guarded(before) =
            recall_part_events(config.home(), &file, &suffix(dialect))
            && !before.is_empty()
        {
            let reason = "config.yaml is gone (deleted or moved); restore it, or write one \
                          holding hooks_from: [] to take them out";
            block(config, discovery, dialect, &before, reason);
        }
    }
}

/// The events fail-closed guards of `dialect` guard in `discovery`, once
/// per guard: runnable, of a type that cannot run, or down.
fn fail_closed_events(discovery: &Discovery, dialect: Dialect) -> Vec<HookEvent> {
    let hooks = discovery
        .hooks
        .iter()
        .filter(|hook| hook.dialect == dialect);
    let hooks = hooks
        .filter(|hook| hook.fail_closed)
        .filter_map(|hook| hook.event());
    let unsupported = discovery.unsupported.iter();
    let unsupported = unsupported
        .filter(|entry| entry.dialect == dialect && entry.fail_closed)
        .filter_map(|entry| entry.mapping.ours);
    let down = discovery.guards_down.iter();
    let down = down
        .filter(|guard| guard.dialect == dialect)
        .map(|guard| guard.event);
    hooks.chain(unsupported).chain(down).collect()
}

/// Blocks every event of `lost` (the guards `dialect` gave), with `reason`.
fn block(
    config: &Config,
    discovery: &mut Discovery,
    dialect: Dialect,
    lost: &[HookEvent],
    reason: &str,
) {
    let mut events = lost.to_vec();
    events.dedup();
    let fix = format!(
        "fix hooks_from: in config.yaml; to stop importing {dialect} hooks on purpose, take \
         {dialect} out of the list (or write hooks_from: [])"
    );
    for event in events {
        let reason = format!(
            "at its last good read hooks_from: imported {dialect} hooks with a failClosed guard \
             on {event}, and it no longer names {dialect} though it does not read cleanly \
             ({reason})"
        );
        let message = format!("({dialect} hooks) {reason}: every {event} call is BLOCKED: {fix}");
        discovery
            .warnings
            .push(config.warning("hooks_from", message));
        discovery.guards_down.push(GuardDown {
            dialect,
            source: config.path().to_owned(),
            key: "hooks_from".to_owned(),
            event,
            reason,
            fix: fix.clone(),
        });
    }
}

/// Why `hooks_from:` does not read cleanly: each way a format could have
/// left the list without the user taking it out. Empty when it reads cleanly.
fn unclean(config: &Config, discovery: &Discovery, file: &Path, text: Option<&str>) -> Vec<String> {
    let mut reasons = Vec::new();
    // Cut short: the head of its last good read, cut at a line's end (the
    // list, or a format's line of it in block style, gone), or mid-line.
    let part = line_prefixes::IMPORTED_GUARDS;
    if let Some(cut) = text.and_then(|text| line_prefixes::cut(config.home(), file, part, text)) {
        reasons.push(format!("config.yaml {cut}"));
    } else if line_prefixes::ends_inside_a_line(text) {
        reasons.push(
            "config.yaml ends inside a line (no newline at its end), as a file cut short does; \
             if you changed it on purpose, end it with a newline"
                .to_owned(),
        );
    }
    // Any other shape than a list is warned about below.
    if config.get("hooks_from") == Some(&Value::Null) {
        reasons.push("hooks_from: is empty (null)".to_owned());
    }
    let list_key = |key: &str| {
        key == "hooks_from"
            || key
                .strip_prefix("hooks_from[")
                .is_some_and(|rest| rest.ends_with(']') && !rest.contains('.'))
    };
    // The file's own warnings, or a managed file's it could not read; not
    // a managed folder that is missing (no `hooks_from:` was lost with it:
    // R47-8, where `hooks_from: []` kept blocking).
    let ours = |file: &Path| file == config.path() || config.managed_unread() == Some(file);
    let loaded = config.load_warnings().iter();
    let loaded = loaded.filter(|w| ours(&w.file) && (w.key.is_empty() || w.key == "hooks_from"));
    let listed = discovery.warnings.iter().filter(|w| list_key(&w.key));
    reasons.extend(loaded.chain(listed).map(|warning| warning.message.clone()));
    if let Some(settings) = config.root().as_object() {
        let near = |name: &str| {
            let bare: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
            name != "hooks_from" && bare.eq_ignore_ascii_case("hooksfrom")
        };
        for name in settings.keys().filter(|name| near(name)) {
            reasons.push(format!("it has a key {name:?} that is not hooks_from"));
        }
    }
    reasons
}
