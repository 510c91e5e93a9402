//! Sweep 59, H5 (and red team R47-7): the user's fail-closed guard kept
//! where `$CLAUDE_CONFIG_DIR` or `$CODEX_HOME` put the tool's user folder
//! is not read once the agent runs with the variable unset, or set to a
//! folder a project ships; every call was allowed without a word. It now
//! blocks, naming the variable, until the variable is set back or the
//! guard is moved or taken out on purpose.

use std::path::Path;

use serde_json::json;

use crate::dialects::{home_with, in_project, write};
use crate::round39_paths::{claude_guard_in, emit_rm_with};
use crate::support::Run;

/// `hooks emit` of `rm -rf /` with `CLAUDE_CONFIG_DIR` (or, `None`, the
/// variable not set).
fn emit_rm(home: &crate::support::TempHome, project: &Path, folder: Option<&Path>) -> Run {
    match folder {
        Some(folder) => emit_rm_with(home, project, "CLAUDE_CONFIG_DIR", folder, false),
        None => {
            let mut command = crate::dialects::emit_rm_command(home, project, false);
            command.env_remove("CLAUDE_CONFIG_DIR");
            Run(command.output().expect("hooks runs"))
        }
    }
}

#[test]
fn a_guard_left_behind_when_claude_config_dir_is_unset_blocks() {
    let (home, project) = home_with("[claude]");
    let moved = home.user_home.join(".config/claude");
    claude_guard_in(&moved, "moved guard");
    write(&home.user_home, ".claude/settings.json", r#"{"hooks": {}}"#);
    let approved = emit_rm_with(&home, &project, "CLAUDE_CONFIG_DIR", &moved, true).json();
    assert_eq!(approved["outcome"]["message"], json!("moved guard"));
    // The agent runs later without the variable: ~/.claude is read.
    let run = emit_rm(&home, &project, None);
    let emitted = run.json();
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    assert!(
        run.stderr().contains("CLAUDE_CONFIG_DIR is not set")
            && run.stderr().contains(&moved.display().to_string()),
        "{}",
        run.stderr()
    );
    let mut doctor = crate::harness::command(
        &home,
        &["--project", project.to_str().expect("UTF-8"), "doctor"],
    );
    doctor.env_remove("CLAUDE_CONFIG_DIR");
    let doctor = Run(doctor.output().expect("hooks runs"));
    assert_ne!(
        doctor.code(),
        Some(0),
        "{}{}",
        doctor.stdout(),
        doctor.stderr()
    );
    // Set back, the guard runs again.
    let back = emit_rm(&home, &project, Some(&moved)).json();
    assert_eq!(back["outcome"]["message"], json!("moved guard"), "{back:#}");
}

#[test]
fn a_guard_left_behind_when_codex_home_names_a_projects_folder_blocks() {
    let (home, project) = home_with("[codex]");
    let guard = write(
        &home.user_home,
        ".codex/guard.sh",
        "cat >/dev/null; exit 2\n",
    );
    let handler = json!({"type": "command", "command": format!("sh {}", guard.display()),
        "failClosed": true});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    write(&home.user_home, ".codex/hooks.json", &hooks.to_string());
    let mut approve = crate::dialects::emit_rm_command(&home, &project, true);
    approve.env_remove("CODEX_HOME");
    let approved = Run(approve.output().expect("hooks runs")).json();
    assert_eq!(
        approved["outcome"]["action"],
        json!("block"),
        "{approved:#}"
    );
    // A project's direnv points CODEX_HOME at a folder it ships.
    let fake = project.join(".fakecodex");
    write(&fake, "hooks.json", r#"{"hooks": {}}"#);
    let run = emit_rm_with(&home, &project, "CODEX_HOME", &fake, false);
    let emitted = run.json();
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    assert!(
        run.stderr().contains("CODEX_HOME names"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_guard_moved_along_or_taken_out_on_purpose_is_not_lost() {
    let (home, project) = home_with("[claude]");
    let standard = home.user_home.join(".claude");
    claude_guard_in(&standard, "user guard");
    let approved = emit_rm(&home, &project, None).json();
    assert_ne!(
        approved["outcome"]["action"],
        json!("allow"),
        "{approved:#}"
    );
    in_project(&home, &project, &["approve", "--all"]).ok();
    // The same settings moved to a new folder: the guard is read there.
    let moved = home.user_home.join(".config/claude");
    let settings = std::fs::read_to_string(standard.join("settings.json")).expect("settings");
    write(&moved, "settings.json", &settings);
    let run = emit_rm_with(&home, &project, "CLAUDE_CONFIG_DIR", &moved, true);
    assert!(!run.stderr().contains("no longer read"), "{}", run.stderr());
    assert_eq!(run.json()["outcome"]["message"], json!("user guard"));
    // Taken out of the new folder and the old alike, on purpose: nothing
    // is blocked, and the new folder is remembered.
    write(&moved, "settings.json", r#"{"hooks": {}}"#);
    write(&standard, "settings.json", r#"{"hooks": {}}"#);
    let run = emit_rm_with(&home, &project, "CLAUDE_CONFIG_DIR", &moved, false);
    assert_eq!(run.json()["outcome"], json!(null), "{}", run.stderr());
}
