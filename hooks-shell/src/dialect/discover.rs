//! Which files are imported (`hooks_from:` in `config.yaml`) and what is in
//! them. Never fails: a bad file or entry is a warning naming the file and
//! the field, an unknown event skips that event, and the rest loads.

use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::pyvalue::type_name;
use hermes_hooks_core::{Config, ConfigWarning, HookEvent};
use serde_json::Value;

use hermes_hooks_process::sandbox::{Profile, Sandbox};

mod dedup;
mod disable;
mod import_list;
mod lost_guards;
mod moved_folder;
mod scope;
mod standard;
mod unwrapped;

use super::entries::Reader;
use super::events::{event_mapping, event_names};
use super::file::{Unread, read_document};
use super::guards::{BrokenFile, GuardDown, broken_file};
use super::matcher::Condition;
use super::user_dirs::UserDirs;
use super::{Dialect, EventMapping, ImportedHook, Scope};
use crate::guard_record::{
    Remembered, line_prefixes, recall, remember, remember_guards, unwritten_warning,
};
use crate::sandboxing::{SandboxDefaults, sandbox_field};
use dedup::dedup;
use disable::disabled;
pub use import_list::imports_or_remembers;
use scope::scope_of;
use standard::standard_files;
use unwrapped::{has_event_keys, without_hooks_key};

/// A handler of a type hooks cannot run (`prompt`, `agent`, `mcp_tool`):
/// listed, warned about, never silently skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unsupported {
    /// The format of its file.
    pub dialect: Dialect,
    /// Its file.
    pub source: PathBuf,
    /// Its place in the file.
    pub key: String,
    /// Its event, as the file names it.
    pub their_event: String,
    /// Its `type`.
    pub kind: String,
    /// The mapping of its event.
    pub mapping: EventMapping,
    /// Its group's matcher, as configured (`None`: every call).
    pub matcher: Option<String>,
    /// Its `if` rule.
    pub condition: Option<Condition>,
    /// `failClosed` / `fail_closed` on a tool gate: since it cannot run, the
    /// calls it matches are blocked rather than left unguarded.
    pub fail_closed: bool,
}

/// What `hooks_from:` imports.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Discovery {
    /// Every runnable handler, in file order (those of events Hermes never fires too).
    pub hooks: Vec<ImportedHook>,
    /// Handlers of unsupported types.
    pub unsupported: Vec<Unsupported>,
    /// Files read, with their format.
    pub files: Vec<(Dialect, PathBuf)>,
    /// Files whose `disableAllHooks: true` turned their tool's standard hooks off.
    pub disabled_by: Vec<PathBuf>,
    /// Problems, each naming file and field.
    pub warnings: Vec<ConfigWarning>,
    /// Files that gave no hooks: unreadable, unparsable, or without their `hooks` key.
    pub broken_files: Vec<BrokenFile>,
    /// Fail-closed guards that cannot run as written: each blocks every call of its event.
    pub guards_down: Vec<GuardDown>,
}

/// One file to read.
pub(super) struct Source {
    pub(super) dialect: Dialect,
    /// The project its hooks run for (`CLAUDE_PROJECT_DIR`).
    pub(super) project: PathBuf,
    pub(super) path: PathBuf,
    pub(super) cwd: PathBuf,
    pub(super) plugin_root: Option<PathBuf>,
    /// The user's file or the project's.
    pub(super) scope: Scope,
    /// Standard files may be missing; an explicit one may not.
    explicit: bool,
    /// Codex's `config.toml`.
    toml: bool,
    /// The sandbox its hooks run in.
    pub(super) sandbox: Sandbox,
    /// Whose default profile its hooks get (`ImportedHook::sandbox_scope`).
    pub(super) sandbox_scope: Scope,
    /// Secret stores beside the documented ones.
    pub(super) sandbox_secrets: Vec<PathBuf>,
}

impl Source {
    /// Whether the file exists only to hold hooks (a `hooks.json`, a file
    /// named by `path:` other than a settings file or `config.toml`), so a
    /// missing `hooks` key is a mistake rather than a file with no hooks yet.
    fn hooks_file(&self) -> bool {
        let name = self.path.file_name().map(|n| n.to_string_lossy());
        !self.toml && !name.is_some_and(|name| name.starts_with("settings"))
    }
}

/// Reads `hooks_from:` of `config` and every file it names. `project` is the
/// project directory (`hooks --project`, default the current directory);
/// `user_home` the user's home, where `~/.claude` and friends live (the
/// environment's `CLAUDE_CONFIG_DIR` and `CODEX_HOME` are not read: see
/// [`discover_in`]).
pub fn discover(config: &Config, project: &Path, user_home: Option<&Path>) -> Discovery {
    discover_in(config, project, &UserDirs::under(user_home))
}

/// [`discover`] with the user's folders `user` (in production
/// [`UserDirs::from_env`]: `$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`, the home).
pub fn discover_in(config: &Config, project: &Path, user: &UserDirs) -> Discovery {
    let mut discovery = Discovery::default();
    let read = read_list(config, project, user, &mut discovery);
    import_list::keep_lost_imports(config, &mut discovery, &read);
    dedup(&mut discovery.hooks);
    discovery
}

/// Reads every file `hooks_from:` names into `discovery`; returns the
/// formats it names.
fn read_list(
    config: &Config,
    project: &Path,
    user: &UserDirs,
    discovery: &mut Discovery,
) -> Vec<Dialect> {
    let mut read = Vec::new();
    let items = match config.get("hooks_from") {
        None | Some(Value::Null) => return read,
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(one)) => vec![Value::String(one.clone())],
        Some(other) => {
            discovery.warnings.push(config.warning(
                "hooks_from",
                format!(
                    "hooks_from must be a list of claude, codex, cursor or {{format, path}}; got {}; nothing imported",
                    type_name(other)
                ),
            ));
            return read;
        }
    };
    let (defaults, warnings) = SandboxDefaults::from_config(config);
    discovery.warnings.extend(warnings);
    for (index, item) in items.iter().enumerate() {
        let key = format!("hooks_from[{index}]");
        if let Some(name) = item.as_str()
            && let Some(folded) = super::look_alikes::folded(name)
            && Dialect::parse(&folded).is_some()
        {
            let warning = super::look_alikes::warning("hooks_from format", name, &folded);
            discovery
                .warnings
                .push(config.warning(key.clone(), warning));
        }
        let chosen = match item {
            Value::Object(entry) => match sandbox_field(entry) {
                None => None,
                Some(Ok(sandbox)) => Some(sandbox),
                Some(Err(message)) => {
                    discovery.warnings.push(config.warning(
                        format!("{key}.sandbox"),
                        format!("{key}.sandbox: {message}; its hooks run under strict"),
                    ));
                    Some(Sandbox::new(Profile::Strict))
                }
            },
            _ => None,
        };
        match sources_of(item, project, user) {
            Ok(mut sources) => {
                for source in &mut sources {
                    let scope = scope_of(&source.path, project, user);
                    source.sandbox = chosen.clone().unwrap_or_else(|| defaults.of(scope).clone());
                    source.sandbox_scope = scope;
                    source.sandbox_secrets = defaults.secrets.clone();
                }
                let standard = sources.iter().any(|source| !source.explicit);
                // A CLAUDE_CONFIG_DIR or CODEX_HOME that is no folder: said, not dropped.
                let dialect = sources.first().map(|source| source.dialect);
                let moved_away = dialect
                    .filter(|_| standard)
                    .and_then(|d| user.missing_folder(d));
                discovery.warnings.extend(moved_away);
                let before = discovery.hooks.len();
                let marks = (
                    (before, discovery.unsupported.len()),
                    discovery.guards_down.len(),
                );
                for source in &sources {
                    read.push(source.dialect);
                    read_source(source, config.home(), discovery);
                }
                // `$CODEX_HOME` unset or moved since a guard was read there.
                if let Some(dialect) = dialect.filter(|_| standard) {
                    let places = (project, user);
                    moved_folder::keep_guards_moved_away(config, places, dialect, discovery, marks);
                }
                disable::ignored_in_paths(&sources, discovery);
                if standard && let Some(widest) = disabled(&sources, discovery) {
                    // managed > user > project: a project file turns off its
                    // project's hooks only, never the user's own.
                    let read = discovery.hooks.split_off(before);
                    let kept = read
                        .into_iter()
                        .filter(|hook| widest == Scope::Project && hook.scope == Scope::User);
                    discovery.hooks.extend(kept);
                }
            }
            Err(message) => discovery.warnings.push(config.warning(key, message)),
        }
    }
    read
}

fn sources_of(item: &Value, project: &Path, user: &UserDirs) -> Result<Vec<Source>, String> {
    let user_home = user.home();
    match item {
        Value::String(name) => {
            let dialect = Dialect::parse(name).ok_or_else(|| {
                format!("unknown hook format '{name}' in hooks_from (known: claude, codex, cursor); skipped")
            })?;
            Ok(standard_files(dialect, project, user))
        }
        Value::Object(entry) => {
            let format = entry.get("format").and_then(Value::as_str).unwrap_or("");
            let dialect = Dialect::parse(format).ok_or_else(|| {
                format!("hooks_from entry needs format: claude, codex or cursor (got '{format}'); skipped")
            })?;
            let Some(Value::String(path)) = entry.get("path") else {
                return Err("hooks_from entry needs a path: FILE; skipped".to_owned());
            };
            let path = PathBuf::from(expand_tilde(path));
            let path = if path.is_relative() {
                project.join(path)
            } else {
                path
            };
            // A plugin's `hooks/hooks.json`: the plugin root is the folder above `hooks/`.
            let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let plugin_root = (parent.file_name().is_some_and(|name| name == "hooks"))
                .then(|| parent.parent().map(Path::to_path_buf))
                .flatten();
            let toml = path.extension().is_some_and(|ext| ext == "toml");
            // `<dir>/.claude/settings.json` belongs to the project `<dir>` (unless
            // `<dir>` is the user's home): its hooks run there, as in that project.
            let owner = (parent
                .file_name()
                .is_some_and(|name| [".claude", ".codex", ".cursor"].iter().any(|n| name == *n)))
            .then(|| parent.parent().map(Path::to_path_buf))
            .flatten()
            .filter(|owner| Some(owner.as_path()) != user_home);
            let project = owner.unwrap_or_else(|| project.to_owned());
            let inside = |dir: &Path| path.starts_with(dir) && Some(dir) != user_home;
            let scope = if inside(&project) {
                Scope::Project
            } else {
                Scope::User
            };
            Ok(vec![Source {
                scope,
                dialect,
                cwd: project.clone(),
                project,
                path,
                plugin_root,
                explicit: true,
                toml,
                sandbox: Sandbox::NONE,
                sandbox_scope: Scope::User,
                sandbox_secrets: Vec::new(),
            }])
        }
        other => Err(format!(
            "hooks_from entries are claude, codex, cursor or {{format, path}}; got {}; skipped",
            type_name(other)
        )),
    }
}

fn read_source(source: &Source, home: &Path, discovery: &mut Discovery) {
    let warnings_from = discovery.warnings.len();
    // A config.toml cut at a line still parses (R12-4): told by its record.
    let toml_text = source
        .toml
        .then(|| line_prefixes::read_text(&source.path, super::file::MAX_FILE_BYTES))
        .flatten();
    let own = line_prefixes::OWN_GUARDS;
    if let Some(problem) = toml_text
        .as_deref()
        .and_then(|text| line_prefixes::cut(home, &source.path, own, text))
    {
        return broken(source, home, discovery, problem, None);
    }
    let root = match read_document(&source.path, source.toml) {
        Ok((root, twice)) => {
            // Read as Claude Code reads it (the last wins), but said: a guard
            // a second key dropped is lost, not taken out (`lost_guards`).
            for key in twice.iter().filter(|key| key.starts_with("hooks")) {
                let message =
                    format!("the key {key} is given more than once; only the last is read");
                warn_file(discovery, source, key, message);
            }
            root
        }
        Err(Unread::Missing) if !source.explicit => return gone(source, home, discovery),
        Err(Unread::Missing) => {
            return broken(source, home, discovery, "does not exist".into(), None);
        }
        Err(Unread::Failed(problem)) => return broken(source, home, discovery, problem, None),
    };
    discovery.files.push((source.dialect, source.path.clone()));
    if !root.is_object() {
        // `null`, a list, a string: no setting can be read from it (R9-3).
        let problem = format!("is not a JSON object (got {})", type_name(&root));
        return broken(source, home, discovery, problem, None);
    }
    let hooks = match root.get("hooks") {
        Some(Value::Object(hooks)) => hooks,
        None if !source.hooks_file() && !has_event_keys(source, &root) => {
            // A settings file without hooks: nothing to guard. (One whose
            // top-level keys are event names lost its wrapper: as a hooks file.)
            // A failClosed guard elsewhere in it is one it cannot run (R10-4).
            if let Some(problem) = lost_guards::stray_fail_closed(&root) {
                let tool_gate = Some(vec![HookEvent::PreToolCall]);
                return broken(source, home, discovery, problem, tool_gate);
            }
            if source.toml && lost_guards::guarded_before(home, &source.path) {
                // TOML has no closing brace: a file cut at a line still
                // parses (R11-5). Only `hooks = {}` takes the guards out.
                let problem = "has no hooks table, though it had failClosed guards at its last \
                               good read (was it cut off? to take them out, write hooks = {})";
                return broken(source, home, discovery, problem.to_owned(), None);
            }
            // Nothing to guard: a record that cannot be written loses nothing.
            let _ = remember(home, &source.path, &[]);
            return;
        }
        None => return without_hooks_key(source, home, discovery, &root),
        Some(other) => {
            let problem = format!(
                "has a \"hooks\" that is not an object of event names (got {})",
                type_name(other)
            );
            return broken(source, home, discovery, problem, None);
        }
    };
    super::top_level::cursor_version(source, &root, discovery);
    let env = super::top_level::settings_env(source, &root, discovery);
    let before = (discovery.hooks.len(), discovery.unsupported.len());
    let down_before = discovery.guards_down.len();
    read_events(source, home, discovery, hooks, &env);
    lost_guards::stray_guards(source, &root, discovery);
    let guarded = lost_guards::fail_closed_guards(discovery, before, down_before);
    let guarded = lost_guards::keep_lost_guards(source, home, discovery, guarded, warnings_from);
    if let Err(why) = remember_guards(home, &source.path, &guarded)
        && !guarded.is_empty()
    {
        let message = unwritten_warning(&source.path, &why);
        warn_file(discovery, source, "", message);
    }
    if let Some(text) = &toml_text
        && let Err(message) =
            line_prefixes::remember(home, &source.path, own, text, !guarded.is_empty())
    {
        warn_file(discovery, source, "", message);
    }
}

/// A standard file that is not there (deleted or moved, or its folder
/// was), which had fail-closed guards at its last good read (red team
/// R46-1: read as "no guards", without a word). The user's (or the managed
/// scope's) keeps blocking what they guarded, as an emptied file does; a
/// project's is the project's own choice to drop them, told once.
fn gone(source: &Source, home: &Path, discovery: &mut Discovery) {
    let guarded = match recall(home, &source.path) {
        Remembered::Guarded(events) => !events.is_empty(),
        Remembered::Unreadable(_) => true,
        Remembered::Never => false,
    };
    if !guarded {
        return;
    }
    if source.scope == Scope::Project {
        let message = "is gone (deleted or moved), and with it the failClosed hooks it had at \
                       its last good read: they no longer run"
            .to_owned();
        warn_file(discovery, source, "", message);
        // Told once: the project's files are the project's to change.
        let _ = remember(home, &source.path, &[]);
        return;
    }
    let problem = "is gone (deleted or moved, or its folder was), though it had failClosed \
                   hooks at its last good read; restore it, or write {} there to take them out"
        .to_owned();
    broken(source, home, discovery, problem, None);
}

/// Records a file that gave no hooks, its warning and the blocks it puts in place.
fn broken(
    source: &Source,
    home: &Path,
    discovery: &mut Discovery,
    problem: String,
    found: Option<Vec<HookEvent>>,
) {
    let (file, warning) = broken_file(
        home,
        source.dialect,
        &source.path,
        problem,
        source.explicit,
        found,
    );
    discovery.warnings.push(ConfigWarning::new(
        source.path.clone(),
        String::new(),
        format!("({} hooks) {warning}", source.dialect),
    ));
    discovery.guards_down.extend(file.guards_down());
    discovery.broken_files.push(file);
}

/// A warning about `key` of `source`'s file.
fn warn_file(discovery: &mut Discovery, source: &Source, key: &str, message: String) {
    discovery.warnings.push(ConfigWarning::new(
        source.path.clone(),
        key.to_owned(),
        format!("({} hooks) {message}", source.dialect),
    ));
}

/// Reads the event lists of one file's `hooks` object.
fn read_events(
    source: &Source,
    home: &Path,
    discovery: &mut Discovery,
    hooks: &serde_json::Map<String, Value>,
    env: &[(String, String)],
) {
    let mut reader = Reader {
        source,
        project: &source.project,
        home,
        discovery,
        env,
    };
    for (event, groups) in hooks {
        let key = format!("hooks.{event}");
        // `Pre\u{422}oolUse`: read as the event it looks like (round 75).
        let folded = super::look_alikes::folded(event)
            .filter(|folded| event_mapping(source.dialect, folded).is_some());
        if let Some(folded) = &folded {
            let message = super::look_alikes::warning("event", event, folded);
            warn_file(reader.discovery, source, &key, message);
        }
        let event = folded.as_deref().unwrap_or(event);
        let Some(mapping) = event_mapping(source.dialect, event) else {
            let message = format!(
                "unknown {} event '{event}'; its hooks are skipped (known: {})",
                source.dialect,
                event_names(source.dialect).join(", ")
            );
            warn_file(reader.discovery, source, &key, message);
            continue;
        };
        let Value::Array(groups) = groups else {
            let message = format!("{key} must be a list; got {}", type_name(groups));
            warn_file(reader.discovery, source, &key, message);
            continue;
        };
        for (index, group) in groups.iter().enumerate() {
            reader.group(event, mapping, &format!("{key}[{index}]"), group);
        }
    }
}
