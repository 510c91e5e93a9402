//! Hooks written for other agents, run unchanged: Claude Code
//! (`.claude/settings.json`, a plugin's `hooks/hooks.json`), Codex
//! (`.codex/hooks.json`, `config.toml` `[hooks]`) and Cursor
//! (`.cursor/hooks.json`), opted into per home with `hooks_from:` in
//! `config.yaml`.
//!
//! Each dialect is a translation at the edges and nothing more: the event and
//! tool names ([`events`]), the stdin document each tool sends ([`stdin`]), the
//! replies each tool reads ([`reply`]) and the matchers ([`matcher`]). Running
//! goes through the same process supervisor and output limits as Hermes shell
//! hooks ([`exec`]), consent through the same allowlist, and the replies come
//! out in the Hermes wire shape ([`ImportedHooks`]).

mod applies;
mod call_parts;
mod calls;
pub(crate) mod code_env;
mod dead_names;
pub mod direct;
pub mod discover;
pub mod dispatch;
mod entries;
pub mod events;
pub mod exec;
pub mod file;
mod file_paths;
mod guard_rule;
mod guard_text;
pub mod guards;
pub mod http;
pub(crate) mod json_duplicates;
pub(crate) mod known_programs;
mod live_names;
pub(crate) mod look_alikes;
pub mod matcher;
mod misspelt;
mod native_matchers;
mod other_agents;
mod partly_dead;
pub(crate) mod path_rule;
mod plugin_tools;
mod read_content;
pub mod record;
pub mod reply;
mod script_folders;
pub mod session_env;
pub(crate) mod shell_words;
pub mod stdin;
mod stop;
mod subject;
mod top_level;
pub mod transcript;
pub mod user_dirs;
mod web_rule;
mod withheld;

use std::path::PathBuf;
use std::time::Duration;

use hermes_hooks_core::HookEvent;

pub use discover::{Discovery, Unsupported, discover, discover_in};
pub use dispatch::{ImportRegistration, ImportedHooks, run_imported_once, run_imported_recorded};
pub(crate) use entries::is_fail_closed_key;
pub use events::{EventMapping, ToolFilter, ToolOutcome, event_mapping};
pub use guards::{BrokenFile, GuardDown};
pub use matcher::{Condition, DialectMatcher};
pub(crate) use native_matchers::read_native_matcher;
pub(crate) use plugin_tools::declared_plugin_tools;
pub use user_dirs::UserDirs;

/// Whose hook format a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Claude Code settings and plugin `hooks/hooks.json`.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
}

impl Dialect {
    /// `claude`, `codex` or `cursor`, as `hooks_from:` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Claude => "claude",
            Dialect::Codex => "codex",
            Dialect::Cursor => "cursor",
        }
    }

    /// Parses a `hooks_from:` name.
    pub fn parse(name: &str) -> Option<Dialect> {
        // `cl\u{430}ude`: the format it looks like (round 75; `import`
        // warns about the spelling).
        let name = look_alikes::folded(name).unwrap_or_else(|| name.to_owned());
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claude_code" => Some(Dialect::Claude),
            "codex" => Some(Dialect::Codex),
            "cursor" => Some(Dialect::Cursor),
            _ => None,
        }
    }

    /// The timeout of a handler without one, in seconds, as the tool itself uses.
    pub fn default_timeout_secs(self) -> u64 {
        match self {
            Dialect::Claude | Dialect::Codex => 600,
            // Cursor does not document one; ours.
            Dialect::Cursor => crate::config::DEFAULT_TIMEOUT_SECS,
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whose file an imported hook comes from. Precedence is managed > user >
/// project: a project file's `disableAllHooks` turns off that project's
/// hooks only (see `docs/dialects.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// A file of the user's (`~/.claude/settings.json`, or a `hooks_from:`
    /// path outside the project; every standard file when the project is
    /// the user's home).
    User,
    /// A file inside the project directory (`<project>/.claude/settings.json`, ...).
    Project,
}

impl Scope {
    /// `user` or `project`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// What a handler does.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Handler {
    /// A command: shell form (`sh -c`) without `args`, exec form with them.
    Command {
        /// The command as configured.
        command: String,
        /// Exec-form arguments; `None`: shell form.
        args: Option<Vec<String>>,
    },
    /// Claude Code's `type: http`: POST the stdin document.
    Http {
        /// The URL.
        url: String,
        /// Header names and values (`$VAR` / `${VAR}` expand for `allowed_env_vars` only).
        headers: Vec<(String, String)>,
        /// The environment variables header values may expand.
        allowed_env_vars: Vec<String>,
    },
}

/// One imported handler, ready to run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportedHook {
    /// The format of the file it came from.
    pub dialect: Dialect,
    /// The file it came from.
    pub source: PathBuf,
    /// Its place in the file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub key: String,
    /// Its event, as the file names it.
    pub their_event: String,
    /// The mapping of that event (`ours: None`: never fired).
    pub mapping: EventMapping,
    /// The group's matcher.
    pub matcher: DialectMatcher,
    /// The handler's `if` rule.
    pub condition: Option<Condition>,
    /// What it runs.
    pub handler: Handler,
    /// The effective timeout (clamped to [`crate::MAX_TIMEOUT_SECS`]).
    pub timeout: Duration,
    /// The timeout asked for, in seconds, when it was clamped.
    pub timeout_clamped_from: Option<u64>,
    /// `failClosed` / `fail_closed` on a blocking event.
    pub fail_closed: bool,
    /// `async: true`: started and not waited for; its decisions are ignored (as in Claude Code).
    pub is_async: bool,
    /// The project directory (`CLAUDE_PROJECT_DIR`).
    pub project: PathBuf,
    /// Whose file it came from: the user's own, or the project's.
    pub scope: Scope,
    /// The plugin folder of a plugin's `hooks/hooks.json` (`CLAUDE_PLUGIN_ROOT`).
    pub plugin_root: Option<PathBuf>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The Hermes home (`HERMES_HOME`; the allowlist lives there).
    pub home: PathBuf,
    /// The sandbox it runs in (the `hooks_from:` entry's `sandbox:`, else
    /// `hooks_sandbox.<scope>`: `project` for a project's hooks).
    pub sandbox: hermes_hooks_process::sandbox::Sandbox,
    /// Whose default profile it gets: `Project` for a file inside the
    /// project the agent runs in (a repository's code), `User` for the
    /// user's own files (a `hooks_from:` path elsewhere, such as a settings
    /// file in the Hermes home, is `User` here even where consent binds it
    /// as its folder's project's).
    pub sandbox_scope: Scope,
    /// Secret stores beside the documented ones (`hooks_sandbox.secrets`).
    pub sandbox_secrets: Vec<PathBuf>,
    /// The `env` block of the Claude Code settings file it came from, set
    /// for this hook's process (the tool's own variables override it).
    pub settings_env: Vec<(String, String)>,
}

impl ImportedHook {
    /// The Hermes event it fires on (`None`: never fired).
    pub fn event(&self) -> Option<HookEvent> {
        self.mapping.ours
    }

    /// The command line consent is keyed on: the command with
    /// `${CLAUDE_PROJECT_DIR}` / `${CLAUDE_PLUGIN_ROOT}` substituted (so the
    /// same text in another project is another approval), exec-form arguments
    /// quoted after it; `POST <url>` for an http hook.
    pub fn consent_command(&self) -> String {
        match &self.handler {
            Handler::Command { command, args } => {
                let mut line = self.substitute_all(command, true);
                for arg in args.iter().flatten() {
                    line.push(' ');
                    let arg = self.substitute_all(arg, true);
                    line.push_str(&shlex::try_quote(&arg).unwrap_or_default());
                }
                line
            }
            Handler::Http { url, .. } => format!("POST {url}"),
        }
    }

    /// The hook as people are shown it (run records' source, messages,
    /// `hooks test`, the approve hint, `list`): [`ImportedHook::consent_command`],
    /// with an http hook's URL credentials masked (userinfo, query values,
    /// path segments that look like keys or passwords).
    pub fn shown_command(&self) -> String {
        match &self.handler {
            Handler::Http { url, .. } => {
                format!("POST {}", crate::shown_url(url))
            }
            Handler::Command { .. } => self.consent_command(),
        }
    }

    /// `text` with `${CLAUDE_PROJECT_DIR}` and `${CLAUDE_PLUGIN_ROOT}` (and
    /// Cursor's / Codex's equivalents) substituted, as Claude Code does before
    /// it runs a command; `$CLAUDE_PROJECT_DIR` is left to the shell, which
    /// finds it in the environment.
    pub fn substitute(&self, text: &str) -> String {
        self.substitute_all(text, false)
    }

    /// [`ImportedHook::substitute`] for a line `sh` reads (the shell form):
    /// a value `sh` would read as more than a word's plain characters (a
    /// quote, `$`, `;`, a blank, a glob...) is not pasted into the line but
    /// left as the `${NAME}` reference, which `sh` expands from the
    /// environment ([`ImportedHook::environment`]) without reading it as
    /// code. A project folder's name is the repository's to choose: pasted,
    /// `pkg";touch PWNED;"` ran `touch` inside the user's own guard.
    pub fn substitute_in_line(&self, line: &str) -> String {
        let project = self.project.to_string_lossy();
        let mut out = line.to_owned();
        if is_shell_inert(&project) {
            for name in PROJECT_VARS {
                out = replace_var(&out, name, &project, false);
            }
        }
        if let Some(root) = &self.plugin_root {
            let root = root.to_string_lossy();
            if is_shell_inert(&root) {
                for name in PLUGIN_VARS {
                    out = replace_var(&out, name, &root, false);
                }
            }
        }
        out
    }

    fn substitute_all(&self, text: &str, bare_too: bool) -> String {
        let project = self.project.to_string_lossy();
        let mut out = text.to_owned();
        for name in PROJECT_VARS {
            out = replace_var(&out, name, &project, bare_too);
        }
        if let Some(root) = &self.plugin_root {
            let root = root.to_string_lossy();
            for name in PLUGIN_VARS {
                out = replace_var(&out, name, &root, bare_too);
            }
        }
        out
    }

    /// The environment the tool gives its hooks: the project directory; for
    /// a plugin's hooks its folder and `CLAUDE_PLUGIN_DATA`, a data folder
    /// that outlives updates (Claude Code's `~/.claude/plugins/data/<id>`;
    /// ours [`ImportedHook::plugin_data`]); for Cursor hooks `CURSOR_VERSION`.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        let project = self.project.to_string_lossy().into_owned();
        let mut env: Vec<(&'static str, String)> = PROJECT_VARS
            .iter()
            .map(|name| (*name, project.clone()))
            .collect();
        if let Some(root) = &self.plugin_root {
            let root = root.to_string_lossy().into_owned();
            env.extend(PLUGIN_VARS.iter().map(|name| (*name, root.clone())));
        }
        if let Some(data) = self.plugin_data() {
            env.push(("CLAUDE_PLUGIN_DATA", data.to_string_lossy().into_owned()));
        }
        if self.dialect == Dialect::Cursor {
            env.push(("CURSOR_VERSION", CURSOR_VERSION.to_owned()));
        }
        env
    }

    /// A plugin's persistent data folder, `<HERMES_HOME>/plugin-data/claude/<plugin
    /// folder>` (`None` outside a plugin). Created when a hook of it runs.
    pub fn plugin_data(&self) -> Option<PathBuf> {
        let name = self.plugin_root.as_ref()?.file_name()?;
        Some(self.home.join("plugin-data").join("claude").join(name))
    }
}

/// The project-directory variables hooks read (Claude Code, Cursor, Codex, Gemini).
const PROJECT_VARS: [&str; 4] = [
    "CLAUDE_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
    "CODEX_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
];

/// What Cursor hooks read as the running Cursor's version (`CURSOR_VERSION`,
/// and `cursor_version` on stdin).
pub const CURSOR_VERSION: &str = concat!("hermes-hooks ", env!("CARGO_PKG_VERSION"));

/// The plugin-folder variables (Claude Code, Codex).
const PLUGIN_VARS: [&str; 2] = ["CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT"];

/// Whether `value` reads as itself wherever `sh` meets it in a word:
/// letters, digits and `/._+,:@%-` only (no quote, blank, `$`, glob,
/// operator or backslash).
fn is_shell_inert(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "/._+,:@%-".contains(c))
}

/// Replaces `${NAME}` and, with `bare_too`, `$NAME` (not followed by a name character).
fn replace_var(text: &str, name: &str, value: &str, bare_too: bool) -> String {
    let braced = format!("${{{name}}}");
    let text = text.replace(&braced, value);
    if !bare_too {
        return text;
    }
    let bare = format!("${name}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&bare) {
        let after = &rest[at + bare.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&bare);
        } else {
            out.push_str(value);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::replace_var;

    #[test]
    fn only_plain_paths_read_as_themselves_in_a_shell_line() {
        assert!(super::is_shell_inert("/home/me/src/my-app_2.0/été"));
        for hostile in [
            "/p/pkg\";touch PWNED;\"",
            "/p/a b",
            "/p/$(id)",
            "/p/*",
            "/p/a\\b",
            "/p/'x'",
        ] {
            assert!(!super::is_shell_inert(hostile), "{hostile}");
        }
    }

    #[test]
    fn variables_substitute_in_both_spellings_only_whole() {
        assert_eq!(
            replace_var("${A}/x $A/y $AB", "A", "/p", true),
            "/p/x /p/y $AB"
        );
        assert_eq!(
            replace_var("\"$A\"/h.sh", "A", "/p q", true),
            "\"/p q\"/h.sh"
        );
        assert_eq!(replace_var("${A}/x $A/y", "A", "/p", false), "/p/x $A/y");
    }
}
