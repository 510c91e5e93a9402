//! `config.yaml`'s own fail-closed guards whose matcher names no tool a
//! Hermes call arrives with (red team round 14, R14-3): `Bash`, `Terminal`,
//! `termnal`, `shell` never matched `terminal`, so the guard never ran and
//! nothing said so. They are read as the imported hooks' are
//! ([`super::dead_names`], [`super::partly_dead`]), with Hermes's names as
//! the live ones ([`Side::Native`]): a name whose meaning can be told guards
//! the tool meant, with a warning saying what to write; one that cannot be
//! told is warned about ("NEVER RUNS", a `doctor` problem) and blocks
//! nothing. Fail-open hooks are left as Hermes runs them.

use super::dead_names::{Reading, read_name, revive_matcher, unknown};
use super::live_names::{FAMILIES, Side};
use super::matcher::DialectMatcher;
use super::partly_dead::partly_dead;

/// How a native fail-closed guard's matcher is read when it names a tool no
/// call arrives with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NativeReading {
    /// The matcher (a Hermes regex, matched whole) naming the tools meant
    /// too; `None` when no dead name's meaning could be told.
    pub pattern: Option<String>,
    /// What was read and why, for the user: one warning for each reading.
    pub warnings: Vec<String>,
}

/// Reads a native fail-closed guard's `pattern` (Hermes's regex, matched
/// against the whole tool name); `None` when it runs as written: a call
/// may arrive with every name it names. A pattern only a backtracking
/// engine reads (look-around), or one naming nothing (`|`), runs as
/// written, but is warned "NEVER RUNS" when it matches no tool Hermes has
/// (red team round 15, R15-7: `(?!x)Bash`).
///
/// `declared` are the tools the home's plugins say they give
/// ([`super::plugin_tools`], R16-3): a name among them whose meaning cannot
/// be told runs as written, unwarned; every other name is read as before.
pub(crate) fn read_native_matcher(pattern: &str, declared: &[String]) -> Option<NativeReading> {
    let pattern = pattern.trim();
    let Some(DialectMatcher::Exact(names)) = as_dialect(pattern) else {
        let reading = read_as_written(pattern)?;
        let runs_on_declared = || {
            let built = hermes_hooks_core::matcher::ToolMatcher::build(Some(pattern));
            declared
                .iter()
                .any(|name| built.matcher.matches(Some(name)))
        };
        return (reading.pattern.is_some() || !runs_on_declared()).then_some(reading);
    };
    let (plugins, rest): (Vec<&String>, Vec<&String>) = names.iter().partition(|name| {
        declared.contains(name) && read_name(Side::Native, name) == Reading::Untold
    });
    if plugins.is_empty() {
        return read_as_written(pattern);
    }
    let rest: Vec<&str> = rest.into_iter().map(String::as_str).collect();
    let mut reading = read_as_written(&rest.join("|")).filter(|_| !rest.is_empty())?;
    let plugins: Vec<String> = plugins.iter().map(|name| regex::escape(name)).collect();
    reading.pattern = reading
        .pattern
        .map(|read| format!("{read}|{}", plugins.join("|")));
    Some(reading)
}

/// [`read_native_matcher`] with only Hermes's own tools live.
fn read_as_written(pattern: &str) -> Option<NativeReading> {
    as_dialect(pattern)
        .and_then(|matcher| read_as_dialect(&matcher, pattern))
        .or_else(|| matches_no_tool(pattern))
}

/// A pattern that matches no name a Hermes call arrives with (nor a
/// family's), read as Hermes reads it: warned, run as written.
fn matches_no_tool(pattern: &str) -> Option<NativeReading> {
    let built = hermes_hooks_core::matcher::ToolMatcher::build(Some(pattern));
    let arrives = Side::Native
        .known_names()
        .any(|name| built.matcher.matches(Some(name)));
    let family = FAMILIES.iter().any(|family| pattern.contains(family));
    (built.warning.is_none() && !arrives && !family).then(|| NativeReading {
        pattern: None,
        warnings: vec![unknown(Side::Native, "matcher", pattern)],
    })
}

fn read_as_dialect(matcher: &DialectMatcher, pattern: &str) -> Option<NativeReading> {
    let (read, warnings) = match revive_matcher(Side::Native, matcher, pattern) {
        Some(revived) => (revived.matcher, revived.warnings),
        None => {
            let partly = partly_dead(Side::Native, matcher, pattern)?;
            (partly.matcher, partly.warnings)
        }
    };
    Some(NativeReading {
        pattern: read.as_ref().and_then(as_native),
        warnings,
    })
}

/// `pattern` as the dialects' matcher that matches the same names: a list of
/// plain names as such, anything else anchored (Hermes matches it whole).
fn as_dialect(pattern: &str) -> Option<DialectMatcher> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '|');
    if pattern.chars().all(plain) {
        let names = pattern.split('|').filter(|name| !name.is_empty());
        return Some(DialectMatcher::Exact(names.map(str::to_owned).collect()));
    }
    match DialectMatcher::build(Some(&format!("^(?:{pattern})$"))).0 {
        regex @ DialectMatcher::Regex(_) => Some(regex),
        _ => None,
    }
}

/// A dialect matcher as Hermes's regex, matched against the whole name.
fn as_native(matcher: &DialectMatcher) -> Option<String> {
    match matcher {
        DialectMatcher::Exact(names) => {
            let names: Vec<String> = names.iter().map(|name| regex::escape(name)).collect();
            Some(names.join("|"))
        }
        DialectMatcher::Regex(regex) => Some(regex.as_str().to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_hooks_core::matcher::ToolMatcher;

    /// Whether the guard as read runs on a call of `tool`.
    fn runs_on(pattern: &str, tool: &str) -> bool {
        let read = read_native_matcher(pattern, &[]).and_then(|read| read.pattern);
        let read = read.as_deref().unwrap_or(pattern);
        ToolMatcher::build(Some(read)).matcher.matches(Some(tool))
    }

    fn warnings(pattern: &str) -> String {
        read_native_matcher(pattern, &[])
            .map(|read| read.warnings.join("\n"))
            .unwrap_or_default()
    }

    #[test]
    fn a_name_whose_meaning_can_be_told_guards_the_hermes_tool_meant() {
        for (pattern, meant) in [
            ("Bash", "terminal"),
            ("Terminal", "terminal"),
            ("TERMINAL", "terminal"),
            ("termnal", "terminal"),
            ("shell", "terminal"),
            ("Shell", "terminal"),
            ("run_command", "terminal"),
            ("^Bash$", "terminal"),
            ("bash.*", "terminal"),
            ("(?i)bash", "terminal"),
            ("Read", "read_file"),
            ("Write", "write_file"),
            ("Edit", "patch"),
            ("MultiEdit", "patch"),
            ("Task", "delegate_task"),
            ("Agent", "delegate_task"),
            ("WebSearch", "web_search"),
            ("WebFetch", "web_extract"),
            ("Grep", "search_files"),
            ("Todo", "todo"),
        ] {
            assert!(runs_on(pattern, meant), "{pattern} guards {meant}");
            let said = warnings(pattern);
            assert!(
                said.contains(&format!("guards '{meant}'")),
                "{pattern}: {said}"
            );
            assert!(said.contains("so Hermes would never run it"), "{said}");
            assert!(!said.contains("NEVER RUNS"), "{said}");
        }
        assert!(runs_on("Bash|Read", "terminal") && runs_on("Bash|Read", "read_file"));
        assert!(!runs_on("Bash", "read_file"));
    }

    #[test]
    fn a_dead_name_among_live_ones_guards_the_tool_meant_too() {
        for pattern in ["read_file|Bash", "^(read_file|Bash)$", "read_file|termnal"] {
            assert!(runs_on(pattern, "terminal"), "{pattern}");
            assert!(runs_on(pattern, "read_file"), "{pattern}");
            assert!(!runs_on(pattern, "write_file"), "{pattern}");
            assert!(
                warnings(pattern).contains("guards 'terminal' too"),
                "{pattern}"
            );
        }
    }

    #[test]
    fn a_name_whose_meaning_cannot_be_told_never_runs_and_blocks_nothing() {
        for pattern in ["frobnicate", "shell_exec", "^zz[0-9]+$"] {
            let read = read_native_matcher(pattern, &[]).expect(pattern);
            assert_eq!(read.pattern, None, "{pattern}");
            assert!(warnings(pattern).contains("NEVER RUNS"), "{pattern}");
            assert!(!runs_on(pattern, "terminal"), "{pattern}");
        }
        let read = read_native_matcher("read_file|frobnicate", &[]).expect("partly dead");
        assert_eq!(read.pattern, None);
        assert!(read.warnings.join("").contains("NEVER RUNS"));
    }

    #[test]
    fn a_pattern_that_matches_no_tool_is_said_to_never_run() {
        for pattern in ["(?!x)Bash", "|", "(?=a)terminal"] {
            let read = read_native_matcher(pattern, &[]).expect(pattern);
            assert_eq!(read.pattern, None, "{pattern}");
            assert!(warnings(pattern).contains("NEVER RUNS"), "{pattern}");
        }
    }

    #[test]
    fn a_matcher_a_hermes_call_may_arrive_with_runs_as_written() {
        for pattern in [
            "terminal",
            "terminal|Bash",
            "read_.*|write_file",
            ".*",
            "mcp_foo_bar",
            "mcp_.*",
            "todo",
            "(?!read)term.*",
            "browser_navigate",
        ] {
            assert_eq!(read_native_matcher(pattern, &[]), None, "{pattern}");
        }
    }

    #[test]
    fn a_plugins_declared_tool_runs_as_written_and_unwarned() {
        let declared = ["jira_create_ticket".to_owned(), "Bash".to_owned()];
        let read = |pattern: &str| read_native_matcher(pattern, &declared);
        for pattern in [
            "jira_create_ticket",
            "jira_.*",
            "read_file|jira_create_ticket",
        ] {
            assert_eq!(read(pattern), None, "{pattern}");
        }
        // The other names are read as before; the declared one stays guarded.
        let mixed = read("Bash|jira_create_ticket").expect("Bash read as meant");
        let mixed = ToolMatcher::build(mixed.pattern.as_deref()).matcher;
        for tool in ["terminal", "Bash", "jira_create_ticket"] {
            assert!(mixed.matches(Some(tool)), "{tool}");
        }
        let untold = read("frobnicate|jira_create_ticket").expect("frobnicate warned");
        assert!(untold.warnings.join("").contains("NEVER RUNS"));
        // A declared name Hermes would read as meant is still read so.
        assert!(runs_on("Bash", "terminal") && read("Bash").is_some());
    }

    #[test]
    fn another_agents_tool_names_hermess_nearest_by_its_own_name() {
        let said = warnings("TodoRead");
        assert!(said.contains("add 'todo'"), "{said}");
        assert!(warnings("NotebookRead").contains("add 'read_file'"));
        assert!(!runs_on("TodoRead", "todo"));
        // Claude Code's `TodoWrite` is Hermes's `todo`, as meant.
        assert!(runs_on("TodoWrite", "todo"));
    }
}
