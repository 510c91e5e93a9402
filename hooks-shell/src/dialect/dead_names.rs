//! A fail-closed tool guard whose matcher or `if` rule names only tools no
//! call ever arrives with (`bash`, Hermes's own `terminal`, another agent's
//! `Shell`) never runs: a typo that turns a guard off in silence (red team
//! round 8, R8-12). Calls reach imported hooks with Claude Code's tool names
//! (`Bash`, `Read`, …) and Hermes's other tools under their own names, so a
//! name is dead when it is a Hermes name the import renames, a Claude name
//! in other letter case, or another agent's shell tool. Such a guard
//! guards the tools meant, with a warning (`emit`, `list`, `doctor`).

use super::events::TOOL_NAMES;
use super::matcher::{Condition, DialectMatcher};

/// Claude names calls arrive with besides [`TOOL_NAMES`]' (`Agent` is `Task`'s newer name).
const MORE_LIVE_NAMES: &[&str] = &["Agent", "NotebookEdit", "MultiEdit", "Glob", "Grep", "LS"];

/// Other agents' names of their shell tool: a guard written for them never runs here.
const OTHER_AGENTS_SHELL: &[&str] = &[
    "Shell",
    "shell",
    "run_terminal_cmd",
    "exec_command",
    "run_shell_command",
    "local_shell",
];

fn live_names() -> impl Iterator<Item = &'static str> {
    TOOL_NAMES
        .iter()
        .map(|(_, claude)| *claude)
        .chain(MORE_LIVE_NAMES.iter().copied())
}

/// The live name `name` was probably meant as, when `name` is dead.
fn meant(name: &str) -> Option<&'static str> {
    if live_names().any(|live| live == name) {
        return None;
    }
    if let Some((_, claude)) = TOOL_NAMES.iter().find(|(hermes, _)| *hermes == name) {
        return Some(claude);
    }
    if let Some(live) = live_names().find(|live| live.eq_ignore_ascii_case(name)) {
        return Some(live);
    }
    OTHER_AGENTS_SHELL.contains(&name).then_some("Bash")
}

/// A fail-closed guard whose tools are all dead, read as the tools meant.
#[derive(Debug)]
pub(super) struct Revived {
    /// The matcher naming the tools meant, when the matcher was dead.
    pub matcher: Option<DialectMatcher>,
    /// The `if` rule on the tool meant, when its tool was dead.
    pub condition: Option<Condition>,
    /// What was read and why, for the user.
    pub warning: String,
}

/// A fail-closed guard with `matcher` and `condition` that would never run
/// (every tool they name is dead) guards the tools meant instead, and says
/// so; `None` when it may run as written. Claude Code would never run it; a
/// guard that guards nothing is the worse reading.
pub(super) fn revive(matcher: &DialectMatcher, condition: Option<&Condition>) -> Option<Revived> {
    let dead_matcher = match matcher {
        DialectMatcher::Exact(names) if !names.is_empty() => {
            let meant: Option<Vec<_>> = names.iter().map(|name| meant(name)).collect();
            meant.map(|meant| (names.join("|"), meant))
        }
        DialectMatcher::Regex(regex) if !live_names().any(|live| regex.is_match(live)) => {
            let dead = TOOL_NAMES
                .iter()
                .map(|(hermes, _)| *hermes)
                .chain(OTHER_AGENTS_SHELL.iter().copied())
                .find(|name| regex.is_match(name));
            dead.and_then(meant)
                .map(|meant| (regex.as_str().to_owned(), vec![meant]))
        }
        _ => None,
    };
    if let Some((pattern, mut meant)) = dead_matcher {
        meant.dedup();
        let warning = message("matcher", &pattern, &meant);
        let names = meant.into_iter().map(str::to_owned).collect();
        return Some(Revived {
            matcher: Some(DialectMatcher::Exact(names)),
            condition: None,
            warning,
        });
    }
    match condition {
        Some(Condition::Rule { tool, pattern }) => meant(tool).map(|meant| Revived {
            matcher: None,
            condition: Some(Condition::Rule {
                tool: meant.to_owned(),
                pattern: pattern.clone(),
            }),
            warning: message("if rule's tool", tool, &[meant]),
        }),
        _ => None,
    }
}

fn message(what: &str, named: &str, meant: &[&str]) -> String {
    let meant = meant.join("|");
    format!(
        "its {what} '{named}' names no tool a call arrives with (tools arrive with Claude \
         Code's names: Bash, Read, Write, Edit, Task, WebSearch, WebFetch; Hermes's other tools \
         by their own names), so Claude Code would never run it; it fails closed, so it guards \
         '{meant}' as meant: write '{meant}' to say so"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(pattern: &str) -> DialectMatcher {
        DialectMatcher::build(Some(pattern)).0
    }

    #[test]
    fn names_no_call_arrives_with_are_dead() {
        for (pattern, meant) in [
            ("bash", "Bash"),
            ("terminal", "Bash"),
            ("Shell", "Bash"),
            ("read_file|write_file", "Read|Write"),
            ("^terminal$", "Bash"),
        ] {
            let revived = revive(&exact(pattern), None).expect(pattern);
            let why = revived.warning;
            assert!(why.contains(&format!("guards '{meant}' as meant")), "{why}");
            let matcher = revived.matcher.expect("a matcher");
            assert_eq!(matcher.describe().as_deref(), Some(meant), "{pattern}");
        }
        let rule = Condition::parse("bash(rm *)");
        let revived = revive(&DialectMatcher::All, Some(&rule)).expect("dead rule");
        assert!(
            revived.warning.contains("if rule's tool 'bash'"),
            "{}",
            revived.warning
        );
        assert_eq!(revived.condition, Some(Condition::parse("Bash(rm *)")));
    }

    #[test]
    fn a_name_that_may_arrive_is_live() {
        for pattern in [
            "Bash",
            "Bash|terminal",
            "(?i)bash",
            "mcp__.*",
            "browser_navigate",
            "*",
        ] {
            assert!(revive(&exact(pattern), None).is_none(), "{pattern}");
        }
        let rule = Condition::parse("Bash(rm *)");
        assert!(revive(&DialectMatcher::All, Some(&rule)).is_none());
        let edit = exact("Edit");
        assert!(revive(&edit, Some(&Condition::parse("Write(*.env)"))).is_none());
    }
}
