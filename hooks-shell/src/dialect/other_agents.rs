//! Other agents' real tool names (red team round 12, R12-2). A matcher name
//! that is one of them is never a misspelling of a live tool, nor a live
//! tool "with more around it": `TodoWrite` is Claude Code's todo list tool,
//! not `Write`; `BashOutput` reads a background shell's output, it is not
//! `Bash`; Codex's `write_stdin` types into a running program. Reading them
//! as the live tool they contain made a fail-closed guard written for one
//! tool block every call of another. Each is either read as the tool its
//! calls reach hooks as (Codex's `apply_patch` is Hermes's `patch`, which
//! arrives as `Edit`) or left a name no call arrives with, told neutrally.

use super::live_names::Side;

/// A tool of another agent that no Hermes call arrives as.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ForeignTool {
    /// The tool's name, as its agent spells it.
    pub name: &'static str,
    /// The agent that has it.
    pub agent: &'static str,
    /// The Hermes tool nearest to it and the name that tool's calls reach
    /// hooks with, when Hermes has one; a guard meant for it says so itself.
    pub nearest: Option<(&'static str, &'static str)>,
}

const CLAUDE: &str = "Claude Code";
const CODEX: &str = "Codex";
const CURSOR: &str = "Cursor";
const GEMINI: &str = "Gemini CLI";
const TODO: Option<(&str, &str)> = Some(("todo", "todo"));
const PROCESS: Option<(&str, &str)> = Some(("process", "process"));

const fn foreign(
    name: &'static str,
    agent: &'static str,
    nearest: Option<(&'static str, &'static str)>,
) -> ForeignTool {
    ForeignTool {
        name,
        agent,
        nearest,
    }
}

/// Other agents' tools no Hermes call arrives as (the shell tools are in
/// `dead_names`' list of shells, read as `Bash`).
const FOREIGN_TOOLS: &[ForeignTool] = &[
    foreign("TodoRead", CLAUDE, TODO),
    foreign("TaskCreate", CLAUDE, TODO),
    foreign("TaskUpdate", CLAUDE, TODO),
    foreign("TaskList", CLAUDE, TODO),
    foreign("TaskGet", CLAUDE, TODO),
    foreign("BashOutput", CLAUDE, PROCESS),
    foreign("KillBash", CLAUDE, PROCESS),
    foreign("KillShell", CLAUDE, PROCESS),
    foreign("TaskOutput", CLAUDE, PROCESS),
    foreign("NotebookRead", CLAUDE, Some(("read_file", "Read"))),
    foreign("AskUserQuestion", CLAUDE, Some(("clarify", "clarify"))),
    foreign("ExitPlanMode", CLAUDE, None),
    foreign("EnterPlanMode", CLAUDE, None),
    foreign("SlashCommand", CLAUDE, None),
    foreign("Skill", CLAUDE, None),
    foreign("LSP", CLAUDE, None),
    foreign("ListMcpResourcesTool", CLAUDE, None),
    foreign("ReadMcpResourceTool", CLAUDE, None),
    foreign("write_stdin", CODEX, Some(("process", "Bash"))),
    foreign("update_plan", CODEX, TODO),
    foreign(
        "view_image",
        CODEX,
        Some(("vision_analyze", "vision_analyze")),
    ),
    foreign("list_mcp_resources", CODEX, None),
    foreign("read_mcp_resource", CODEX, None),
    foreign("todo_write", CURSOR, TODO),
    foreign("delete_file", CURSOR, None),
    foreign("write_todos", GEMINI, TODO),
];

/// Other agents' tools whose calls reach hooks here under a live name:
/// each with that name.
const READ_AS_LIVE: &[(&str, &str)] = &[("apply_patch", "Edit"), ("edit_file", "Edit")];

/// What another agent's tool named `name` (any letter case) is here.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum OtherAgents {
    /// Its calls reach hooks under this live name.
    Live(&'static str),
    /// No call arrives as it.
    Foreign(&'static ForeignTool),
}

/// `name` read as another agent's real tool; `None` when it is none.
pub(super) fn other_agents_tool(name: &str) -> Option<OtherAgents> {
    if let Some((_, live)) = READ_AS_LIVE
        .iter()
        .find(|(theirs, _)| theirs.eq_ignore_ascii_case(name))
    {
        return Some(OtherAgents::Live(live));
    }
    FOREIGN_TOOLS
        .iter()
        .find(|tool| tool.name.eq_ignore_ascii_case(name))
        .map(OtherAgents::Foreign)
}

/// Every other agent's tool name this module knows.
pub(super) fn other_agents_names() -> impl Iterator<Item = &'static str> {
    READ_AS_LIVE
        .iter()
        .map(|(theirs, _)| *theirs)
        .chain(FOREIGN_TOOLS.iter().map(|tool| tool.name))
}

/// What the user is told of a guard whose `what` (matcher, `if` rule's
/// tool) names `tool`: it does not run for it here, and what to write if
/// it should judge Hermes's nearest tool (by the name calls on `side`
/// arrive with). Neutral: Claude Code (or Codex) does run such a guard, so
/// it is not called a mistake.
pub(super) fn foreign_message(side: Side, what: &str, tool: &ForeignTool) -> String {
    let ForeignTool { name, agent, .. } = tool;
    let nearest = tool.nearest.map(|(hermes, arrives)| match side {
        Side::Imported => (hermes, arrives),
        Side::Native => (hermes, hermes),
    });
    let nearest = match nearest {
        Some((hermes, arrives)) if hermes == arrives => format!(
            "; Hermes's nearest tool, '{hermes}', reaches hooks as '{arrives}' with its own \
             arguments: add '{arrives}' to the matcher if this guard should judge it"
        ),
        Some((hermes, arrives)) => format!(
            "; Hermes's nearest tool, '{hermes}', reaches hooks as '{arrives}' with its own \
             arguments, as other '{arrives}' calls do: add '{arrives}' to the matcher if this \
             guard should judge them"
        ),
        None => String::new(),
    };
    format!(
        "its {what} '{name}' is {agent}'s tool; Hermes has no tool so named, so this guard \
         does not run for it here{nearest}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_agents_tool_is_found_in_any_case() {
        let todo = other_agents_tool("TodoRead").expect("Claude Code's todo list");
        let OtherAgents::Foreign(todo) = todo else {
            panic!("{todo:?}");
        };
        assert_eq!(todo.nearest, TODO);
        assert!(matches!(
            other_agents_tool("bashoutput"),
            Some(OtherAgents::Foreign(ForeignTool { agent: CLAUDE, .. }))
        ));
        assert_eq!(
            other_agents_tool("apply_patch"),
            Some(OtherAgents::Live("Edit"))
        );
        assert_eq!(other_agents_tool("Write"), None);
        assert_eq!(other_agents_tool("BashTool"), None);
    }

    #[test]
    fn the_message_names_the_agent_and_never_calls_it_a_mistake() {
        let Some(OtherAgents::Foreign(tool)) = other_agents_tool("write_stdin") else {
            panic!("Codex's write_stdin");
        };
        let said = foreign_message(Side::Imported, "matcher", tool);
        assert!(said.contains("Codex's tool"), "{said}");
        assert!(said.contains("add 'Bash'"), "{said}");
        let native = foreign_message(Side::Native, "matcher", tool);
        assert!(native.contains("add 'process'"), "{native}");
        assert!(!said.contains("never run"), "{said}");
        assert!(!said.contains("NEVER RUNS"), "{said}");
    }
}
