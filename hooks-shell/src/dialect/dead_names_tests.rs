//! Tests of `dead_names.rs`: which matchers and `if` rules are dead, and
//! what a fail-closed guard with one guards.

use super::*;

fn matcher(pattern: &str) -> DialectMatcher {
    DialectMatcher::build(Some(pattern)).0
}

fn warned(revived: &Revived, text: &str) -> bool {
    revived
        .warnings
        .iter()
        .any(|warning| warning.contains(text))
}

#[test]
fn names_no_call_arrives_with_guard_the_tool_meant() {
    for (pattern, meant) in [
        ("bash", "Bash"),
        ("terminal", "Bash"),
        ("Terminal", "Bash"),
        ("TERMINAL", "Bash"),
        ("Shell", "Bash"),
        ("run_command", "Bash"),
        ("BashTool", "Bash"),
        ("Bash_", "Bash"),
        ("read_file|write_file", "Read|Write"),
        ("^terminal$", "Bash"),
        ("^bash$", "Bash"),
        ("bash.*", "Bash"),
        ("^Terminal$", "Bash"),
        ("Bash(rm *)", "Bash"),
        ("Bash(rm:*)", "Bash"),
        ("Bsh", "Bash"),
        ("Ba sh", "Bash"),
        ("Bahs|Raed", "Bash|Read"),
        ("^Bsh$", "Bash"),
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        let why = revived.warnings.join("\n");
        assert!(
            why.contains(&format!("guards '{meant}' as meant")),
            "{pattern}: {why}"
        );
        let revived = revived.matcher.expect("a matcher");
        for name in meant.split('|') {
            assert!(revived.matches(name), "{pattern} guards {name}");
        }
        // What was written is kept: a plugin's tool may be so named (R15-2).
        if !pattern.contains(['^', '(', '.', ' ']) {
            for name in pattern.split('|') {
                assert!(revived.matches(name), "{pattern} keeps {name}");
            }
        }
    }
    for (rule, meant) in [
        ("bash(rm *)", "Bash(rm *)"),
        ("Terminal(rm *)", "Bash(rm *)"),
    ] {
        let revived = revive(&DialectMatcher::All, Some(&Condition::parse(rule))).expect(rule);
        assert!(warned(&revived, "if rule's tool"), "{revived:?}");
        assert_eq!(revived.condition, Some(Condition::parse(meant)));
    }
}

#[test]
fn a_name_whose_meaning_cannot_be_told_is_warned_about() {
    for pattern in ["shell_exec", "frobnicate", "^zz[0-9]+$"] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        assert!(revived.matcher.is_none(), "{pattern}");
        assert!(warned(&revived, "NEVER RUNS"), "{revived:?}");
    }
}

#[test]
fn a_name_that_may_arrive_is_live() {
    for pattern in [
        "Bash",
        "Bash|terminal",
        "(?i)bash",
        "mcp__.*",
        "mcp_.*terminal",
        "browser_navigate",
        "execute_code|process",
        "kanban_create",
        "*",
        "Bash\\b",
        "[B]ash",
    ] {
        assert!(revive(&matcher(pattern), None).is_none(), "{pattern}");
    }
    let rule = Condition::parse("Bash(rm *)");
    assert!(revive(&DialectMatcher::All, Some(&rule)).is_none());
    let edit = matcher("Edit");
    assert!(revive(&edit, Some(&Condition::parse("Edit(*.env)"))).is_none());
    let both = matcher("Edit|Write");
    assert!(revive(&both, Some(&Condition::parse("Edit(*.env)"))).is_none());
}

#[test]
fn a_dead_name_among_live_ones_guards_the_tool_meant_too() {
    for (pattern, bash_too) in [
        ("Edit|bash", true),
        ("Write|Edit|Terminal", true),
        ("^(bash|Edit)$", true),
        ("bash|mcp__.*", true),
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        let widened = revived.matcher.as_ref().expect("a matcher");
        assert_eq!(widened.matches("Bash"), bash_too, "{pattern}");
        assert!(
            widened.matches("Edit") || pattern.starts_with("bash|"),
            "{pattern}"
        );
        assert!(warned(&revived, "guards 'Bash' too"), "{revived:?}");
    }
    // `matcher: Edit` with `if: Bash(rm *)`: the rule's tool is guarded too.
    let revived = revive(&matcher("Edit"), Some(&Condition::parse("Bash(rm *)"))).expect("dead");
    assert!(revived.matcher.as_ref().expect("a matcher").matches("Bash"));
    assert!(warned(&revived, "never matches"), "{revived:?}");
}

#[test]
fn a_misspelt_name_among_live_ones_guards_the_tool_it_is_nearest() {
    for pattern in [
        "Edit|Bsh",
        "Write|Edit|Bahs",
        "^(Edit|Bsh)$",
        "(?i)edit|bsh",
        "(?:Edit|BSH)",
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        let widened = revived.matcher.as_ref().expect("a matcher");
        assert!(
            widened.matches("Bash") && widened.matches("Edit"),
            "{pattern}"
        );
        assert!(!widened.matches("Read"), "{pattern}");
        assert!(warned(&revived, "guards 'Bash' too"), "{revived:?}");
    }
}

#[test]
fn a_dead_name_among_live_ones_that_cannot_be_told_is_warned_as_alone() {
    for (pattern, dead) in [
        ("Edit|shell_exec", "shell_exec"),
        ("Edit|terminal_cmd", "terminal_cmd"),
        ("^(Edit|frobnicate)$", "frobnicate"),
        ("(?i)edit|frobnicate", "frobnicate"),
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        assert!(revived.matcher.is_none(), "{pattern}: nothing to widen by");
        let [warning] = revived.warnings.as_slice() else {
            panic!("{pattern}: {revived:?}");
        };
        assert!(warning.contains("NEVER RUNS"), "{warning}");
        assert!(warning.contains(&format!("'{dead}'")), "{warning}");
    }
    // One told and one not: both said, the told one guarded.
    let revived = revive(&matcher("Edit|bash|shell_exec"), None).expect("dead");
    assert!(revived.matcher.expect("a matcher").matches("Bash"));
    assert_eq!(revived.warnings.len(), 2, "{:?}", revived.warnings);
}

#[test]
fn a_dead_if_rule_is_read_against_the_widened_matcher() {
    for (pattern, rule) in [
        ("Edit|bash", "bash(rm *)"),
        ("Edit|Terminal", "Terminal(rm *)"),
        ("bash", "bash(rm *)"),
        ("Edit", "bash(rm *)"),
        ("Edit|Bsh", "Bsh(rm *)"),
        ("Bash|Edit", "Bsh(rm *)"),
    ] {
        let revived = revive(&matcher(pattern), Some(&Condition::parse(rule))).expect(rule);
        let read = revived.matcher.clone().unwrap_or_else(|| matcher(pattern));
        assert!(read.matches("Bash"), "{pattern} {rule}: {revived:?}");
        let condition = revived.condition.expect("the rule read");
        assert_eq!(
            condition,
            Condition::parse("Bash(rm *)"),
            "{pattern} {rule}"
        );
        for warning in &revived.warnings {
            assert!(!warning.contains("NEVER RUNS"), "{warning}");
        }
    }
    // A live rule is left as written.
    let revived = revive(&matcher("Edit|bash"), Some(&Condition::parse("Bash(rm *)")));
    assert!(revived.expect("dead").condition.is_none());
}

#[test]
fn another_agents_tool_is_never_the_live_tool_inside_its_name() {
    for pattern in [
        "TodoRead",
        "BashOutput",
        "KillBash",
        "KillShell",
        "NotebookRead",
        "write_stdin",
        "^TodoRead$",
        "TodoRead.*",
        "TaskOutput",
        "todo_write",
        "LSP",
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        assert!(revived.matcher.is_none(), "{pattern}: {revived:?}");
        let why = revived.warnings.join("\n");
        assert!(
            why.contains("Hermes has no tool so named"),
            "{pattern}: {why}"
        );
        for wrong in ["never run", "NEVER RUNS", "as meant"] {
            assert!(!why.contains(wrong), "{pattern}: {why}");
        }
    }
    assert_eq!(meant(Side::Imported, "TodoWriteX"), None, "not Write");
    assert_eq!(
        meant(Side::Imported, "BashOutpt"),
        None,
        "a misspelt BashOutput is not Bash"
    );
    let revived = revive(&matcher("apply_patch"), None).expect("Codex's patch tool");
    assert!(revived.matcher.expect("Edit").matches("Edit"));
}

#[test]
fn another_agents_tool_among_live_ones_widens_nothing() {
    for (pattern, live) in [
        ("Edit|TodoRead", "Edit"),
        ("Read|BashOutput", "Read"),
        ("^(Edit|TodoRead)$", "Edit"),
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        let read = revived.matcher.unwrap_or_else(|| matcher(pattern));
        assert!(read.matches(live), "{pattern}");
        for other in ["Write", "Bash", "Read", "Edit"] {
            assert_eq!(read.matches(other), other == live, "{pattern} {other}");
        }
        let why = revived.warnings.join("\n");
        assert!(
            why.contains("Hermes has no tool so named"),
            "{pattern}: {why}"
        );
        assert!(!why.contains("NEVER RUNS"), "{pattern}: {why}");
    }
    // Its `if` rule on another agent's tool widens nothing either.
    let rule = Condition::parse("TodoRead(*)");
    let revived = revive(&matcher("Edit"), Some(&rule)).expect("dead rule");
    assert!(revived.matcher.is_none(), "{revived:?}");
    assert!(warned(&revived, "Claude Code's tool"), "{revived:?}");
}

#[test]
fn other_names_and_claude_only_tools_run_as_written_unwarned() {
    // `MultiEdit` runs on `patch`, `Agent` on `delegate_task` (R13-7);
    // `NotebookEdit` and `LS` are never warned about (R16-6).
    for pattern in [
        "MultiEdit",
        "^Agent$",
        "Edit|MultiEdit",
        "Task|Agent",
        "NotebookEdit",
        "LS",
        "Edit|MultiEdit|Write|NotebookEdit",
    ] {
        assert!(revive(&matcher(pattern), None).is_none(), "{pattern}");
    }
}
