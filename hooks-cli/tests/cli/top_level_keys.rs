//! A Claude Code settings file's `env` block reaches the hooks of that file
//! (Claude Code sets it for the session its hooks inherit), never another
//! file's hooks: a cloned project's `env` must not reach the user's own
//! guards. A changed value is new code to consent. A Cursor `hooks.json` of
//! a version other than 1 is read, with a warning saying so.

use serde_json::{Value, json};

use crate::dialects::{home_with, write};
use crate::harness;
use crate::support::{Run, TempHome};

fn test_json(home: &TempHome, project: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = extra.to_vec();
    args.extend([
        "--project",
        project.to_str().unwrap(),
        "test",
        "PreToolUse",
        "--for-tool",
        "Bash",
        "--json",
    ]);
    let mut test = harness::command(home, &args);
    test.env_remove("GREETING").env_remove("COUNT");
    let run = Run(test.output().unwrap());
    serde_json::from_str(run.stdout().trim())
        .unwrap_or_else(|_| panic!("not JSON: {}\n{}", run.stdout(), run.stderr()))
}

fn stdouts(run: &Value) -> Vec<String> {
    run["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|hook| hook["stdout"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn a_settings_env_reaches_its_own_files_hooks_only() {
    let (home, project) = home_with("[claude]");
    let show = r#"printf 'project:%s|%s|%s' "$GREETING" "$COUNT" "$FLAG""#;
    let settings = json!({
        "env": {"GREETING": "hello there", "COUNT": 3, "FLAG": true},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": show}]}]}
    });
    write(&project, ".claude/settings.json", &settings.to_string());
    let user = json!({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": r#"printf 'user:[%s]' "$GREETING""#}
        ]}]}
    });
    write(&home.user_home, ".claude/settings.json", &user.to_string());

    let run = test_json(&home, &project, &["--accept-hooks"]);
    let mut out = stdouts(&run);
    out.sort();
    assert_eq!(
        out,
        vec![
            "project:hello there|3|true".to_owned(),
            "user:[]".to_owned()
        ],
        "{run}"
    );
}

#[test]
fn a_changed_env_value_asks_again() {
    let (home, project) = home_with("[claude]");
    let settings = |value: &str| {
        json!({
            "env": {"GREETING": value},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": r#"printf '%s' "$GREETING""#}
            ]}]}
        })
        .to_string()
    };
    write(&project, ".claude/settings.json", &settings("hello"));
    // Approved as it is now (test --accept-hooks records the approval).
    let first = test_json(&home, &project, &["--accept-hooks"]);
    assert_eq!(stdouts(&first), vec!["hello".to_owned()], "{first}");
    let approved = test_json(&home, &project, &[]);
    assert_eq!(stdouts(&approved), vec!["hello".to_owned()], "{approved}");

    write(&project, ".claude/settings.json", &settings("changed"));
    let after = test_json(&home, &project, &[]);
    assert_ne!(
        stdouts(&after),
        vec!["changed".to_owned()],
        "a changed env value ran without a new approval: {after}"
    );
    let text = after.to_string();
    assert!(
        text.contains("GREETING"),
        "the reason names the variable: {after}"
    );
}

#[test]
fn a_bad_env_entry_is_a_warning_naming_the_file_and_the_field() {
    let (home, project) = home_with("[claude]");
    let settings = json!({
        "env": {"GOOD": "1", "BAD-NAME": "x", "NESTED": {"a": 1}},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": r#"printf '%s' "$GOOD""#}
        ]}]}
    });
    let file = write(&project, ".claude/settings.json", &settings.to_string());
    let run = test_json(&home, &project, &["--accept-hooks"]);
    assert_eq!(stdouts(&run), vec!["1".to_owned()], "{run}");
    let doctor = crate::dialects::in_project(&home, &project, &["doctor"]);
    let text = format!("{}{}", doctor.stdout(), doctor.stderr());
    for field in ["env.BAD-NAME", "env.NESTED"] {
        assert!(text.contains(field), "{field} missing from: {text}");
    }
    assert!(text.contains(&file.display().to_string()), "{text}");
}

#[test]
fn a_cursor_file_of_another_version_is_read_with_a_warning() {
    let (home, project) = home_with("[cursor]");
    let hooks = json!({
        "version": 2,
        "hooks": {"beforeShellExecution": [{"command": "printf '{}'"}]}
    });
    let file = write(&project, ".cursor/hooks.json", &hooks.to_string());
    let list = crate::dialects::in_project(&home, &project, &["list"]);
    let text = format!("{}{}", list.stdout(), list.stderr());
    assert!(text.contains("beforeShellExecution"), "{text}");
    assert!(
        text.contains("version: 2 is not a version this reader knows (1)"),
        "{text}"
    );
    assert!(text.contains(&file.display().to_string()), "{text}");
    let one = json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": "true"}]}});
    write(&project, ".cursor/hooks.json", &one.to_string());
    let list = crate::dialects::in_project(&home, &project, &["list"]);
    let text = format!("{}{}", list.stdout(), list.stderr());
    assert!(!text.contains("version:"), "{text}");
}
