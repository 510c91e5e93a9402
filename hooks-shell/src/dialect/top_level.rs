//! The top-level keys of an imported file beside `hooks`.
//!
//! A Claude Code settings file's `env` block: the variables Claude Code sets
//! for its session, which the hooks it starts inherit. Ours sets them for the
//! hooks of that same file only (never for another file's hooks: a project's
//! `env` must not reach the user's own guards — `LD_PRELOAD`, `PATH`), and an
//! approval binds them: a changed value asks again.

use serde_json::Value;

use super::discover::{Discovery, Source};
use super::{Dialect, Scope};
use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::pyvalue::type_name;

/// The variables of `root`'s `env` block, in file order; each entry that is
/// not a variable (a bad name, an object or list value), and in a project's
/// file each variable that steers code loading (`PATH`, `BASH_ENV`,
/// `LD_PRELOAD`, ...: [`super::code_env`]), is a warning naming the file and
/// `env.<name>`, and is left out. Strings are taken as written,
/// numbers and booleans as their JSON text (`1`, `true`), `null` leaves the
/// variable out.
pub(super) fn settings_env(
    source: &Source,
    root: &Value,
    discovery: &mut Discovery,
) -> Vec<(String, String)> {
    if source.dialect != Dialect::Claude {
        return Vec::new();
    }
    let mut warn = |key: String, message: String| {
        let message = format!("({} hooks) {key}: {message}", source.dialect);
        let warning = ConfigWarning::new(source.path.clone(), key, message);
        discovery.warnings.push(warning);
    };
    let block = match root.get("env") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(block)) => block,
        Some(other) => {
            warn(
                "env".to_owned(),
                format!(
                    "must be an object of variable names; got {}; no variable is set",
                    type_name(other)
                ),
            );
            return Vec::new();
        }
    };
    let mut env = Vec::new();
    for (name, value) in block {
        let key = format!("env.{name}");
        if !is_variable_name(name) {
            warn(key, "is not a variable name; skipped".to_owned());
            continue;
        }
        let value = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            Value::Null => continue,
            other => {
                warn(
                    key,
                    format!("must be a string; got {}; skipped", type_name(other)),
                );
                continue;
            }
        };
        if value.contains('\0') {
            warn(key, "contains a NUL character; skipped".to_owned());
            continue;
        }
        if source.scope == Scope::Project && super::code_env::steers_code(name) {
            warn(
                key,
                "steers which code a program loads, and an approval cannot bind the files it \
                 names; a project's settings may not set it for its hooks; skipped"
                    .to_owned(),
            );
            continue;
        }
        if source.scope == Scope::Project
            && let Some(path) = super::code_env::names_project_path(&value, &source.project)
        {
            let shown = hermes_hooks_core::display::escape(path);
            warn(
                key,
                format!(
                    "names a path in the project ({shown}), which a program may load as code \
                     and an approval cannot bind; a project's settings may not set it for its \
                     hooks; skipped"
                ),
            );
            continue;
        }
        env.push((name.clone(), value));
    }
    env
}

/// The version of a Cursor `hooks.json` this reader knows.
const CURSOR_VERSION: u64 = 1;

/// Cursor's `version`: a version other than 1 (or not a number) is a warning
/// naming the file and the field; the hooks are still read as version 1's.
pub(super) fn cursor_version(source: &Source, root: &Value, discovery: &mut Discovery) {
    if source.dialect != Dialect::Cursor {
        return;
    }
    let problem = match root.get("version") {
        None | Some(Value::Null) => return,
        Some(Value::Number(n)) if n.as_u64() == Some(CURSOR_VERSION) => return,
        Some(Value::Number(n)) => format!("{n} is not a version this reader knows"),
        Some(other) => format!("must be a number; got {}", type_name(other)),
    };
    let message = format!(
        "({} hooks) version: {problem} ({CURSOR_VERSION}); its hooks are read as version \
         {CURSOR_VERSION}'s",
        source.dialect
    );
    let warning = ConfigWarning::new(source.path.clone(), "version", message);
    discovery.warnings.push(warning);
}

/// A name a process environment can hold and a shell can read: letters,
/// digits and `_`, not starting with a digit.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::is_variable_name;

    #[test]
    fn variable_names_are_what_a_shell_reads() {
        for good in ["FOO", "_x", "A1_B"] {
            assert!(is_variable_name(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "A=B", "A B", "É"] {
            assert!(!is_variable_name(bad), "{bad}");
        }
    }
}
