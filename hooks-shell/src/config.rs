//! The `hooks:` section of `config.yaml`: validated into [`ShellHookSpec`]s.
//!
//! Parsing never fails. Each problem becomes a [`ConfigWarning`] whose `key`
//! names the entry (`hooks.<event>[<i>]`, plus `.timeout` etc. for one field);
//! a broken entry is skipped or defaulted and the rest keeps working.

use std::path::PathBuf;
use std::time::Duration;

use hermes_hooks_core::catalog::{VALID_HOOKS, suggest};
use hermes_hooks_core::matcher::ToolMatcher;
use hermes_hooks_core::{Config, ConfigWarning, HookEvent};
use serde_json::{Map, Value};

use hermes_hooks_core::pyvalue::{python_int, repr, type_name};
use hermes_hooks_process::sandbox::Sandbox;

use crate::dialect::{declared_plugin_tools, read_native_matcher};

mod fail_closed;
mod guard_identity;
mod lost_guards;
mod moved_managed;

pub use lost_guards::LostGuard;
pub(crate) use lost_guards::unkept_records;

/// The timeout of an entry without one, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// The largest timeout an entry may ask for, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 300;

/// Sub-sections of `hooks:` that are not events (other mechanisms own them).
const RESERVED_KEYS: [&str; 2] = ["outbound", "output_spill"];

/// One validated `hooks.<event>[<index>]` entry.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ShellHookSpec {
    /// The event it runs on.
    pub event: HookEvent,
    /// Its position in the event's list (for messages: `hooks.<event>[<index>]`).
    pub index: usize,
    /// The command as configured, surrounding whitespace stripped. Consent is
    /// keyed on this exact string.
    pub command: String,
    /// The tool-name filter (only ever set on tool events).
    pub matcher: ToolMatcher,
    /// How long one run may take before its process group is killed.
    pub timeout: Duration,
    /// Whether a failure blocks the tool call (only ever set on `pre_tool_call`).
    pub fail_closed: bool,
    /// A fail-closed hook's matcher that does not compile: which calls it
    /// guards is unknown, so [`ShellHookSpec::matcher`] is every call and
    /// each one is blocked without running the hook.
    pub unusable_matcher: Option<String>,
    /// The Hermes home the entry was read from; the child gets it as `HERMES_HOME`.
    pub home: PathBuf,
    /// The sandbox it runs in (`sandbox:`, else `hooks_sandbox.user`, else none).
    pub sandbox: Sandbox,
    /// Secret stores beside the documented ones (`hooks_sandbox.secrets`).
    pub sandbox_secrets: Vec<PathBuf>,
    /// The project it runs for (a host's, `hooks --project`; `None`: the
    /// folder it runs in): its sandbox's project, and the folder whose
    /// code-loading variables it is not given (red team round 13, R13-4).
    pub project: Option<PathBuf>,
}

impl ShellHookSpec {
    /// A spec with the defaults of a bare `- command: <command>` entry.
    pub fn new(event: HookEvent, command: impl Into<String>, home: impl Into<PathBuf>) -> Self {
        ShellHookSpec {
            event,
            index: 0,
            command: command.into().trim().to_owned(),
            matcher: ToolMatcher::Any,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            fail_closed: false,
            unusable_matcher: None,
            home: home.into(),
            sandbox: Sandbox::NONE,
            sandbox_secrets: Vec::new(),
            project: None,
        }
    }

    /// The config key of this entry, e.g. `hooks.pre_tool_call[0]`.
    pub fn key(&self) -> String {
        format!("hooks.{}[{}]", self.event, self.index)
    }

    /// Whether a call of `tool_name` runs this hook: the matcher applies on
    /// tool events only; every other event always runs it.
    pub fn matches_tool(&self, tool_name: Option<&str>) -> bool {
        !self.event.meta().tool_matcher || self.matcher.matches(tool_name)
    }

    /// Whether failures of this hook block: `fail_closed` on a blocking event.
    pub fn blocks_on_failure(&self) -> bool {
        self.fail_closed && self.event == HookEvent::PreToolCall
    }
}

/// The parsed `hooks:` section.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ShellConfig {
    /// The valid entries, in config order.
    pub specs: Vec<ShellHookSpec>,
    /// What was skipped or defaulted, and why.
    pub warnings: Vec<ConfigWarning>,
    /// Fail-closed guards the file had at its last good read and no longer
    /// reads, though it does not read cleanly: each blocks every call of its
    /// event in their place (red team round 10, R10-5).
    pub lost_guards: Vec<LostGuard>,
}

/// Reads and validates the `hooks:` section of `config`, and keeps the
/// memory of its fail-closed guards ([`ShellConfig::lost_guards`]).
pub fn parse_config(config: &Config) -> ShellConfig {
    let mut parsed = read_section(config);
    fail_closed::given_twice(config, &mut parsed);
    lost_guards::keep_lost_guards(config, &mut parsed);
    moved_managed::keep_managed_guards(config, &mut parsed);
    parsed
}

fn read_section(config: &Config) -> ShellConfig {
    let mut parsed = ShellConfig::default();
    let section = match config.get("hooks") {
        None | Some(Value::Null) => return parsed,
        Some(Value::Object(section)) => section,
        Some(other) => {
            parsed.warnings.push(config.warning(
                "hooks",
                format!(
                    "hooks must be a mapping of event names to hook lists; got {}; no shell hooks registered",
                    type_name(other)
                ),
            ));
            return parsed;
        }
    };
    let (sandbox, warnings) = crate::sandboxing::SandboxDefaults::from_config(config);
    parsed.warnings.extend(warnings);
    let plugin_tools = std::cell::OnceCell::new();
    for (name, entries) in section {
        if RESERVED_KEYS.contains(&name.as_str()) {
            continue;
        }
        let Some(event) = known_event(config, name, &mut parsed.warnings) else {
            continue;
        };
        let entries = match entries {
            Value::Null => continue,
            Value::Array(entries) => entries,
            other => {
                parsed.warnings.push(config.warning(
                    format!("hooks.{name}"),
                    format!(
                        "hooks.{name} must be a list of hook definitions; got {}",
                        type_name(other)
                    ),
                ));
                continue;
            }
        };
        for (index, raw) in entries.iter().enumerate() {
            let mut entry = EntryParser {
                config,
                sandbox: &sandbox,
                plugin_tools: &plugin_tools,
                event,
                index,
                warnings: &mut parsed.warnings,
            };
            if let Some(spec) = entry.parse(raw) {
                parsed.specs.push(spec);
            }
        }
    }
    parsed
}

/// The catalog event called `name`, or a warning saying why it is not usable.
fn known_event(
    config: &Config,
    name: &str,
    warnings: &mut Vec<ConfigWarning>,
) -> Option<HookEvent> {
    let key = format!("hooks.{name}");
    // `pre_t\u{43e}\u{43e}l_call`: read as the event it looks like (round 75).
    if let Some(folded) = crate::dialect::look_alikes::folded(name)
        && let Ok(event) = folded.parse::<HookEvent>()
        && event.meta().shell
    {
        let warning = crate::dialect::look_alikes::warning("hook event", name, &folded);
        warnings.push(config.warning(key, warning));
        return Some(event);
    }
    match name.parse::<HookEvent>() {
        Ok(event) if event.meta().shell => Some(event),
        Ok(_) => {
            warnings.push(config.warning(
                key,
                format!(
                    "hook event '{name}' is Python-plugin-only: shell hooks cannot return its directive, \
                     so this registration is refused rather than silently ignored"
                ),
            ));
            None
        }
        Err(_) => {
            let message = match suggest(name) {
                Some(close) => {
                    format!(
                        "unknown hook event '{name}' in hooks: config — did you mean '{close}'?"
                    )
                }
                None => {
                    let mut valid: Vec<&str> = VALID_HOOKS.to_vec();
                    valid.sort_unstable();
                    format!(
                        "unknown hook event '{name}' in hooks: config (valid: {})",
                        valid.join(", ")
                    )
                }
            };
            warnings.push(config.warning(key, message));
            None
        }
    }
}

struct EntryParser<'a> {
    config: &'a Config,
    sandbox: &'a crate::sandboxing::SandboxDefaults,
    /// The tools the home's plugins declare, read when a guard needs them.
    plugin_tools: &'a std::cell::OnceCell<Vec<String>>,
    event: HookEvent,
    index: usize,
    warnings: &'a mut Vec<ConfigWarning>,
}

impl EntryParser<'_> {
    fn prefix(&self) -> String {
        format!("hooks.{}[{}]", self.event, self.index)
    }

    fn warn(&mut self, field: Option<&str>, message: String) {
        let key = match field {
            Some(field) => format!("{}.{field}", self.prefix()),
            None => self.prefix(),
        };
        self.warnings.push(self.config.warning(key, message));
    }

    fn parse(&mut self, raw: &Value) -> Option<ShellHookSpec> {
        let prefix = self.prefix();
        let Value::Object(entry) = raw else {
            self.warn(
                None,
                format!(
                    "{prefix} must be a mapping with a 'command' key; got {}",
                    type_name(raw)
                ),
            );
            return None;
        };
        let command = match entry.get("command") {
            Some(Value::String(command)) if !command.trim().is_empty() => command.trim().to_owned(),
            _ => {
                self.warn(
                    Some("command"),
                    format!("{prefix} is missing a non-empty 'command' field"),
                );
                return None;
            }
        };
        let fail_closed = self.fail_closed(entry);
        let mut matcher = self.matcher(entry, fail_closed);
        let timeout = self.timeout(entry);
        let mut unusable_matcher = None;
        if let (true, ToolMatcher::Literal(pattern)) = (fail_closed, &matcher) {
            // A guard that cannot tell which calls it guards guards them all, by blocking.
            unusable_matcher = Some(pattern.clone());
            matcher = ToolMatcher::Any;
        }
        if fail_closed {
            matcher = self.dead_names(matcher);
        }
        let sandbox = match crate::sandboxing::sandbox_field(entry) {
            None => self.sandbox.user.clone(),
            Some(Ok(sandbox)) => sandbox,
            Some(Err(message)) => {
                // Never weaker than asked: an unreadable profile is the
                // strictest one, and said.
                self.warn(
                    Some("sandbox"),
                    format!("{prefix}.sandbox: {message}; running it under strict"),
                );
                Sandbox::new(hermes_hooks_process::sandbox::Profile::Strict)
            }
        };
        Some(ShellHookSpec {
            event: self.event,
            index: self.index,
            command,
            matcher,
            timeout: Duration::from_secs(timeout),
            fail_closed,
            unusable_matcher,
            home: self.config.home().to_owned(),
            sandbox,
            sandbox_secrets: self.sandbox.secrets.clone(),
            project: None,
        })
    }

    fn matcher(&mut self, entry: &Map<String, Value>, fail_closed: bool) -> ToolMatcher {
        let prefix = self.prefix();
        let mut pattern = match entry.get("matcher") {
            None | Some(Value::Null) => return ToolMatcher::Any,
            Some(Value::String(pattern)) => pattern.clone(),
            Some(_) => {
                self.warn(
                    Some("matcher"),
                    format!("{prefix}.matcher must be a string regex; ignoring"),
                );
                return ToolMatcher::Any;
            }
        };
        if !self.event.meta().tool_matcher {
            let event = self.event;
            self.warn(
                Some("matcher"),
                format!(
                    "{prefix}.matcher='{pattern}' will be ignored at runtime — the matcher field is only \
                     honored for pre_tool_call / post_tool_call.  The hook will fire on every {event} event."
                ),
            );
            return ToolMatcher::Any;
        }
        // `t\u{435}rminal`: read as what it looks like (round 74).
        if let Some(folded) = crate::dialect::look_alikes::folded(&pattern).filter(|_| fail_closed)
        {
            let warning = crate::dialect::look_alikes::warning("matcher", &pattern, &folded);
            self.warn(Some("matcher"), format!("{prefix}.{warning}"));
            pattern = folded;
        }
        let built = ToolMatcher::build(Some(&pattern));
        match built.warning {
            Some(_) if fail_closed => {
                let event = self.event;
                self.warn(
                    Some("matcher"),
                    format!(
                        "{prefix}.matcher='{pattern}' is not a valid regex and the hook fails closed: \
                         every {event} call is BLOCKED until the matcher is fixed"
                    ),
                );
            }
            Some(warning) => self.warn(Some("matcher"), format!("{prefix}: shell hook {warning}")),
            None => {}
        }
        built.matcher
    }

    /// A fail-closed guard's matcher naming tools no Hermes call arrives with
    /// (`Bash`, `Terminal`, `termnal`), read as the tools meant, each reading
    /// said (red team round 14, R14-3). About the matcher only: a guard read
    /// another way is not lost (`lost_guards`, R13-6).
    fn dead_names(&mut self, matcher: ToolMatcher) -> ToolMatcher {
        let plugin_tools = self
            .plugin_tools
            .get_or_init(|| declared_plugin_tools(self.config.home()));
        let Some(read) = matcher
            .pattern()
            .and_then(|pattern| read_native_matcher(pattern, plugin_tools))
        else {
            return matcher;
        };
        let prefix = self.prefix();
        for warning in read.warnings {
            self.warn(Some("matcher"), format!("{prefix}.matcher: {warning}"));
        }
        match read.pattern {
            Some(pattern) => ToolMatcher::build(Some(&pattern)).matcher,
            None => matcher,
        }
    }

    fn timeout(&mut self, entry: &Map<String, Value>) -> u64 {
        let prefix = self.prefix();
        let Some(raw) = entry.get("timeout") else {
            return DEFAULT_TIMEOUT_SECS;
        };
        let Some(seconds) = python_int(raw) else {
            self.warn(
                Some("timeout"),
                format!(
                    "{prefix}.timeout must be an int (got {}); using default {DEFAULT_TIMEOUT_SECS}s",
                    repr(raw)
                ),
            );
            return DEFAULT_TIMEOUT_SECS;
        };
        if seconds < 1 {
            self.warn(
                Some("timeout"),
                format!("{prefix}.timeout must be >=1; using default {DEFAULT_TIMEOUT_SECS}s"),
            );
            DEFAULT_TIMEOUT_SECS
        } else if seconds > i128::from(MAX_TIMEOUT_SECS) {
            self.warn(
                Some("timeout"),
                format!("{prefix}.timeout={seconds}s exceeds max {MAX_TIMEOUT_SECS}s; clamping"),
            );
            MAX_TIMEOUT_SECS
        } else {
            // In 1..=300, so the conversion cannot fail.
            u64::try_from(seconds).unwrap_or(DEFAULT_TIMEOUT_SECS)
        }
    }
}
