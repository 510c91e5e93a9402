//! `config.yaml` under the Hermes home: one loader for every mechanism.
//!
//! The file is read once into a JSON value (through [`crate::yaml`]), with
//! hermes-agent's own semantics on top ([`scope`]): `${VAR}` expanded in
//! string values, the managed scope's `config.yaml` merged over it; each
//! mechanism validates its own section and reports problems as
//! [`ConfigWarning`]s that name the file and the key, so a broken entry is
//! skipped while the rest keeps working.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

pub mod scope;
mod text;

pub use scope::{ConfigEnv, Scope};
pub use text::read_capped;
use text::{dangling, duplicate_warnings, null_document_warning, unexpanded_warning};

/// The config file's name inside the Hermes home.
pub const CONFIG_FILE: &str = "config.yaml";

/// The default `plugins.hook_callback_timeout`, in seconds.
pub const DEFAULT_CALLBACK_TIMEOUT_SECS: f64 = 30.0;

/// The largest `plugins.hook_callback_timeout`, in seconds.
pub const MAX_CALLBACK_TIMEOUT_SECS: f64 = 600.0;

/// A config file that could not be used at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{path}: invalid YAML: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The top level is not a mapping.
    #[error("{path}: the top level must be a mapping of settings; got {found}")]
    NotMapping {
        /// The file.
        path: PathBuf,
        /// The JSON type found instead.
        found: &'static str,
    },
}

/// A problem with one config entry: it was skipped or defaulted, the rest works.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigWarning {
    /// The file the entry is in.
    pub file: PathBuf,
    /// The dotted key of the entry, e.g. `hooks.pre_tool_call[0].timeout`.
    pub key: String,
    /// What is wrong and what was done about it.
    pub message: String,
}

impl ConfigWarning {
    /// A warning about the entry at `key` (dotted) in `file`.
    pub fn new(
        file: impl Into<PathBuf>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ConfigWarning {
            file: file.into(),
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

/// The loaded `config.yaml` of one Hermes home.
#[derive(Debug, Clone)]
pub struct Config {
    home: PathBuf,
    path: PathBuf,
    /// The merged settings: the user's file with the managed scope over it.
    root: Value,
    /// The managed scope's file and its (expanded) document, when one was merged.
    managed: Option<(PathBuf, Value)>,
    /// Problems found while loading that did not stop it (a managed file
    /// that cannot be read is ignored, as hermes-agent ignores it, loudly).
    load_warnings: Vec<ConfigWarning>,
    /// The managed scope's file when it exists but was ignored (unreadable).
    managed_unread: Option<PathBuf>,
    /// Where the managed scope's file is looked for, there or not.
    managed_candidate: Option<PathBuf>,
}

impl Config {
    /// Loads `<home>/config.yaml`. A missing file is an empty config.
    ///
    /// At most [`crate::yaml::MAX_BYTES`] + 1 bytes are read, so a huge or
    /// endless file (a FIFO, `/dev/zero` behind a link) is refused, not slurped.
    /// `${VAR}` expands from this process's environment and the managed scope
    /// is `$HERMES_MANAGED_DIR`, else `/etc/hermes` ([`Config::load_in`]).
    pub fn load(home: &Path) -> Result<Config, ConfigError> {
        Config::load_in(home, &ConfigEnv::process())
    }

    /// Loads `<home>/config.yaml` as hermes-agent's `load_config` does in
    /// `env`: `${VAR}` in string values expanded, then the managed scope's
    /// `config.yaml` (itself expanded) deep-merged over it.
    pub fn load_in(home: &Path, env: &ConfigEnv) -> Result<Config, ConfigError> {
        let path = home.join(CONFIG_FILE);
        let mut config = match read_capped(&path) {
            Ok(text) => Config::parse_in(home, &path, &text, env)?,
            // A link whose target is gone is a broken file, not "no config":
            // read as empty, every guard in it would stop guarding unseen.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => match dangling(&path) {
                Some(source) => return Err(ConfigError::Read { path, source }),
                None => Config::empty(home),
            },
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        config.merge_managed(env);
        Ok(config)
    }

    /// The config of a home with no `config.yaml` (or none at all): the
    /// managed scope's settings alone, if there is one.
    pub fn managed_only(home: &Path) -> Config {
        let mut config = Config::empty(home);
        config.merge_managed(&ConfigEnv::process());
        config
    }

    /// Parses config text as if read from `path`, `${VAR}` expanded from this
    /// process's environment (no managed scope: that is [`Config::load`]'s).
    pub fn parse(home: &Path, path: &Path, text: &str) -> Result<Config, ConfigError> {
        Config::parse_in(home, path, text, &ConfigEnv::process())
    }

    /// [`Config::parse`] with `${VAR}` expanded from `env`.
    pub fn parse_in(
        home: &Path,
        path: &Path,
        text: &str,
        env: &ConfigEnv,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::parse_raw(home, path, text)?;
        scope::expand_vars(&mut config.root, env);
        Ok(config)
    }

    fn parse_raw(home: &Path, path: &Path, text: &str) -> Result<Config, ConfigError> {
        let document = crate::yaml::parse_document(text).map_err(|error| ConfigError::Parse {
            path: path.to_owned(),
            message: error.message,
        })?;
        let mut load_warnings = Vec::new();
        if document.unexpanded_aliases > 0 {
            load_warnings.push(unexpanded_warning(path, document.unexpanded_aliases));
        }
        load_warnings.extend(duplicate_warnings(path, &document.duplicate_keys));
        let root = document.value;
        let root = match root {
            Value::Null => {
                load_warnings.extend(null_document_warning(path, text));
                Value::Object(Default::default())
            }
            Value::Object(_) => root,
            other => {
                return Err(ConfigError::NotMapping {
                    path: path.to_owned(),
                    found: json_type(&other),
                });
            }
        };
        Ok(Config {
            home: home.to_owned(),
            path: path.to_owned(),
            root,
            managed: None,
            load_warnings,
            managed_unread: None,
            managed_candidate: None,
        })
    }

    /// Merges the managed scope of `env` over this config. A managed file
    /// that cannot be read, is not YAML or is not a mapping is ignored with a
    /// warning naming it, as hermes-agent ignores it (so both run the same hooks).
    fn merge_managed(&mut self, env: &ConfigEnv) {
        let looked_in = env.managed_dir().or_else(|| env.managed_dir_missing());
        let looked_in = looked_in.unwrap_or_else(|| PathBuf::from(scope::DEFAULT_MANAGED_DIR));
        self.managed_candidate = Some(scope::managed_config_path(&looked_in));
        let Some(dir) = env.managed_dir() else {
            if let Some(named) = env.managed_dir_missing() {
                self.managed_dir_missing(&named);
            }
            return;
        };
        let path = scope::managed_config_path(&dir);
        let text = match read_capped(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if let Some(error) = dangling(&path) {
                    self.ignore_managed(&path, format!("cannot read it: {error}"));
                }
                return;
            }
            Err(error) => {
                self.ignore_managed(&path, format!("cannot read it: {error}"));
                return;
            }
        };
        let parsed = crate::yaml::parse_document(&text).map(|document| {
            if document.unexpanded_aliases > 0 {
                let warning = unexpanded_warning(&path, document.unexpanded_aliases);
                self.load_warnings.push(warning);
            }
            let duplicates = duplicate_warnings(&path, &document.duplicate_keys);
            self.load_warnings.extend(duplicates);
            document.value
        });
        let mut managed = match parsed {
            Ok(Value::Null) => Value::Object(Default::default()),
            Ok(value @ Value::Object(_)) => value,
            Ok(other) => {
                let found = json_type(&other);
                self.ignore_managed(&path, format!("the top level is a {found}, not a mapping"));
                return;
            }
            Err(error) => {
                self.ignore_managed(&path, format!("invalid YAML: {}", error.message));
                return;
            }
        };
        scope::expand_vars(&mut managed, env);
        scope::deep_merge(&mut self.root, &managed);
        self.managed = Some((path, managed));
    }

    fn managed_dir_missing(&mut self, named: &Path) {
        let what = if std::fs::symlink_metadata(named).is_ok() {
            "is not a folder"
        } else {
            "does not exist"
        };
        self.load_warnings.push(ConfigWarning {
            file: named.to_owned(),
            key: String::new(),
            message: format!(
                "{}={} {what}: no managed scope is read (not {} either), so the \
                 administrator's settings and guards there are not applied",
                scope::MANAGED_DIR_ENV,
                crate::display::escape(&named.display().to_string()),
                scope::DEFAULT_MANAGED_DIR
            ),
        });
    }

    fn ignore_managed(&mut self, path: &Path, why: String) {
        self.managed_unread = Some(path.to_owned());
        self.load_warnings.push(ConfigWarning {
            file: path.to_owned(),
            key: String::new(),
            message: format!(
                "managed scope {}: {why}; IGNORING it: the administrator's settings there are not applied",
                crate::display::escape(&path.display().to_string())
            ),
        });
    }

    /// Problems found while loading that did not stop it (an unreadable
    /// managed scope file). Show them with the other config warnings.
    pub fn load_warnings(&self) -> &[ConfigWarning] {
        &self.load_warnings
    }

    /// The managed scope's `config.yaml` when one was merged in.
    pub fn managed_path(&self) -> Option<&Path> {
        self.managed.as_ref().map(|(path, _)| path.as_path())
    }

    /// The managed scope's (expanded) document when one was merged in.
    pub fn managed_document(&self) -> Option<&Value> {
        self.managed.as_ref().map(|(_, document)| document)
    }

    /// Where the managed scope's `config.yaml` is looked for, whether or not
    /// it is there (`None` for a config loaded without a managed scope):
    /// a guard it held at its last good read is not lost in silence when
    /// it goes (sweep 59, H4).
    pub fn managed_candidate(&self) -> Option<&Path> {
        self.managed_candidate.as_deref()
    }

    /// The managed scope's `config.yaml` when it exists but could not be
    /// used (unreadable, not YAML, not a mapping): none of its settings apply.
    pub fn managed_unread(&self) -> Option<&Path> {
        self.managed_unread.as_deref()
    }

    /// Which file the value at `key` came from (`hooks.pre_tool_call[0]`
    /// names the `hooks.pre_tool_call` list, which one file gives whole).
    pub fn scope_of(&self, key: &str) -> Scope {
        scope::scope_of(&self.root, self.managed.as_ref().map(|(_, doc)| doc), key)
    }

    /// The file the value at `key` came from.
    pub fn file_of(&self, key: &str) -> &Path {
        match (&self.managed, self.scope_of(key)) {
            (Some((path, _)), Scope::Managed) => path,
            _ => &self.path,
        }
    }

    /// A config with no settings.
    pub fn empty(home: &Path) -> Config {
        Config::from_value(home, Value::Object(Default::default()))
    }

    /// A config from an already-built JSON value (hosts and tests).
    pub fn from_value(home: &Path, root: Value) -> Config {
        Config {
            home: home.to_owned(),
            path: home.join(CONFIG_FILE),
            root,
            managed: None,
            load_warnings: Vec::new(),
            managed_unread: None,
            managed_candidate: None,
        }
    }

    /// The Hermes home this config belongs to.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The config file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole document.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// A value by dotted path, e.g. `hooks.outbound`.
    pub fn get(&self, dotted: &str) -> Option<&Value> {
        dotted
            .split('.')
            .try_fold(&self.root, |value, key| value.as_object()?.get(key))
    }

    /// A warning about `key`, naming the file the key came from.
    pub fn warning(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigWarning {
        let key = key.into();
        ConfigWarning {
            file: self.file_of(&key).to_owned(),
            key,
            message: message.into(),
        }
    }

    /// The plugin settings (`plugins.*`), with warnings for bad values.
    pub fn plugin_settings(&self) -> (PluginSettings, Vec<ConfigWarning>) {
        let mut warnings = Vec::new();
        let callback_timeout = self.callback_timeout(&mut warnings);
        let stream_reasoning_deltas = matches!(
            self.get("plugins.stream_reasoning_deltas"),
            Some(Value::Bool(true))
        );
        (
            PluginSettings {
                callback_timeout,
                stream_reasoning_deltas,
            },
            warnings,
        )
    }

    fn callback_timeout(&self, warnings: &mut Vec<ConfigWarning>) -> Option<Duration> {
        const KEY: &str = "plugins.hook_callback_timeout";
        let default = Some(Duration::from_secs_f64(DEFAULT_CALLBACK_TIMEOUT_SECS));
        let seconds = match self.get(KEY) {
            None | Some(Value::Null) => return default,
            Some(Value::Number(number)) => number.as_f64().unwrap_or(f64::NAN),
            Some(Value::String(text)) => text.trim().parse::<f64>().unwrap_or(f64::NAN),
            Some(_) => f64::NAN,
        };
        if !seconds.is_finite() {
            warnings.push(self.warning(KEY, format!("{KEY} is not a number; using default 30s")));
            default
        } else if seconds < 0.0 {
            warnings.push(self.warning(
                KEY,
                format!("{KEY}={seconds} is negative; using default 30s"),
            ));
            default
        } else if seconds == 0.0 {
            None
        } else if seconds > MAX_CALLBACK_TIMEOUT_SECS {
            warnings.push(self.warning(KEY, format!("{KEY}={seconds} exceeds max 600s; clamping")));
            Some(Duration::from_secs_f64(MAX_CALLBACK_TIMEOUT_SECS))
        } else {
            Some(Duration::from_secs_f64(seconds))
        }
    }

    /// Whether `hooks_auto_accept` approves new shell hooks: a YAML `true`, or a
    /// string in `1, true, yes, on`. Integers, `null` and other strings do not.
    pub fn hooks_auto_accept(&self) -> bool {
        match self.get("hooks_auto_accept") {
            Some(Value::Bool(flag)) => *flag,
            Some(Value::String(text)) => crate::home::is_truthy_text(text),
            _ => false,
        }
    }
}

/// Settings of in-process callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginSettings {
    /// The limit of bounded callbacks; `None` when `hook_callback_timeout: 0` disables it.
    pub callback_timeout: Option<Duration>,
    /// Whether reasoning deltas reach `on_stream_delta` callbacks.
    pub stream_reasoning_deltas: bool,
}

impl Default for PluginSettings {
    fn default() -> Self {
        PluginSettings {
            callback_timeout: Some(Duration::from_secs_f64(DEFAULT_CALLBACK_TIMEOUT_SECS)),
            stream_reasoning_deltas: false,
        }
    }
}

impl PluginSettings {
    /// Sets the limit of bounded callbacks (`None`: unbounded).
    #[must_use]
    pub fn with_callback_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.callback_timeout = timeout;
        self
    }

    /// Sets whether reasoning deltas reach `on_stream_delta` callbacks.
    #[must_use]
    pub fn with_stream_reasoning_deltas(mut self, on: bool) -> Self {
        self.stream_reasoning_deltas = on;
        self
    }
}

/// The JSON type name of `value`, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

#[cfg(test)]
mod tests;
