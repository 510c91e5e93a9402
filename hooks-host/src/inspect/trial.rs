//! `doctor`'s trial loads: every enabled plugin loaded in a child process of
//! its own, all at the same time, each bounded by the one `doctor --timeout`
//! (two plugins that hang at import cost one bound, not two).
//!
//! A native library is described by the [`ChildInspector`]; a Python plugin
//! by the hidden `hooks` subcommand [`TRIAL_PYTHON_SUBCOMMAND`], which runs
//! the runtime's own discovery with only that plugin enabled (so it imports
//! and registers exactly as `emit` would) and prints one JSON line. Its
//! process tree runs under `hermes_hooks_process`, so a plugin that
//! hangs dies with its worker at the bound.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_hooks_core::Config;
use hermes_hooks_core::interpreter::PythonInterpreter;
use hermes_hooks_plugin::{DiscoverOptions, PluginStatus};
use hermes_hooks_process::RunLimits;
use serde_json::{Value, json};

use super::native::ChildInspector;
use crate::home::Home;

/// The hidden `hooks` subcommand that trial-loads one Python plugin (by key).
pub const TRIAL_PYTHON_SUBCOMMAND: &str = "__trial-python-plugin";

/// How long one trial load may take when `doctor --timeout` is not given.
pub const DEFAULT_TRIAL_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes read from one trial child.
const MAX_TRIAL_OUTPUT: usize = 1 << 20;

/// How the trial loads run: the `hooks` binary to re-run, the home, the bound.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Trials {
    /// The `hooks` binary (normally the current executable).
    pub program: PathBuf,
    /// How long each trial may take before its process tree is killed.
    pub timeout: Duration,
    /// The real interpreter behind a shim, when known: the children start it
    /// directly (no shim per child).
    pub python: Option<PathBuf>,
}

impl Trials {
    /// Trials re-running `program` (a `hooks` binary, or a program that
    /// answers the same hidden subcommands), each bounded by `timeout`.
    pub fn with_program(program: impl Into<PathBuf>, timeout: Duration) -> Trials {
        Trials {
            program: program.into(),
            timeout,
            python: None,
        }
    }

    /// Trials re-running the current executable, each bounded by `timeout`.
    pub fn current_exe(timeout: Duration) -> std::io::Result<Trials> {
        Ok(Trials {
            program: std::env::current_exe()?,
            timeout,
            python: None,
        })
    }
}

/// What one trial load found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrialResult {
    /// Whether it loaded and registered.
    pub loaded: bool,
    /// Why not, when it did not.
    pub error: Option<String>,
    /// The events it registered.
    pub hooks: Vec<String>,
    /// The system-prompt sections it registered.
    pub sections: Vec<String>,
    /// The ABI version of a native library.
    pub abi_version: Option<u32>,
    /// Discovery's warnings in the child, as text.
    pub warnings: Vec<String>,
    /// The interpreter that ran a Python plugin, as its worker reported it.
    pub interpreter: Option<String>,
    /// Its `sys.executable`, as its worker reported it.
    pub executable: Option<String>,
}

impl TrialResult {
    fn failed(error: impl Into<String>) -> TrialResult {
        TrialResult {
            error: Some(error.into()),
            ..TrialResult::default()
        }
    }

    /// The cached / printed form.
    pub fn to_json(&self) -> Value {
        json!({
            "loaded": self.loaded,
            "error": self.error,
            "hooks": self.hooks,
            "sections": self.sections,
            "abi_version": self.abi_version,
            "warnings": self.warnings,
            "interpreter": self.interpreter,
            "executable": self.executable,
        })
    }

    /// Reads [`TrialResult::to_json`]'s form; `None` when it is not that.
    pub fn from_json(value: &Value) -> Option<TrialResult> {
        let strings = |key: &str| -> Option<Vec<String>> {
            value[key]
                .as_array()?
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        Some(TrialResult {
            loaded: value["loaded"].as_bool()?,
            error: value["error"].as_str().map(str::to_owned),
            hooks: strings("hooks")?,
            sections: strings("sections")?,
            abi_version: value["abi_version"]
                .as_u64()
                .and_then(|v| u32::try_from(v).ok()),
            warnings: strings("warnings").unwrap_or_default(),
            interpreter: value["interpreter"].as_str().map(str::to_owned),
            executable: value["executable"].as_str().map(str::to_owned),
        })
    }
}

/// One thing to trial-load.
#[derive(Debug, Clone)]
pub enum Job {
    /// A native library.
    Native(PathBuf),
    /// A Python plugin of the home, by key, with the keys of the plugins it
    /// requires (`requires_plugins`, transitively), loaded with it as at runtime.
    Python(String, Vec<String>),
}

/// Runs every job at once in child processes; results in job order.
pub fn run_all(trials: &Trials, home: &Path, jobs: &[Job]) -> Vec<TrialResult> {
    let inspector = ChildInspector::new(&trials.program).with_timeout(trials.timeout);
    let python: Vec<(usize, &str, &[String])> = jobs
        .iter()
        .enumerate()
        .filter_map(|(i, job)| match job {
            Job::Python(key, with) => Some((i, key.as_str(), with.as_slice())),
            Job::Native(_) => None,
        })
        .collect();
    let mut results = vec![TrialResult::default(); jobs.len()];
    // The caller's runtime, entered on each thread below so that their
    // blocking runs land there (the CLI's host's, or the default).
    let runtime = hermes_hooks_process::runtime::Background::own_or_default();
    let runtime = runtime.as_ref();
    std::thread::scope(|scope| {
        let natives: Vec<_> = jobs
            .iter()
            .enumerate()
            .filter_map(|(i, job)| match job {
                Job::Native(library) => Some((i, library)),
                Job::Python(..) => None,
            })
            .map(|(i, library)| {
                let inspector = &inspector;
                (
                    i,
                    scope.spawn(move || {
                        let _entered = runtime.map(|runtime| runtime.enter());
                        native(inspector, library)
                    }),
                )
            })
            .collect();
        // On the process's one background runtime (the CLI's host's, or the
        // default): every child at once, none on a runtime of its own.
        let python_results = (!python.is_empty()).then(|| {
            let jobs: Vec<(String, Vec<String>)> = python
                .iter()
                .map(|(_, key, with)| ((*key).to_owned(), with.to_vec()))
                .collect();
            let (trials, home) = (trials.clone(), home.to_owned());
            scope.spawn(move || {
                let _entered = runtime.map(|runtime| runtime.enter());
                let count = jobs.len();
                hermes_hooks_process::runtime::block_on(async move {
                    futures_join(&trials, &home, &jobs).await
                })
                .unwrap_or_else(|| {
                    (0..count)
                        .map(|_| TrialResult::failed("no runtime to run the trial on"))
                        .collect()
                })
            })
        });
        for (i, handle) in natives {
            results[i] = handle
                .join()
                .unwrap_or_else(|_| TrialResult::failed("the trial thread panicked"));
        }
        if let Some(handle) = python_results {
            let found = handle.join().unwrap_or_default();
            for ((i, _, _), result) in python.iter().zip(found) {
                results[*i] = result;
            }
        }
    });
    results
}

fn native(inspector: &ChildInspector, library: &Path) -> TrialResult {
    match inspector.inspect(library) {
        Ok(description) => TrialResult {
            loaded: true,
            error: None,
            hooks: description.hooks,
            sections: description
                .prompt_sections
                .into_iter()
                .map(|section| section.id)
                .collect(),
            abi_version: Some(description.abi_version),
            warnings: Vec::new(),
            interpreter: None,
            executable: None,
        },
        Err(error) => TrialResult::failed(error.to_string()),
    }
}

async fn futures_join(
    trials: &Trials,
    home: &Path,
    jobs: &[(String, Vec<String>)],
) -> Vec<TrialResult> {
    // Every child runs at the same time: the slowest bounds the whole.
    futures::future::join_all(
        jobs.iter()
            .map(|(key, with)| python(trials, home, key, with)),
    )
    .await
}

async fn python(trials: &Trials, home: &Path, key: &str, with: &[String]) -> TrialResult {
    let mut command = tokio::process::Command::new(&trials.program);
    command
        .arg("--home")
        .arg(home)
        .arg(TRIAL_PYTHON_SUBCOMMAND)
        .arg(key);
    if let Some(python) = &trials.python {
        command.arg("--python").arg(python);
    }
    for required in with {
        command.arg("--with").arg(required);
    }
    let limits = RunLimits::new(trials.timeout, MAX_TRIAL_OUTPUT, Duration::from_millis(500));
    let output = match hermes_hooks_process::run(command, b"", &limits).await {
        Ok(output) => output,
        Err(error) => {
            return TrialResult::failed(format!(
                "{} could not start: {error}",
                trials.program.display()
            ));
        }
    };
    if output.timed_out {
        return TrialResult::failed(format!(
            "timed out after {} s while importing and registering (killed; doctor --timeout sets the bound)",
            trials.timeout.as_secs_f64()
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let document = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line.trim()).ok());
    match document.as_ref().and_then(TrialResult::from_json) {
        Some(result) => result,
        None => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
            TrialResult::failed(format!(
                "the trial process ended without a result ({}){}",
                match (output.exit_code, output.signal) {
                    (Some(code), _) => format!("exit status {code}"),
                    (None, Some(signal)) => format!("signal {signal}"),
                    (None, None) => "unknown status".to_owned(),
                },
                last.map(|l| format!(": {}", l.trim())).unwrap_or_default()
            ))
        }
    }
}

/// The child's side of [`TRIAL_PYTHON_SUBCOMMAND`]: the runtime's discovery
/// with only `key` (and what it requires) enabled, printed as one
/// [`TrialResult`] JSON line.
/// `with` are the plugins it requires, enabled with it. `python` is the real
/// program behind the interpreter's shim, when the parent knew it: started
/// directly, and reported as the interpreter the rule chose (so the report
/// reads the same either way).
pub fn run_python_child(
    home: &Home,
    key: &str,
    with: &[String],
    python: Option<&Path>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut enabled = vec![key.to_owned()];
    enabled.extend(with.iter().cloned());
    let config = only_enabled(&home.config, &enabled);
    let chosen = PythonInterpreter::resolve();
    let mut options = DiscoverOptions::from_env();
    options.python = Some(match python {
        Some(real) => PythonInterpreter::new(real.to_owned(), chosen.source.clone()),
        None => chosen.clone(),
    });
    let discovery = hermes_hooks_plugin::discover_with(&home.path, &config, options);
    let warnings: Vec<String> = discovery.warnings.iter().map(ToString::to_string).collect();
    let executable = discovery
        .interpreter
        .as_ref()
        .and_then(|status| status.executable.clone());
    let interpreter = discovery.interpreter.clone().map(|mut status| {
        status.interpreter = chosen;
        status.to_string()
    });
    let result = match discovery.found.iter().find(|info| info.key == key) {
        Some(info) => TrialResult {
            loaded: info.status == PluginStatus::Loaded,
            error: (info.status != PluginStatus::Loaded).then(|| {
                info.status
                    .error()
                    .map_or_else(|| info.status.to_string(), str::to_owned)
            }),
            hooks: info.hooks.clone(),
            sections: info.sections.clone(),
            abi_version: None,
            warnings,
            interpreter,
            executable,
        },
        None => TrialResult {
            warnings,
            interpreter,
            executable,
            ..TrialResult::failed(format!("no plugin '{key}' was found"))
        },
    };
    writeln!(out, "{}", result.to_json())?;
    out.flush()
}

/// `config` with `plugins.enabled` replaced by `keys`.
pub fn only_enabled(config: &Config, keys: &[String]) -> Config {
    let mut root = config.root().clone();
    if let Some(root) = root.as_object_mut() {
        let plugins = root
            .entry("plugins")
            .or_insert_with(|| Value::Object(Default::default()));
        if !plugins.is_object() {
            *plugins = Value::Object(Default::default());
        }
        if let Some(plugins) = plugins.as_object_mut() {
            plugins.insert("enabled".to_owned(), json!(keys));
        }
    }
    Config::from_value(config.home(), root)
}
