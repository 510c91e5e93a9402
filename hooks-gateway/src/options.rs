//! [`GatewayOptions`]: the bounds gateway hooks run under (per-handler timeout,
//! the overall bound of a `command:*` event, the queue of each hook), read from
//! the `gateway_hooks:` section of `config.yaml`, and the Python interpreter.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use hermes_hooks_core::config::{Config, ConfigWarning};
use hermes_hooks_core::interpreter::{InterpreterSource, PythonInterpreter};
use hermes_hooks_process::runtime::Background;
use serde_json::Value;

/// How long one handler call may take before it is killed, unless configured otherwise.
pub const DEFAULT_HANDLER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the host waits for all the `command:*` handlers of one command together.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// How many events may wait for one hook before the oldest is dropped.
pub const DEFAULT_QUEUE_SIZE: usize = 256;
/// The config section holding the gateway settings.
pub const CONFIG_SECTION: &str = "gateway_hooks";

/// The longest timeout accepted from config, in seconds.
const MAX_TIMEOUT_SECS: f64 = 3600.0;
/// The largest queue accepted from config.
const MAX_QUEUE_SIZE: u64 = 100_000;

/// Settings for running gateway hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayOptions {
    /// The Python interpreter; `None` follows the rule of
    /// [`PythonInterpreter::resolve`] (`$HERMES_HOOKS_PYTHON`, the `hermes`
    /// shebang, `python3`).
    pub python: Option<OsString>,
    /// The most time one handler call may take (worker start-up included).
    pub handler_timeout: Duration,
    /// The most time the host waits for all the handlers of one `command:*` event.
    pub command_timeout: Duration,
    /// How many events may wait for one hook; when full, the oldest is dropped.
    pub queue_size: usize,
    /// Whether [`crate::GatewayHooks::discover`] imports each `handler.py` once
    /// to report a broken one before any event (on by default).
    pub trial_import: bool,
    /// The runtime the hooks' lanes and trial imports run on (a host's);
    /// `None`: [`Background::process_default`].
    pub runtime: Option<Background>,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            python: None,
            handler_timeout: DEFAULT_HANDLER_TIMEOUT,
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
            queue_size: DEFAULT_QUEUE_SIZE,
            trial_import: true,
            runtime: None,
        }
    }
}

impl GatewayOptions {
    /// Reads `gateway_hooks.handler_timeout`, `.command_timeout` (seconds) and
    /// `.queue_size` (events) from `config`. A bad value is a warning naming
    /// the file and the key, and the default is used.
    pub fn from_config(config: &Config) -> (GatewayOptions, Vec<ConfigWarning>) {
        let mut options = GatewayOptions::default();
        let mut warnings = Vec::new();
        match config.get(CONFIG_SECTION) {
            None | Some(Value::Null) | Some(Value::Object(_)) => {}
            Some(other) => {
                warnings.push(config.warning(
                    CONFIG_SECTION,
                    format!(
                        "{CONFIG_SECTION} must be a mapping, not {}; using the defaults",
                        hermes_hooks_core::config::json_type(other)
                    ),
                ));
                return (options, warnings);
            }
        }
        let mut seconds = |key: &str, default: Duration| {
            let key = format!("{CONFIG_SECTION}.{key}");
            read_seconds(config, &key, default, &mut warnings)
        };
        options.handler_timeout = seconds("handler_timeout", DEFAULT_HANDLER_TIMEOUT);
        options.command_timeout = seconds("command_timeout", DEFAULT_COMMAND_TIMEOUT);
        options.queue_size = read_queue_size(config, &mut warnings);
        (options, warnings)
    }

    /// Uses `program` as the Python interpreter.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_python(mut self, program: impl Into<OsString>) -> Self {
        self.python = Some(program.into());
        self
    }

    /// Sets the per-handler timeout.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_handler_timeout(mut self, timeout: Duration) -> Self {
        self.handler_timeout = timeout;
        self
    }

    /// Sets the overall bound of a `command:*` event.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// Sets how many events may wait for one hook (at least 1).
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_queue_size(mut self, size: usize) -> Self {
        self.queue_size = size.max(1);
        self
    }

    /// Turns the trial import at discovery on or off.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_trial_import(mut self, enabled: bool) -> Self {
        self.trial_import = enabled;
        self
    }

    /// Runs the lanes and trial imports on `runtime` (a host's) instead of
    /// the process default.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_runtime(mut self, runtime: Background) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// The runtime the lanes and trial imports run on: the one given, else
    /// the process default (`None` only when that could not start).
    pub fn background(&self) -> Option<Background> {
        self.runtime.clone().or_else(Background::process_default)
    }

    /// The interpreter that will run Python handlers, and why that one.
    pub fn python_interpreter(&self) -> GatewayPython {
        match &self.python {
            Some(program) => GatewayPython {
                program: PathBuf::from(program),
                source: PythonSource::Options,
            },
            None => {
                let resolved = PythonInterpreter::resolve();
                GatewayPython {
                    program: resolved.program,
                    source: PythonSource::Rule(resolved.source),
                }
            }
        }
    }
}

/// The interpreter that runs `handler.py` hooks, and why that one (for `list` and `doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayPython {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// Where the choice came from.
    pub source: PythonSource,
}

/// Where [`GatewayPython::program`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PythonSource {
    /// The host named it ([`GatewayOptions::with_python`]).
    Options,
    /// The shared rule: `$HERMES_HOOKS_PYTHON`, the `hermes` shebang, `python3`.
    Rule(InterpreterSource),
}

impl fmt::Display for GatewayPython {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (", self.program.display())?;
        match &self.source {
            PythonSource::Options => f.write_str("set by the host")?,
            PythonSource::Rule(source) => write!(f, "{source}")?,
        }
        f.write_str(")")
    }
}

fn read_seconds(
    config: &Config,
    key: &str,
    default: Duration,
    warnings: &mut Vec<ConfigWarning>,
) -> Duration {
    let seconds = match config.get(key) {
        None | Some(Value::Null) => return default,
        Some(Value::Number(number)) => number.as_f64().unwrap_or(f64::NAN),
        Some(Value::String(text)) => text.trim().parse::<f64>().unwrap_or(f64::NAN),
        Some(_) => f64::NAN,
    };
    let default_text = format!("{}s", default.as_secs_f64());
    if !seconds.is_finite() || seconds <= 0.0 {
        warnings.push(config.warning(
            key,
            format!("{key} must be a positive number of seconds; using the default {default_text}"),
        ));
        return default;
    }
    if seconds > MAX_TIMEOUT_SECS {
        warnings.push(config.warning(
            key,
            format!("{key}={seconds} is more than {MAX_TIMEOUT_SECS}s; using {MAX_TIMEOUT_SECS}s"),
        ));
        return Duration::from_secs_f64(MAX_TIMEOUT_SECS);
    }
    Duration::from_secs_f64(seconds)
}

fn read_queue_size(config: &Config, warnings: &mut Vec<ConfigWarning>) -> usize {
    let key = format!("{CONFIG_SECTION}.queue_size");
    let size = match config.get(&key) {
        None | Some(Value::Null) => return DEFAULT_QUEUE_SIZE,
        Some(Value::Number(number)) => number.as_u64(),
        Some(Value::String(text)) => text.trim().parse::<u64>().ok(),
        Some(_) => None,
    };
    match size {
        Some(size @ 1..=MAX_QUEUE_SIZE) => usize::try_from(size).unwrap_or(DEFAULT_QUEUE_SIZE),
        _ => {
            warnings.push(config.warning(
                &key,
                format!(
                    "{key} must be a whole number of events from 1 to {MAX_QUEUE_SIZE}; \
                     using the default {DEFAULT_QUEUE_SIZE}"
                ),
            ));
            DEFAULT_QUEUE_SIZE
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn parse(text: &str) -> (GatewayOptions, Vec<ConfigWarning>) {
        let home = Path::new("/h");
        let config = Config::parse(home, &home.join("config.yaml"), text).expect("valid YAML");
        GatewayOptions::from_config(&config)
    }

    #[test]
    fn reads_the_section() {
        let (options, warnings) = parse(
            "gateway_hooks:\n  handler_timeout: 2.5\n  command_timeout: '3'\n  queue_size: 7\n",
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(options.handler_timeout, Duration::from_millis(2500));
        assert_eq!(options.command_timeout, Duration::from_secs(3));
        assert_eq!(options.queue_size, 7);
    }

    #[test]
    fn bad_values_warn_naming_file_and_key_and_keep_defaults() {
        let (options, warnings) = parse(
            "gateway_hooks:\n  handler_timeout: -1\n  command_timeout: soon\n  queue_size: 0\n",
        );
        assert_eq!(options, GatewayOptions::default());
        let keys: Vec<_> = warnings.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "gateway_hooks.handler_timeout",
                "gateway_hooks.command_timeout",
                "gateway_hooks.queue_size"
            ]
        );
        for warning in &warnings {
            let text = warning.to_string();
            assert!(
                text.contains("/h/config.yaml") && text.contains(&warning.key),
                "{text}"
            );
        }
        let (_, warnings) = parse("gateway_hooks: [1]\n");
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].key, "gateway_hooks");
    }

    #[test]
    fn huge_timeouts_are_clamped() {
        let (options, warnings) = parse("gateway_hooks:\n  command_timeout: 1e9\n");
        assert_eq!(options.command_timeout, Duration::from_secs(3600));
        assert_eq!(warnings.len(), 1);
    }
}
