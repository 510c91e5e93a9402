//! Finding gateway hooks: `<home>/hooks/<name>/` folders holding a `HOOK.yaml`
//! and a handler (`handler.py`, or an executable named `handler`).
//!
//! Discovery reads files only; it never runs a handler. It never fails as a
//! whole: every folder that cannot be used becomes a [`GatewayWarning`] and the
//! others still load.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use crate::manifest::parse_manifest;
use crate::options::GatewayPython;

/// The folder under the Hermes home that holds gateway hooks.
pub const HOOKS_DIR: &str = "hooks";
/// The manifest file of a hook folder.
pub const MANIFEST_FILE: &str = "HOOK.yaml";
/// The Python handler file of a hook folder.
pub const PYTHON_HANDLER_FILE: &str = "handler.py";
/// The executable handler file of a hook folder (any language, no extension).
pub const EXECUTABLE_HANDLER_FILE: &str = "handler";

/// How a hook's handler is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HandlerKind {
    /// `handler.py`, run in a persistent Python worker process.
    Python,
    /// An executable `handler`, run once per event.
    Executable,
}

impl HandlerKind {
    /// The handler's file name inside the hook folder.
    pub const fn file_name(self) -> &'static str {
        match self {
            HandlerKind::Python => PYTHON_HANDLER_FILE,
            HandlerKind::Executable => EXECUTABLE_HANDLER_FILE,
        }
    }

    /// A short label for listings (`python`, `executable`).
    pub const fn as_str(self) -> &'static str {
        match self {
            HandlerKind::Python => "python",
            HandlerKind::Executable => "executable",
        }
    }
}

impl fmt::Display for HandlerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One usable gateway hook, as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayHookInfo {
    /// The hook's name (`name:` in HOOK.yaml, else the folder name).
    pub name: String,
    /// The `description:` of HOOK.yaml (empty when absent).
    pub description: String,
    /// The subscribed event names and `<namespace>:*` patterns, in declared order.
    pub events: Vec<String>,
    /// The hook folder.
    pub dir: PathBuf,
    /// How the handler runs.
    pub handler: HandlerKind,
    /// Whether the handler was imported once at discovery and how that went.
    pub status: HookStatus,
}

/// What the trial import at discovery found about a hook's handler.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HookStatus {
    /// Not checked: an executable handler, or discovery without a trial import.
    #[default]
    Unchecked,
    /// `handler.py` imported and defines `handle`.
    Ready,
    /// `handler.py` could not be imported (or the interpreter could not start);
    /// the hook stays off.
    Broken {
        /// The error, e.g. `SyntaxError: invalid syntax (handler.py, line 2)`.
        error: String,
    },
}

impl HookStatus {
    /// The error of a broken hook.
    pub fn error(&self) -> Option<&str> {
        match self {
            HookStatus::Broken { error } => Some(error),
            HookStatus::Unchecked | HookStatus::Ready => None,
        }
    }

    /// A short label for listings: `unchecked`, `ready`, `broken`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            HookStatus::Unchecked => "unchecked",
            HookStatus::Ready => "ready",
            HookStatus::Broken { .. } => "broken",
        }
    }
}

impl GatewayHookInfo {
    /// The handler file (`<dir>/handler.py` or `<dir>/handler`).
    pub fn handler_path(&self) -> PathBuf {
        self.dir.join(self.handler.file_name())
    }
}

/// A problem found during discovery, naming the file and, when it applies, the field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayWarning {
    /// The folder or file the problem is in.
    pub path: PathBuf,
    /// The HOOK.yaml field, e.g. `events` or `events[2]`, when the problem is in one.
    pub field: Option<String>,
    /// What is wrong and what was done about it.
    pub message: String,
    /// Whether the hook was skipped because of it (else it loaded anyway).
    pub skipped: bool,
}

impl GatewayWarning {
    pub(crate) fn skip(path: &Path, field: Option<&str>, message: impl Into<String>) -> Self {
        GatewayWarning {
            path: path.to_path_buf(),
            field: field.map(str::to_owned),
            message: message.into(),
            skipped: true,
        }
    }

    pub(crate) fn note(path: &Path, field: Option<&str>, message: impl Into<String>) -> Self {
        GatewayWarning {
            skipped: false,
            ..GatewayWarning::skip(path, field, message)
        }
    }
}

impl fmt::Display for GatewayWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)?;
        if self.skipped {
            f.write_str(" (hook skipped)")?;
        }
        Ok(())
    }
}

/// What discovery found under one Hermes home.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Discovery {
    /// The Hermes home that was scanned.
    pub home: PathBuf,
    /// `<home>/hooks`.
    pub hooks_dir: PathBuf,
    /// The usable hooks, in folder-name order.
    pub hooks: Vec<GatewayHookInfo>,
    /// Skipped folders and other problems, in the order found.
    pub warnings: Vec<GatewayWarning>,
    /// The interpreter that runs (and trial-imported) the `handler.py` hooks;
    /// `None` until [`crate::check_handlers`] ran.
    pub python: Option<GatewayPython>,
}

impl Discovery {
    /// The interpreter that runs `hook`: `None` for an executable handler, or
    /// when it was not resolved.
    pub fn interpreter_for(&self, hook: &GatewayHookInfo) -> Option<&GatewayPython> {
        match hook.handler {
            HandlerKind::Python => self.python.as_ref(),
            HandlerKind::Executable => None,
        }
    }
}

/// Scans `<home>/hooks` for gateway hooks. A missing folder means no hooks.
///
/// Reads files only; [`crate::check_handlers`] then imports each `handler.py`
/// once to find the broken ones. Every warning is also logged through `tracing`.
pub fn discover(home: &Path) -> Discovery {
    let hooks_dir = home.join(HOOKS_DIR);
    let mut discovery = Discovery {
        home: home.to_path_buf(),
        hooks_dir: hooks_dir.clone(),
        ..Discovery::default()
    };
    let entries = match std::fs::read_dir(&hooks_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return discovery,
        Err(error) => {
            discovery.warnings.push(GatewayWarning::skip(
                &hooks_dir,
                None,
                format!("cannot read the hooks folder: {error}"),
            ));
            log_warnings(&discovery.warnings);
            return discovery;
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    dirs.sort();

    for dir in dirs {
        match load_hook(&dir, &mut discovery.warnings) {
            Ok(hook) => {
                if discovery.hooks.iter().any(|known| known.name == hook.name) {
                    discovery.warnings.push(GatewayWarning::note(
                        &dir.join(MANIFEST_FILE),
                        Some("name"),
                        format!("another hook is also named '{}'; both run", hook.name),
                    ));
                }
                tracing::info!(
                    hook = %hook.name,
                    handler = %hook.handler,
                    "[hooks] Loaded hook '{}' for events: {:?}",
                    hook.name,
                    hook.events
                );
                discovery.hooks.push(hook);
            }
            Err(warning) => discovery.warnings.push(warning),
        }
    }
    log_warnings(&discovery.warnings);
    discovery
}

fn log_warnings(warnings: &[GatewayWarning]) {
    for warning in warnings {
        tracing::warn!("[hooks] {warning}");
    }
}

/// Loads one hook folder; `Err` is the reason it was skipped.
fn load_hook(
    dir: &Path,
    notes: &mut Vec<GatewayWarning>,
) -> Result<GatewayHookInfo, GatewayWarning> {
    // `metadata` follows symlinks, as the reference's `is_dir()` does.
    if !std::fs::metadata(dir).is_ok_and(|meta| meta.is_dir()) {
        return Err(GatewayWarning::skip(dir, None, "not a directory"));
    }
    let dir_name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest_path = dir.join(MANIFEST_FILE);
    if !manifest_path.is_file() {
        return Err(GatewayWarning::skip(dir, None, "no HOOK.yaml"));
    }
    let handler = find_handler(dir)?;
    let text = hermes_hooks_core::config::read_capped(&manifest_path).map_err(|error| {
        GatewayWarning::skip(
            &manifest_path,
            None,
            format!("cannot read HOOK.yaml: {error}"),
        )
    })?;
    let manifest = parse_manifest(&manifest_path, &text, &dir_name, notes)?;
    if !manifest.enabled {
        return Err(GatewayWarning::skip(
            &manifest_path,
            Some("enabled"),
            "disabled by `enabled: false`",
        ));
    }
    if handler == HandlerKind::Python {
        check_python_handler(&dir.join(PYTHON_HANDLER_FILE))?;
        if dir.join(EXECUTABLE_HANDLER_FILE).is_file() {
            notes.push(GatewayWarning::note(
                &dir.join(EXECUTABLE_HANDLER_FILE),
                None,
                "ignored: handler.py takes precedence over an executable `handler`",
            ));
        }
    }
    Ok(GatewayHookInfo {
        name: manifest.name,
        description: manifest.description,
        events: manifest.events,
        dir: dir.to_path_buf(),
        handler,
        status: HookStatus::Unchecked,
    })
}

/// `handler.py` wins (an existing Hermes home works as is); else an executable `handler`.
fn find_handler(dir: &Path) -> Result<HandlerKind, GatewayWarning> {
    if dir.join(PYTHON_HANDLER_FILE).is_file() {
        return Ok(HandlerKind::Python);
    }
    let executable = dir.join(EXECUTABLE_HANDLER_FILE);
    match std::fs::metadata(&executable) {
        Ok(meta) if meta.is_file() && is_executable(&meta) => Ok(HandlerKind::Executable),
        Ok(meta) if meta.is_file() => Err(GatewayWarning::skip(
            &executable,
            None,
            "`handler` is not executable (chmod +x it)",
        )),
        _ => Err(GatewayWarning::skip(
            dir,
            None,
            "no handler.py and no executable `handler`",
        )),
    }
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

/// Skips a `handler.py` that cannot define `handle`, without running it.
///
/// The reference imports the module at discovery and skips it when `handle` is
/// missing; we import lazily, so this catches the plain case (the word `handle`
/// appears nowhere and nothing is star-imported). Anything subtler is caught
/// when the worker starts, and logged then.
fn check_python_handler(path: &Path) -> Result<(), GatewayWarning> {
    static MAY_DEFINE_HANDLE: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = MAY_DEFINE_HANDLE
        .get_or_init(|| Regex::new(r"\bhandle\b|\bimport\s+\*").ok())
        .as_ref();
    let bytes = std::fs::read(path).map_err(|error| {
        GatewayWarning::skip(path, None, format!("cannot read handler.py: {error}"))
    })?;
    let text = String::from_utf8_lossy(&bytes);
    match pattern {
        Some(pattern) if !pattern.is_match(&text) => Err(GatewayWarning::skip(
            path,
            Some("handle"),
            "no 'handle' function found",
        )),
        _ => Ok(()),
    }
}
