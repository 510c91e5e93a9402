//! Tests of `dead_names.rs`: which matchers and `if` rules are dead, and
//! what a fail-closed guard with one guards.

use super::*;

fn matcher(pattern: &str) -> DialectMatcher {
    DialectMatcher::build(Some(pattern)).0
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
    ] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        let why = revived.warning;
        assert!(
            why.contains(&format!("guards '{meant}' as meant")),
            "{pattern}: {why}"
        );
        let revived = revived.matcher.expect("a matcher");
        assert_eq!(revived.describe().as_deref(), Some(meant), "{pattern}");
    }
    for (rule, meant) in [
        ("bash(rm *)", "Bash(rm *)"),
        ("Terminal(rm *)", "Bash(rm *)"),
    ] {
        let revived = revive(&DialectMatcher::All, Some(&Condition::parse(rule))).expect(rule);
        assert!(
            revived.warning.contains("if rule's tool"),
            "{}",
            revived.warning
        );
        assert_eq!(revived.condition, Some(Condition::parse(meant)));
    }
}

#[test]
fn a_name_whose_meaning_cannot_be_told_is_warned_about() {
    for pattern in ["Ba sh", "frobnicate", "^zz[0-9]+$"] {
        let revived = revive(&matcher(pattern), None).expect(pattern);
        assert!(revived.matcher.is_none(), "{pattern}");
        assert!(
            revived.warning.contains("NEVER RUNS"),
            "{}",
            revived.warning
        );
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
        let widened = revived.matcher.expect("a matcher");
        assert_eq!(widened.matches("Bash"), bash_too, "{pattern}");
        assert!(
            widened.matches("Edit") || pattern.starts_with("bash|"),
            "{pattern}"
        );
        assert!(
            revived.warning.contains("guards 'Bash' too"),
            "{}",
            revived.warning
        );
    }
    // `matcher: Edit` with `if: Bash(rm *)`: the rule's tool is guarded too.
    let revived = revive(&matcher("Edit"), Some(&Condition::parse("Bash(rm *)"))).expect("dead");
    assert!(revived.matcher.expect("a matcher").matches("Bash"));
    assert!(
        revived.warning.contains("never matches"),
        "{}",
        revived.warning
    );
}
