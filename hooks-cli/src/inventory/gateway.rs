//! Gateway hooks found in a home, each handler tried before any event.
//!
//! A `handler.py` is imported once by the interpreter that will run it (the
//! same import the worker does: module top level, then a callable `handle`),
//! so a syntax error or a missing module shows in `list` and `doctor`, not at
//! the first event. An executable handler must be executable.

use std::process::Command;
use std::time::Duration;

use hooks_core::interpreter::PythonInterpreter;
use hooks_gateway::{GatewayHookInfo, HandlerKind};
use serde_json::{Value, json};

use crate::home::Home;
use crate::inspect::{Bounded, run_bounded};

/// How long the trial import of one `handler.py` may take.
pub const TRIAL_IMPORT_TIMEOUT: Duration = Duration::from_secs(15);

/// Imports a handler as the gateway worker does and checks for `handle`.
const TRIAL_IMPORT: &str = r#"
import importlib.util, sys
path, name = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("hermes_hook_" + name, path)
if spec is None or spec.loader is None:
    raise ImportError("could not load handler.py")
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
if not callable(getattr(module, "handle", None)):
    raise LookupError("no 'handle' function found")
"#;

/// One gateway hook and whether its handler can run.
#[derive(Debug, Clone)]
pub struct GatewayRow {
    /// What discovery found.
    pub info: GatewayHookInfo,
    /// The interpreter of a `handler.py`, and why that one.
    pub interpreter: Option<PythonInterpreter>,
    /// Why the handler cannot run (`None`: it can).
    pub error: Option<String>,
}

impl GatewayRow {
    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.info.name,
            "events": self.info.events,
            "handler": self.info.handler_path().display().to_string(),
            "interpreter": self.interpreter.as_ref().map(|i| i.program.display().to_string()),
            "status": if self.error.is_some() { "failed" } else { "loaded" },
            "error": self.error,
        })
    }
}

/// The gateway hooks of `home`, each handler tried; the second value holds
/// discovery's warnings (naming file and field; `skipped` for a hook that
/// cannot load at all).
pub fn scan(home: &Home) -> (Vec<GatewayRow>, Vec<hooks_gateway::GatewayWarning>) {
    let discovery = hooks_gateway::discover(&home.path);
    let python = PythonInterpreter::resolve();
    let rows = discovery
        .hooks
        .iter()
        .map(|info| match info.handler {
            HandlerKind::Python => GatewayRow {
                info: info.clone(),
                error: trial_import(info, &python),
                interpreter: Some(python.clone()),
            },
            HandlerKind::Executable => GatewayRow {
                info: info.clone(),
                interpreter: None,
                error: (!hooks_shell::script_is_executable(
                    &info.handler_path().display().to_string(),
                ))
                .then(|| "the handler is not executable (chmod +x it)".to_owned()),
            },
        })
        .collect();
    (rows, discovery.warnings)
}

/// Imports `info`'s `handler.py` with `python`; the error, or `None` when it imports.
fn trial_import(info: &GatewayHookInfo, python: &PythonInterpreter) -> Option<String> {
    let dir = std::path::absolute(&info.dir).unwrap_or_else(|_| info.dir.clone());
    let mut command = Command::new(&python.program);
    command
        .arg("-c")
        .arg(TRIAL_IMPORT)
        .arg(dir.join(info.handler.file_name()))
        .arg(&info.name);
    if let Some(home) = dir.parent().and_then(std::path::Path::parent) {
        command.env("HERMES_HOME", home);
    }
    match run_bounded(command, TRIAL_IMPORT_TIMEOUT) {
        Ok(finished) if finished.status.success() => None,
        Ok(finished) => Some(format!(
            "trial import failed: {}",
            finished
                .last_stderr_line()
                .unwrap_or_else(|| format!("{}", finished.status))
        )),
        Err(Bounded::Spawn(error)) => Some(format!(
            "cannot start the interpreter {}: {error}",
            python.program.display()
        )),
        Err(Bounded::Wait(error)) => Some(format!("trial import failed: {error}")),
        Err(Bounded::TimedOut) => Some(format!(
            "trial import did not finish within {}s (does handler.py do work at import time?)",
            TRIAL_IMPORT_TIMEOUT.as_secs()
        )),
    }
}
