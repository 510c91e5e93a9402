//! Loading what the scan found, native and Python alike, in one load order.
//!
//! The home's Python worker starts only when something needs it: a Python
//! plugin to load, or a `plugins.enabled` name no folder answers (it may be a
//! pip-installed plugin, which only Python can look up). Entry points then
//! join the candidates, winning over a folder with the same key.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermes_hooks_core::Config;
use hermes_hooks_core::interpreter::PythonInterpreter;

use crate::discover::{
    DiscoverOptions, Discovery, PluginInfo, PluginKind, PluginSource, PluginStatus, PythonPlugin,
};
use crate::manifest::warning;
use crate::order::{OrderEntry, load_order};
use crate::plugin::NativePlugin;
use crate::python::{PluginSpec, PythonHost};
use crate::scan::{Candidate, Load, gate};
use crate::settings::EnabledLists;

/// The load error of every Python plugin in a build without the `python` feature.
pub(crate) const NEEDS_PYTHON_FEATURE: &str =
    "this build cannot load Python plugins: they need the `python` feature of hermes-hooks-plugin";

/// Starts the worker if needed, adds entry points, orders and loads every candidate.
pub(crate) fn load_all(
    home: &Path,
    config: &Config,
    lists: &EnabledLists,
    options: &DiscoverOptions,
    mut candidates: Vec<Candidate>,
    discovery: &mut Discovery,
) {
    let has_python = candidates
        .iter()
        .any(|candidate| matches!(candidate.load, Load::Python(_)));
    let unmatched: Vec<&str> = lists
        .enabled()
        .filter(|name| {
            !discovery
                .found
                .iter()
                .any(|info| info.key == *name || info.name == *name)
        })
        .collect();
    // Without the `python` feature no worker ever starts (each Python plugin
    // then fails to load, saying why, in `load_python`).
    let host = if !cfg!(feature = "python")
        || options.safe_mode
        || (!has_python && unmatched.is_empty())
    {
        None
    } else {
        let interpreter = options
            .python
            .clone()
            .unwrap_or_else(PythonInterpreter::resolve);
        match PythonHost::start(home, interpreter) {
            Ok(host) => {
                discovery.interpreter = Some(host.status().clone());
                Some(host)
            }
            Err(status) => {
                let reason = status.to_string();
                if !has_python {
                    discovery.warnings.push(config.warning(
                        "plugins.enabled",
                        format!(
                            "cannot look for pip-installed plugins named {}: {reason}",
                            unmatched.join(", ")
                        ),
                    ));
                }
                discovery.interpreter = Some(status);
                None
            }
        }
    };
    if let Some(host) = &host {
        add_entry_points(host, config, lists, &mut candidates, discovery);
        for name in lists.enabled() {
            let found = discovery
                .found
                .iter()
                .any(|i| i.key == name || i.name == name);
            if !found {
                discovery.warnings.push(config.warning(
                    "plugins.enabled",
                    format!(
                        "plugin '{name}' is enabled but not installed (no plugin folder or pip-installed entry point has that name)"
                    ),
                ));
            }
        }
    }
    let order = ordered(candidates, discovery);
    for candidate in order {
        load_one(candidate, host.as_ref(), discovery);
    }
}

/// Adds the pip-installed plugins; an enabled one becomes a candidate.
fn add_entry_points(
    host: &Arc<PythonHost>,
    config: &Config,
    lists: &EnabledLists,
    candidates: &mut Vec<Candidate>,
    discovery: &mut Discovery,
) {
    let points = match host.entry_points() {
        Ok(points) => points,
        Err(error) => {
            discovery.warnings.push(config.warning(
                "plugins.enabled",
                format!("cannot list pip-installed plugins (entry points): {error}"),
            ));
            return;
        }
    };
    for (name, value) in points {
        let mut info = PluginInfo {
            key: name.clone(),
            name: name.clone(),
            kind: PluginKind::Python,
            source: PluginSource::EntryPoint,
            dir: PathBuf::from(&value),
            description: String::new(),
            version: String::new(),
            library: None,
            enabled: lists.enables(&name, &name),
            required: lists.requires(&name, &name),
            status: PluginStatus::NotEnabled,
            hooks: Vec::new(),
            sections: Vec::new(),
        };
        // A later source wins on a key collision: the entry point replaces the folder.
        let index = match discovery.found.iter().position(|found| found.key == name) {
            Some(index) => {
                candidates.retain(|candidate| candidate.index != index);
                index
            }
            None => {
                discovery.found.push(info.clone());
                discovery.found.len() - 1
            }
        };
        match gate(lists, &name, &name, false) {
            Some(status) => info.status = status,
            None => candidates.push(Candidate {
                index,
                requires: Vec::new(),
                file: info.dir.clone(),
                load: Load::Python(PluginSpec {
                    key: name.clone(),
                    name: name.clone(),
                    module: String::new(),
                    source: PluginSource::EntryPoint.as_str().to_owned(),
                    path: value,
                    version: String::new(),
                    description: String::new(),
                }),
            }),
        }
        discovery.found[index] = info;
    }
}

/// The candidates in load order (`requires_plugins` first), with ordering warnings.
fn ordered(candidates: Vec<Candidate>, discovery: &mut Discovery) -> Vec<Candidate> {
    let entries: Vec<OrderEntry> = candidates
        .iter()
        .map(|candidate| {
            let info = &discovery.found[candidate.index];
            OrderEntry {
                key: info.key.clone(),
                name: info.name.clone(),
                requires: candidate.requires.clone(),
            }
        })
        .collect();
    let (order, problems) = load_order(&entries);
    for problem in problems {
        let file = problem
            .key
            .as_ref()
            .and_then(|key| {
                candidates
                    .iter()
                    .find(|c| discovery.found[c.index].key == *key)
            })
            .map_or_else(|| PathBuf::from("plugins"), |c| c.file.clone());
        discovery
            .warnings
            .push(warning(&file, "requires_plugins", problem.message));
    }
    let mut candidates = candidates;
    let mut sorted = Vec::with_capacity(order.len());
    for key in order {
        if let Some(at) = candidates
            .iter()
            .position(|c| discovery.found[c.index].key == key)
        {
            sorted.push(candidates.swap_remove(at));
        }
    }
    sorted
}

/// Loads one candidate and records the outcome in its [`PluginInfo`].
fn load_one(candidate: Candidate, host: Option<&Arc<PythonHost>>, discovery: &mut Discovery) {
    let index = candidate.index;
    let key = discovery.found[index].key.clone();
    let name = discovery.found[index].name.clone();
    let result = match candidate.load {
        Load::Native(library) => match NativePlugin::load_as(&library, Some(&key), Some(&name)) {
            Ok(plugin) => {
                for hook in plugin.unknown_hooks() {
                    discovery.warnings.push(warning(
                        &candidate.file,
                        "library",
                        format!(
                            "plugin '{key}' registered unknown hook '{hook}' (not in the event catalog); kept for forward compatibility"
                        ),
                    ));
                }
                tracing::debug!(plugin = %key, hooks = ?plugin.hooks(), "native plugin loaded");
                discovery.found[index].hooks = plugin.hooks().to_vec();
                discovery.plugins.push(Arc::new(plugin));
                Ok(())
            }
            Err(error) => Err(error.to_string()),
        },
        Load::Python(spec) => load_python(spec, host, &candidate.file, index, discovery),
    };
    let info = &mut discovery.found[index];
    match result {
        Ok(()) => {
            info.status = PluginStatus::Loaded;
            discovery.load_order.push(key);
        }
        Err(message) => {
            let (field, text) = match info.kind {
                PluginKind::Native => ("library", format!("plugin '{key}' not loaded: {message}")),
                PluginKind::Python => (
                    "",
                    format!(
                        "Python plugin '{key}' ({}) not loaded: {message}",
                        info.source.as_str()
                    ),
                ),
            };
            discovery
                .warnings
                .push(warning(&candidate.file, field, text));
            info.status = PluginStatus::Failed(message);
        }
    }
}

fn load_python(
    spec: PluginSpec,
    host: Option<&Arc<PythonHost>>,
    file: &Path,
    index: usize,
    discovery: &mut Discovery,
) -> Result<(), String> {
    if !cfg!(feature = "python") {
        return Err(NEEDS_PYTHON_FEATURE.to_owned());
    }
    let Some(host) = host else {
        let why = discovery
            .interpreter
            .as_ref()
            .map_or_else(|| "no Python worker".to_owned(), ToString::to_string);
        return Err(format!("the Python plugin worker did not start: {why}"));
    };
    let report = host.load(&spec)?;
    for message in &report.warnings {
        discovery.warnings.push(warning(file, "", message.clone()));
    }
    let info = &mut discovery.found[index];
    for hook in &report.hooks {
        if !info.hooks.contains(&hook.event) {
            info.hooks.push(hook.event.clone());
        }
    }
    info.sections = report.sections.iter().map(|s| s.id.clone()).collect();
    tracing::debug!(plugin = %spec.key, hooks = ?info.hooks, "Python plugin loaded");
    discovery.python.push(PythonPlugin {
        spec,
        report,
        host: Arc::clone(host),
    });
    Ok(())
}
