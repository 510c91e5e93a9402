//! Registering every discovered plugin, native and Python, into a host's
//! [`Callbacks`] and [`PromptSections`], and guarding `plugins.required`.
//!
//! Each hook becomes one hooks-core callback, in load order, so order, merge
//! rules, timeouts, the fail-closed `pre_tool_call`, streaming queues and
//! prompt budgets all come from the core. A plugin listed in
//! `plugins.required` that is not running gets a `pre_tool_call` callback that
//! blocks every tool call with a message naming it: a guard never vanishes
//! unnoticed.

use std::path::Path;
use std::sync::Arc;

use hermes_hooks_callbacks::{CallbackError, Callbacks, Joint};
use hermes_hooks_core::catalog::RunPolicy;
use hermes_hooks_core::prompt::{PromptSections, SectionContent};
use hermes_hooks_core::{Config, ConfigWarning, EventName};
use serde_json::json;

use crate::discover::{
    DiscoverOptions, Discovery, PluginInfo, PluginKind, PluginStatus, PythonPlugin, discover_with,
};
use crate::manifest::warning;
use crate::python::{InterpreterStatus, PythonHost};
use crate::settings::EnabledLists;

/// What [`register_plugins`] did: every plugin's status, the interpreter and the warnings.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct PluginRegistration {
    /// Every plugin found, in discovery order, with its status, hooks and sections.
    pub plugins: Vec<PluginInfo>,
    /// The Python interpreter and why it was chosen, when Python plugins were to run.
    pub interpreter: Option<InterpreterStatus>,
    /// Required plugins that are not running, with why: each blocks every `pre_tool_call`.
    pub blocking: Vec<(String, String)>,
    /// Every problem, once: discovery, failed loads, refused sections.
    pub warnings: Vec<ConfigWarning>,
}

impl PluginRegistration {
    /// Enabled plugins that failed to load or register.
    pub fn failures(&self) -> impl Iterator<Item = &PluginInfo> {
        self.plugins
            .iter()
            .filter(|info| matches!(info.status, PluginStatus::Failed(_)))
    }
}

/// Discovers the plugins of `home` (options from the environment) and
/// registers them into `callbacks` and `sections`.
pub fn register_plugins(
    home: &Path,
    config: &Config,
    callbacks: &Callbacks,
    sections: &PromptSections,
) -> PluginRegistration {
    register_plugins_with(
        home,
        config,
        DiscoverOptions::from_env(),
        callbacks,
        sections,
    )
}

/// [`register_plugins`] with explicit discovery options.
pub fn register_plugins_with(
    home: &Path,
    config: &Config,
    options: DiscoverOptions,
    callbacks: &Callbacks,
    sections: &PromptSections,
) -> PluginRegistration {
    let discovery = discover_with(home, config, options);
    register_discovery(discovery, config, callbacks, sections)
}

/// Registers what `discovery` loaded into `callbacks` and `sections`, in load order.
pub fn register_discovery(
    discovery: Discovery,
    config: &Config,
    callbacks: &Callbacks,
    sections: &PromptSections,
) -> PluginRegistration {
    let mut registration = PluginRegistration {
        interpreter: discovery.interpreter.clone(),
        warnings: discovery.warnings,
        ..PluginRegistration::default()
    };
    if let Some(status) = &registration.interpreter {
        tracing::info!("Python plugins run with {status}");
    }
    // Every call into the Python worker is bounded by the callback timeout,
    // inline events included.
    for python in &discovery.python {
        python
            .host
            .set_call_timeout(callbacks.settings().callback_timeout);
    }
    let mut found = discovery.found;
    for key in &discovery.load_order {
        if let Some(native) = discovery.plugins.iter().find(|p| p.key() == key) {
            for hook in native.hooks() {
                let plugin = Arc::clone(native);
                callbacks.register(hook, native.name(), move |event| {
                    plugin
                        .call(event)
                        .map_err(|error| CallbackError::new("PluginError", error.to_string()))
                });
            }
            for refused in native.register_prompt_sections(sections) {
                registration.warnings.push(warning(
                    native.library(),
                    "",
                    format!(
                        "plugin '{}': system prompt section not registered: {refused}",
                        native.name()
                    ),
                ));
            }
        } else if let Some(python) = discovery.python.iter().find(|p| p.spec.key == *key) {
            let refused = register_python(python, callbacks, sections, &mut registration.warnings);
            if let Some(info) = found.iter_mut().find(|info| info.key == *key) {
                info.sections.retain(|id| !refused.contains(id));
            }
        }
    }
    let lists = EnabledLists::from_config(config, &mut Vec::new());
    registration.blocking = guard_required(&lists, &found, &discovery.python, callbacks);
    for (name, reason) in &registration.blocking {
        registration.warnings.push(config.warning(
            "plugins.required",
            format!(
                "required plugin '{name}' is not running ({reason}): every tool call is blocked"
            ),
        ));
    }
    for (key, reason) in lists.unreadable_required() {
        // A guard list that cannot be read never fails open: every tool call
        // is blocked until the list is fixed.
        let message = format!(
            "{reason} ({}): tool calls are blocked until plugins.required lists plugin names",
            config.path().display()
        );
        callbacks.register("pre_tool_call", key, move |_event| {
            Ok(Some(json!({"action": "block", "message": message})))
        });
        // discovery already warned about the key (config.yaml and the key named).
        registration.blocking.push((key.clone(), reason.clone()));
    }
    registration.plugins = found;
    registration
}

/// Registers one Python plugin's hooks and sections; returns the section ids refused.
fn register_python(
    python: &PythonPlugin,
    callbacks: &Callbacks,
    sections: &PromptSections,
    warnings: &mut Vec<ConfigWarning>,
) -> Vec<String> {
    let owner = python.spec.name.as_str();
    let queued = python.report.hooks.iter().any(|hook| {
        EventName::parse(&hook.event)
            .hook()
            .is_some_and(|event| event.meta().run == RunPolicy::Queued)
    });
    if queued {
        // Queued events are posted to the worker without waiting (pipelined
        // observers): flush and shutdown also wait until the worker ran them.
        let host = Arc::clone(&python.host);
        callbacks.register_settled(move || host.observers_settled());
    }
    // Members of the worker's joint: the consecutive Python callbacks of a
    // bounded event go to the worker as one request (`python/joint.rs`).
    let joint: Arc<dyn Joint> = Arc::clone(&python.host) as Arc<dyn Joint>;
    for hook in &python.report.hooks {
        callbacks.register_joint(&hook.event, owner, Arc::clone(&joint), &hook.callback);
    }
    let mut refused = Vec::new();
    for section in &python.report.sections {
        let content = match (&section.text, &section.callback) {
            (Some(text), _) => SectionContent::text(text.clone()),
            (None, Some(callback)) => {
                let host = Arc::clone(&python.host);
                let callback = callback.clone();
                SectionContent::function(move |info| host.section(&callback, info))
            }
            (None, None) => continue,
        };
        if let Err(error) = sections.register(
            owner,
            &section.id,
            content,
            &section.position,
            section.max_chars,
        ) {
            let file = Path::new(&python.spec.path);
            warnings.push(warning(
                file,
                "",
                format!("plugin '{owner}': system prompt section not registered: {error}"),
            ));
            refused.push(section.id.clone());
        }
    }
    refused
}

/// Adds a blocking `pre_tool_call` callback for each required plugin that is
/// not running, and a live check for each required Python plugin (its worker
/// may die and its reload fail later). Returns those blocking now, with why.
fn guard_required(
    lists: &EnabledLists,
    found: &[PluginInfo],
    python: &[PythonPlugin],
    callbacks: &Callbacks,
) -> Vec<(String, String)> {
    let mut blocking = Vec::new();
    for required in lists.required() {
        let info = found
            .iter()
            .find(|info| info.key == required || info.name == required);
        let reason = match info.map(|info| &info.status) {
            Some(PluginStatus::Loaded) => None,
            Some(status) => Some(status.to_string()),
            None => Some("not installed".to_owned()),
        };
        let name = info.map_or(required, |info| info.name.as_str()).to_owned();
        match reason {
            Some(reason) => {
                let message = block_message(&name, &reason);
                callbacks.register("pre_tool_call", &name, move |_event| {
                    Ok(Some(json!({"action": "block", "message": message})))
                });
                blocking.push((name, reason));
            }
            None if info.is_some_and(|info| info.kind == PluginKind::Python) => {
                let Some(plugin) = python
                    .iter()
                    .find(|p| Some(&p.spec.key) == info.map(|i| &i.key))
                else {
                    continue;
                };
                let host: Arc<PythonHost> = Arc::clone(&plugin.host);
                let key = plugin.spec.key.clone();
                callbacks.register("pre_tool_call", &name.clone(), move |_event| {
                    Ok(host.failure(&key).map(|reason| {
                        json!({"action": "block", "message": block_message(&name, &reason)})
                    }))
                });
            }
            None => {}
        }
    }
    blocking
}

fn block_message(name: &str, reason: &str) -> String {
    format!(
        "required plugin '{name}' is not running ({reason}); tool calls are blocked until it loads (plugins.required in config.yaml)"
    )
}
