//! Discovery: every plugin of a home, native or Python, found, ordered and loaded.
//!
//! One discovery feeds both loaders, with the reference's rules: user plugins
//! (`$HERMES_HOME/plugins/`), project plugins (`./.hermes/plugins/`, only with
//! `HERMES_ENABLE_PROJECT_PLUGINS`) and pip-installed ones (entry points of the
//! group `hermes_agent.plugins`), a later source winning on a key collision.
//! Plugins are opt-in (`plugins.enabled`, by key or manifest name),
//! `plugins.disabled` always wins and `HERMES_SAFE_MODE` loads none. The load
//! order is alphabetical with `requires_plugins` first, across both kinds. A
//! Python plugin is imported and registered at discovery (in the home's
//! worker), so a broken one shows as failed before any event. Every problem is
//! a warning naming the file and the field; the other plugins still load.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermes_hooks_core::interpreter::PythonInterpreter;
use hermes_hooks_core::{Config, ConfigWarning};

use crate::load::load_all;
use crate::plugin::NativePlugin;
use crate::python::{InterpreterStatus, LoadReport, PluginSpec, PythonHost};
use crate::scan::scan;
use crate::settings::EnabledLists;

/// The plugins folder's name inside the Hermes home (and inside `./.hermes/`).
pub const PLUGINS_DIR: &str = "plugins";

/// The variable that turns on project plugins (`./.hermes/plugins/`).
pub const PROJECT_PLUGINS_ENV: &str = "HERMES_ENABLE_PROJECT_PLUGINS";

/// Switches of one discovery run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoverOptions {
    /// Load no plugin (plugins are still listed, with [`PluginStatus::SafeMode`]).
    pub safe_mode: bool,
    /// The project plugins folder to scan too (`./.hermes/plugins/`), if any.
    pub project_dir: Option<PathBuf>,
    /// The interpreter for Python plugins; `None` resolves it from the
    /// environment ([`PythonInterpreter::resolve`]) when one is needed.
    pub python: Option<PythonInterpreter>,
}

impl DiscoverOptions {
    /// Options from the environment: `HERMES_SAFE_MODE`, and
    /// `HERMES_ENABLE_PROJECT_PLUGINS` with the current directory.
    pub fn from_env() -> Self {
        let project_dir = hermes_hooks_core::home::env_flag(PROJECT_PLUGINS_ENV)
            .then(|| std::env::current_dir().ok())
            .flatten()
            .map(|cwd| cwd.join(".hermes").join(PLUGINS_DIR));
        DiscoverOptions {
            safe_mode: hermes_hooks_core::home::safe_mode(),
            project_dir,
            python: None,
        }
    }

    /// Sets whether no plugin is loaded (safe mode).
    #[must_use]
    pub fn with_safe_mode(mut self, on: bool) -> Self {
        self.safe_mode = on;
        self
    }

    /// Sets the project plugins folder to scan too.
    #[must_use]
    pub fn with_project_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_dir = Some(dir.into());
        self
    }

    /// Sets the interpreter for Python plugins.
    #[must_use]
    pub fn with_python(mut self, python: PythonInterpreter) -> Self {
        self.python = Some(python);
        self
    }
}

/// The result of discovery.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Discovery {
    /// The loaded native plugins, in load order.
    pub plugins: Vec<Arc<NativePlugin>>,
    /// The loaded Python plugins, in load order.
    pub python: Vec<PythonPlugin>,
    /// The keys of every loaded plugin, both kinds, in load order (register in this order).
    pub load_order: Vec<String>,
    /// Every plugin found, sorted by source then key, loaded or not (for `hooks list`).
    pub found: Vec<PluginInfo>,
    /// The Python interpreter, when Python plugins were to be loaded.
    pub interpreter: Option<InterpreterStatus>,
    /// Every problem met, naming the file and the field. They are logged at
    /// debug level only: reporting them is the caller's job (`hooks list`,
    /// `hooks doctor`, the host's startup log).
    pub warnings: Vec<ConfigWarning>,
}

impl Discovery {
    /// The plugin found under `key`, if any.
    pub fn info(&self, key: &str) -> Option<&PluginInfo> {
        self.found.iter().find(|info| info.key == key)
    }
}

/// A Python plugin registered in its home's worker.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PythonPlugin {
    /// What the worker imported.
    pub spec: PluginSpec,
    /// What its `register(ctx)` registered.
    pub report: LoadReport,
    /// The worker it runs in (shared by every Python plugin of the home).
    pub host: Arc<PythonHost>,
}

/// What a plugin is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginKind {
    /// A shared library speaking the C ABI.
    Native,
    /// A Python package with `register(ctx)`.
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

/// Where a plugin was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PluginSource {
    /// `$HERMES_HOME/plugins/`.
    User,
    /// `./.hermes/plugins/` (with `HERMES_ENABLE_PROJECT_PLUGINS`).
    Project,
    /// A pip-installed package's `hermes_agent.plugins` entry point.
    EntryPoint,
}

impl PluginSource {
    /// `user`, `project` or `entrypoint`, as the reference names them.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginSource::User => "user",
            PluginSource::Project => "project",
            PluginSource::EntryPoint => "entrypoint",
        }
    }
}

/// One plugin found and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginInfo {
    /// The plugin key: the folder name (`category/name` for a nested folder),
    /// or the entry point's name.
    pub key: String,
    /// The manifest name (the folder name when absent or unreadable).
    pub name: String,
    /// Native or Python.
    pub kind: PluginKind,
    /// Where it was found.
    pub source: PluginSource,
    /// The plugin folder (for an entry point: the `module:attr` it names).
    pub dir: PathBuf,
    /// The manifest's `description`.
    pub description: String,
    /// The manifest's `version`.
    pub version: String,
    /// The resolved `library` path, when the manifest gives one.
    pub library: Option<PathBuf>,
    /// Whether config.yaml enables it (listed in `plugins.enabled`, not in `plugins.disabled`).
    pub enabled: bool,
    /// Whether `plugins.required` lists it.
    pub required: bool,
    /// What happened to it.
    pub status: PluginStatus,
    /// The events it registers, when loaded.
    pub hooks: Vec<String>,
    /// The system-prompt section ids it registered, when loaded.
    pub sections: Vec<String>,
}

impl PluginInfo {
    /// A plugin found under `key` (also its name until a manifest says
    /// otherwise), not enabled, not required, with nothing registered.
    pub fn new(
        key: impl Into<String>,
        kind: PluginKind,
        source: PluginSource,
        dir: impl Into<PathBuf>,
        status: PluginStatus,
    ) -> Self {
        let key = key.into();
        PluginInfo {
            name: key.clone(),
            key,
            kind,
            source,
            dir: dir.into(),
            description: String::new(),
            version: String::new(),
            library: None,
            enabled: false,
            required: false,
            status,
            hooks: Vec::new(),
            sections: Vec::new(),
        }
    }
}

/// What discovery did with a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginStatus {
    /// Loaded; its hooks are in [`PluginInfo::hooks`].
    Loaded,
    /// Listed in `plugins.disabled`.
    Disabled,
    /// Not listed in `plugins.enabled` (plugins are opt-in).
    NotEnabled,
    /// `HERMES_SAFE_MODE` is on: nothing loads.
    SafeMode,
    /// The manifest is unusable, or names neither a `library` nor has an `__init__.py`.
    Invalid(String),
    /// Enabled, but it could not be loaded or registered.
    Failed(String),
    /// Not a hook plugin: Hermes activates it elsewhere (a memory provider
    /// through `memory.provider`, a model provider), so it is listed only.
    Skipped(String),
}

impl PluginStatus {
    /// One word for scripts: `loaded`, `disabled`, `not_enabled`, `safe_mode`,
    /// `invalid`, `failed`, `skipped`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PluginStatus::Loaded => "loaded",
            PluginStatus::Disabled => "disabled",
            PluginStatus::NotEnabled => "not_enabled",
            PluginStatus::SafeMode => "safe_mode",
            PluginStatus::Invalid(_) => "invalid",
            PluginStatus::Failed(_) => "failed",
            PluginStatus::Skipped(_) => "skipped",
        }
    }

    /// The reason, for `invalid` and `failed`.
    pub fn error(&self) -> Option<&str> {
        match self {
            PluginStatus::Invalid(reason) | PluginStatus::Failed(reason) => Some(reason),
            _ => None,
        }
    }
}

impl fmt::Display for PluginStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginStatus::Loaded => f.write_str("loaded"),
            PluginStatus::Disabled => f.write_str("disabled via config"),
            PluginStatus::NotEnabled => f.write_str("not enabled in config"),
            PluginStatus::SafeMode => f.write_str("skipped (HERMES_SAFE_MODE)"),
            PluginStatus::Invalid(reason) => write!(f, "invalid: {reason}"),
            PluginStatus::Failed(reason) => write!(f, "failed to load: {reason}"),
            PluginStatus::Skipped(reason) => write!(f, "skipped: {reason}"),
        }
    }
}

/// Discovers and loads the plugins of `home`, with options from the environment.
pub fn discover(home: &Path, config: &Config) -> Discovery {
    discover_with(home, config, DiscoverOptions::from_env())
}

/// Finds every plugin of `home` without loading any (no library opened, no
/// Python started): what `hooks list` and `hooks doctor` start from. Each
/// plugin the runtime would load reads [`PluginStatus::SafeMode`]; the rest
/// read as [`discover_with`] would report them (disabled, not enabled,
/// invalid, skipped). Pip-installed plugins need Python and are not listed.
pub fn list_only(home: &Path, config: &Config, options: &DiscoverOptions) -> Discovery {
    let mut discovery = Discovery::default();
    let lists = EnabledLists::from_config(config, &mut discovery.warnings);
    let mut roots = vec![(PluginSource::User, home.join(PLUGINS_DIR))];
    if let Some(project) = &options.project_dir {
        roots.push((PluginSource::Project, project.clone()));
    }
    // Loading off: every plugin that passes the config gate stops at "safe mode".
    let candidates = scan(&roots, &lists, true, &mut discovery);
    debug_assert!(candidates.is_empty());
    discovery
}

/// Discovers and loads the plugins of `home` with explicit options.
pub fn discover_with(home: &Path, config: &Config, options: DiscoverOptions) -> Discovery {
    let mut discovery = Discovery::default();
    let lists = EnabledLists::from_config(config, &mut discovery.warnings);
    if options.safe_mode {
        tracing::info!("HERMES_SAFE_MODE=1 — plugin discovery skipped");
    }
    let mut roots = vec![(PluginSource::User, home.join(PLUGINS_DIR))];
    if let Some(project) = &options.project_dir {
        roots.push((PluginSource::Project, project.clone()));
    }
    let scanned = scan(&roots, &lists, options.safe_mode, &mut discovery);
    load_all(home, config, &lists, &options, scanned, &mut discovery);
    tracing::debug!(
        found = discovery.found.len(),
        loaded = discovery.load_order.len(),
        warnings = discovery.warnings.len(),
        "plugin discovery complete"
    );
    for problem in &discovery.warnings {
        tracing::debug!(%problem, "plugin discovery warning");
    }
    discovery
}
