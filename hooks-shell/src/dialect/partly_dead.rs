//! A fail-closed guard whose matcher names live tools and dead ones
//! (`Edit|bash`, round 10, R10-2; `Edit|Bsh`, `^(Edit|Bsh)$`,
//! `Edit|shell_exec`, round 11, R11-2). A dead name whose meaning can be
//! told (`bash`, `Bsh`: [`read_name`]) widens the matcher to the tool meant; one
//! whose meaning cannot be told is warned about as loudly as when it stands
//! alone ("NEVER RUNS", a `doctor` problem).
//!
//! Such a guard does not block the calls its live names miss: which tool the
//! dead name was for is unknown, it may be a plugin's or an MCP server's tool
//! Hermes will have, and blocking every other tool on a name we cannot read
//! would stop the agent for a guard that may be right. It is the same choice
//! as for a guard whose names are all dead and cannot be told.
//!
//! A dead name that is another agent's real tool (`Edit|TodoRead`) widens
//! nothing: it is told neutrally (round 12, R12-2).

use super::dead_names::{Reading, read_name};
use super::live_names::{FAMILIES, Side, spellings};
use super::matcher::DialectMatcher;
use super::other_agents::foreign_message;

/// What a partly dead matcher guards, and what the user is told.
#[derive(Debug)]
pub(super) struct PartlyDead {
    /// The matcher widened by the tools the dead names meant; `None` when
    /// no dead name's meaning could be told.
    pub matcher: Option<DialectMatcher>,
    /// One warning for the names read as meant, one for those that cannot be.
    pub warnings: Vec<String>,
}

/// The dead names of a matcher (as `written` by the user) that also names
/// tools calls on `side` arrive with, read as meant; `None` when every name
/// may arrive (or the matcher names no live tool).
pub(super) fn partly_dead(
    side: Side,
    matcher: &DialectMatcher,
    written: &str,
) -> Option<PartlyDead> {
    let mut dead: Vec<String> = match matcher {
        DialectMatcher::Exact(names) if names.iter().any(|name| side.arrives(name)) => names
            .iter()
            .filter(|name| !side.arrives(name))
            .cloned()
            .collect(),
        DialectMatcher::Regex(regex) => spellings()
            .filter(|name| !side.arrives(name) && regex.is_match(name))
            .chain(dead_alternatives(side, regex.as_str()))
            .collect(),
        _ => return None,
    };
    dead.sort_unstable();
    dead.dedup();
    let mut told = Vec::new();
    let mut meant_tools = Vec::new();
    let mut untold = Vec::new();
    let mut warnings = Vec::new();
    for name in dead {
        match read_name(side, &name) {
            Reading::Meant(tool) if matcher.matches(tool) => {}
            Reading::Meant(tool) => {
                told.push(name);
                meant_tools.push(tool);
            }
            // Another agent's tool (`TodoRead`): never the tool inside it.
            Reading::Foreign(tool) => warnings.push(foreign_message(side, "matcher", tool)),
            Reading::Untold => untold.push(name),
        }
    }
    meant_tools.sort_unstable();
    meant_tools.dedup();
    let (pattern, note) = (written, side.arrive_note());
    if !told.is_empty() {
        warnings.push(format!(
            "its matcher '{pattern}' also names '{}', which no call arrives with ({note}); it \
             fails closed, so it guards '{}' too: write that name to say so",
            told.join("|"),
            meant_tools.join("|")
        ));
    }
    if !untold.is_empty() {
        warnings.push(format!(
            "its matcher '{pattern}' also names '{}', which names no tool Hermes has \
             ({note}); unless a plugin or MCP server gives one so named, this fail-closed \
             guard NEVER RUNS for the tool that name was meant as, and calls of tools its \
             other names miss are not blocked: fix the matcher",
            untold.join("|")
        ));
    }
    if warnings.is_empty() {
        return None;
    }
    let widened = (!meant_tools.is_empty()).then(|| widen(matcher, &meant_tools));
    Some(PartlyDead {
        matcher: widened,
        warnings,
    })
}

/// `matcher` that also matches each of `names` exactly.
pub(super) fn widen(matcher: &DialectMatcher, names: &[&str]) -> DialectMatcher {
    match matcher {
        DialectMatcher::Exact(listed) => {
            let mut listed = listed.clone();
            listed.extend(names.iter().map(|name| (*name).to_owned()));
            DialectMatcher::Exact(listed)
        }
        DialectMatcher::Regex(regex) => {
            let names: Vec<String> = names.iter().map(|name| regex::escape(name)).collect();
            let pattern = format!("(?:{})|^(?:{})$", regex.as_str(), names.join("|"));
            DialectMatcher::build(Some(&pattern)).0
        }
        other => other.clone(),
    }
}

/// The plain-word alternatives of a regex (`Bsh` in `^(Edit|Bsh)$` or
/// `(?i)edit|bsh`) that no tool name Hermes has contains: each one a name
/// the guard meant that no call arrives with.
fn dead_alternatives(side: Side, pattern: &str) -> impl Iterator<Item = String> + '_ {
    let insensitive = pattern.contains("(?i");
    let fold = move |text: &str| {
        if insensitive {
            text.to_ascii_lowercase()
        } else {
            text.to_owned()
        }
    };
    alternatives(pattern).into_iter().filter_map(move |word| {
        let folded = fold(word);
        let contained = side.known_names().any(|name| fold(name).contains(&folded));
        let family = FAMILIES
            .iter()
            .any(|family| family.starts_with(word) || word.starts_with(family));
        (!contained && !family).then(|| word.to_owned())
    })
}

/// The alternatives of `pattern` that are plain words (letters, digits,
/// `_`), each between `|`, a group's parentheses, `^`, `$` or the ends:
/// `Edit` and `Bsh` in `^(Edit|Bsh)$`; not `Bash` in `Bash\b` or `bash.*`.
pub(super) fn alternatives(pattern: &str) -> Vec<&str> {
    let bytes = pattern.as_bytes();
    let mut words = Vec::new();
    let (mut start, mut opened, mut at) = (0, true, 0);
    while at <= bytes.len() {
        let byte = bytes.get(at).copied();
        let escaped = at > 0 && bytes[at - 1] == b'\\';
        let delimiter = byte.is_none_or(|b| b"|()^$".contains(&b)) && !escaped;
        if !delimiter {
            at += 1;
            continue;
        }
        let piece = &pattern[start..at];
        let closes = byte.is_none_or(|b| b"|)$".contains(&b));
        let plain = piece
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if opened && closes && !piece.is_empty() && plain {
            words.push(piece);
        }
        opened = byte.is_some_and(|b| b"|(^".contains(&b));
        at += 1;
        // `(?i)` and `(?:`: the flags are not a word.
        if byte == Some(b'(') && bytes.get(at) == Some(&b'?') {
            while at < bytes.len() && !b":)".contains(&bytes[at]) {
                at += 1;
            }
            at += 1;
        }
        start = at.min(bytes.len());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_word_alternatives_of_a_regex_are_read() {
        assert_eq!(alternatives("^(Edit|Bsh)$"), ["Edit", "Bsh"]);
        assert_eq!(alternatives("(?i)edit|bsh"), ["edit", "bsh"]);
        assert_eq!(alternatives("(?:Write|Bahs)|x"), ["Write", "Bahs", "x"]);
        assert!(alternatives("Bash\\b|bash.*|[B]ash").is_empty());
        assert!(alternatives("a\\|Bsh").is_empty());
    }

    #[test]
    fn only_words_no_tool_name_contains_are_dead() {
        let dead: Vec<String> =
            dead_alternatives(Side::Imported, "^(Edit|Bsh|mcp|kanban)$").collect();
        assert_eq!(dead, ["Bsh"]);
        let dead: Vec<String> = dead_alternatives(Side::Imported, "(?i)edit|BSH").collect();
        assert_eq!(dead, ["BSH"]);
        assert_eq!(
            dead_alternatives(Side::Imported, "wrte|Bash").collect::<Vec<_>>(),
            ["wrte"]
        );
    }
}
