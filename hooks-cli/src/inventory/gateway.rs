//! Gateway hooks found in a home, each `handler.py` tried before any event.
//!
//! The gateway crate's trial import runs each `handler.py` once with the
//! interpreter that will run it (module top level, then a callable `handle`),
//! so a syntax error or a missing module shows in `list` and `doctor`, not at
//! the first event. An executable handler must be executable.

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_gateway::{GatewayHookInfo, GatewayOptions, HandlerKind, HookStatus};
use serde_json::{Value, json};

use crate::home::Home;

/// One gateway hook and whether its handler can run.
#[derive(Debug, Clone)]
pub struct GatewayRow {
    /// What discovery found.
    pub info: GatewayHookInfo,
    /// The interpreter of a `handler.py`: the program, and the program with why that one.
    pub interpreter: Option<(String, String)>,
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
            "interpreter": self.interpreter.as_ref().map(|(program, _)| program),
            "status": if self.error.is_some() { "failed" } else { "loaded" },
            "error": self.error,
        })
    }
}

/// The gateway hooks of `home`, each handler tried. The second value holds
/// discovery's warnings (naming file and field; `skipped` for a hook that
/// cannot load at all), the third the `gateway_hooks:` config warnings.
pub fn scan(
    home: &Home,
) -> (
    Vec<GatewayRow>,
    Vec<hermes_hooks_gateway::GatewayWarning>,
    Vec<ConfigWarning>,
) {
    let (options, option_warnings) = GatewayOptions::from_config(&home.config);
    let mut discovery = hermes_hooks_gateway::discover(&home.path);
    hermes_hooks_gateway::check_handlers(&mut discovery, &options);
    let python = options.python_interpreter();
    let interpreter = (python.program.display().to_string(), python.to_string());
    let rows = discovery
        .hooks
        .iter()
        .map(|info| GatewayRow {
            info: info.clone(),
            interpreter: (info.handler == HandlerKind::Python).then(|| interpreter.clone()),
            error: handler_error(info),
        })
        .collect();
    (rows, discovery.warnings, option_warnings)
}

/// Why `info`'s handler cannot run, if it cannot.
fn handler_error(info: &GatewayHookInfo) -> Option<String> {
    match (&info.status, info.handler) {
        (HookStatus::Broken { error }, _) => Some(format!("trial import failed: {error}")),
        (_, HandlerKind::Executable)
            if !hermes_hooks_shell::script_is_executable(
                &info.handler_path().display().to_string(),
            ) =>
        {
            Some("the handler is not executable (chmod +x it)".to_owned())
        }
        _ => None,
    }
}
