//! Which files are imported (`hooks_from:` in `config.yaml`) and what is in
//! them. Never fails: a bad file or entry is a warning naming the file and
//! the field, an unknown event skips that event, and the rest loads.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;
use hermes_hooks_core::pyvalue::type_name;
use hermes_hooks_core::{Config, ConfigWarning};
use serde_json::Value;

use super::entries::Reader;
use super::events::{event_mapping, event_names};
use super::matcher::Condition;
use super::{Dialect, EventMapping, ImportedHook, Scope};

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
}

/// Reads `hooks_from:` of `config` and every file it names. `project` is the
/// project directory (`hooks --project`, default the current directory);
/// `user_home` the user's home, where `~/.claude` and friends live.
pub fn discover(config: &Config, project: &Path, user_home: Option<&Path>) -> Discovery {
    let mut discovery = Discovery::default();
    let items = match config.get("hooks_from") {
        None | Some(Value::Null) => return discovery,
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
            return discovery;
        }
    };
    for (index, item) in items.iter().enumerate() {
        let key = format!("hooks_from[{index}]");
        match sources_of(item, project, user_home) {
            Ok(sources) => {
                let standard = sources.iter().any(|source| !source.explicit);
                let before = discovery.hooks.len();
                for source in &sources {
                    read_source(source, config.home(), &mut discovery);
                }
                if standard && let Some(widest) = disabled(&sources, &mut discovery) {
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
    dedup(&mut discovery.hooks);
    discovery
}

fn sources_of(
    item: &Value,
    project: &Path,
    user_home: Option<&Path>,
) -> Result<Vec<Source>, String> {
    match item {
        Value::String(name) => {
            let dialect = Dialect::parse(name).ok_or_else(|| {
                format!("unknown hook format '{name}' in hooks_from (known: claude, codex, cursor); skipped")
            })?;
            Ok(standard_files(dialect, project, user_home))
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
            }])
        }
        other => Err(format!(
            "hooks_from entries are claude, codex, cursor or {{format, path}}; got {}; skipped",
            type_name(other)
        )),
    }
}

fn standard_files(dialect: Dialect, project: &Path, user_home: Option<&Path>) -> Vec<Source> {
    let source = |path: PathBuf, cwd: &Path, toml: bool| Source {
        scope: if user_home.is_some_and(|home| path.starts_with(home)) && !path.starts_with(project)
        {
            Scope::User
        } else {
            Scope::Project
        },
        dialect,
        project: project.to_owned(),
        path,
        cwd: cwd.to_owned(),
        plugin_root: None,
        explicit: false,
        toml,
    };
    let mut sources = Vec::new();
    let folder = match dialect {
        Dialect::Claude => ".claude",
        Dialect::Codex => ".codex",
        Dialect::Cursor => ".cursor",
    };
    let mut bases: Vec<&Path> = user_home.into_iter().collect();
    if user_home != Some(project) {
        bases.push(project);
    }
    for base in bases {
        let dir = base.join(folder);
        let is_user = Some(base) == user_home && base != project;
        match dialect {
            Dialect::Claude => {
                sources.push(source(dir.join("settings.json"), project, false));
                if !is_user {
                    sources.push(source(dir.join("settings.local.json"), project, false));
                }
            }
            Dialect::Codex => {
                sources.push(source(dir.join("hooks.json"), project, false));
                sources.push(source(dir.join("config.toml"), project, true));
            }
            // User hooks run from ~/.cursor, project hooks from the project root.
            Dialect::Cursor => {
                let cwd = if is_user {
                    dir.clone()
                } else {
                    project.to_owned()
                };
                sources.push(source(dir.join("hooks.json"), &cwd, false));
            }
        }
    }
    sources
}

/// The widest scope whose Claude settings file among `sources` says
/// `disableAllHooks: true` (`None`: none does). Each is warned about, saying
/// what it turns off.
fn disabled(sources: &[Source], discovery: &mut Discovery) -> Option<Scope> {
    let mut widest = None;
    for source in sources.iter().filter(|s| s.dialect == Dialect::Claude) {
        let Ok(text) = hermes_hooks_core::config::read_capped(&source.path) else {
            continue;
        };
        let flag = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|root| root.get("disableAllHooks").and_then(Value::as_bool));
        if flag != Some(true) {
            continue;
        }
        let message = match source.scope {
            Scope::Project => {
                "disableAllHooks is true in this project file: it turns off this project's \
                 Claude Code hooks only; your own (~/.claude) and managed hooks still run"
            }
            Scope::User => {
                "disableAllHooks is true in your own settings: no Claude Code hook is \
                 imported (yours or the project's)"
            }
        };
        discovery.warnings.push(ConfigWarning::new(
            source.path.clone(),
            "disableAllHooks".to_owned(),
            message.to_owned(),
        ));
        discovery.disabled_by.push(source.path.clone());
        if widest != Some(Scope::User) {
            widest = Some(source.scope);
        }
    }
    widest
}

fn read_source(source: &Source, home: &Path, discovery: &mut Discovery) {
    let warn = |discovery: &mut Discovery, key: &str, message: String| {
        discovery.warnings.push(ConfigWarning::new(
            source.path.clone(),
            key.to_owned(),
            format!("({} hooks) {message}", source.dialect),
        ));
    };
    let text = match hermes_hooks_core::config::read_capped(&source.path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && !source.explicit => return,
        Err(error) => {
            return warn(
                discovery,
                "",
                format!("cannot be read: {error}; nothing imported from it"),
            );
        }
    };
    let root = if source.toml {
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => serde_json::to_value(table).unwrap_or(Value::Null),
            Err(error) => {
                let message = error
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or("invalid")
                    .to_owned();
                return warn(
                    discovery,
                    "",
                    format!("is not valid TOML ({message}); nothing imported from it"),
                );
            }
        }
    } else {
        match serde_json::from_str::<Value>(&text) {
            Ok(root) => root,
            Err(error) => {
                return warn(
                    discovery,
                    "",
                    format!("is not valid JSON ({error}); nothing imported from it"),
                );
            }
        }
    };
    discovery.files.push((source.dialect, source.path.clone()));
    let hooks = match root.get("hooks") {
        None | Some(Value::Null) => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            return warn(
                discovery,
                "hooks",
                format!(
                    "hooks must be an object of event names; got {}",
                    type_name(other)
                ),
            );
        }
    };
    let mut reader = Reader {
        source,
        project: &source.project,
        home,
        discovery,
    };
    for (event, groups) in hooks {
        let key = format!("hooks.{event}");
        let Some(mapping) = event_mapping(source.dialect, event) else {
            let message = format!(
                "unknown {} event '{event}'; its hooks are skipped (known: {})",
                source.dialect,
                event_names(source.dialect).join(", ")
            );
            warn(reader.discovery, &key, message);
            continue;
        };
        let Value::Array(groups) = groups else {
            warn(
                reader.discovery,
                &key,
                format!("{key} must be a list; got {}", type_name(groups)),
            );
            continue;
        };
        for (index, group) in groups.iter().enumerate() {
            reader.group(event, mapping, &format!("{key}[{index}]"), group);
        }
    }
}

/// Identical handlers across files run once (Claude Code dedups settings files).
fn dedup(hooks: &mut Vec<ImportedHook>) {
    let mut seen = HashSet::new();
    hooks.retain(|hook| {
        seen.insert((
            hook.dialect,
            hook.their_event.clone(),
            hook.matcher.describe(),
            hook.condition.clone(),
            hook.consent_command(),
        ))
    });
}
