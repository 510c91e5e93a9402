//! Which sandbox each hook runs in, from `config.yaml`, and preparing it
//! for one run (the enforcement is hooks-core's process supervisor,
//! [`hermes_hooks_process::sandbox`]).
//!
//! - `sandbox:` on a `hooks:` entry, or on a `hooks_from:` entry
//!   (`{format: claude, sandbox: strict}`), names the profile;
//! - otherwise the home default of the hook's scope applies:
//!   `hooks_sandbox: {user: none, project: project}` (those are the
//!   defaults): a hook from a project directory (a project's `.claude/`,
//!   `.codex/`, `.cursor/` file, or an explicit `path:` inside the project)
//!   runs under `project`; the user's own hooks (`config.yaml`, `~/.claude`)
//!   under `none`;
//! - `hooks_sandbox: {secrets: [~/.vault, ...]}` adds secret stores to the
//!   documented list ([`SECRET_STORES`](hermes_hooks_process::sandbox::SECRET_STORES)).
//!
//! A profile this machine cannot apply whole makes the run fail before it
//! starts: a fail-closed hook then blocks, a fail-open one is recorded as
//! skipped with a warning naming what is missing; `best_effort` runs it with
//! what the kernel offers.

use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::{Config, ConfigWarning};
use hermes_hooks_process::sandbox::{Context, Prepared, Sandbox, SandboxError};
use serde_json::Value;

mod denied_guard;
mod explain;
pub(crate) use denied_guard::guard_failure;
pub use explain::explain;

/// Where a hook comes from, for its default profile: the one scope of the
/// trust model (`crate::dialect::Scope`).
pub use crate::dialect::Scope;

/// The home defaults (`hooks_sandbox:`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxDefaults {
    /// For the user's own hooks (default `none`).
    pub user: Sandbox,
    /// For hooks from a project directory (default `project`).
    pub project: Sandbox,
    /// More secret stores (`~` expanded).
    pub secrets: Vec<PathBuf>,
}

impl Default for SandboxDefaults {
    fn default() -> Self {
        SandboxDefaults {
            user: Sandbox::NONE,
            project: Sandbox::new(hermes_hooks_process::sandbox::Profile::Project),
            secrets: Vec::new(),
        }
    }
}

impl SandboxDefaults {
    /// Reads `hooks_sandbox:` of `config`; a bad field keeps its default and
    /// is a warning naming it.
    pub fn from_config(config: &Config) -> (SandboxDefaults, Vec<ConfigWarning>) {
        let mut defaults = SandboxDefaults::default();
        // The loaded home's own secrets, wherever it is (`SECRET_STORES`
        // names `~/.hermes/...` only; red-team F16: `--home ~/agents/h`).
        defaults.secrets.extend(
            [".env", "auth.json", "config.yaml"]
                .iter()
                .map(|name| config.home().join(name)),
        );
        let mut warnings = Vec::new();
        let section = match config.get("hooks_sandbox") {
            None | Some(Value::Null) => return (defaults, warnings),
            Some(Value::Object(section)) => section,
            Some(other) => {
                warnings.push(config.warning(
                    "hooks_sandbox",
                    format!("hooks_sandbox must be a mapping of user/project/secrets; got {other}; defaults used"),
                ));
                return (defaults, warnings);
            }
        };
        for (key, value) in section {
            let field = format!("hooks_sandbox.{key}");
            match key.as_str() {
                "user" | "project" => match Sandbox::from_value(value) {
                    Ok(sandbox) if key == "user" => defaults.user = sandbox,
                    Ok(sandbox) => defaults.project = sandbox,
                    Err(message) => warnings
                        .push(config.warning(&field, format!("{field}: {message}; default kept"))),
                },
                "secrets" => match value {
                    Value::Array(items) => {
                        for item in items {
                            match item {
                                Value::String(path) => {
                                    defaults.secrets.push(PathBuf::from(expand_tilde(path)));
                                }
                                other => warnings.push(config.warning(
                                    &field,
                                    format!("{field} must list paths (got {other}); skipped"),
                                )),
                            }
                        }
                    }
                    other => warnings.push(config.warning(
                        &field,
                        format!("{field} must be a list of paths (got {other}); ignored"),
                    )),
                },
                other => warnings.push(config.warning(
                    &field,
                    format!(
                        "unknown key hooks_sandbox.{other} (known: user, project, secrets); ignored"
                    ),
                )),
            }
        }
        (defaults, warnings)
    }

    /// The default of `scope`.
    pub fn of(&self, scope: Scope) -> &Sandbox {
        match scope {
            Scope::User => &self.user,
            Scope::Project => &self.project,
        }
    }
}

/// Reads a `sandbox:` key of an entry: `None` when absent; an error message
/// (for a warning naming the field) when it is not a profile.
pub fn sandbox_field(entry: &serde_json::Map<String, Value>) -> Option<Result<Sandbox, String>> {
    match entry.get("sandbox") {
        None | Some(Value::Null) => None,
        Some(value) => Some(Sandbox::from_value(value)),
    }
}

/// The hook's own files among the words of its command: each existing path
/// (a script's folder, or a folder named as such), so a script that reads
/// or sources its siblings keeps working.
pub fn own_files<'a>(words: impl IntoIterator<Item = &'a str>, base: &Path) -> Vec<PathBuf> {
    let mut own = Vec::new();
    for word in words {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        if !(word.contains('/')) {
            continue;
        }
        let path = PathBuf::from(expand_tilde(word));
        let path = if path.is_relative() {
            base.join(path)
        } else {
            path
        };
        let folder = if path.is_dir() {
            Some(path)
        } else if path.is_file() {
            path.parent().map(Path::to_path_buf)
        } else {
            None
        };
        if let Some(folder) = folder.filter(|folder| folder.parent().is_some())
            && !own.contains(&folder)
        {
            own.push(folder);
        }
    }
    own
}

/// Prepares `sandbox` for one run: the context is the project, the hook's
/// own files, the user's home (`$HOME`) and the extra secret stores.
pub fn prepare(
    sandbox: &Sandbox,
    project: &Path,
    own: Vec<PathBuf>,
    secrets: &[PathBuf],
) -> Result<Option<Prepared>, SandboxError> {
    prepare_with(sandbox, project, own, Vec::new(), secrets)
}

/// [`prepare`], with folders the hook's own tool lets it write.
pub fn prepare_with(
    sandbox: &Sandbox,
    project: &Path,
    own: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    secrets: &[PathBuf],
) -> Result<Option<Prepared>, SandboxError> {
    prepare_tree(sandbox, project, own, writable, secrets, &[], false)
}

/// [`prepare_with`] for a hook whose checked tree has `tree_roots`: a root
/// that is a link in the project is kept pointing where it points while the
/// hook runs, as a linked tool folder always is
/// ([`hermes_hooks_process::sandbox::pinned_links`]). A hook that
/// `fails_closed` has its network attempts recorded by the kernel (its
/// stderr may say nothing: `denied_guard.rs`).
pub(crate) fn prepare_tree(
    sandbox: &Sandbox,
    project: &Path,
    own: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    secrets: &[PathBuf],
    tree_roots: &[PathBuf],
    fails_closed: bool,
) -> Result<Option<Prepared>, SandboxError> {
    if sandbox.is_none() {
        return Ok(None);
    }
    let mut context = Context::new(project);
    context.own_files = own;
    context.own_writable = writable;
    context.secrets = secrets.to_vec();
    context.tree_roots = tree_roots.to_vec();
    context.record_denials = fails_closed;
    sandbox.prepare(&context)
}

/// What an imported hook's own tool lets it reach beyond its files, for
/// `event`: the transcript folder (read), the `CLAUDE_ENV_FILE` folder and
/// `CLAUDE_PLUGIN_DATA` (write), a project hook's compiled Python
/// modules' folder (write, `crate::bytecode`) and its cargo and tox
/// folder (write, `crate::build_folders`). Only existing folders: the
/// rules open them.
pub fn imported_tool_paths(
    hook: &crate::ImportedHook,
    event: &hermes_hooks_core::Event,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let claude = hook.home.join("plugin-data").join("claude");
    let read: Vec<PathBuf> = [claude.join("transcripts")]
        .into_iter()
        .filter(|dir| dir.is_dir())
        .collect();
    let write: Vec<PathBuf> = crate::dialect::exec::env_file(hook, event)
        .and_then(|file| file.parent().map(Path::to_path_buf))
        .into_iter()
        .chain(hook.plugin_data())
        .chain(crate::bytecode::project_folder(hook))
        .chain(crate::build_folders::sandboxed_folder(hook))
        .filter(|dir| dir.is_dir())
        .collect();
    (read, write)
}

/// The message of a run that did not start because its sandbox could not be
/// prepared (what the record and the warning say).
pub fn unavailable_message(error: &SandboxError) -> String {
    format!("not run: {error}")
}

/// Marks `result` as run in `sandbox`; a spawn that failed in a sandbox
/// says the sandbox could not be applied (the child fails before `execve`).
pub(crate) fn note(result: &mut crate::run::RunResult, sandbox: Option<String>) {
    if let (Some(name), Some(error)) = (&sandbox, &result.error) {
        result.error = Some(format!(
            "{error} (in sandbox '{name}': the sandbox could not be applied, or denied the command)"
        ));
    }
    result.sandbox = sandbox;
}

/// The record of a run, completed with its sandbox: the profile's name; a
/// run that did not start because its profile cannot be applied here is
/// skipped with a warning naming what is missing (unless it `blocks`: a
/// fail-closed hook's failure stays a failure, and blocks); a run says
/// which accesses its stderr shows the sandbox denied, and one that
/// `blocks` only because of such a denial (`guard_failure`) is failed.
pub fn annotate(
    mut run: hermes_hooks_core::HookRun,
    result: &crate::run::RunResult,
    blocks: bool,
) -> hermes_hooks_core::HookRun {
    use hermes_hooks_core::RunStatus;
    run = run.sandbox(result.sandbox.as_deref());
    if result.sandbox_unavailable {
        let why = result.error.clone().unwrap_or_default();
        if blocks {
            return run;
        }
        tracing::warn!("[hooks] {} skipped: {why}", run.source);
        return run.status(RunStatus::Skipped(
            why.trim_start_matches("not run: ").to_owned(),
        ));
    }
    if let Some(profile) = &result.sandbox {
        // Said whatever the status: a guard denied what it needed may
        // have answered nothing at all.
        let denied = hermes_hooks_process::sandbox::denials(&result.stderr);
        for denial in denied.iter().take(3) {
            run = run.diagnostic(format!(
                "sandbox '{profile}' denied ({}): {}",
                denial.kind, denial.line
            ));
        }
        for recorded in denied_guard::recorded(profile, result) {
            run = run.diagnostic(recorded);
        }
    }
    let failed = matches!(run.status, RunStatus::Failed | RunStatus::TimedOut);
    if let Some(note) = crate::host_env::withheld_note(result).filter(|_| failed) {
        run = run.diagnostic(note);
    }
    if blocks && !failed && denied_guard::denial_reason(result).is_some() {
        // The decision names what was denied and what to do.
        run = run
            .status(RunStatus::Failed)
            .diagnostic("failed closed: the tool call is blocked");
    }
    run
}

/// The own files of an imported hook: the folders of the paths its command
/// names, its plugin root, and the folder of the file it came from.
pub fn imported_own_files(hook: &crate::ImportedHook) -> Vec<PathBuf> {
    use crate::dialect::Handler;
    let mut words = Vec::new();
    if let Handler::Command { command, args } = &hook.handler {
        let command = hook.substitute_in_line(command);
        words.extend(command.split_whitespace().map(str::to_owned));
        words.extend(args.iter().flatten().map(|arg| hook.substitute(arg)));
    }
    let mut own = own_files(words.iter().map(String::as_str), &hook.cwd);
    own.extend(hook.plugin_root.clone());
    own.extend(hook.source.parent().map(Path::to_path_buf));
    own
}

/// The own files of a `config.yaml` shell hook (the folders its command names).
pub fn spec_own_files(spec: &crate::ShellHookSpec, project: &Path) -> Vec<PathBuf> {
    let words = crate::run::split_command(&spec.command).unwrap_or_default();
    own_files(words.iter().map(String::as_str), project)
}

/// A hook's profile made concrete, and whether this machine can apply it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Effective {
    /// The profile.
    pub sandbox: Sandbox,
    /// Its rules (`Ok(None)`: no sandbox; `Err`: a path cannot be expanded).
    pub rules: Result<Option<hermes_hooks_process::sandbox::Rules>, String>,
    /// What this machine lacks for them.
    pub missing: Vec<String>,
}

impl Effective {
    /// The effective rules of `sandbox` for a hook of `project` with `own` files.
    pub fn of(sandbox: &Sandbox, project: &Path, own: Vec<PathBuf>, secrets: &[PathBuf]) -> Self {
        let mut context = Context::new(project);
        context.own_files = own;
        context.secrets = secrets.to_vec();
        let rules = sandbox.rules(&context);
        let missing = match &rules {
            Ok(Some(rules)) => hermes_hooks_process::sandbox::Support::detect().missing(rules),
            _ => Vec::new(),
        };
        Effective {
            sandbox: sandbox.clone(),
            rules,
            missing,
        }
    }

    /// What happens to the hook here: `runs`, `runs weaker (best effort): ...`,
    /// or `cannot be applied here: missing ...`.
    pub fn verdict(&self) -> String {
        match (&self.rules, self.missing.is_empty()) {
            (Err(error), _) => format!("cannot be applied: {error}"),
            (Ok(None), _) | (Ok(Some(_)), true) => "applied".to_owned(),
            (Ok(Some(_)), false) if self.sandbox.best_effort => {
                format!("best effort, without: {}", self.missing.join(", "))
            }
            (Ok(Some(_)), false) => {
                format!(
                    "cannot be applied here: missing {}",
                    self.missing.join(", ")
                )
            }
        }
    }

    /// The `sandbox` object of `list --json`.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::json!({
            "profile": self.sandbox.name(),
            "best_effort": self.sandbox.best_effort,
            "verdict": self.verdict(),
            "missing": self.missing,
        });
        if let Ok(Some(rules)) = &self.rules {
            let paths = |paths: &[PathBuf]| -> Vec<String> {
                paths
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect()
            };
            object["read"] = serde_json::json!(paths(&rules.read));
            object["write"] = serde_json::json!(paths(&rules.write));
            object["hidden"] = serde_json::json!(paths(&rules.hidden));
            object["read_only"] = serde_json::json!(paths(&rules.read_only));
            object["pinned_links"] = serde_json::json!(paths(&rules.pinned));
            object["network"] = serde_json::json!(rules.network);
            object["private_tmp"] = serde_json::json!(rules.private_tmp);
            object["limits"] = serde_json::json!({
                "address_space_bytes": rules.limits.address_space,
                "processes": rules.limits.processes,
                "file_size_bytes": rules.limits.file_size,
            });
        }
        object
    }

    /// One line for `list`: the profile, what it lets the hook write, and the verdict.
    pub fn line(&self) -> String {
        match &self.rules {
            Ok(None) => "sandbox: none".to_owned(),
            Err(_) => format!("sandbox: {} ({})", self.sandbox.name(), self.verdict()),
            Ok(Some(rules)) => {
                let system = hermes_hooks_process::sandbox::SYSTEM_READ.len();
                let devices = hermes_hooks_process::sandbox::DEVICE_WRITE;
                let read: Vec<String> = rules
                    .read
                    .iter()
                    .skip(system)
                    .map(|path| {
                        // A command's word in /tmp names nothing the hook
                        // can reach: its private /tmp hides the host's.
                        if rules.private_tmp && path.starts_with("/tmp") {
                            format!("{} (hidden by the private /tmp)", path.display())
                        } else {
                            path.display().to_string()
                        }
                    })
                    .collect();
                let tmp = if rules.private_tmp {
                    "private /tmp"
                } else {
                    "a private TMPDIR (the host's /tmp, its sockets masked)"
                };
                let write: Vec<String> = rules
                    .write
                    .iter()
                    .filter(|path| !devices.iter().any(|device| path.as_os_str() == *device))
                    .map(|path| path.display().to_string())
                    .chain([tmp.to_owned()])
                    .collect();
                format!(
                    "sandbox: {} (read: system, {}{}; write: {}; network: {}; {})",
                    self.sandbox.name(),
                    read.join(", "),
                    if rules.hidden.is_empty() {
                        String::new()
                    } else {
                        format!(" except {} secret stores", rules.hidden.len())
                    },
                    write.join(", "),
                    if rules.network { "yes" } else { "no" },
                    self.verdict()
                )
            }
        }
    }
}

/// Profiles a host sets per source, over what `config.yaml` says
/// (`HostOptions::sandbox_*` in the facade).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxOverrides {
    /// For every shell hook of `config.yaml`.
    pub config_hooks: Option<Sandbox>,
    /// For the hooks of one `hooks_from:` file (its path as discovered).
    pub sources: Vec<(PathBuf, Sandbox)>,
    /// For every other imported hook.
    pub imported: Option<Sandbox>,
}

impl SandboxOverrides {
    /// Sets the profile of `config.yaml`'s shell hooks.
    pub(crate) fn apply_to_spec(&self, spec: &mut crate::ShellHookSpec) {
        if let Some(sandbox) = &self.config_hooks {
            spec.sandbox = sandbox.clone();
        }
    }

    /// Sets the profile of an imported hook: its file's, else every imported hook's.
    pub(crate) fn apply_to_imported(&self, hook: &mut crate::ImportedHook) {
        let by_file = self
            .sources
            .iter()
            .find(|(path, _)| *path == hook.source)
            .map(|(_, sandbox)| sandbox);
        if let Some(sandbox) = by_file.or(self.imported.as_ref()) {
            hook.sandbox = sandbox.clone();
        }
    }
}
