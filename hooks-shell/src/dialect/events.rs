//! The one mapping table between Claude Code / Codex / Cursor and Hermes:
//! events, tool names and argument names, both ways. `docs/dialects.md`
//! shows the same table to users; a test keeps the two in step.

use hermes_hooks_core::HookEvent;
use serde_json::{Map, Value};

use super::Dialect;

/// Which tool calls an event sees, beyond the hook's own matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFilter {
    /// Every tool call (or the event is not a tool event).
    Any,
    /// Only calls of these Hermes tools (Cursor's `beforeShellExecution`: `terminal`).
    Only(&'static [&'static str]),
}

/// Which outcome of a tool call an event sees (PostToolUse vs PostToolUseFailure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOutcome {
    /// Every call.
    Any,
    /// Calls whose `status` is not `error`.
    Succeeded,
    /// Calls whose `status` is `error`.
    Failed,
}

/// One row of the table: their event, ours, and what it sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventMapping {
    /// The event name in the tool's config (`PreToolUse`, `beforeShellExecution`).
    pub theirs: &'static str,
    /// The Hermes event it fires on; `None`: Hermes has no such moment (never fired).
    pub ours: Option<HookEvent>,
    /// The tool calls it sees.
    pub tools: ToolFilter,
    /// The tool-call outcomes it sees.
    pub outcome: ToolOutcome,
}

const fn row(theirs: &'static str, ours: Option<HookEvent>) -> EventMapping {
    EventMapping {
        theirs,
        ours,
        tools: ToolFilter::Any,
        outcome: ToolOutcome::Any,
    }
}

const fn failed(mut mapping: EventMapping) -> EventMapping {
    mapping.outcome = ToolOutcome::Failed;
    mapping
}

const fn succeeded(mut mapping: EventMapping) -> EventMapping {
    mapping.outcome = ToolOutcome::Succeeded;
    mapping
}

const fn only(mut mapping: EventMapping, tools: &'static [&'static str]) -> EventMapping {
    mapping.tools = ToolFilter::Only(tools);
    mapping
}

use HookEvent as H;

/// Claude Code's events (Codex uses the same names, a subset of them).
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub const CLAUDE_EVENTS: &[EventMapping] = &[
    row("PreToolUse", Some(H::PreToolCall)),
    succeeded(row("PostToolUse", Some(H::TransformToolResult))),
    failed(row("PostToolUseFailure", Some(H::TransformToolResult))),
    row("UserPromptSubmit", Some(H::PreLlmCall)),
    row("Stop", Some(H::PreVerify)),
    row("SessionStart", Some(H::OnSessionStart)),
    row("SessionEnd", Some(H::OnSessionFinalize)),
    row("SubagentStart", Some(H::SubagentStart)),
    row("SubagentStop", Some(H::SubagentStop)),
    row("PermissionRequest", Some(H::PreApprovalRequest)),
    row("PermissionDenied", None),
    row("PostToolBatch", None),
    row("Notification", None),
    row("PreCompact", None),
    row("PostCompact", None),
    row("Setup", None),
    row("InstructionsLoaded", None),
    row("UserPromptExpansion", None),
    row("MessageDisplay", None),
    row("StopFailure", None),
    row("TaskCreated", None),
    row("TaskCompleted", None),
    row("TeammateIdle", None),
    row("ConfigChange", None),
    row("CwdChanged", None),
    row("DirectoryAdded", None),
    row("FileChanged", None),
    row("WorktreeCreate", None),
    row("WorktreeRemove", None),
    row("Elicitation", None),
    row("ElicitationResult", None),
];

/// Codex's events (`codex-rs/hooks`).
pub const CODEX_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
];

/// Cursor's events (`hooks.json` version 1).
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub const CURSOR_EVENTS: &[EventMapping] = &[
    only(
        row("beforeShellExecution", Some(H::PreToolCall)),
        &["terminal"],
    ),
    only(row("beforeReadFile", Some(H::PreToolCall)), &["read_file"]),
    row("preToolUse", Some(H::PreToolCall)),
    succeeded(row("postToolUse", Some(H::TransformToolResult))),
    failed(row("postToolUseFailure", Some(H::TransformToolResult))),
    only(
        row("afterShellExecution", Some(H::PostToolCall)),
        &["terminal"],
    ),
    only(
        row("afterFileEdit", Some(H::PostToolCall)),
        &["write_file", "patch"],
    ),
    row("beforeSubmitPrompt", Some(H::PreLlmCall)),
    row("stop", Some(H::PreVerify)),
    row("sessionStart", Some(H::OnSessionStart)),
    row("sessionEnd", Some(H::OnSessionFinalize)),
    row("subagentStart", Some(H::SubagentStart)),
    row("subagentStop", Some(H::SubagentStop)),
    row("beforeMCPExecution", None),
    row("afterMCPExecution", None),
    row("preCompact", None),
    row("afterAgentResponse", None),
    row("afterAgentThought", None),
    row("beforeTabFileRead", None),
    row("afterTabFileEdit", None),
    row("workspaceOpen", None),
];

/// The second Hermes event a mapping fires on, if any. Claude Code's `Stop`
/// (Codex's, Cursor's `stop`) runs at the end of every turn; Hermes's
/// `pre_verify`, where a Stop hook can keep the agent going, fires only on
/// turns that edited code. On the other turns such hooks run on
/// `post_llm_call` (the turn ended with a final response, not interrupted,
/// as Claude Code's Stop), where their decisions are only observed.
pub fn also_fires_on(mapping: &EventMapping) -> Option<HookEvent> {
    (mapping.ours == Some(H::PreVerify)).then_some(H::PostLlmCall)
}

/// The mapping of `name` in `dialect`, or `None` for an event that tool does not have.
pub fn event_mapping(dialect: Dialect, name: &str) -> Option<EventMapping> {
    match dialect {
        Dialect::Claude => CLAUDE_EVENTS.iter().find(|row| row.theirs == name).copied(),
        Dialect::Codex => CODEX_EVENTS
            .contains(&name)
            .then(|| CLAUDE_EVENTS.iter().find(|row| row.theirs == name).copied())
            .flatten(),
        Dialect::Cursor => CURSOR_EVENTS.iter().find(|row| row.theirs == name).copied(),
    }
}

/// Every event name `dialect` knows, for messages.
pub fn event_names(dialect: Dialect) -> Vec<&'static str> {
    match dialect {
        Dialect::Claude => CLAUDE_EVENTS.iter().map(|row| row.theirs).collect(),
        Dialect::Codex => CODEX_EVENTS.to_vec(),
        Dialect::Cursor => CURSOR_EVENTS.iter().map(|row| row.theirs).collect(),
    }
}

/// Hermes tool names and the Claude Code names of the same tools.
pub const TOOL_NAMES: &[(&str, &str)] = &[
    ("terminal", "Bash"),
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("patch", "Edit"),
    ("delegate_task", "Task"),
    ("web_search", "WebSearch"),
    ("web_extract", "WebFetch"),
];

/// Claude Code names a call answers to beside its own, in a matcher or an
/// `if` rule: Hermes's `patch` makes one edit or many (Claude's `Edit` and
/// `MultiEdit`), and `Agent` is the newer name of `Task`. The hook still
/// reads the first name (red team round 13, R13-7: a `MultiEdit` guard
/// never ran on `patch`). Hermes's `todo` keeps the agent's task list, as
/// Claude Code's `TodoWrite` does (a `TodoWrite` guard never judged it).
pub(crate) const ALSO_NAMED: &[(&str, &[&str])] = &[
    ("Edit", &["MultiEdit"]),
    ("Task", &["Agent"]),
    ("todo", &["TodoWrite"]),
];

/// The names a call of Claude tool `claude` also answers to ([`ALSO_NAMED`]).
pub(crate) fn also_named(claude: &str) -> &'static [&'static str] {
    ALSO_NAMED
        .iter()
        .find(|(name, _)| *name == claude)
        .map_or(&[], |(_, also)| also)
}

/// Every name a call of Claude tool `claude` answers to: its own first;
/// a Hermes MCP tool (`mcp_github_create_issue`) also as Claude Code names
/// MCP tools, at each place its server's name may end
/// (`mcp__github__create_issue`, `mcp__github_create__issue`: red team
/// round 16, R16-5: a `mcp__.*` guard never ran).
pub(crate) fn answers_to(claude: &str) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let mut names = vec![Cow::Borrowed(claude)];
    names.extend(also_named(claude).iter().map(|name| Cow::Borrowed(*name)));
    // Where the server's name may end: Hermes's own `mcp__<server>__<tool>`
    // at its `__`, the older `mcp_<server>_<tool>` at each `_`.
    let splits: Vec<(&str, &str)> = match claude.strip_prefix("mcp__") {
        Some(rest) => rest.split_once("__").into_iter().collect(),
        // At most the first 16 places: a name is no reason to do unbounded work.
        None => claude.strip_prefix("mcp_").map_or_else(Vec::new, |rest| {
            let at = rest.match_indices('_').map(|(at, _)| at).take(16);
            at.map(|at| (&rest[..at], &rest[at + 1..])).collect()
        }),
    };
    // Hermes spells a `-` of the server's or tool's name `_` (R17-5, R18-5).
    let every = claude.starts_with("mcp__");
    for (server, tool) in splits
        .into_iter()
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
    {
        for server in dash_spellings(server, every) {
            for tool in dash_spellings(tool, every) {
                let name = format!("mcp__{server}__{tool}");
                if name != claude {
                    names.push(Cow::Owned(name));
                }
            }
        }
    }
    names
}

/// The spellings of an MCP server's or tool's name `part` whose `-` Hermes
/// may have written `_`: each choice at up to 4 of its `_` when `every`
/// (`my_org_server`: 4 spellings), else all `_` or all `-`. Each is distinct.
fn dash_spellings(part: &str, every: bool) -> Vec<String> {
    let at: Vec<usize> = part.match_indices('_').map(|(at, _)| at).collect();
    if !every || at.len() > 4 {
        let dashed = (!at.is_empty()).then(|| part.replace('_', "-"));
        return std::iter::once(part.to_owned()).chain(dashed).collect();
    }
    (0..1u32 << at.len())
        .map(|mask| {
            let dash = |i: usize| {
                at.iter()
                    .position(|a| *a == i)
                    .is_some_and(|bit| mask & (1 << bit) != 0)
            };
            part.char_indices()
                .map(|(i, c)| if dash(i) { '-' } else { c })
                .collect()
        })
        .collect()
}

/// Whether a permission rule's tool `wanted` names a call answering to
/// `name`: the same name, or `mcp__<server>` for every tool of that server
/// (red team round 17, R17-4).
pub(crate) fn rule_names(wanted: &str, name: &str) -> bool {
    let server = wanted.starts_with("mcp__") && !wanted[5..].contains("__");
    name == wanted
        || server
            && name
                .strip_prefix(wanted)
                .is_some_and(|tool| tool.starts_with("__"))
}

/// The Claude name of a Hermes tool; any other name passes through.
pub fn their_tool(ours: &str) -> &str {
    TOOL_NAMES
        .iter()
        .find(|(hermes, _)| *hermes == ours)
        .map_or(ours, |(_, claude)| claude)
}

/// The Hermes name of a Claude tool (`Agent` is the newer name of `Task`);
/// any other name passes through.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn our_tool(theirs: &str) -> &str {
    if theirs == "Agent" {
        return "delegate_task";
    }
    TOOL_NAMES
        .iter()
        .find(|(_, claude)| *claude == theirs)
        .map_or(theirs, |(hermes, _)| hermes)
}

/// Argument names that differ: Hermes first, Claude second.
const ARG_NAMES: &[(&str, &str)] = &[("path", "file_path")];

/// Hermes tool arguments as a Claude tool reads them (`path` → `file_path`).
/// Hermes reads `path` and ignores a `file_path` beside it, so `path`'s
/// value is the `file_path` whatever the keys' order (red-team R6-9).
pub fn their_args(args: &Map<String, Value>) -> Map<String, Value> {
    let mut theirs = rename(args, |key| {
        ARG_NAMES
            .iter()
            .find(|(ours, _)| *ours == key)
            .map(|(_, theirs)| *theirs)
    });
    for (ours, claude) in ARG_NAMES {
        if let Some(value) = args.get(*ours) {
            theirs.insert((*claude).to_owned(), value.clone());
        }
    }
    theirs
}

/// Claude tool arguments (an `updatedInput`) as Hermes reads them (`file_path` → `path`).
pub fn our_args(args: &Map<String, Value>) -> Map<String, Value> {
    rename(args, |key| {
        ARG_NAMES
            .iter()
            .find(|(_, theirs)| *theirs == key)
            .map(|(ours, _)| *ours)
    })
}

fn rename(
    args: &Map<String, Value>,
    to: impl Fn(&str) -> Option<&'static str>,
) -> Map<String, Value> {
    args.iter()
        .map(|(key, value)| {
            (
                to(key).map_or_else(|| key.clone(), str::to_owned),
                value.clone(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_tool_answers_to_claude_codes_name_of_it() {
        let names = answers_to("mcp_github_create_issue");
        assert!(names.iter().any(|name| name == "mcp__github__create_issue"));
        assert!(names.iter().any(|name| name == "mcp__github_create__issue"));
        let names = answers_to("mcp__my_org_server__get_file_contents");
        for mixed in [
            "mcp__my_org-server__get_file-contents",
            "mcp__my-org_server__get_file_contents",
        ] {
            assert!(names.iter().any(|name| name == mixed), "{mixed}");
        }
        let names = answers_to("mcp__my_server__create_issue");
        assert!(
            names
                .iter()
                .any(|name| name == "mcp__my-server__create-issue")
        );
        assert_eq!(answers_to("terminal"), ["terminal"]);
        assert_eq!(answers_to("Edit"), ["Edit", "MultiEdit"]);
    }

    #[test]
    fn tool_names_round_trip_and_others_pass_through() {
        for (ours, theirs) in TOOL_NAMES {
            assert_eq!(their_tool(ours), *theirs);
            assert_eq!(our_tool(theirs), *ours);
        }
        assert_eq!(their_tool("Bash"), "Bash");
        assert_eq!(our_tool("mcp__x__y"), "mcp__x__y");
        assert_eq!(our_tool("Agent"), "delegate_task");
    }

    #[test]
    fn hermes_path_is_the_file_path_whatever_the_order() {
        for args in [
            serde_json::json!({"path": ".env", "file_path": "README.md"}),
            serde_json::json!({"file_path": "README.md", "path": ".env"}),
        ] {
            let args = args.as_object().expect("object");
            assert_eq!(their_args(args)["file_path"], ".env", "{args:?}");
            assert_eq!(their_args(args).len(), 1, "{args:?}");
        }
    }

    #[test]
    fn codex_knows_only_its_events() {
        assert!(event_mapping(Dialect::Codex, "PreToolUse").is_some());
        assert!(event_mapping(Dialect::Codex, "Notification").is_none());
        assert!(event_mapping(Dialect::Claude, "Notification").is_some_and(|m| m.ours.is_none()));
        assert!(event_mapping(Dialect::Cursor, "PreToolUse").is_none());
    }

    #[test]
    fn the_user_table_lists_every_mapped_event() {
        let doc = include_str!("../../docs/dialects.md");
        for row in CLAUDE_EVENTS.iter().chain(CURSOR_EVENTS) {
            let line = doc
                .lines()
                .find(|line| line.starts_with(&format!("| `{}` ", row.theirs)))
                .unwrap_or_else(|| panic!("docs/dialects.md has no row for {}", row.theirs));
            let ours = row
                .ours
                .map_or("never fired".to_owned(), |e| format!("`{e}`"));
            assert!(
                line.contains(&ours),
                "row of {} must say {ours}: {line}",
                row.theirs
            );
        }
        for (ours, theirs) in TOOL_NAMES {
            assert!(
                doc.contains(&format!("| `{ours}` | `{theirs}` |")),
                "{ours}"
            );
        }
    }
}
