//! Gateway hooks found in a home: `HOOK.yaml` manifests read by the gateway's
//! own discovery; each `handler.py` tried by `doctor` only.
//!
//! `doctor` runs the gateway crate's trial import (each `handler.py` once, all
//! at the same time, with the interpreter that will run it, bounded by
//! `doctor --timeout`), so a syntax error or a missing module shows before the
//! first event, and keeps each verdict in the home's cache keyed by a hash of
//! the hook folder and the interpreter. `list` imports nothing: it shows the
//! cached verdict while the folder is unchanged, else "not inspected yet". An
//! executable handler must be executable (checked without running it).

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_gateway::{GatewayHookInfo, GatewayOptions, HandlerKind, HookStatus};
use serde_json::{Value, json};

use super::Probe;
use super::cache::{Cache, fingerprint};
use crate::home::Home;

/// One gateway hook and whether its handler can run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GatewayRow {
    /// What discovery found.
    pub info: GatewayHookInfo,
    /// The interpreter of a `handler.py`: the program, and the program with why that one.
    pub interpreter: Option<(String, String)>,
    /// Why the handler cannot run (`None`: it can, or it was not inspected).
    pub error: Option<String>,
    /// Whether the handler was checked (`false`: a `handler.py` nothing has
    /// trial-imported since its folder last changed).
    pub inspected: bool,
}

impl GatewayRow {
    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.info.name,
            "events": self.info.events,
            "handler": self.info.handler_path().display().to_string(),
            "interpreter": self.interpreter.as_ref().map(|(program, _)| program),
            "status": match (&self.error, self.inspected) {
                (Some(_), _) => "failed",
                (None, true) => "loaded",
                (None, false) => "not_inspected",
            },
            "error": self.error,
        })
    }
}

/// The gateway hooks of `home`: with [`Probe::Trial`] each `handler.py` is
/// trial-imported (the verdicts go to `cache`), with [`Probe::Static`] the
/// verdicts come from it. The second value holds discovery's warnings
/// (naming file and field; `skipped` for a hook that cannot load at all), the
/// third the `gateway_hooks:` config warnings.
pub fn scan(
    home: &Home,
    probe: &Probe,
    cache: &mut Cache,
) -> (
    Vec<GatewayRow>,
    Vec<hermes_hooks_gateway::GatewayWarning>,
    Vec<ConfigWarning>,
) {
    let (mut options, option_warnings) = GatewayOptions::from_config(&home.config);
    let mut discovery = hermes_hooks_gateway::discover(&home.path);
    let python = options.python_interpreter();
    let interpreter = (python.program.display().to_string(), python.to_string());
    let print = |info: &GatewayHookInfo| {
        fingerprint(
            &[&info.handler_path(), &info.dir.join("HOOK.yaml")],
            &format!("gateway\0{}", interpreter.1),
        )
    };
    let key = |info: &GatewayHookInfo| format!("gateway:{}", info.dir.display());
    if let Probe::Trial(trials) = probe {
        options.handler_timeout = trials.timeout;
        // On the process's one runtime (the binary's), not the crate's default.
        if let Some(runtime) = hermes_hooks_process::runtime::Background::own_or_default() {
            options = options.with_runtime(runtime);
        }
        hermes_hooks_gateway::check_handlers(&mut discovery, &options);
    }
    let rows = discovery
        .hooks
        .iter()
        .map(|info| {
            let mut row = GatewayRow {
                info: info.clone(),
                interpreter: (info.handler == HandlerKind::Python).then(|| interpreter.clone()),
                error: None,
                inspected: true,
            };
            if info.handler != HandlerKind::Python {
                row.error = handler_error(info);
                return row;
            }
            match probe {
                Probe::Trial(_) => {
                    row.error = handler_error(info);
                    if let Some(print) = print(info) {
                        cache.put(key(info), print, json!({ "error": row.error }));
                    }
                }
                Probe::Static => {
                    let cached =
                        print(info).and_then(|print| cache.get(&key(info), &print).cloned());
                    match cached {
                        Some(verdict) => row.error = verdict["error"].as_str().map(str::to_owned),
                        None => row.inspected = false,
                    }
                }
            }
            row
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
