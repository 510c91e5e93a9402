//! The matcher algorithm of Claude Code, as a table.

use hermes_hooks_shell::dialect::{Condition, DialectMatcher};
use serde_json::{Map, Value, json};

#[test]
fn the_matcher_table() {
    // (matcher, value, matches)
    let table: &[(Option<&str>, &str, bool)] = &[
        (None, "Bash", true),
        (Some(""), "Bash", true),
        (Some("*"), "anything", true),
        (Some("Bash"), "Bash", true),
        (Some("Bash"), "bash", false),
        (Some("Bash"), "BashOutput", false),
        (Some("Edit|Write"), "Edit", true),
        (Some("Edit|Write"), "Write", true),
        (Some("Edit|Write"), "NotebookEdit", false),
        (Some("Edit, Write"), "Write", true),
        (Some(" Edit | Write "), "Edit", true),
        (Some("startup|resume"), "resume", true),
        (Some("prompt_input_exit"), "prompt_input_exit", true),
        (Some("general-purpose"), "general-purpose", true),
        // Anything outside [A-Za-z0-9_ ,|-] is an unanchored regex.
        (Some("Edit.*"), "NotebookEdit", true),
        (Some("^Edit.*"), "NotebookEdit", false),
        (Some("mcp__memory__.*"), "mcp__memory__create", true),
        (Some("mcp__.*__write.*"), "mcp__fs__write_file", true),
        (Some("Notebook.*|Write"), "Write", true),
        (Some("^(Bash|Read)$"), "Read", true),
        (Some("^(Bash|Read)$"), "ReadAll", false),
        // A regex that does not compile is compared literally.
        (Some("Edit("), "Edit(", true),
        (Some("Edit("), "Edit", false),
    ];
    for (pattern, value, expected) in table {
        let (matcher, _) = DialectMatcher::build(*pattern);
        assert_eq!(
            matcher.matches(value),
            *expected,
            "matcher {pattern:?} on {value:?}"
        );
    }
    assert!(
        DialectMatcher::build(Some("Edit(")).1.is_some(),
        "an invalid regex warns"
    );
}

fn input(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[test]
fn if_rules_are_decided_in_process() {
    let bash = |command: &str| input(json!({"command": command}));
    let table: &[(&str, &str, Map<String, Value>, bool)] = &[
        ("Bash", "Bash", bash("ls"), true),
        (
            "Bash(git push*)",
            "Bash",
            bash("git push origin main"),
            true,
        ),
        ("Bash(git push*)", "Bash", bash("git status"), false),
        // Every subcommand is tried, after leading assignments are stripped.
        ("Bash(git push*)", "Bash", bash("cd x && git push"), true),
        ("Bash(git push*)", "Bash", bash("echo $(git push -f)"), true),
        (
            "Bash(git push*)",
            "Bash",
            bash("FOO=1 BAR=2 git push"),
            true,
        ),
        ("Bash(git push*)", "Bash", bash("echo 'git push'"), false),
        (
            "Bash(npm run test:*)",
            "Bash",
            bash("npm run test -- --watch"),
            true,
        ),
        ("Bash(rm *)", "Bash", bash("ls; rm -rf /"), true),
        (
            "Bash(rm *)",
            "Read",
            input(json!({"file_path": "/x"})),
            false,
        ),
        (
            "Edit(*.ts)",
            "Edit",
            input(json!({"file_path": "/p/src/app.ts"})),
            true,
        ),
        (
            "Edit(*.ts)",
            "Edit",
            input(json!({"file_path": "/p/src/app.tsx"})),
            false,
        ),
        (
            "Edit(src/**)",
            "Edit",
            input(json!({"file_path": "/p/src/a/b.rs"})),
            true,
        ),
        (
            "Edit(src/**)",
            "Edit",
            input(json!({"file_path": "/p/lib/b.rs"})),
            false,
        ),
        (
            "Read(./.env)",
            "Read",
            input(json!({"file_path": "/p/.env"})),
            true,
        ),
        (
            "Read(**/.env)",
            "Read",
            input(json!({"file_path": ".env"})),
            true,
        ),
        (
            "Read(**/.env)",
            "Read",
            input(json!({"file_path": "sub/../.env"})),
            true,
        ),
        (
            "Read(**/.env)",
            "Read",
            input(json!({"file_path": "/p/.envrc"})),
            false,
        ),
        (
            "Grep(**/.env)",
            "Grep",
            input(json!({"pattern": "KEY", "path": "./.env"})),
            true,
        ),
        (
            "WebFetch(domain:example.com)",
            "WebFetch",
            input(json!({"url": "https://example.com/a"})),
            true,
        ),
        (
            "WebFetch(domain:example.com)",
            "WebFetch",
            input(json!({"url": "https://evil.io/a"})),
            false,
        ),
    ];
    for (rule, tool, args, expected) in table {
        let condition = Condition::parse(rule);
        assert!(matches!(condition, Condition::Rule { .. }), "{rule} parses");
        assert_eq!(
            condition.allows(tool, args),
            *expected,
            "{rule} on {tool} {args:?}"
        );
    }
}

#[test]
fn an_unparseable_rule_or_command_runs_the_hook() {
    let unparsed = Condition::parse("Bash(git push");
    assert!(matches!(unparsed, Condition::Unparsed(_)));
    assert!(unparsed.allows("Read", &Map::new()));
    // Unbalanced quotes: Claude Code runs the hook rather than guess.
    let rule = Condition::parse("Bash(git push*)");
    assert!(rule.allows("Bash", &input(json!({"command": "echo 'unterminated"}))));
}
