//! Hermes's own config semantics over the parsed YAML, as hermes-agent
//! 0.19.0's `load_config` applies them: `${VAR}` in string values expanded
//! from the environment, then the managed scope (`$HERMES_MANAGED_DIR`, else
//! `/etc/hermes`; its `config.yaml`) deep-merged over the user's file, so an
//! administrator's pinned values win leaf by leaf.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// The variable that moves the managed scope (hermes-agent's name).
pub const MANAGED_DIR_ENV: &str = "HERMES_MANAGED_DIR";

/// The managed scope when [`MANAGED_DIR_ENV`] is unset or empty.
pub const DEFAULT_MANAGED_DIR: &str = "/etc/hermes";

/// Which file a setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The home's own `config.yaml`.
    User,
    /// The managed scope's `config.yaml`, which wins over the user's.
    Managed,
}

impl Scope {
    /// `user` or `managed`, as `hooks list` shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Managed => "managed",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The environment a config is read in: what `${VAR}` expands to and where
/// the managed scope is. [`ConfigEnv::process`] in production; tests build
/// their own so they never depend on the machine's `/etc/hermes`.
#[derive(Debug, Clone, Default)]
pub struct ConfigEnv {
    vars: HashMap<String, String>,
}

impl ConfigEnv {
    /// This process's environment (values that are not UTF-8 read lossily).
    pub fn process() -> ConfigEnv {
        ConfigEnv::from_vars(std::env::vars_os().map(|(name, value)| {
            (
                name.to_string_lossy().into_owned(),
                value.to_string_lossy().into_owned(),
            )
        }))
    }

    /// An environment of exactly `vars`.
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> ConfigEnv {
        ConfigEnv {
            vars: vars
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// The managed scope's directory, as hermes-agent's `get_managed_dir`:
    /// a non-empty `$HERMES_MANAGED_DIR` (stripped) if it is a directory —
    /// and then never the default — else `/etc/hermes` if it is one.
    pub fn managed_dir(&self) -> Option<PathBuf> {
        let chosen = match self.get(MANAGED_DIR_ENV).map(python_strip) {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => PathBuf::from(DEFAULT_MANAGED_DIR),
        };
        chosen.is_dir().then_some(chosen)
    }

    /// The folder a non-empty `$HERMES_MANAGED_DIR` names when it is no
    /// directory: then no managed scope is read at all (not `/etc/hermes`
    /// either), which must be said, not left silent (red team R39-5).
    pub fn managed_dir_missing(&self) -> Option<PathBuf> {
        let named = self.get(MANAGED_DIR_ENV).map(python_strip)?;
        let named = PathBuf::from(named);
        (!named.as_os_str().is_empty() && !named.is_dir()).then_some(named)
    }
}

/// Python's `str.strip()` with no argument: Unicode whitespace both ends.
fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

static VAR: LazyLock<Regex> = LazyLock::new(|| {
    // hermes-agent's pattern: `${` then anything up to the first `}`.
    Regex::new(r"\$\{([^}]+)\}")
        .unwrap_or_else(|error| unreachable!("bad ${{VAR}} pattern: {error}"))
});

/// hermes-agent's `_expand_env_vars`: every `${NAME}` in every string value
/// (not in keys) becomes the variable's value; an unset one stays verbatim.
pub fn expand_vars(value: &mut Value, env: &ConfigEnv) {
    match value {
        Value::String(text) if text.contains("${") => {
            let expanded = VAR.replace_all(text, |captures: &regex::Captures<'_>| {
                let name = captures.get(1).map_or("", |m| m.as_str());
                env.get(name).map_or_else(
                    || captures.get(0).map_or("", |m| m.as_str()).to_owned(),
                    str::to_owned,
                )
            });
            *text = expanded.into_owned();
        }
        Value::Array(items) => items.iter_mut().for_each(|item| expand_vars(item, env)),
        Value::Object(map) => map.values_mut().for_each(|item| expand_vars(item, env)),
        _ => {}
    }
}

/// hermes-agent's `_deep_merge(base, over)`: `over`'s keys win; two mappings
/// merge recursively; a `null` over a mapping is ignored (an empty section
/// must not wipe the other file's); anything else replaces (lists whole).
pub fn deep_merge(base: &mut Value, over: &Value) {
    let (Value::Object(base), Value::Object(over)) = (base, over) else {
        return;
    };
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(existing @ Value::Object(_)), Value::Object(_)) => deep_merge(existing, value),
            (Some(Value::Object(_)), Value::Null) => {}
            (Some(existing), _) => *existing = value.clone(),
            (None, _) => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Which scope the value at `key` (a dotted key, `[i]` indexes ignored: a
/// list comes whole from one file) came from, given the merged root and the
/// managed document that was merged in.
pub(super) fn scope_of(root: &Value, managed: Option<&Value>, key: &str) -> Scope {
    let Some(mut managed) = managed else {
        return Scope::User;
    };
    let mut merged = root;
    for part in key.split('.') {
        let part = part.split('[').next().unwrap_or(part);
        let (Some(m), Some(r)) = (
            managed.as_object().and_then(|map| map.get(part)),
            merged.as_object().and_then(|map| map.get(part)),
        ) else {
            return Scope::User;
        };
        if !(m.is_object() && r.is_object()) {
            return if m == r { Scope::Managed } else { Scope::User };
        }
        managed = m;
        merged = r;
    }
    if managed == merged {
        Scope::Managed
    } else {
        Scope::User
    }
}

/// The managed scope's `config.yaml` in `dir`.
pub fn managed_config_path(dir: &Path) -> PathBuf {
    dir.join(super::CONFIG_FILE)
}
