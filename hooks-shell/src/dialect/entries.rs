//! The entries of one imported file: Claude / Codex groups `{matcher, hooks:
//! [...]}` and Cursor handlers, each field checked, each problem a warning
//! naming the file and the field.

use std::path::Path;
use std::time::Duration;

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::HookEvent;
use hermes_hooks_core::pyvalue::type_name;
use serde_json::{Map, Value};

use super::discover::{Discovery, Source, Unsupported};
use super::guards::GuardDown;
use super::matcher::{Condition, DialectMatcher};
use super::{Dialect, EventMapping, Handler, ImportedHook};
use crate::config::MAX_TIMEOUT_SECS;

/// Reads the entries of one file into a [`Discovery`].
pub(super) struct Reader<'a> {
    pub(super) source: &'a Source,
    pub(super) project: &'a Path,
    pub(super) home: &'a Path,
    pub(super) discovery: &'a mut Discovery,
    /// The file's `env` block (Claude Code settings).
    pub(super) env: &'a [(String, String)],
}

impl Reader<'_> {
    pub(super) fn warn(&mut self, key: &str, message: String) {
        // The message is displayed after the file name (`ConfigWarning`'s Display).
        let message = format!("({} hooks) {key}: {message}", self.source.dialect);
        let warning = ConfigWarning::new(self.source.path.clone(), key, message);
        self.discovery.warnings.push(warning);
    }

    /// One entry of an event's list: a Claude/Codex group `{matcher, hooks: [...]}`
    /// or a Cursor handler `{command, matcher, ...}`.
    pub(super) fn group(&mut self, event: &str, mapping: EventMapping, key: &str, group: &Value) {
        let Value::Object(group) = group else {
            return self.warn(
                key,
                format!("must be an object; got {}; skipped", type_name(group)),
            );
        };
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(pattern)) => Some(pattern.as_str()),
            Some(other) => {
                self.warn(
                    &format!("{key}.matcher"),
                    format!(
                        "must be a string; got {}; matching everything",
                        type_name(other)
                    ),
                );
                None
            }
        };
        let (matcher, problem) = DialectMatcher::build(matcher);
        if let Some(problem) = problem {
            self.warn(&format!("{key}.matcher"), problem);
        }
        if self.source.dialect == Dialect::Cursor {
            return self.handler(event, mapping, &matcher, key, group);
        }
        let handlers = match group.get("hooks") {
            Some(Value::Array(handlers)) => handlers,
            other => {
                let got = other.map_or("nothing", type_name);
                return self.warn(
                    &format!("{key}.hooks"),
                    format!("must be a list of handlers; got {got}; skipped"),
                );
            }
        };
        for (index, handler) in handlers.iter().enumerate() {
            let key = format!("{key}.hooks[{index}]");
            match handler {
                Value::Object(handler) => self.handler(event, mapping, &matcher, &key, handler),
                other => self.warn(
                    &key,
                    format!("must be an object; got {}; skipped", type_name(other)),
                ),
            }
        }
    }

    fn handler(
        &mut self,
        event: &str,
        mapping: EventMapping,
        matcher: &DialectMatcher,
        key: &str,
        entry: &Map<String, Value>,
    ) {
        let kind = match entry.get("type") {
            None | Some(Value::Null) => "command",
            Some(Value::String(kind)) => kind.as_str(),
            Some(other) => {
                return self.warn(
                    &format!("{key}.type"),
                    format!("must be a string; got {}; skipped", type_name(other)),
                );
            }
        };
        let string = |field: &str| {
            entry
                .get(field)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let handler = match kind {
            "command" => {
                let Some(command) = string("command") else {
                    return self.warn(
                        &format!("{key}.command"),
                        "a command hook needs a non-empty command; skipped".to_owned(),
                    );
                };
                let args = match entry.get("args") {
                    None | Some(Value::Null) => None,
                    Some(Value::Array(args)) if args.iter().all(Value::is_string) => Some(
                        args.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect(),
                    ),
                    Some(_) => {
                        return self.warn(
                            &format!("{key}.args"),
                            "args must be a list of strings; skipped".to_owned(),
                        );
                    }
                };
                if entry.get("shell").and_then(Value::as_str) == Some("powershell") {
                    self.warn(
                        &format!("{key}.shell"),
                        "powershell is not available here; run with sh".to_owned(),
                    );
                }
                Ok(Handler::Command {
                    command: self.relative_command(command),
                    args,
                })
            }
            "http" => {
                let Some(url) = string("url") else {
                    return self.warn(
                        &format!("{key}.url"),
                        "an http hook needs a url; skipped".to_owned(),
                    );
                };
                let headers = match entry.get("headers") {
                    Some(Value::Object(headers)) => headers
                        .iter()
                        .filter_map(|(name, value)| {
                            value.as_str().map(|v| (name.clone(), v.to_owned()))
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let allowed_env_vars = match entry.get("allowedEnvVars") {
                    Some(Value::Array(names)) => names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                    _ => Vec::new(),
                };
                Ok(Handler::Http {
                    url: url.to_owned(),
                    headers,
                    allowed_env_vars,
                })
            }
            // Read on: a fail-closed one still guards (see below).
            other => Err(other.to_owned()),
        };
        let condition = match entry.get("if") {
            None | Some(Value::Null) => None,
            Some(Value::String(rule)) => {
                let condition = Condition::parse(rule);
                if let Condition::Unparsed(rule) = &condition {
                    self.warn(&format!("{key}.if"), format!("'{rule}' is not a permission rule (Tool or Tool(pattern)); the hook runs on every call, as Claude Code runs it"));
                }
                Some(condition)
            }
            Some(other) => {
                self.warn(
                    &format!("{key}.if"),
                    format!(
                        "must be a string; got {}; the hook runs on every call",
                        type_name(other)
                    ),
                );
                None
            }
        };
        let is_async = matches!(entry.get("async"), Some(Value::Bool(true)))
            || matches!(entry.get("asyncRewake"), Some(Value::Bool(true)));
        let fail_closed = self.fail_closed(key, entry, mapping.ours, is_async);
        if let (true, DialectMatcher::Literal(pattern), Some(event)) =
            (fail_closed, matcher, mapping.ours)
        {
            // Which calls it guards is unknown: it guards them all, by blocking.
            let reason = format!("its matcher '{pattern}' is not a valid regex");
            self.warn(
                key,
                format!("{reason}; it fails closed, so every {event} call is BLOCKED until the matcher is fixed"),
            );
            self.discovery.guards_down.push(GuardDown {
                dialect: self.source.dialect,
                source: self.source.path.clone(),
                key: key.to_owned(),
                event,
                reason,
                fix: "fix the matcher (a regex, or names separated by |)".to_owned(),
            });
            return;
        }
        let mut matcher = matcher.clone();
        // `B\u{430}sh`: read as what it looks like (round 74).
        if let Some(written) = matcher.describe().filter(|_| fail_closed)
            && let Some(folded) = super::look_alikes::folded(&written)
        {
            self.warn(
                &format!("{key}.matcher"),
                super::look_alikes::warning("matcher", &written, &folded),
            );
            matcher = DialectMatcher::build(Some(&folded)).0;
        }
        let mut condition = condition;
        if fail_closed
            && let Some(revived) = super::dead_names::revive(&matcher, condition.as_ref())
        {
            // About the matcher: a guard read another way is not lost (R13-6).
            for warning in revived.warnings {
                self.warn(&format!("{key}.matcher"), warning);
            }
            matcher = revived.matcher.unwrap_or(matcher);
            condition = revived.condition.or(condition);
        }
        let handler = match handler {
            Ok(handler) => handler,
            Err(kind) => {
                let outcome = if fail_closed {
                    "it fails closed: the tool calls it matches are blocked"
                } else {
                    "listed as unsupported"
                };
                self.warn(
                    &format!("{key}.type"),
                    format!("'{kind}' hooks cannot run here (only command and http); {outcome}"),
                );
                self.discovery.unsupported.push(Unsupported {
                    dialect: self.source.dialect,
                    source: self.source.path.clone(),
                    key: key.to_owned(),
                    their_event: event.to_owned(),
                    kind,
                    mapping,
                    matcher: matcher.describe(),
                    condition,
                    fail_closed,
                });
                return;
            }
        };
        let (timeout, timeout_clamped_from) = self.timeout(key, entry);
        self.discovery.hooks.push(ImportedHook {
            dialect: self.source.dialect,
            source: self.source.path.clone(),
            key: key.to_owned(),
            their_event: event.to_owned(),
            mapping,
            matcher: matcher.clone(),
            condition,
            handler,
            timeout: Duration::from_secs(timeout),
            timeout_clamped_from,
            fail_closed,
            is_async,
            project: self.project.to_owned(),
            scope: self.source.scope,
            plugin_root: self.source.plugin_root.clone(),
            cwd: self.source.cwd.clone(),
            home: self.home.to_owned(),
            sandbox: self.source.sandbox.clone(),
            sandbox_scope: self.source.sandbox_scope,
            sandbox_secrets: self.source.sandbox_secrets.clone(),
            settings_env: self.env.to_vec(),
        });
    }

    /// Cursor: a script path relative to the file (`hooks/format.sh` or
    /// `bash hooks/format.sh` in `.cursor/hooks.json`) is made absolute when
    /// that file exists; every other word is left as written.
    fn relative_command(&self, command: &str) -> String {
        let Some(dir) = self.source.path.parent() else {
            return command.to_owned();
        };
        if self.source.dialect != Dialect::Cursor {
            return command.to_owned();
        }
        command
            .split(' ')
            .map(|word| {
                let relative = word.contains('/')
                    && !word.starts_with(['/', '~', '$', '"', '\''])
                    && dir.join(word).is_file();
                if !relative {
                    return word.to_owned();
                }
                let path = dir.join(word.strip_prefix("./").unwrap_or(word));
                shlex::try_quote(&path.to_string_lossy())
                    .map(|quoted| quoted.into_owned())
                    .unwrap_or_else(|_| word.to_owned())
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn timeout(&mut self, key: &str, entry: &Map<String, Value>) -> (u64, Option<u64>) {
        let default = self.source.dialect.default_timeout_secs();
        let asked = match entry.get("timeout") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|s| s > 0.0) => {
                Some(n.as_f64().map_or(default, |s| s.ceil() as u64))
            }
            Some(other) => {
                self.warn(
                    &format!("{key}.timeout"),
                    format!("must be a positive number of seconds; got {other}; using {default}s"),
                );
                None
            }
        };
        let seconds = asked.unwrap_or(default);
        if seconds <= MAX_TIMEOUT_SECS {
            return (seconds, None);
        }
        if asked.is_some() {
            self.warn(
                &format!("{key}.timeout"),
                format!("{seconds}s exceeds our maximum {MAX_TIMEOUT_SECS}s; clamping"),
            );
        }
        (MAX_TIMEOUT_SECS, Some(seconds))
    }

    /// Whether the handler `entry` fails closed: `failClosed` (or
    /// `fail_closed`) in any casing and with `_`, `-` or blanks, since a
    /// protective switch spelled oddly still protects; a spelling other
    /// than those two is warned about, and the handler fails closed when
    /// any of its spellings says so.
    fn fail_closed(
        &mut self,
        key: &str,
        entry: &Map<String, Value>,
        event: Option<HookEvent>,
        is_async: bool,
    ) -> bool {
        let spellings: Vec<(&String, &Value)> = entry
            .iter()
            .filter(|(field, _)| is_fail_closed_key(field))
            .collect();
        let mut fails_closed = false;
        for (field, raw) in spellings {
            if !matches!(field.as_str(), "failClosed" | "fail_closed") {
                let shown = hermes_hooks_core::display::escape(field);
                self.warn(
                    &format!("{key}.{shown}"),
                    "read as failClosed, the spelling this key is documented with; write it so"
                        .to_owned(),
                );
            }
            fails_closed |= self.fail_closed_value(key, field, raw, event, is_async);
        }
        fails_closed
    }

    /// What one spelling's value `raw` says ([`Reader::fail_closed`]).
    fn fail_closed_value(
        &mut self,
        key: &str,
        field: &str,
        raw: &Value,
        event: Option<HookEvent>,
        is_async: bool,
    ) -> bool {
        let field = hermes_hooks_core::display::escape(field);
        if is_async && raw != &Value::Bool(false) {
            // Nobody waits for an async hook: it cannot hold a call back.
            self.warn(
                &format!("{key}.{field}"),
                "an async hook is not waited for, so it cannot fail closed; it fails open"
                    .to_owned(),
            );
            return false;
        }
        match raw {
            Value::Bool(true) if event == Some(HookEvent::PreToolCall) => true,
            Value::Bool(true) => {
                self.warn(
                    &format!("{key}.{field}"),
                    "only a tool gate can fail closed; this hook fails open".to_owned(),
                );
                false
            }
            Value::Bool(false) => false,
            other => {
                // A protective switch spelled oddly still protects.
                self.warn(
                    &format!("{key}.{field}"),
                    format!("must be true or false; got {other}; failing closed"),
                );
                event == Some(HookEvent::PreToolCall)
            }
        }
    }
}

/// Whether `field` is `failClosed` in some spelling: `fail_closed`,
/// `FailClosed`, `failclosed`, `fail-closed`, ... (letters compared without
/// case, `_`, `-` and blanks left out), a look-alike of it (`fail_сlosed`
/// with a Cyrillic `с`, fullwidth letters) or a slip of the keyboard
/// (`fail_close`, `fial_closed`). A protective switch that reads as one
/// protects: a key read too widely makes a guard block, with a warning;
/// one read too narrowly let a call through (round 73, H7).
pub(crate) fn is_fail_closed_key(field: &str) -> bool {
    const KEY: &str = "failclosed";
    // Only its letters: `fail.closed`, a zero-width space, a soft hyphen
    // or a fullwidth low line between them.
    let letters: Vec<char> = field
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    // A letter outside ASCII stands for the one in its place: Cyrillic,
    // Greek and fullwidth letters look like Latin ones.
    let looks_like = letters.len() == KEY.len()
        && letters
            .iter()
            .zip(KEY.chars())
            .all(|(letter, key)| *letter == key || !letter.is_ascii());
    let ascii: String = letters.iter().filter(|c| c.is_ascii()).collect();
    looks_like || strsim::damerau_levenshtein(&ascii, KEY) <= 2
}
