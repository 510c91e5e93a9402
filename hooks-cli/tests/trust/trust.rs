//! Trust at the project boundary (issue 27), through the real binary: an
//! approval binds to the project and to what the hook runs; it is checked
//! right before every run and the checked bytes are what runs; `hooks test`
//! obeys consent; a project's `disableAllHooks` never turns off the user's
//! guard; an unapproved fail-closed native hook blocks.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::dialects::{bash, emit_json, home_with, in_project, write};
use crate::support::TempHome;

/// A project whose one Claude Code hook runs `command` on every Bash call.
fn project_hook(project: &Path, command: &str) {
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    ]}});
    write(project, ".claude/settings.json", &settings.to_string());
}

/// A hook script that leaves `marker` in its project when it runs.
fn marking_script(marker: &str) -> String {
    format!("#!/bin/sh\ncat >/dev/null\ntouch \"$CLAUDE_PROJECT_DIR/{marker}\"\n")
}

fn statuses(emitted: &Value) -> Vec<String> {
    emitted["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|run| run["status"].to_string())
        .collect()
}

#[test]
fn an_approval_in_one_project_never_covers_another() {
    let (home, a) = home_with("[claude]");
    let b = home.user_home.join("other-project");
    // The command names no file we can hash: it binds the hook tree.
    let command = "sh \"$(pwd)/.claude/hooks/check.sh\"";
    for project in [&a, &b] {
        project_hook(project, command);
        write(project, ".claude/hooks/check.sh", &marking_script("ran"));
    }
    in_project(&home, &a, &["approve", "--all"]).ok();
    emit_json(&home, &a, &[], "pre_tool_call", &bash("ls"));
    assert!(a.join("ran").exists(), "approved in A: runs in A");
    let emitted = emit_json(&home, &b, &[], "pre_tool_call", &bash("ls"));
    assert!(
        !b.join("ran").exists(),
        "B's code ran on A's approval: {emitted}"
    );
    assert!(
        statuses(&emitted).iter().any(|s| s.contains("skipped")),
        "{emitted}"
    );
    // `list --json` shows the binding: the project and the tree digest.
    let listed = in_project(&home, &a, &["list", "--json"]).json();
    let binding = &listed["imported_hooks"][0]["binding"];
    assert_eq!(
        binding["project"],
        json!(a.display().to_string()),
        "{listed}"
    );
    assert!(
        binding["tree"]["sha256"]
            .as_str()
            .is_some_and(|h| h.len() == 64),
        "{listed}"
    );
}

#[test]
fn a_wrapper_argument_edited_or_a_script_created_later_asks_again() {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        ".claude/hooks/run.sh",
        "#!/bin/sh\nsh \"$(dirname \"$0\")/$1\"\n",
    );
    write(
        &project,
        ".claude/hooks/safety-check.sh",
        &marking_script("ran"),
    );
    let wrapper = format!(
        "sh {}/.claude/hooks/run.sh safety-check.sh",
        project.display()
    );
    let later = format!("sh {}/.claude/hooks/later.sh", project.display());
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": wrapper},
        {"type": "command", "command": later}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let approved = in_project(&home, &project, &["approve", "--all"]).ok();
    assert!(approved.contains("safety-check.sh (sha256"), "{approved}");
    // Edited after approval: the wrapper's script argument is new code.
    write(
        &project,
        ".claude/hooks/safety-check.sh",
        &marking_script("evil"),
    );
    // Missing at approval, created later: new code too.
    write(&project, ".claude/hooks/later.sh", &marking_script("later"));
    let emitted = emit_json(&home, &project, &[], "pre_tool_call", &bash("ls"));
    assert!(!project.join("evil").exists(), "edited code ran: {emitted}");
    assert!(
        !project.join("later").exists(),
        "code created later ran: {emitted}"
    );
    let listed = in_project(&home, &project, &["list"]).ok();
    assert!(listed.contains("changed since it was approved"), "{listed}");
}

#[test]
fn hooks_test_shows_an_unapproved_hook_as_skipped_and_runs_it_only_when_accepted() {
    let (home, project) = home_with("[claude]");
    project_hook(
        &project,
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
    );
    write(&project, ".claude/hooks/check.sh", &marking_script("ran"));
    let shown = in_project(
        &home,
        &project,
        &["test", "pre_tool_call", "--for-tool", "terminal"],
    )
    .ok();
    assert!(
        !project.join("ran").exists(),
        "a fresh clone's hook ran: {shown}"
    );
    assert!(
        shown.contains("skipped") && shown.contains("hooks approve"),
        "{shown}"
    );
    in_project(
        &home,
        &project,
        &[
            "test",
            "pre_tool_call",
            "--for-tool",
            "terminal",
            "--accept-hooks",
        ],
    )
    .ok();
    assert!(project.join("ran").exists(), "--accept-hooks runs it");
}

#[test]
fn a_projects_disable_all_hooks_never_turns_off_the_users_guard() {
    let (home, project) = home_with("[claude]");
    let guard = write(
        &home.user_home,
        ".claude/hooks/no-rm.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'rm -rf is not allowed' >&2\nexit 2\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("sh {}", guard.display()), "failClosed": true}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    in_project(&home, &project, &["approve", "--all"]).ok();
    write(
        &project,
        ".claude/settings.json",
        r#"{"disableAllHooks": true}"#,
    );
    let file = home.write("payload.json", &bash("rm -rf /").to_string());
    let run = in_project(
        &home,
        &project,
        &[
            "emit",
            "pre_tool_call",
            "--json",
            "--payload-file",
            file.to_str().unwrap_or(""),
        ],
    );
    let emitted = run.json();
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
    assert!(
        run.stderr()
            .contains("turns off this project's Claude Code hooks only"),
        "{}",
        run.stderr()
    );
    let doctor = in_project(&home, &project, &["doctor"]);
    assert!(
        doctor.stdout().contains("disableAllHooks"),
        "{}",
        doctor.stdout()
    );
}

#[test]
fn an_unapproved_fail_closed_native_hook_blocks() {
    let home = TempHome::new();
    let script = home.script("guard.sh", "#!/bin/sh\ncat >/dev/null\nexit 0\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        script.display()
    ));
    let file = home.write("payload.json", &bash("ls").to_string());
    let run = home.hooks(&[
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        file.to_str().unwrap_or(""),
    ]);
    let emitted = run.json();
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
    assert!(
        run.stderr().contains("fail-closed hook"),
        "{}",
        run.stderr()
    );
}

/// A loop renames another file over an approved script every ~2 ms while
/// the hook runs many times: the other content never runs.
#[test]
fn a_script_swapped_between_check_and_exec_never_runs_unapproved() {
    let home = TempHome::new();
    let marker = home.hermes.join("evil-ran");
    let good = "#!/bin/sh\ncat >/dev/null\nexit 0\n".to_owned();
    let evil = format!("#!/bin/sh\ncat >/dev/null\ntouch {}\n", marker.display());
    let script = home.script("hook.sh", &good);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n",
        script.display()
    ));
    home.hooks(&["approve", script.to_str().unwrap_or("")]).ok();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, script) = (Arc::clone(&stop), script.clone());
        let dir = home.hermes.clone();
        std::thread::spawn(move || {
            use std::os::unix::fs::PermissionsExt;
            let mut flip = false;
            while !stop.load(Ordering::Relaxed) {
                let next = dir.join("next.sh");
                let _ = std::fs::write(&next, if flip { &good } else { &evil });
                let _ = std::fs::set_permissions(&next, std::fs::Permissions::from_mode(0o755));
                let _ = std::fs::rename(&next, &script);
                flip = !flip;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            let _ = std::fs::write(&script, &good);
        })
    };
    let file = home.write("payload.json", &bash("ls").to_string());
    let mut ran = 0;
    for _ in 0..40 {
        let run = home.hooks(&[
            "emit",
            "pre_tool_call",
            "--json",
            "--payload-file",
            file.to_str().unwrap_or(""),
        ]);
        ran += usize::from(run.stdout().contains("\"completed\""));
        assert!(!marker.exists(), "swapped-in code ran: {}", run.stdout());
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(ran > 0, "the approved content ran at least once");
}
