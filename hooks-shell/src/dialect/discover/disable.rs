//! `disableAllHooks`: which scopes' hooks a settings file turns off
//! (managed > user > project; a project file turns off its own hooks only).

#[allow(unused_imports)]
use super::*;

/// The widest scope whose Claude settings file among `sources` says
/// `disableAllHooks: true` (`None`: none does). Each is warned about, saying
/// what it turns off.
pub(super) fn disabled(sources: &[Source], discovery: &mut Discovery) -> Option<Scope> {
    let mut widest = None;
    for source in sources.iter().filter(|s| s.dialect == Dialect::Claude) {
        let Ok(text) = hermes_hooks_core::config::read_capped(&source.path) else {
            continue;
        };
        // Read as the file's hooks are: a byte order mark first is no error
        // (red team R33b-5: the switch was ignored, in silence).
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let root = serde_json::from_str::<Value>(text).ok();
        if let Some(why) = root.as_ref().and_then(misspelled) {
            discovery.warnings.push(ConfigWarning::new(
                source.path.clone(),
                "disableAllHooks".to_owned(),
                why,
            ));
        }
        let flag = root.and_then(|root| root.get("disableAllHooks").and_then(Value::as_bool));
        if flag != Some(true) {
            continue;
        }
        // `false` then `true`: which one the writer meant cannot be told,
        // and the last turning guards off is the worse reading (round 74,
        // R74-2).
        let twice = super::super::json_duplicates::duplicate_keys(text);
        if twice.iter().any(|key| key == "disableAllHooks") {
            discovery.warnings.push(ConfigWarning::new(
                source.path.clone(),
                "disableAllHooks".to_owned(),
                "disableAllHooks is given more than once: it turns nothing off, and hooks run, \
                 until it is given once"
                    .to_owned(),
            ));
            continue;
        }
        let message = match source.scope {
            Scope::Project => "disableAllHooks is true in this project file: it turns off this \
                 project's Claude Code hooks only; your own (~/.claude) and managed hooks still run"
                .to_owned(),
            // The project is the user's home: its settings are the user's own.
            Scope::User if source.path.parent().and_then(Path::parent) == Some(&source.project) => {
                home_is_project(&source.path)
            }
            Scope::User => "disableAllHooks is true in your own settings: no Claude Code hook is \
                 imported (yours or the project's)"
                .to_owned(),
        };
        discovery.warnings.push(ConfigWarning::new(
            source.path.clone(),
            "disableAllHooks".to_owned(),
            message,
        ));
        discovery.disabled_by.push(source.path.clone());
        if widest != Some(Scope::User) {
            widest = Some(source.scope);
        }
    }
    widest
}

/// Warns about each `hooks_from: {path: …}` Claude file among `sources`
/// that says `disableAllHooks: true`: only Claude Code's own settings
/// files are read for it, so it turns nothing off (sweep 59, U1).
pub(super) fn ignored_in_paths(sources: &[Source], discovery: &mut Discovery) {
    for source in sources
        .iter()
        .filter(|s| s.dialect == Dialect::Claude && s.explicit)
    {
        let Ok(text) = hermes_hooks_core::config::read_capped(&source.path) else {
            continue;
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let says = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|root| root.get("disableAllHooks").and_then(Value::as_bool));
        if says == Some(true) {
            discovery.warnings.push(ConfigWarning::new(
                source.path.clone(),
                "disableAllHooks".to_owned(),
                "disableAllHooks is true in a hooks_from: path file, which is read for its hooks \
                 only: it turns nothing off (put it in ~/.claude/settings.json or the project's \
                 .claude/settings.json, or drop the path from hooks_from:)"
                    .to_owned(),
            ));
        }
    }
}

/// Why a `disableAllHooks` the file writes turns nothing off: its value is
/// no `true`/`false` (`"true"`, `1`), or the key is spelled in another
/// case (`DisableAllHooks`). Claude Code reads neither; said so the writer
/// knows (sweep 58, U58-4).
fn misspelled(root: &Value) -> Option<String> {
    let object = root.as_object()?;
    if let Some(value) = object.get("disableAllHooks")
        && !value.is_boolean()
    {
        return Some(format!(
            "disableAllHooks must be true or false, got {value}: it is ignored, and hooks run"
        ));
    }
    object
        .keys()
        .find(|key| {
            key.as_str() != "disableAllHooks" && key.eq_ignore_ascii_case("disableAllHooks")
        })
        .map(|key| {
            format!(
                "\"{key}\" is not disableAllHooks (its case differs): it is ignored, and hooks run"
            )
        })
}

/// What `disableAllHooks` in `file` turns off when the project is the
/// user's home: the user's own hooks, by the user's own file (the warning
/// names it).
fn home_is_project(file: &Path) -> String {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    format!(
        "disableAllHooks is true in your own settings file ~/.claude/{name} (the project is \
         your home folder): it turns off your own Claude Code hooks (~/.claude); managed \
         hooks still run"
    )
}
