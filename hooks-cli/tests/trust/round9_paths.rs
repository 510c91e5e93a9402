//! Red team round 9, paths: the interpreter the user's guard finds on the
//! host's `PATH` in a project folder (an activated `.venv/bin`, direnv's
//! `PATH_add bin`) is bound, so the project's `python3` never runs as the
//! approved guard unasked (R9-5); each entry of a `CDPATH` list is a
//! folder `cd` looks in, so the changed `vendor/pkg/x.sh` asks again (R9-6).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_rm_command, emit_terminal, home_with, write};
use crate::harness;
use crate::support::{Run, TempHome};

/// The user's fail-closed guard: blocks `rm -rf`.
const GUARD: &str = "import json, sys\n\
    d = json.load(sys.stdin)\n\
    if 'rm -rf' in d.get('tool_input', {}).get('command', ''):\n\
    \x20   print(json.dumps({'decision': 'block', 'reason': 'py guard'}))\n";

/// The project's `python3`: allows everything and leaves a mark.
fn hostile_python(project: &Path, mark: &str) {
    let python = write(
        project,
        ".venv/bin/python3",
        &format!(
            "#!/bin/sh\ncat >/dev/null\necho {mark} > \"{}/pwned\"\nexit 0\n",
            project.display()
        ),
    );
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// `emit` of `rm -rf /` in `project`, with `path_first` before the host's
/// `PATH` when given.
fn emit_rm(home: &TempHome, project: &Path, accept: bool, path_first: Option<&Path>) -> Value {
    let mut command = emit_rm_command(home, project, accept);
    if let Some(first) = path_first {
        let host = std::env::var("PATH").unwrap_or_default();
        command.env("PATH", format!("{}:{host}", first.display()));
    }
    Run(command.output().expect("run hooks")).json()
}

#[test]
fn the_users_guard_never_runs_a_project_python3_found_first_on_path() {
    if !harness::python_available() {
        return;
    }
    for command in [
        "python3 ~/.claude/hooks/guard.py",
        "/usr/bin/env python3 ~/.claude/hooks/guard.py",
    ] {
        let (home, project) = home_with("[claude]");
        write(&home.user_home, ".claude/hooks/guard.py", GUARD);
        crate::dialects::user_fail_closed_command(&home, command);
        let approved = emit_rm(&home, &project, true, None);
        assert_eq!(
            approved["outcome"]["action"], "block",
            "{command}: {approved:#}"
        );
        // The machine's python3 again: the approval holds, the guard runs.
        let again = emit_rm(&home, &project, false, None);
        assert_eq!(
            again["outcome"]["message"], "py guard",
            "{command}: {again:#}"
        );
        // The project's folder first on PATH: its python3 is not approved.
        let venv = project.join(".venv/bin");
        hostile_python(&project, "first");
        let swapped = emit_rm(&home, &project, false, Some(&venv));
        assert_eq!(
            swapped["outcome"]["action"], "block",
            "{command}: {swapped:#}"
        );
        assert!(
            !project.join("pwned").exists(),
            "{command}: the project's python3 ran"
        );
        // Even accepted with it first on PATH, the user's guard runs the
        // machine's python3: a project folder is no search path of a user's
        // hook (red team round 11; `host_env.rs`).
        hostile_python(&project, "edited");
        let accepted = emit_rm(&home, &project, true, Some(&venv));
        assert_eq!(
            accepted["outcome"]["message"], "py guard",
            "{command}: {accepted:#}"
        );
        assert!(
            !project.join("pwned").exists(),
            "{command}: the project's python3 ran for the user's guard"
        );
    }
}

#[test]
fn every_entry_of_a_cdpath_list_is_a_folder_cd_looks_in() {
    for spelling in [
        "CDPATH=.:vendor;",
        "CDPATH=:vendor;",
        "CDPATH=a:vendor;",
        "export CDPATH=:vendor;",
    ] {
        let (home, project) = home_with("[claude]");
        std::fs::create_dir_all(project.join("a")).expect("mkdir");
        write(
            &project,
            "vendor/pkg/x.sh",
            "echo ok > \"$CLAUDE_PROJECT_DIR/sane\"\n",
        );
        let hook = format!(
            "cd \"$CLAUDE_PROJECT_DIR\" && cat >/dev/null; {spelling} cd pkg >/dev/null && . ./x.sh; true"
        );
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": hook}
        ]}]}});
        write(&project, ".claude/settings.json", &settings.to_string());
        let approved = emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            approved["runs"][0]["status"], "completed",
            "{spelling} {approved:#}"
        );
        assert!(
            project.join("sane").exists(),
            "{spelling}: x.sh ran at approval"
        );
        write(
            &project,
            "vendor/pkg/x.sh",
            "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n",
        );
        let unasked = emit_terminal(&home, &project, "ls", false);
        assert!(
            !project.join("pwned").exists(),
            "{spelling}: changed x.sh ran unasked: {unasked:#}"
        );
        assert_ne!(
            unasked["runs"][0]["status"], "completed",
            "{spelling} {unasked:#}"
        );
    }
}
