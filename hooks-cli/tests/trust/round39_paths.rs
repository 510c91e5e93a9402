//! Red team round 39, where things are: a project named with a trailing
//! slash, `.` or `..` is the same project, approvals included (R39-6).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{executable, home_with, in_project, write};
use crate::support::{Run, TempHome};

/// The project's Claude hook `"$CLAUDE_PROJECT_DIR"/.claude/hooks/h.sh`
/// (the command carries the project's path), which blocks every call.
fn project_blocker(project: &Path) {
    let script = "#!/bin/sh\ncat >/dev/null; echo RAN-project >&2; exit 2\n";
    executable(&write(project, ".claude/hooks/h.sh", script));
    let command = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/h.sh";
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}
    ]}]}});
    write(project, ".claude/settings.json", &settings.to_string());
}

/// `hooks --project <spelling> emit` of a `terminal` call of `ls`, from `cwd`.
fn emit_ls(home: &TempHome, spelling: &str, cwd: &Path) -> Value {
    let payload = home.write(
        "ls.json",
        r#"{"tool_name":"terminal","args":{"command":"ls"}}"#,
    );
    let payload = payload.to_str().expect("UTF-8");
    let args = ["--project", spelling, "emit", "pre_tool_call", "--json"];
    let mut command = crate::harness::command(home, &args);
    command.args(["--payload-file", payload]).current_dir(cwd);
    Run(command.output().expect("hooks runs")).json()
}

#[test]
fn an_approval_holds_for_every_spelling_of_its_project() {
    let (home, project) = home_with("[claude]");
    project_blocker(&project);
    let plain = project.to_str().expect("UTF-8").to_owned();
    in_project(&home, &project, &["approve", "--all"]).ok();
    let spellings = [
        plain.clone(),
        format!("{plain}/"),
        format!("{plain}/./"),
        format!("{plain}/.claude/.."),
        format!("{plain}/.claude/../"),
        ".".to_owned(),
        "./".to_owned(),
    ];
    for spelling in &spellings {
        let emitted = emit_ls(&home, spelling, &project);
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("blocked"),
            "--project {spelling}: {emitted:#}"
        );
    }
    // Approved under a spelling with a slash, it holds for the plain one.
    let (home, project) = home_with("[claude]");
    project_blocker(&project);
    let slashed = format!("{}/", project.display());
    let approve = ["--project", slashed.as_str(), "approve", "--all"];
    home.hooks(&approve).ok();
    let emitted = emit_ls(&home, project.to_str().expect("UTF-8"), &project);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("blocked"),
        "{emitted:#}"
    );
}

#[test]
fn a_project_spelled_through_a_link_stays_its_own() {
    // The documented rule (consent-binds-to-what-runs.md, "Scopes"): a
    // link's `..` is not resolved, nor is the link itself.
    let (home, project) = home_with("[claude]");
    project_blocker(&project);
    in_project(&home, &project, &["approve", "--all"]).ok();
    let link = home.user_home.join("link");
    std::os::unix::fs::symlink(&project, &link).expect("link");
    for spelling in [
        format!("{}/", link.display()),
        format!("{}/.claude/..", link.display()),
    ] {
        let emitted = emit_ls(&home, &spelling, &home.user_home);
        assert_ne!(
            emitted["runs"][0]["status"],
            json!("blocked"),
            "--project {spelling}: {emitted:#}"
        );
    }
}
