//! Red team round 39, where things are: a project named with a trailing
//! slash, `.` or `..` is the same project, approvals included (R39-6); the
//! user's hooks are read where `CLAUDE_CONFIG_DIR` and `CODEX_HOME` put
//! them, and a variable naming no folder (those two, `HERMES_MANAGED_DIR`)
//! is said, never a guard silently dropped (R39-5).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{answering, emit_rm_command, executable, home_with, in_project, write};
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

/// The user's fail-closed Claude guard in `folder/settings.json`, blocking
/// every `Bash` call with `message`.
pub(crate) fn claude_guard_in(folder: &Path, message: &str) {
    let answer = json!({"decision": "block", "reason": message});
    let guard = write(folder, "guard.sh", &answering(&answer));
    let handler = json!({"type": "command", "command": format!("sh {}", guard.display()),
        "failClosed": true});
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    write(folder, "settings.json", &settings.to_string());
}

/// `hooks emit` of `rm -rf /` with `name=value` in the environment.
pub(crate) fn emit_rm_with(
    home: &TempHome,
    project: &Path,
    name: &str,
    value: &Path,
    accept: bool,
) -> Run {
    let mut command = emit_rm_command(home, project, accept);
    command.env(name, value);
    Run(command.output().expect("hooks runs"))
}

#[test]
fn claude_config_dir_is_where_the_users_guard_is_read() {
    let (home, project) = home_with("[claude]");
    let moved = home.user_home.join(".config/claude");
    claude_guard_in(&moved, "moved guard");
    // A stale ~/.claude beside it is not read in its place.
    write(&home.user_home, ".claude/settings.json", r#"{"hooks": {}}"#);
    let run = emit_rm_with(&home, &project, "CLAUDE_CONFIG_DIR", &moved, true);
    let emitted = run.json();
    assert_eq!(
        emitted["outcome"]["message"],
        json!("moved guard"),
        "{emitted:#}"
    );
    let later = emit_rm_with(&home, &project, "CLAUDE_CONFIG_DIR", &moved, false).json();
    assert_eq!(later["outcome"]["action"], json!("block"), "{later:#}");
}

#[test]
fn codex_home_is_where_the_users_guard_is_read() {
    for file in ["hooks.json", "config.toml"] {
        let (home, project) = home_with("[codex]");
        let moved = home.user_home.join(".config/codex");
        let answer = json!({"decision": "block", "reason": "codex guard"});
        let guard = write(&moved, "guard.sh", &answering(&answer));
        let command = format!("sh {}", guard.display());
        let text = match file {
            "hooks.json" => json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": command, "failClosed": true}]}]}})
            .to_string(),
            _ => format!(
                "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\n\
                 type = \"command\"\ncommand = {command:?}\nfailClosed = true\n"
            ),
        };
        write(&moved, file, &text);
        let run = emit_rm_with(&home, &project, "CODEX_HOME", &moved, true);
        let emitted = run.json();
        assert_eq!(
            emitted["outcome"]["message"],
            json!("codex guard"),
            "{file}: {emitted:#}"
        );
    }
}

/// `hooks doctor` with `name=value` in the environment.
fn doctor_with(home: &TempHome, project: &Path, name: &str, value: &Path) -> Run {
    let args = ["--project", project.to_str().expect("UTF-8"), "doctor"];
    let mut command = crate::harness::command(home, &args);
    command.env(name, value);
    Run(command.output().expect("hooks runs"))
}

#[test]
fn a_variable_naming_no_folder_is_said_on_load_and_in_doctor() {
    for (name, hooks_from) in [
        ("CLAUDE_CONFIG_DIR", "[claude]"),
        ("CODEX_HOME", "[codex]"),
        ("HERMES_MANAGED_DIR", "[]"),
    ] {
        let (home, project) = home_with(hooks_from);
        let missing = home.user_home.join("nonexistent");
        let said = format!("{name}={} does not exist", missing.display());
        let run = emit_rm_with(&home, &project, name, &missing, true);
        assert!(run.stderr().contains(&said), "{name}: {}", run.stderr());
        let doctor = doctor_with(&home, &project, name, &missing);
        let text = format!("{}{}", doctor.stdout(), doctor.stderr());
        assert!(text.contains(&said), "{name}: {text}");
        assert_ne!(
            doctor.code(),
            Some(0),
            "{name}: doctor is not healthy: {text}"
        );
    }
}
