//! The tool names calls reach a hook with, on each side (red team round 14,
//! R14-3). Imported (Claude Code) hooks see Claude's names for the tools
//! Hermes renames for them (`Bash`, `Read`, …) and Hermes's own for the
//! rest; `config.yaml`'s own hooks see Hermes's names only (`terminal`,
//! `read_file`, …). A name no call on a side arrives with is dead there:
//! [`super::dead_names`] reads what it was meant as, in Claude's words
//! ([`live_names`]), and [`Side::own_name`] says that in the side's.

use super::events::{ALSO_NAMED, TOOL_NAMES, our_tool};

/// Which hooks a matcher belongs to, and so which names calls arrive with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Imported hooks (Claude Code's and the other dialects'): Claude names.
    Imported,
    /// `config.yaml`'s own hooks: Hermes's names.
    Native,
}

impl Side {
    /// Every name a call on this side may arrive with, but a family's.
    pub(super) fn known_names(self) -> impl Iterator<Item = &'static str> {
        let renamed = TOOL_NAMES.iter().map(move |(hermes, claude)| match self {
            Side::Imported => *claude,
            Side::Native => *hermes,
        });
        let more = MORE_LIVE_NAMES
            .iter()
            .copied()
            .filter(move |_| self == Side::Imported);
        renamed.chain(more).chain(HERMES_TOOLS.iter().copied())
    }

    /// Whether a call on this side may arrive with `name`: a known name, or
    /// one of a family's.
    pub(super) fn arrives(self, name: &str) -> bool {
        self.known_names().any(|live| live == name)
            || FAMILIES.iter().any(|family| name.starts_with(family))
    }

    /// `claude`, a name read in Claude's words ([`live_names`] or a Hermes
    /// tool's own), as this side's calls arrive with it: on the native side
    /// `Bash` is `terminal`, `MultiEdit` is `patch`, `Glob` is `search_files`.
    pub(super) fn own_name(self, claude: &'static str) -> &'static str {
        if self == Side::Imported {
            return claude;
        }
        let main = ALSO_NAMED
            .iter()
            .find(|(_, also)| also.contains(&claude))
            .map_or(claude, |(main, _)| *main);
        match main {
            "Glob" | "Grep" => "search_files",
            main => our_tool(main),
        }
    }

    /// Which names calls on this side arrive with, for the user.
    pub(super) fn arrive_note(self) -> &'static str {
        match self {
            Side::Imported => {
                "tools arrive with Claude Code's names: Bash, Read, Write, Edit, Task, \
                 WebSearch, WebFetch; Hermes's other tools by their own names"
            }
            Side::Native => {
                "config.yaml hooks see Hermes's own tool names: terminal, read_file, \
                 write_file, patch, delegate_task, web_search, web_extract, search_files, \
                 process, …"
            }
        }
    }

    /// What would never run a guard whose names no call arrives with.
    pub(super) fn runner(self) -> &'static str {
        match self {
            Side::Imported => "Claude Code",
            Side::Native => "Hermes",
        }
    }
}

/// Claude names calls arrive with besides [`TOOL_NAMES`]': `Glob` and
/// `Grep` (`search_files`), and the names calls also answer to
/// (`MultiEdit`, `Agent`, `TodoWrite`: `events::ALSO_NAMED`). `NotebookEdit` and `LS`
/// are Claude Code tools Hermes has none of: no call arrives as them, but
/// they are common beside live names (`Edit|MultiEdit|Write|NotebookEdit`)
/// and are never warned about (red team round 16, R16-6).
const MORE_LIVE_NAMES: &[&str] = &[
    "Agent",
    "MultiEdit",
    "TodoWrite",
    "Glob",
    "Grep",
    "NotebookEdit",
    "LS",
];

/// Hermes 0.20.1's tools that reach a hook under their own names (the
/// renamed ones are in [`TOOL_NAMES`]).
pub const HERMES_TOOLS: &[&str] = &[
    "process",
    "send_message",
    // Tools of other Hermes releases (red team round 16, R16-1, R16-2).
    "mixture_of_agents",
    "rl_list_environments",
    "rl_select_environment",
    "rl_get_current_config",
    "rl_edit_config",
    "rl_start_training",
    "rl_check_status",
    "rl_stop_training",
    "rl_get_results",
    "rl_list_runs",
    "rl_test_inference",
    "search_files",
    "execute_code",
    "browser_back",
    "browser_cdp",
    "browser_click",
    "browser_console",
    "browser_dialog",
    "browser_exec",
    "browser_get_images",
    "browser_navigate",
    "browser_press",
    "browser_scroll",
    "browser_snapshot",
    "browser_type",
    "browser_vision",
    "clarify",
    "close_terminal",
    "computer_use",
    "cronjob",
    "discord",
    "discord_admin",
    "focus_pane",
    "ha_call_service",
    "ha_get_state",
    "ha_list_entities",
    "ha_list_services",
    "image_generate",
    "memory",
    "open_preview",
    "project_create",
    "project_list",
    "project_switch",
    "react_to_message",
    "read_preview",
    "read_terminal",
    "read_window_below",
    "session_search",
    "setup_mcp",
    "skill_manage",
    "skill_view",
    "skills_list",
    "text_to_speech",
    "todo",
    "video_analyze",
    "video_generate",
    "vision_analyze",
    "x_search",
];

/// Prefixes of tool families (plugins, MCP servers) a matcher may aim at.
pub(super) const FAMILIES: &[&str] = &["mcp", "kanban_", "feishu_", "bfl_", "xai_", "yb_"];

/// Other agents' names of their shell tool: a guard written for them never runs here.
pub(super) const OTHER_AGENTS_SHELL: &[&str] = &[
    "shell",
    "run_terminal_cmd",
    "exec_command",
    "execute_command",
    "run_shell_command",
    "run_command",
    "run_in_terminal",
    "local_shell",
];

/// Claude's names of the tools calls may arrive with: the words a dead
/// name is read in.
pub(super) fn live_names() -> impl Iterator<Item = &'static str> {
    TOOL_NAMES
        .iter()
        .map(|(_, claude)| *claude)
        .chain(MORE_LIVE_NAMES.iter().copied())
}

/// Names a dead regex may have been written for, each with the live name meant.
pub(super) fn spellings() -> impl Iterator<Item = String> {
    let hermes = TOOL_NAMES.iter().map(|(hermes, _)| *hermes);
    live_names()
        .chain(hermes)
        .chain(OTHER_AGENTS_SHELL.iter().copied())
        .flat_map(|name| {
            let mut capital = name.to_owned();
            capital[..1].make_ascii_uppercase();
            [
                name.to_owned(),
                name.to_ascii_lowercase(),
                name.to_ascii_uppercase(),
                capital,
            ]
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_has_its_own_live_names() {
        for (name, imported, native) in [
            ("Bash", true, false),
            ("terminal", false, true),
            ("MultiEdit", true, false),
            ("Glob", true, false),
            ("search_files", true, true),
            ("todo", true, true),
            ("mcp_foo_bar", true, true),
            ("Terminal", false, false),
        ] {
            assert_eq!(Side::Imported.arrives(name), imported, "{name}");
            assert_eq!(Side::Native.arrives(name), native, "{name}");
        }
    }

    #[test]
    fn a_claude_name_is_the_native_sides_hermes_name() {
        for (claude, hermes) in [
            ("Bash", "terminal"),
            ("Read", "read_file"),
            ("Write", "write_file"),
            ("Edit", "patch"),
            ("MultiEdit", "patch"),
            ("Task", "delegate_task"),
            ("Agent", "delegate_task"),
            ("WebSearch", "web_search"),
            ("WebFetch", "web_extract"),
            ("Glob", "search_files"),
            ("Grep", "search_files"),
            ("todo", "todo"),
        ] {
            assert_eq!(Side::Native.own_name(claude), hermes, "{claude}");
            assert_eq!(Side::Imported.own_name(claude), claude, "{claude}");
        }
    }
}
