//! Red team round 13's open findings. R13-7: a fail-closed guard whose
//! matcher or `if` rule names `MultiEdit` runs on Hermes's `patch` (it
//! arrives as `Edit`), and one naming `Agent` on `delegate_task` (`Task`).
//! R13-4: `config.yaml`'s hooks run for the project `--project` names, not
//! for the folder `hooks` was started in. R13-5: a user's hook that fails
//! says which of the host's variables and search-path entries it was not
//! given because they name the project's files.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_json, emit_terminal_command, executable, home_with, in_project,
    user_fail_closed_guard, write,
};
use crate::support::{Run, TempHome};

/// A guard that blocks whatever it is asked, so a run shows in the outcome.
fn blocking() -> String {
    answering(&json!({"decision": "block", "reason": "guard ran"}))
}

fn ran(emitted: &Value) -> bool {
    emitted["outcome"]["message"] == json!("guard ran")
}

fn emit_call(home: &TempHome, project: &Path, tool: &str, args: Value) -> Value {
    let payload = json!({"tool_name": tool, "args": args, "task_id": "t"});
    emit_json(
        home,
        project,
        &["--accept-hooks"],
        "pre_tool_call",
        &payload,
    )
}

fn patch(path: &str) -> Value {
    json!({"path": path, "old_string": "a", "new_string": "b"})
}

#[test]
fn a_multi_edit_guard_judges_hermes_patch() {
    for matcher in ["MultiEdit", "^MultiEdit$", "Write|MultiEdit", "Multi.*"] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        let emitted = emit_call(&home, &project, "patch", patch("notes.txt"));
        assert!(ran(&emitted), "{matcher}: {emitted:#}");
        // A V4A patch is one too.
        let v4a = json!({"mode": "patch",
            "patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n"});
        assert!(ran(&emit_call(&home, &project, "patch", v4a)), "{matcher}");
        // Nothing to fix: `doctor` finds no problem (R16-6).
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_eq!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
    }
    // An `if` rule on MultiEdit judges the patch of the files it names only.
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(&home, "", &blocking(), Some("MultiEdit(*.env)"));
    assert!(ran(&emit_call(&home, &project, "patch", patch(".env"))));
    assert!(!ran(&emit_call(
        &home,
        &project,
        "patch",
        patch("notes.txt")
    )));
    // The control: nothing else is judged as a multi-edit.
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(&home, "MultiEdit", &blocking(), None);
    let write = json!({"path": "notes.txt", "content": "x"});
    assert!(!ran(&emit_call(&home, &project, "write_file", write)));
}

#[test]
fn an_agent_guard_judges_delegate_task() {
    for (matcher, rule) in [("Agent", None), ("", Some("Agent"))] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), rule);
        let emitted = emit_call(&home, &project, "delegate_task", json!({"goal": "x"}));
        assert!(ran(&emitted), "{matcher} {rule:?}: {emitted:#}");
    }
}

/// `hooks --project <project> --accept-hooks emit pre_tool_call --json` of
/// a `terminal` call, started in `folder` with `env` set.
fn emit_native(home: &TempHome, project: &Path, folder: &Path, env: &[(&str, String)]) -> Value {
    let mut command = emit_terminal_command(home, project, Some(folder), "ls", true);
    command.envs(env.iter().map(|(name, value)| (name, value)));
    Run(command.output().expect("run hooks")).json()
}

#[test]
fn config_yaml_hooks_run_for_the_named_project_not_the_starting_folder() {
    let home = TempHome::new();
    let project = home.user_home.join("project");
    let elsewhere = home.user_home.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    let marker = project.join("pwned");
    let hookenv = write(&project, "hookenv", &format!("echo pwned > {marker:?}\n"));
    home.config("hooks:\n  pre_tool_call:\n    - command: \"bash -c 'cat >/dev/null; echo {}'\"\n");
    let env = [("BASH_ENV", hookenv.display().to_string())];
    let emitted = emit_native(&home, &project, &elsewhere, &env);
    assert_eq!(emitted["runs"][0]["status"], "completed", "{emitted:#}");
    assert!(!marker.exists(), "BASH_ENV ran the named project's file");
    // The folder it runs in is still the project's too: a relative value is read there.
    write(&elsewhere, "hookenv", &format!("echo pwned > {marker:?}\n"));
    let env = [("BASH_ENV", "./hookenv".to_owned())];
    let emitted = emit_native(&home, &project, &elsewhere, &env);
    assert_eq!(emitted["runs"][0]["status"], "completed", "{emitted:#}");
    assert!(!marker.exists(), "BASH_ENV ran the working folder's file");
}

#[test]
fn a_failed_user_hook_says_what_of_the_project_it_was_not_given() {
    let home = TempHome::new();
    let project = home.user_home.join("project");
    let tool = write(
        &project,
        ".venv/bin/projtool",
        "#!/bin/sh\ncat >/dev/null\necho {}\n",
    );
    executable(&tool);
    home.config("hooks:\n  pre_tool_call:\n    - command: projtool\n");
    let venv_bin = project.join(".venv/bin");
    let path = format!(
        "{}:{}",
        venv_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let emitted = emit_native(&home, &project, &project, &[("PATH", path)]);
    let run = &emitted["runs"][0];
    assert_eq!(run["status"], "failed", "{emitted:#}");
    let said = run["diagnostics"].to_string();
    assert!(
        said.contains("not passed to this hook") && said.contains(&*venv_bin.to_string_lossy()),
        "{emitted:#}"
    );
    // A hook that runs well is not told.
    home.config("hooks:\n  pre_tool_call:\n    - command: \"sh -c 'cat >/dev/null; echo {}'\"\n");
    let path = format!(
        "{}:{}",
        venv_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let emitted = emit_native(&home, &project, &project, &[("PATH", path)]);
    let run = &emitted["runs"][0];
    assert_eq!(run["status"], "completed", "{emitted:#}");
    assert!(
        !run["diagnostics"].to_string().contains("not passed"),
        "{emitted:#}"
    );
}
