//! Imported hooks (`hooks_from:`) as run records and under content-bound
//! consent, through the real binary (helpers from `dialects`).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{bash, claude_project, emit_json, home_with, in_project, write};
use crate::support::{Run, TempHome};

#[test]
fn an_imported_hook_whose_script_changed_after_approval_asks_again() {
    let (home, project) = home_with("[claude]");
    claude_project(&project);
    in_project(&home, &project, &["approve", "--all"]).ok();
    let guard = project.join(".claude/hooks/guard.sh");
    let mtime = std::fs::metadata(&guard).unwrap().modified().unwrap();
    // New code behind the approved command, its mtime put back.
    let marker = project.join("ran");
    std::fs::write(
        &guard,
        format!("#!/usr/bin/env bash\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    std::fs::File::options()
        .write(true)
        .open(&guard)
        .unwrap()
        .set_modified(mtime)
        .unwrap();

    let file = home.write("payload.json", &bash("rm -rf /").to_string());
    let run = in_project(
        &home,
        &project,
        &[
            "emit",
            "pre_tool_call",
            "--json",
            "--payload-file",
            file.to_str().unwrap(),
        ],
    );
    assert!(!marker.exists(), "changed code ran without new consent");
    assert!(
        run.stderr().contains("changed since it was approved"),
        "{}",
        run.stderr()
    );

    let again = emit_json(
        &home,
        &project,
        &["--accept-hooks"],
        "pre_tool_call",
        &bash("ls"),
    );
    assert!(
        marker.exists(),
        "--accept-hooks approves the new code: {again}"
    );
}

#[test]
fn emit_json_records_each_imported_hook_run() {
    let (home, project) = home_with("[claude]");
    claude_project(&project);
    let denied = emit_json(
        &home,
        &project,
        &["--accept-hooks"],
        "pre_tool_call",
        &bash("rm -rf /"),
    );
    let runs = denied["runs"].as_array().expect("a runs list");
    let imported: Vec<&Value> = runs
        .iter()
        .filter(|run| run["mechanism"] == "imported")
        .collect();
    assert_eq!(
        imported.len(),
        1,
        "the Bash guard ran, the file guard did not: {runs:?}"
    );
    let run = imported[0];
    assert_eq!(run["status"], "blocked", "{run}");
    assert_eq!(run["event"], "pre_tool_call", "{run}");
    assert!(
        run["source"].as_str().unwrap().contains("guard.sh"),
        "{run}"
    );
    assert!(run["elapsed_ms"].as_f64().is_some(), "{run}");
    assert_eq!(run["decision"]["action"], "block", "{run}");

    let allowed = emit_json(
        &home,
        &project,
        &["--accept-hooks"],
        "pre_tool_call",
        &bash("ls"),
    );
    let statuses: Vec<&Value> = allowed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|run| run["mechanism"] == "imported")
        .map(|run| &run["status"])
        .collect();
    assert_eq!(statuses, vec!["completed"], "{allowed}");
}

/// `hooks test PreToolUse --for-tool Bash` with the `rm -rf` payload, in `args`.
fn test_bash(home: &TempHome, project: &Path, json: bool) -> Run {
    let file = home.write("payload.json", r#"{"args": {"command": "rm -rf /"}}"#);
    let mut args = vec!["--accept-hooks", "test", "PreToolUse", "--for-tool", "Bash"];
    if json {
        args.push("--json");
    }
    args.extend(["--payload-file", file.to_str().unwrap()]);
    in_project(home, project, &args)
}

#[test]
fn hooks_test_records_imported_runs_like_native_ones() {
    let (home, project) = home_with("[claude]");
    claude_project(&project);
    // A native hook of the same event beside them: both kinds of record in one list.
    let native = home.script("allow.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    home.config(&format!(
        "hooks_from: [claude]\nhooks:\n  pre_tool_call:\n    - command: {}\n",
        native.display()
    ));
    let run = in_project(
        &home,
        &project,
        &[
            "--accept-hooks",
            "test",
            "pre_tool_call",
            "--for-tool",
            "terminal",
            "--json",
            "--payload-file",
            home.write("payload.json", r#"{"args": {"command": "rm -rf /"}}"#)
                .to_str()
                .unwrap(),
        ],
    )
    .json();
    let runs = run["runs"].as_array().expect("runs");
    let mechanisms: Vec<&Value> = runs.iter().map(|run| &run["mechanism"]).collect();
    assert_eq!(mechanisms, vec!["shell", "imported"], "{run}");

    let run = test_bash(&home, &project, true).json();
    let runs = run["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one record per imported hook run: {run}");
    let record = &runs[0];
    assert_eq!(record["mechanism"], "imported", "{record}");
    assert_eq!(record["event"], "pre_tool_call", "{record}");
    assert_eq!(record["status"], "blocked", "{record}");
    assert!(
        record["source"].as_str().unwrap().starts_with("claude:")
            && record["source"].as_str().unwrap().contains("guard.sh"),
        "{record}"
    );
    assert!(record["elapsed_ms"].as_f64().is_some(), "{record}");
    assert_eq!(
        record["decision"],
        json!({"action": "block", "message": "rm -rf is not allowed here"})
    );
    assert!(record["diagnostics"].as_array().is_some(), "{record}");

    // The text output gives an imported hook the lines a native one gets.
    let text = test_bash(&home, &project, false).ok();
    assert!(text.contains("      status: blocked"), "{text}");
}

#[test]
fn hooks_test_says_why_an_imported_hook_failed() {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        ".claude/hooks/broken.sh",
        "echo oops >&2\nexit 3\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"command": "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/broken.sh", "failClosed": true}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let run = test_bash(&home, &project, true).json();
    let record = &run["runs"][0];
    assert_eq!(record["status"], "failed", "{run}");
    let diagnostics: Vec<&str> = record["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        // What of cargo's environment names the crate's folder is said too.
        .filter(|line| !line.starts_with("not passed to this hook"))
        .collect();
    assert_eq!(
        diagnostics,
        vec![
            "exited with status 3",
            "stderr: oops",
            "failed closed: the tool call is blocked"
        ],
        "{record}"
    );
    let text = test_bash(&home, &project, false).ok();
    assert!(text.contains("      status: failed"), "{text}");
    assert!(text.contains("      ! exited with status 3"), "{text}");
}

#[test]
fn a_changed_fail_closed_imported_hook_blocks_through_the_binary() {
    let (home, project) = home_with("[claude]");
    let marker = project.join("ran");
    let script = format!("touch '{}'\necho '{{}}'\n", marker.display());
    write(&project, ".claude/hooks/gate.sh", &script);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"command": "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/gate.sh", "failClosed": true}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());

    // Not approved yet: blocked, not run.
    let first = emit_json(&home, &project, &[], "pre_tool_call", &bash("ls"));
    assert_eq!(first["outcome"]["action"], "block", "{first}");
    assert!(!marker.exists());
    in_project(&home, &project, &["approve", "--all"]).ok();
    let approved = emit_json(&home, &project, &[], "pre_tool_call", &bash("ls"));
    assert_eq!(approved["outcome"], Value::Null, "{approved}");
    std::fs::remove_file(&marker).unwrap();

    write(&project, ".claude/hooks/gate.sh", "echo '{}' # changed\n");
    let changed = emit_json(&home, &project, &[], "pre_tool_call", &bash("ls"));
    assert_eq!(changed["outcome"]["action"], "block", "{changed}");
    let message = changed["outcome"]["message"].as_str().unwrap();
    assert!(
        message.contains("changed since it was approved"),
        "{message}"
    );
    let record = &changed["runs"][0];
    assert_eq!(record["mechanism"], "imported", "{changed}");
    assert_eq!(record["status"], "blocked", "{changed}");
    assert!(!marker.exists(), "the changed script did not run");

    // `list`, `doctor` and `test` say what the runtime does with it.
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    let row = &listed["imported_hooks"][0];
    assert_eq!(row["allowlisted"], false, "{row}");
    assert_eq!(row["changed_since_approval"], true, "{row}");
    let text = in_project(&home, &project, &["list"]).ok();
    assert!(
        text.contains("changed since it was approved") && text.contains("(fails closed"),
        "{text}"
    );
    let doctor = in_project(&home, &project, &["doctor"]).problems();
    assert!(
        doctor.contains("changed since it was approved") && doctor.contains("it fails closed"),
        "{doctor}"
    );
    // Without --accept-hooks the changed imported hook is not run: listed
    // as not allowlisted.
    let tested = in_project(&home, &project, &["test", "PreToolUse", "--json"]).json();
    assert_eq!(tested["hooks"][0]["allowlisted"], false, "{tested}");
}
