//! Plugins found in a home, native ones described by a child process.
//!
//! Nothing here loads a library into this process: discovery runs with loading
//! switched off, and every enabled native plugin is described by a
//! [`ChildInspector`], so a library that aborts while loading is a finding.

use std::path::PathBuf;

use hooks_core::{Config, ConfigWarning};
use hooks_core::interpreter::PythonInterpreter;
use hooks_plugin::{DiscoverOptions, PluginInfo, PluginStatus};
use serde_json::{Value, json};

use crate::home::Home;
use crate::inspect::ChildInspector;

/// Native plugins run inside the agent's process with its full rights; said
/// wherever plugins are listed.
pub const NATIVE_TRUST_NOTE: &str = "native plugins run with full trust inside the agent's \
     process: they can read and change anything the agent can, and a crash in one is a crash \
     of the agent. Enable only libraries you would link into the agent yourself.";

/// What a plugin is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    /// A shared library speaking the C ABI.
    Native,
    /// A Python package (`__init__.py` with `register(ctx)`).
    Python,
}

impl PluginKind {
    /// `native` or `python`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginKind::Native => "native",
            PluginKind::Python => "python",
        }
    }
}

/// What became of a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginState {
    /// It loads and registers its hooks.
    Loaded,
    /// It is not enabled, disabled, or safe mode is on.
    Disabled,
    /// It is enabled but cannot run: its hooks are missing.
    Failed,
}

impl PluginState {
    /// `loaded`, `disabled` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginState::Loaded => "loaded",
            PluginState::Disabled => "disabled",
            PluginState::Failed => "failed",
        }
    }
}

/// One plugin folder and what it does.
#[derive(Debug, Clone)]
pub struct PluginRow {
    /// The folder key (what `plugins.enabled` lists).
    pub key: String,
    /// The manifest name.
    pub name: String,
    /// Native or Python.
    pub kind: PluginKind,
    /// Where it was found: `user` (the home's `plugins/`).
    pub source: &'static str,
    /// The plugin folder.
    pub dir: PathBuf,
    /// The native library, when the manifest names one.
    pub library: Option<PathBuf>,
    /// Listed in `plugins.required`.
    pub required: bool,
    /// Loaded, disabled or failed.
    pub state: PluginState,
    /// Why it is disabled, or why it failed.
    pub reason: Option<String>,
    /// The events it registers.
    pub hooks: Vec<String>,
    /// The system-prompt sections it registers.
    pub prompt_sections: Vec<String>,
    /// The ABI version a native library speaks.
    pub abi_version: Option<u32>,
    /// The interpreter a Python plugin would run with, and why that one.
    pub interpreter: Option<PythonInterpreter>,
}

impl PluginRow {
    /// The error, for a failed plugin.
    pub fn error(&self) -> Option<&str> {
        match self.state {
            PluginState::Failed => self.reason.as_deref(),
            _ => None,
        }
    }

    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "kind": self.kind.as_str(),
            "source": self.source,
            "status": self.state.as_str(),
            "error": self.error(),
            "hooks": self.hooks,
            "abi_version": self.abi_version,
        })
    }
}

/// The plugins of `home`, each enabled native library described by `inspector`.
/// The second value holds discovery's warnings (naming file and field).
pub fn scan(home: &Home, inspector: &ChildInspector) -> (Vec<PluginRow>, Vec<ConfigWarning>) {
    // Loading switched off: this process never runs a plugin's code.
    let no_load = DiscoverOptions { safe_mode: true };
    let discovery = hooks_plugin::discover_with(&home.path, &home.config, no_load);
    let safe_mode = hooks_core::home::safe_mode();
    let required = required_names(&home.config);
    let rows = discovery
        .found
        .iter()
        .map(|info| {
            let mut row = classify(info, safe_mode);
            row.required = required.iter().any(|r| *r == row.key || *r == row.name);
            if row.kind == PluginKind::Native
                && row.state == PluginState::Loaded
                && let Some(library) = row.library.clone()
            {
                describe(&mut row, inspector.inspect(&library));
            }
            row
        })
        .collect();
    (rows, discovery.warnings)
}

/// The row for `info` before any library is looked at; an enabled native
/// plugin comes out `Loaded`, to be confirmed by the inspector.
fn classify(info: &PluginInfo, safe_mode: bool) -> PluginRow {
    let python = info.library.is_none() && info.dir.join("__init__.py").is_file();
    let mut row = PluginRow {
        key: info.key.clone(),
        name: info.name.clone(),
        kind: if python {
            PluginKind::Python
        } else {
            PluginKind::Native
        },
        source: "user",
        dir: info.dir.clone(),
        library: info.library.clone(),
        required: false,
        state: PluginState::Disabled,
        reason: None,
        hooks: Vec::new(),
        prompt_sections: Vec::new(),
        abi_version: None,
        interpreter: python.then(PythonInterpreter::resolve),
    };
    let (state, reason) = match &info.status {
        PluginStatus::Disabled | PluginStatus::NotEnabled => {
            (PluginState::Disabled, Some(info.status.to_string()))
        }
        PluginStatus::Invalid(reason) | PluginStatus::Failed(reason) => {
            (PluginState::Failed, Some(reason.clone()))
        }
        // Discovery ran with loading off, so an enabled plugin reads as "safe mode".
        _ if safe_mode => (
            PluginState::Disabled,
            Some(PluginStatus::SafeMode.to_string()),
        ),
        _ if python => (
            PluginState::Failed,
            Some(
                "Python plugins are not run by this host: its hooks do NOT run".to_owned(),
            ),
        ),
        _ if info.library.is_none() => (
            PluginState::Failed,
            Some("missing field `library` (the native library to load)".to_owned()),
        ),
        _ => (PluginState::Loaded, None),
    };
    row.state = state;
    row.reason = reason;
    row
}

/// Fills in what the inspector said about a native library.
fn describe(
    row: &mut PluginRow,
    inspected: Result<crate::inspect::NativeDescription, crate::inspect::InspectError>,
) {
    match inspected {
        Ok(description) => {
            row.abi_version = Some(description.abi_version);
            row.hooks = description.hooks;
            row.prompt_sections = description.prompt_sections;
        }
        Err(error) => {
            row.state = PluginState::Failed;
            row.reason = Some(error.to_string());
        }
    }
}

/// `plugins.required`: the plugins whose failure must block `pre_tool_call`.
fn required_names(config: &Config) -> Vec<String> {
    match config.get("plugins.required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|name| name.as_str().map(|name| name.trim().to_owned()))
            .collect(),
        Some(Value::String(name)) => vec![name.trim().to_owned()],
        _ => Vec::new(),
    }
}
