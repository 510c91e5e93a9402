//! Imported hooks (`hooks_from:`) as run records and under content-bound
//! consent, through the real binary (helpers from `dialects`).

use serde_json::Value;

use crate::dialects::{bash, claude_project, emit_json, home_with, in_project};

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
