//! Plugins found in a home: native ones described by a child process, Python
//! ones loaded in their worker (itself a child process).
//!
//! Nothing here loads a native library into this process: a first discovery
//! runs with loading switched off to list every plugin; a second one loads only
//! the enabled Python plugins (the worker reports what each `register(ctx)`
//! registered, or why it failed); every enabled native library is described by
//! a [`ChildInspector`], so a library that aborts while loading is a finding.

use std::path::PathBuf;

use hermes_hooks_core::interpreter::PythonInterpreter;
use hermes_hooks_core::{Config, ConfigWarning};
use hermes_hooks_plugin::{DiscoverOptions, PluginInfo, PluginStatus};
use serde_json::{Value, json};

pub use hermes_hooks_plugin::discover::PluginKind;

use crate::home::Home;
use crate::inspect::ChildInspector;

/// Native plugins run inside the agent's process with its full rights; said
/// wherever plugins are listed.
pub use hermes_hooks_plugin::NATIVE_TRUST_NOTE;

/// What became of a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Where it was found: `user`, `project` or `entrypoint`.
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
    /// The interpreter a Python plugin runs with, and why that one.
    pub interpreter: Option<String>,
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

/// The plugins of `home`: each enabled native library described by
/// `inspector`, each enabled Python plugin loaded in its worker. The second
/// value holds the discovery warnings (naming file and field).
pub fn scan(home: &Home, inspector: &ChildInspector) -> (Vec<PluginRow>, Vec<ConfigWarning>) {
    let options = DiscoverOptions::from_env();
    let safe_mode = options.safe_mode;
    // Loading switched off: only the listing.
    let listing_options = DiscoverOptions {
        safe_mode: true,
        ..options.clone()
    };
    let listing = hermes_hooks_plugin::discover_with(&home.path, &home.config, listing_options);
    let python_keys: Vec<String> = listing
        .found
        .iter()
        .filter(|info| info.kind == PluginKind::Python && info.status == PluginStatus::SafeMode)
        .map(|info| info.key.clone())
        .collect();
    let python = (!safe_mode && !python_keys.is_empty()).then(|| {
        let config = only_enabled(&home.config, &python_keys);
        hermes_hooks_plugin::discover_with(&home.path, &config, options)
    });
    let interpreter = python
        .as_ref()
        .and_then(|python| python.interpreter.as_ref())
        .map(ToString::to_string)
        .unwrap_or_else(|| PythonInterpreter::resolve().to_string());
    let rows = listing
        .found
        .iter()
        .map(|info| {
            let loaded = python.as_ref().and_then(|python| {
                python
                    .found
                    .iter()
                    .find(|p| p.key == info.key && p.source == info.source)
            });
            let mut row = classify(info, loaded, safe_mode);
            if row.kind == PluginKind::Python {
                row.interpreter = Some(interpreter.clone());
            }
            if row.kind == PluginKind::Native
                && row.state == PluginState::Loaded
                && let Some(library) = row.library.clone()
            {
                describe(&mut row, inspector.inspect(&library));
            }
            row
        })
        .collect();
    let mut warnings = listing.warnings;
    for warning in python.into_iter().flat_map(|python| python.warnings) {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    (rows, warnings)
}

/// `config` with `plugins.enabled` replaced by `keys`.
fn only_enabled(config: &Config, keys: &[String]) -> Config {
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

/// The row for `info` of the listing; `loaded` is the same plugin in the
/// discovery that loaded Python plugins. An enabled native plugin comes out
/// `Loaded`, to be confirmed by the inspector.
fn classify(info: &PluginInfo, loaded: Option<&PluginInfo>, safe_mode: bool) -> PluginRow {
    let mut row = PluginRow {
        key: info.key.clone(),
        name: info.name.clone(),
        kind: info.kind,
        source: info.source.as_str(),
        dir: info.dir.clone(),
        library: info.library.clone(),
        required: info.required,
        state: PluginState::Disabled,
        reason: None,
        hooks: Vec::new(),
        prompt_sections: Vec::new(),
        abi_version: None,
        interpreter: None,
    };
    let status = match (&info.status, loaded) {
        (PluginStatus::SafeMode, Some(loaded)) if !safe_mode => &loaded.status,
        (status, _) => status,
    };
    (row.state, row.reason) = match status {
        // Skipped: not a hook plugin (a memory or model provider), listed only.
        PluginStatus::Disabled
        | PluginStatus::NotEnabled
        | PluginStatus::SafeMode
        | PluginStatus::Skipped(_) => (PluginState::Disabled, Some(status.to_string())),
        PluginStatus::Invalid(reason) | PluginStatus::Failed(reason) => {
            (PluginState::Failed, Some(reason.clone()))
        }
        PluginStatus::Loaded => (PluginState::Loaded, None),
        // A status this build does not know: not proven to be running, so a finding.
        other => (PluginState::Failed, Some(other.to_string())),
    };
    // Discovery ran with loading off: an enabled native plugin reads "safe mode".
    if !safe_mode && info.kind == PluginKind::Native && info.status == PluginStatus::SafeMode {
        (row.state, row.reason) = (PluginState::Loaded, None);
    }
    if let Some(loaded) = loaded.filter(|l| l.status == PluginStatus::Loaded) {
        row.hooks = loaded.hooks.clone();
        row.prompt_sections = loaded.sections.clone();
    }
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
            row.prompt_sections = description
                .prompt_sections
                .into_iter()
                .map(|section| section.id)
                .collect();
        }
        Err(error) => {
            row.state = PluginState::Failed;
            row.reason = Some(error.to_string());
        }
    }
}
