//! `config.yaml` under the Hermes home: one loader for every mechanism.
//!
//! The file is read once into a JSON value (through [`crate::yaml`]); each
//! mechanism validates its own section and reports problems as
//! [`ConfigWarning`]s that name the file and the key, so a broken entry is
//! skipped while the rest keeps working.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

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
pub struct ConfigWarning {
    /// The file the entry is in.
    pub file: PathBuf,
    /// The dotted key of the entry, e.g. `hooks.pre_tool_call[0].timeout`.
    pub key: String,
    /// What is wrong and what was done about it.
    pub message: String,
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
    root: Value,
}

impl Config {
    /// Loads `<home>/config.yaml`. A missing file is an empty config.
    ///
    /// At most [`crate::yaml::MAX_BYTES`] + 1 bytes are read, so a huge or
    /// endless file (a FIFO, `/dev/zero` behind a link) is refused, not slurped.
    pub fn load(home: &Path) -> Result<Config, ConfigError> {
        let path = home.join(CONFIG_FILE);
        match read_capped(&path) {
            Ok(text) => Config::parse(home, &path, &text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::empty(home)),
            Err(source) => Err(ConfigError::Read { path, source }),
        }
    }

    /// Parses config text as if read from `path`.
    pub fn parse(home: &Path, path: &Path, text: &str) -> Result<Config, ConfigError> {
        let root = crate::yaml::parse(text).map_err(|error| ConfigError::Parse {
            path: path.to_owned(),
            message: error.message,
        })?;
        let root = match root {
            Value::Null => Value::Object(Default::default()),
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
        })
    }

    /// A config with no settings.
    pub fn empty(home: &Path) -> Config {
        Config {
            home: home.to_owned(),
            path: home.join(CONFIG_FILE),
            root: Value::Object(Default::default()),
        }
    }

    /// A config from an already-built JSON value (hosts and tests).
    pub fn from_value(home: &Path, root: Value) -> Config {
        Config {
            home: home.to_owned(),
            path: home.join(CONFIG_FILE),
            root,
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

    /// A warning about `key` in this file.
    pub fn warning(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigWarning {
        ConfigWarning {
            file: self.path.clone(),
            key: key.into(),
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

/// Reads a YAML file, stopping one byte past the adapter's limit (the parser
/// then refuses it by size).
pub fn read_capped(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let limit = u64::try_from(crate::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Settings of in-process callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        match Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), text) {
            Ok(config) => config,
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn callback_timeout_rules() {
        let timeout = |text: &str| config(text).plugin_settings().0.callback_timeout;
        assert_eq!(timeout(""), Some(Duration::from_secs(30)));
        assert_eq!(timeout("plugins: {hook_callback_timeout: 0}"), None);
        assert_eq!(
            timeout("plugins: {hook_callback_timeout: 0.12}"),
            Some(Duration::from_millis(120))
        );
        assert_eq!(
            timeout("plugins: {hook_callback_timeout: 9999}"),
            Some(Duration::from_secs(600))
        );
        assert_eq!(
            timeout("plugins: {hook_callback_timeout: -1}"),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            timeout("plugins: {hook_callback_timeout: soon}"),
            Some(Duration::from_secs(30))
        );
        let (_, warnings) = config("plugins: {hook_callback_timeout: soon}").plugin_settings();
        assert!(warnings[0].message.contains("not a number"));
        assert!(warnings[0].to_string().starts_with("/h/config.yaml: "));
    }

    #[test]
    fn auto_accept_matrix() {
        for (text, expected) in [
            ("hooks_auto_accept: true", true),
            ("hooks_auto_accept: false", false),
            ("hooks_auto_accept: 'false'", false),
            ("hooks_auto_accept: 'no'", false),
            ("hooks_auto_accept: 'true'", true),
            ("hooks_auto_accept: '  TRUE  '", true),
            ("hooks_auto_accept: 'yes'", true),
            ("hooks_auto_accept: 'on'", true),
            ("hooks_auto_accept: '1'", true),
            ("hooks_auto_accept: 1", false),
            // YAML 1.1 booleans, as PyYAML reads them.
            ("hooks_auto_accept: yes", true),
            ("hooks_auto_accept: On", true),
            ("hooks_auto_accept: off", false),
            ("hooks_auto_accept: NO", false),
            ("hooks_auto_accept: null", false),
            ("other: 1", false),
        ] {
            assert_eq!(config(text).hooks_auto_accept(), expected, "{text}");
        }
    }

    #[test]
    fn bad_files_name_the_file() {
        let error = Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), "- a\n- b\n").err();
        assert!(error.is_some_and(|e| e.to_string().contains("/h/config.yaml")));
        let error = Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), "a: [").err();
        assert!(error.is_some_and(|e| e.to_string().contains("invalid YAML")));
    }

    #[test]
    fn one_odd_key_does_not_lose_the_file() {
        // PyYAML reads each of these; each used to make the whole file unreadable.
        for odd in [
            "model:\n  provider: a\n  provider: b\n",
            "model:\n  max: 123456789012345678901234567890\n",
            "model:\n  temp: !!float '1e400'\n",
        ] {
            let config = config(&format!("{odd}hooks_auto_accept: yes\n"));
            assert!(config.hooks_auto_accept(), "{odd}");
        }
        assert_eq!(
            config("model:\n  provider: a\n  provider: b\n").get("model.provider"),
            Some(&Value::String("b".into()))
        );
    }

    #[test]
    fn oversized_files_are_refused_by_size() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let body = format!("a: 1\n{}", "#".repeat(crate::yaml::MAX_BYTES));
        std::fs::write(dir.path().join(CONFIG_FILE), body)
            .unwrap_or_else(|error| panic!("{error}"));
        let error = Config::load(dir.path())
            .err()
            .map(|error| error.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("bytes")),
            "{error:?}"
        );
    }

    #[test]
    fn dotted_get() {
        let config = config("hooks:\n  outbound: []\n");
        assert_eq!(config.get("hooks.outbound"), Some(&Value::Array(vec![])));
        assert_eq!(config.get("hooks.missing"), None);
    }
}
