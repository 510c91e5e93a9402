//! Whether a config.yaml hook fails closed: `fail_closed`, its alias
//! `failClosed` and other spellings of it, a value that is not a boolean,
//! and one given more than once.

use serde_json::{Map, Value};

use super::{Config, EntryParser, HookEvent, ShellConfig, repr};

/// A `pre_tool_call` hook whose `fail_closed` is given more than once
/// fails closed if any says so: only the last was read (round 73, H7:
/// `fail_closed: true` then `false` let an unapproved guard allow).
pub(super) fn given_twice(config: &Config, parsed: &mut ShellConfig) {
    for index in entries_giving_twice(config, crate::dialect::is_fail_closed_key) {
        let spec = parsed
            .specs
            .iter_mut()
            .find(|spec| spec.event == HookEvent::PreToolCall && spec.index == index);
        if let Some(spec) = spec.filter(|spec| !spec.fail_closed) {
            spec.fail_closed = true;
            parsed.warnings.push(
                config.warning(
                    format!("hooks.pre_tool_call[{index}].fail_closed"),
                    "fail_closed is given more than once; it fails closed, as one of them may say \
                 so: give it once"
                        .to_owned(),
                ),
            );
        }
    }
    // After `fail_closed`: a guard it makes fail closed counts.
    matcher_given_twice(config, parsed);
    command_given_twice(config, parsed);
}

/// A fail-closed `pre_tool_call` guard whose `command` is given more than
/// once: which program guards cannot be told (only the last was read, and
/// once that was approved the first was gone: round 75, R75-4). Every call
/// is blocked in its place until it is given once.
fn command_given_twice(config: &Config, parsed: &mut ShellConfig) {
    for index in entries_giving_twice(config, |field| field == "command") {
        let fails_closed = parsed.specs.iter().any(|spec| {
            spec.event == HookEvent::PreToolCall && spec.index == index && spec.fail_closed
        });
        if !fails_closed {
            continue;
        }
        let key = format!("hooks.pre_tool_call[{index}].command");
        let guard = super::lost_guards::LostGuard {
            file: config.file_of(&key).to_owned(),
            event: HookEvent::PreToolCall,
            count: 1,
            reason: format!(
                "{key} is given more than once, so which program guards cannot be told"
            ),
        };
        parsed.warnings.push(config.warning(key, guard.warning()));
        parsed.lost_guards.push(guard);
    }
}

/// The indexes of the `pre_tool_call` entries giving a field that `is`
/// more than once (config.yaml's load warnings say which).
fn entries_giving_twice(config: &Config, is: impl Fn(&str) -> bool) -> Vec<usize> {
    config
        .load_warnings()
        .iter()
        .filter(|warning| warning.message.contains("is given more than once"))
        .filter_map(|warning| {
            // Under the event as it looks too (round 76, R76-4).
            let (event, rest) = warning.key.strip_prefix("hooks.")?.split_once('[')?;
            let ours = crate::dialect::look_alikes::reads_as(event, "pre_tool_call");
            let (index, field) = rest.split_once("].")?;
            (ours && is(field)).then(|| index.parse::<usize>().ok())?
        })
        .collect()
}

impl EntryParser<'_> {
    /// Whether the hook `entry` fails closed: `fail_closed` (or Cursor's
    /// and Claude Code's `failClosed`), and any other spelling of it
    /// (`FailClosed`, `fail-closed`), which is warned about: a protective
    /// switch spelled oddly still protects (issue 27 audit: it was ignored,
    /// and an unapproved guard let the call through). `fail_closed`
    /// decides when given; else any spelling saying so.
    pub(super) fn fail_closed(&mut self, entry: &Map<String, Value>) -> bool {
        let prefix = self.prefix();
        let spellings: Vec<(&String, &Value)> = entry
            .iter()
            .filter(|(field, _)| crate::dialect::is_fail_closed_key(field))
            .collect();
        // The canonical spelling wins over the others (the reference's case
        // 60: `fail_closed: false` beside `failClosed: true`).
        let canonical = spellings.iter().any(|(field, _)| *field == "fail_closed");
        let mut fails_closed = false;
        for (field, raw) in spellings {
            if !matches!(field.as_str(), "fail_closed" | "failClosed") {
                let shown = hermes_hooks_core::display::escape(field);
                self.warn(
                    Some(field),
                    format!(
                        "{prefix}.{shown} read as fail_closed, the spelling this key is documented \
                         with; write it so"
                    ),
                );
            }
            let says = self.fail_closed_value(field, raw);
            if !canonical || field == "fail_closed" {
                fails_closed |= says;
            }
        }
        fails_closed
    }

    /// What one spelling's value `raw` says ([`Self::fail_closed`]).
    fn fail_closed_value(&mut self, field: &str, raw: &Value) -> bool {
        let prefix = self.prefix();
        let Value::Bool(flag) = raw else {
            // A protective switch spelled oddly still protects, as an
            // imported `failClosed` does (red team R33b-4; the reference
            // fails open: docs/decisions/fail-closed-spelled-oddly.md).
            let blocks = self.event == HookEvent::PreToolCall;
            let then = match blocks {
                true => "failing closed",
                false => "using default false (fail open)",
            };
            self.warn(
                Some(field),
                format!(
                    "{prefix}.fail_closed must be a boolean (got {}); {then}",
                    repr(raw)
                ),
            );
            return blocks;
        };
        if *flag && self.event != HookEvent::PreToolCall {
            let event = self.event;
            self.warn(
                Some(field),
                format!(
                    "{prefix}.fail_closed=true will be ignored at runtime — fail_closed only applies to \
                     blocking-capable events (pre_tool_call).  The hook will fail open on {event} like any \
                     other hook."
                ),
            );
            return false;
        }
        *flag
    }
}

/// A fail-closed `pre_tool_call` guard whose `matcher` is given more than
/// once cannot say which calls it guards (only the last was read: round
/// 74, R74-2, `terminal` then `read_file` let every terminal call through):
/// it guards them all, as one whose matcher does not compile does.
fn matcher_given_twice(config: &Config, parsed: &mut ShellConfig) {
    for index in entries_giving_twice(config, |field| field == "matcher") {
        let spec = parsed.specs.iter_mut().find(|spec| {
            spec.event == HookEvent::PreToolCall && spec.index == index && spec.fail_closed
        });
        if let Some(spec) = spec {
            spec.matcher = hermes_hooks_core::matcher::ToolMatcher::Any;
            parsed.warnings.push(config.warning(
                format!("hooks.pre_tool_call[{index}].matcher"),
                "matcher is given more than once, so which calls this fail-closed guard guards \
                 cannot be told: it guards every call until the matcher is given once"
                    .to_owned(),
            ));
        }
    }
}
