//! Plugins found in a home, read with the runtime's own discovery and loading
//! switched off: manifests only, no plugin code in this process.
//!
//! What an enabled plugin registers comes from a trial load: `doctor` runs
//! one per plugin in a child process ([`super::trial`]), all at once, and
//! keeps the result in the home's cache ([`super::cache`]), keyed by a hash of
//! the plugin's files; `list` shows that result while the files are
//! unchanged, else "not inspected yet". The only Python `list` may start is
//! the one that lists pip-installed plugins (entry points: package metadata,
//! no plugin code), and only when `plugins.enabled` names a plugin no folder
//! answers, exactly when the runtime starts its worker to look for one.

use std::path::{Path, PathBuf};

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::interpreter::PythonInterpreter;
use hermes_hooks_plugin::{DiscoverOptions, PluginInfo, PluginSource, PluginStatus, PythonHost};
use serde_json::{Value, json};

pub use hermes_hooks_plugin::discover::PluginKind;

use super::Probe;
use super::cache::{Cache, fingerprint};
use super::trial::{Job, TrialResult};
use crate::home::Home;

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
    /// It is enabled; nothing has trial-loaded it since its files last
    /// changed (`hooks doctor` does), so what it registers is unknown.
    NotInspected,
}

impl PluginState {
    /// `loaded`, `disabled`, `failed` or `not_inspected`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginState::Loaded => "loaded",
            PluginState::Disabled => "disabled",
            PluginState::Failed => "failed",
            PluginState::NotInspected => "not_inspected",
        }
    }
}

/// One plugin folder and what it does.
#[derive(Debug, Clone)]
#[non_exhaustive]
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
    /// What the trial load warned about (unknown hooks, refused sections).
    pub trial_warnings: Vec<String>,
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
            "key": self.key,
            "required": self.required,
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

/// The message of a plugin nothing has trial-loaded yet.
pub const NOT_INSPECTED: &str = "not inspected yet (run `hooks doctor` to trial-load it)";

/// The plugins of `home`, as the runtime's discovery finds them. With
/// [`Probe::Trial`] every enabled plugin is trial-loaded in a child process
/// and the results go to `cache`; with [`Probe::Static`] they come from it.
/// The second value holds the warnings (naming file and field), including
/// every way the runtime would treat the plugins differently from what the
/// config says (a required plugin that will not run, an enabled one that does
/// not exist, a hook name not in the catalog).
pub fn scan(home: &Home, probe: &Probe, cache: &mut Cache) -> (Vec<PluginRow>, Vec<ConfigWarning>) {
    let options = DiscoverOptions::from_env();
    let safe_mode = options.safe_mode;
    // Loading switched off: manifests only. Each plugin the runtime would load reads "safe mode".
    let mut listing = hermes_hooks_plugin::list_only(&home.path, &home.config, &options);
    let mut warnings = std::mem::take(&mut listing.warnings);
    let mut found = listing.found;
    let interpreter = options
        .python
        .clone()
        .unwrap_or_else(PythonInterpreter::resolve);
    if !safe_mode {
        add_entry_points(home, &interpreter, cache, &mut found, &mut warnings);
    }
    let python = interpreter.to_string();
    let mut rows: Vec<PluginRow> = found.iter().map(|info| row(info, safe_mode)).collect();
    let pending: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].state == PluginState::NotInspected)
        .collect();
    let requires = super::requires::requirements(&rows);
    super::requires::order_warnings(&rows, &requires, &pending, &mut warnings);
    let closures: Vec<Vec<usize>> = pending
        .iter()
        .map(|&i| super::requires::closure(&rows, &requires, &pending, i))
        .collect();
    // A trial loads the plugin with what it requires: all of their files count.
    let prints: Vec<Option<String>> = pending
        .iter()
        .zip(&closures)
        .map(|(&i, with)| plugin_fingerprint(&rows, i, with, &python))
        .collect();
    match probe {
        Probe::Static => {
            for (&i, print) in pending.iter().zip(&prints) {
                let cached = print
                    .as_deref()
                    .and_then(|print| cache.get(&cache_key(&rows[i]), print))
                    .and_then(TrialResult::from_json);
                if let Some(result) = cached {
                    apply(&mut rows[i], &result);
                }
            }
        }
        Probe::Trial(trials) => {
            let jobs: Vec<Job> = pending
                .iter()
                .zip(&closures)
                .map(|(&i, with)| job(&rows[i], with.iter().map(|&j| rows[j].key.clone())))
                .collect();
            // Past a shim when its real interpreter is known; else learn it from a child.
            let (program, mut learn) = super::interpreter::through_cache(&interpreter, cache);
            let mut trials = trials.clone();
            if learn.is_none() && program.program != interpreter.program {
                trials.python = Some(program.program.clone());
            }
            let python_jobs = jobs.iter().filter(|j| matches!(j, Job::Python(..))).count();
            // Several children would each run the shim: run it once, here.
            if python_jobs > 1
                && let Some(entry) = learn.take()
            {
                match super::interpreter::ask_shim(&interpreter, trials.timeout) {
                    Some(real) => {
                        super::interpreter::remember(cache, entry, &real);
                        trials.python = Some(real);
                    }
                    None => learn = Some(entry),
                }
            }
            let results = super::trial::run_all(&trials, &home.path, &jobs);
            if let Some(entry) = learn
                && let Some(executable) = results.iter().find_map(|r| r.executable.as_deref())
            {
                super::interpreter::remember(cache, entry, Path::new(executable));
            }
            for ((&i, print), result) in pending.iter().zip(&prints).zip(results) {
                apply(&mut rows[i], &result);
                if let Some(print) = print {
                    cache.put(cache_key(&rows[i]), print.clone(), result.to_json());
                }
            }
        }
    }
    for row in &mut rows {
        if row.kind == PluginKind::Python && row.interpreter.is_none() {
            row.interpreter = Some(python.clone());
        }
    }
    super::findings::plugins(home, &rows, &found, &mut warnings);
    (rows, warnings)
}

/// Adds the pip-installed plugins when `plugins.enabled` names one no folder
/// answers, as the runtime does (one Python start, no plugin code).
fn add_entry_points(
    home: &Home,
    interpreter: &PythonInterpreter,
    cache: &mut Cache,
    found: &mut Vec<PluginInfo>,
    warnings: &mut Vec<ConfigWarning>,
) {
    let mut ignored = Vec::new();
    let lists =
        hermes_hooks_plugin::settings::EnabledLists::from_config(&home.config, &mut ignored);
    let unmatched: Vec<&str> = lists
        .enabled()
        .filter(|name| !found.iter().any(|i| i.key == *name || i.name == *name))
        .collect();
    if unmatched.is_empty() {
        return;
    }
    // Past a shim when an earlier run learnt what it starts.
    let (program, learn) = super::interpreter::through_cache(interpreter, cache);
    let points = PythonHost::start(&home.path, program)
        .map_err(|status| status.to_string())
        .and_then(|host| {
            if let (Some(entry), Some(executable)) = (learn, &host.status().executable) {
                super::interpreter::remember(cache, entry, Path::new(executable));
            }
            host.entry_points()
        });
    let points = match points {
        Ok(points) => points,
        Err(reason) => {
            warnings.push(home.config.warning(
                "plugins.enabled",
                format!(
                    "cannot look for pip-installed plugins named {}: {reason}",
                    unmatched.join(", ")
                ),
            ));
            return;
        }
    };
    for (name, value) in points {
        let status = if lists.disables(&name, &name) {
            PluginStatus::Disabled
        } else if lists.enables(&name, &name) {
            PluginStatus::SafeMode
        } else {
            PluginStatus::NotEnabled
        };
        let dir = PathBuf::from(&value);
        let mut info = PluginInfo::new(
            &name,
            PluginKind::Python,
            PluginSource::EntryPoint,
            dir,
            status,
        );
        info.enabled = lists.enables(&name, &name);
        info.required = lists.requires(&name, &name);
        // A later source wins on a key collision, as in the runtime.
        match found.iter().position(|f| f.key == name) {
            Some(at) => found[at] = info,
            None => found.push(info),
        }
    }
}

/// The row of `info` before any trial: the listing's verdict, an enabled
/// plugin pending.
fn row(info: &PluginInfo, safe_mode: bool) -> PluginRow {
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
        trial_warnings: Vec::new(),
    };
    (row.state, row.reason) = match &info.status {
        // The listing ran in safe mode: this one would load.
        PluginStatus::SafeMode if !safe_mode => {
            (PluginState::NotInspected, Some(NOT_INSPECTED.to_owned()))
        }
        // Skipped: not a hook plugin (a memory or model provider), listed only.
        status @ (PluginStatus::Disabled
        | PluginStatus::NotEnabled
        | PluginStatus::SafeMode
        | PluginStatus::Skipped(_)) => (PluginState::Disabled, Some(status.to_string())),
        PluginStatus::Invalid(reason) | PluginStatus::Failed(reason) => {
            (PluginState::Failed, Some(reason.clone()))
        }
        PluginStatus::Loaded => (PluginState::Loaded, None),
        // A status this build does not know: not proven to be running, so a finding.
        other => (PluginState::Failed, Some(other.to_string())),
    };
    row
}

/// The row with what a trial load found.
fn apply(row: &mut PluginRow, result: &TrialResult) {
    row.hooks = result.hooks.clone();
    row.prompt_sections = result.sections.clone();
    row.abi_version = result.abi_version;
    row.trial_warnings = result.warnings.clone();
    // The worker's own account (with `sys.executable` and the version) when it started.
    row.interpreter = result.interpreter.clone();
    (row.state, row.reason) = if result.loaded {
        (PluginState::Loaded, None)
    } else {
        (
            PluginState::Failed,
            Some(result.error.clone().unwrap_or_else(|| "failed".to_owned())),
        )
    };
}

fn job(row: &PluginRow, with: impl Iterator<Item = String>) -> Job {
    match (&row.kind, &row.library) {
        (PluginKind::Native, Some(library)) => Job::Native(library.clone()),
        _ => Job::Python(row.key.clone(), with.collect()),
    }
}

fn cache_key(row: &PluginRow) -> String {
    format!("plugin:{}:{}", row.source, row.key)
}

/// What a trial of `rows[index]` depends on: its folder (and library), those
/// of the plugins loaded with it, and for a Python plugin the interpreter. An
/// entry point has no folder to hash.
fn plugin_fingerprint(
    rows: &[PluginRow],
    index: usize,
    with: &[usize],
    interpreter: &str,
) -> Option<String> {
    let row = &rows[index];
    let mut paths: Vec<&Path> = Vec::new();
    for part in std::iter::once(index).chain(with.iter().copied()) {
        let part = &rows[part];
        if part.source == PluginSource::EntryPoint.as_str() {
            return None;
        }
        paths.push(&part.dir);
        if let Some(library) = &part.library {
            paths.push(library);
        }
    }
    let extra = match row.kind {
        PluginKind::Python => format!("python\0{interpreter}"),
        _ => "native".to_owned(),
    };
    fingerprint(&paths, &extra)
}
