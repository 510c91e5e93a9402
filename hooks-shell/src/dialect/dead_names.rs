//! A fail-closed tool guard whose matcher or `if` rule names only tools no
//! call ever arrives with never runs: a typo that turns a guard off in
//! silence (red team round 8, R8-12; round 9, R9-2). Calls reach imported
//! hooks with Claude Code's tool names (`Bash`, `Read`, …) and Hermes's other
//! tools under their own names ([`super::live_names::HERMES_TOOLS`]; a
//! plugin's or an MCP server's tools too). `config.yaml`'s own guards see
//! Hermes's names only, and are read so too ([`super::native_matchers`]). A name is dead when it is a Hermes name the import
//! renames (`terminal`, any case), a Claude name in other letter case
//! (`bash`, `^bash$`), another agent's shell tool (`Shell`), a permission
//! rule put in the matcher (`Bash(rm *)`) or a live name with more around it
//! (`BashTool`). Such a guard guards the tool meant, with a warning; one
//! whose names match no tool Hermes has and whose meaning cannot be guessed
//! is warned about (`emit`, `doctor`). A name a keystroke or two from a
//! tool's (`Bsh`) means that tool ([`super::misspelt`]); a dead name among
//! live ones is read in [`super::partly_dead`] (round 11, R11-2). Another
//! agent's real tool name (`TodoRead`, `BashOutput`, `write_stdin`) is
//! looked up before any guess ([`super::other_agents`]): it is never read as
//! a live tool it contains (round 12, R12-2).

use super::events::TOOL_NAMES;
use super::live_names::{FAMILIES, OTHER_AGENTS_SHELL, Side, live_names, spellings};
use super::matcher::{Condition, DialectMatcher};
use super::misspelt::misspelling_of;
use super::other_agents::{
    ForeignTool, OtherAgents, foreign_message, other_agents_names, other_agents_tool,
};
use super::partly_dead::{alternatives, partly_dead, widen};

/// How a name no call arrives with is read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reading {
    /// Meant as this live name (`bash`, `Bsh`, `BashTool`, `apply_patch`).
    Meant(&'static str),
    /// Another agent's real tool that no call arrives as (`TodoRead`):
    /// never widened onto a tool it contains (round 12, R12-2).
    Foreign(&'static ForeignTool),
    /// What it was meant as cannot be told.
    Untold,
}

/// The live name `name` was probably meant as, when no call on `side`
/// arrives with it.
pub(super) fn meant(side: Side, name: &str) -> Option<&'static str> {
    match read_name(side, name) {
        Reading::Meant(live) => Some(live),
        _ => None,
    }
}

/// How `name` is read, in `side`'s names: `Untold` too when a call on
/// `side` arrives with it.
pub(super) fn read_name(side: Side, name: &str) -> Reading {
    if side.arrives(name) {
        return Reading::Untold;
    }
    let name = name.trim();
    // A permission rule in a matcher: `Bash(rm *)` means Bash.
    if let Some((tool, _)) = name.split_once('(') {
        return match read_name(side, tool) {
            Reading::Untold => live_names()
                .chain(TOOL_NAMES.iter().map(|(hermes, _)| *hermes))
                .find(|live| *live == tool)
                .map_or(Reading::Untold, |live| Reading::Meant(side.own_name(live))),
            read => read,
        };
    }
    match read_dead(side, name) {
        Reading::Meant(claude) => Reading::Meant(side.own_name(claude)),
        read => read,
    }
}

/// How `name`, a name no call arrives with, is read, in Claude's words.
/// A live name inside it is read as meant for imported hooks only: a
/// `config.yaml` guard's name is a Hermes or plugin tool's, and a plugin's
/// `mixture_of_agents` is not `Agent` (red team round 16, R16-1).
fn read_dead(side: Side, name: &str) -> Reading {
    if let Some((_, claude)) = TOOL_NAMES
        .iter()
        .find(|(h, _)| h.eq_ignore_ascii_case(name))
    {
        return Reading::Meant(claude);
    }
    if let Some(live) = live_names().find(|live| live.eq_ignore_ascii_case(name)) {
        return Reading::Meant(live);
    }
    if OTHER_AGENTS_SHELL
        .iter()
        .any(|shell| shell.eq_ignore_ascii_case(name))
    {
        return Reading::Meant("Bash");
    }
    // Another agent's real tool is never a guess (`TodoRead` is not `Read`).
    if let Some(tool) = other_agents_tool(name) {
        return of_other_agent(tool);
    }
    // `BashOutpt` is a misspelt `BashOutput`, not `Bash` with more around it.
    let others = other_agents_names().map(|other| (other, other));
    if let Some(near) = misspelling_of(name, others).and_then(other_agents_tool) {
        return of_other_agent(near);
    }
    // `BashTool`, `Bash_`: one name of three letters or more inside it,
    // not counting a live one inside another agent's (`TodoWriteX`).
    if let Some(inside) = inside(name).filter(|_| side == Side::Imported) {
        return inside;
    }
    // `Bsh`, `Bahs`: a keystroke or two from one tool's name.
    let hermes = TOOL_NAMES.iter().map(|(hermes, claude)| (*hermes, *claude));
    let shells = OTHER_AGENTS_SHELL.iter().map(|shell| (*shell, "Bash"));
    let named = Side::Imported.known_names().map(|live| (live, live));
    let others = other_agents_names().map(|other| (other, other));
    match misspelling_of(name, named.chain(hermes).chain(shells).chain(others)) {
        Some(near) => other_agents_tool(near).map_or(Reading::Meant(near), of_other_agent),
        None => Reading::Untold,
    }
}

fn of_other_agent(tool: OtherAgents) -> Reading {
    match tool {
        OtherAgents::Live(live) => Reading::Meant(live),
        OtherAgents::Foreign(foreign) => Reading::Foreign(foreign),
    }
}

/// The one live or other agent's name `name` has inside it, none of whose
/// letters are those of a longer one found too; `None` when there is none,
/// `Untold` when there are two.
fn inside(name: &str) -> Option<Reading> {
    let lower = name.to_ascii_lowercase();
    let found: Vec<&'static str> = live_names()
        .chain(other_agents_names())
        .filter(|known| known.len() >= 3 && lower.contains(&known.to_ascii_lowercase()))
        .collect();
    let outermost: Vec<&'static str> = found
        .iter()
        .copied()
        .filter(|known| {
            let known = known.to_ascii_lowercase();
            !found.iter().any(|other| {
                let other = other.to_ascii_lowercase();
                other.len() > known.len() && other.contains(&known)
            })
        })
        .collect();
    match outermost.as_slice() {
        [] => None,
        [one] => Some(other_agents_tool(one).map_or(Reading::Meant(one), of_other_agent)),
        _ => Some(Reading::Untold),
    }
}

/// A fail-closed guard whose matcher or `if` rule names dead tools, read as
/// the tools meant.
#[derive(Debug, Default)]
pub(super) struct Revived {
    /// The matcher naming the tools meant, when the matcher named dead
    /// tools and what they meant could be told.
    pub matcher: Option<DialectMatcher>,
    /// The `if` rule on the tool meant, when its tool was dead.
    pub condition: Option<Condition>,
    /// What was read and why, for the user: one warning for each reading.
    pub warnings: Vec<String>,
}

/// What the dead names of a matcher were read as: live tools meant, and
/// other agents' tools no call arrives as.
#[derive(Debug, Default)]
struct Told {
    meant: Vec<&'static str>,
    foreign: Vec<&'static ForeignTool>,
}

/// The readings of dead names, when each could be told.
fn told(readings: impl IntoIterator<Item = Reading>) -> Option<Told> {
    let mut told = Told::default();
    for reading in readings {
        match reading {
            Reading::Meant(live) => told.meant.push(live),
            Reading::Foreign(tool) => told.foreign.push(tool),
            Reading::Untold => return None,
        }
    }
    (!told.meant.is_empty() || !told.foreign.is_empty()).then_some(told)
}

/// What a dead matcher meant: `Ok(told)` told, `Err(())` not told; `None`
/// when a call may arrive with a name it matches.
fn matcher_meant(side: Side, matcher: &DialectMatcher) -> Option<Result<Told, ()>> {
    match matcher {
        // `|`, `||`, `,`: separators and no name; it matches no call (as in
        // Claude Code), so it is untold (red team R39-4).
        DialectMatcher::Exact(names) if names.is_empty() => Some(Err(())),
        DialectMatcher::Exact(names) => {
            if names.iter().any(|name| side.arrives(name)) {
                return None;
            }
            Some(told(names.iter().map(|name| read_name(side, name))).ok_or(()))
        }
        DialectMatcher::Regex(regex) => {
            let pattern = regex.as_str();
            let matches_live = side.known_names().any(|name| regex.is_match(name));
            if matches_live || FAMILIES.iter().any(|family| pattern.contains(family)) {
                return None;
            }
            let guessed = spellings()
                .find(|name| regex.is_match(name))
                .and_then(|name| {
                    meant(side, &name).or_else(|| side.known_names().find(|l| *l == name))
                })
                .map(|meant| Told {
                    meant: vec![meant],
                    foreign: Vec::new(),
                });
            // `^(Bsh|Raed)$`: each plain-word alternative read as meant.
            let words = alternatives(pattern);
            let guessed = guessed
                .or_else(|| told(words.iter().map(|word| read_name(side, word))))
                .or_else(|| told([read_name(side, pattern)]));
            Some(guessed.ok_or(()))
        }
        _ => None,
    }
}

/// A fail-closed guard with `matcher` and `condition` that would never run
/// for a tool it names (every tool it names is dead, some are, or its `if`
/// rule's tool is one the matcher never matches) guards the tools meant
/// instead, and says so; a name whose meaning cannot be told is only warned
/// about; `None` when it runs as written. Claude Code would never run it; a
/// guard that guards nothing is the worse reading.
///
/// The matcher is read first, then the `if` rule against the matcher as
/// read: `Edit|bash` with `if: bash(rm *)` guards `Bash(rm *)`, so the guard
/// runs for the tool each warning names (round 11, R11-2).
pub(super) fn revive(matcher: &DialectMatcher, condition: Option<&Condition>) -> Option<Revived> {
    let written = matcher.describe().unwrap_or_default();
    let mut revived = match revive_matcher(Side::Imported, matcher, &written) {
        // It runs for no call here, whatever its `if` says.
        Some(revived) if revived.matcher.is_none() => return Some(revived),
        Some(revived) => revived,
        None => {
            let mut revived = Revived::default();
            if let Some(partly) = partly_dead(Side::Imported, matcher, &written) {
                revived.matcher = partly.matcher;
                revived.warnings.extend(partly.warnings);
            }
            revived
        }
    };
    revive_condition(matcher, condition, &mut revived);
    (!revived.warnings.is_empty()).then_some(revived)
}

/// `matcher` (as `written` by the user) read on `side` when every name it
/// names is dead there: the tools meant (its matcher), or why none can be
/// told (no matcher); `None` when a call on `side` may arrive with a name
/// it matches. `config.yaml`'s own fail-closed guards are read so too (red
/// team round 14, R14-3).
pub(super) fn revive_matcher(
    side: Side,
    matcher: &DialectMatcher,
    written: &str,
) -> Option<Revived> {
    let mut revived = Revived::default();
    match matcher_meant(side, matcher)? {
        Ok(Told { meant, foreign }) => {
            let mut unique: Vec<&str> = Vec::new();
            for tool in meant {
                if !unique.contains(&tool) {
                    unique.push(tool);
                }
            }
            for tool in foreign {
                revived
                    .warnings
                    .push(foreign_message(side, "matcher", tool));
            }
            if unique.is_empty() {
                // Only other agents' tools: it runs for no call here.
                return Some(revived);
            }
            revived
                .warnings
                .push(message(side, "matcher", written, &unique));
            // The names as written are kept: a plugin's tool may be so named
            // (`batch` is not `patch`: red team round 15, R15-2).
            revived.matcher = Some(widen(matcher, &unique));
        }
        Err(()) => revived.warnings.push(unknown(side, "matcher", written)),
    }
    Some(revived)
}

/// Reads `condition` against the matcher as `revived` reads it: a dead tool
/// is read as the tool meant, and a tool the matcher never matches is added
/// to the matcher (`matcher: Edit` with `if: Bash(rm *)`, round 10, R10-2).
fn revive_condition(
    matcher: &DialectMatcher,
    condition: Option<&Condition>,
    revived: &mut Revived,
) {
    let Some(Condition::Rule { tool, pattern }) = condition else {
        return;
    };
    let mut tool = tool.as_str();
    let side = Side::Imported;
    if !side.arrives(tool) {
        let meant = match read_name(side, tool) {
            Reading::Meant(meant) => meant,
            Reading::Foreign(foreign) => {
                revived
                    .warnings
                    .push(foreign_message(side, "if rule's tool", foreign));
                return;
            }
            Reading::Untold => {
                revived.warnings.push(unknown(side, "if rule's tool", tool));
                return;
            }
        };
        revived
            .warnings
            .push(message(side, "if rule's tool", tool, &[meant]));
        tool = meant;
    }
    let rule = Condition::Rule {
        tool: tool.to_owned(),
        pattern: pattern.clone(),
    };
    let read_anew = revived.matcher.is_some();
    let read = revived.matcher.take().unwrap_or_else(|| matcher.clone());
    if never_together(&read, &rule, tool) {
        revived.warnings.push(format!(
            "its if rule's tool '{tool}' is one its matcher '{}' never matches, so Claude \
             Code would never run it; it fails closed, so it guards '{tool}' too: add \
             '{tool}' to the matcher to say so",
            read.describe().unwrap_or_default()
        ));
        revived.matcher = Some(widen(&read, &[tool]));
    } else if read_anew {
        revived.matcher = Some(read);
    }
    if condition != Some(&rule) {
        revived.condition = Some(rule);
    }
}

/// Whether no tool both `matcher` matches and `rule` (on the live `tool`) covers.
fn never_together(matcher: &DialectMatcher, rule: &Condition, tool: &str) -> bool {
    let mut candidates: Vec<&str> = Side::Imported.known_names().collect();
    candidates.push(tool);
    !candidates
        .into_iter()
        .any(|name| matcher.matches(name) && rule.covers(name))
}

fn message(side: Side, what: &str, named: &str, meant: &[&str]) -> String {
    let (meant, note, runner) = (meant.join("|"), side.arrive_note(), side.runner());
    format!(
        "its {what} '{named}' names no tool a call arrives with ({note}), so {runner} would \
         never run it; it fails closed, so it guards '{meant}' as meant (and '{named}' as written, \
         should a plugin's tool be so named): write '{meant}' to say so"
    )
}

pub(super) fn unknown(side: Side, what: &str, named: &str) -> String {
    let declare = match side {
        Side::Native => " (a plugin's tool counts once its plugin.yaml lists it in provides_tools)",
        Side::Imported => "",
    };
    format!(
        "its {what} '{named}' names no tool Hermes has ({}); unless a plugin or MCP server \
         gives one so named, this fail-closed guard NEVER RUNS: fix the {what}{declare}",
        side.arrive_note()
    )
}

#[cfg(test)]
#[path = "dead_names_tests.rs"]
mod tests;
