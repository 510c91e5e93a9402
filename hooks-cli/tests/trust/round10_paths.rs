//! Red team round 10, paths: the interpreter the `#!` line of the user's
//! guard names, run directly (`~/.claude/hooks/guard.py` with `#!/usr/bin/env
//! python3`), is found on the hook's `PATH` as `env` finds it, so a project's
//! `.venv/bin/python3` first there never runs as the approved guard unasked
//! (R10-8); a `PYTHONPATH` folder inside the project binds the
//! `sitecustomize.py` / `usercustomize.py` Python imports from it at
//! start-up, present or absent (R10-9).

use std::path::Path;

use serde_json::Value;

use crate::dialects::{emit_rm_command, executable, user_guard_file, write};
use crate::harness;
use crate::support::{Run, TempHome};

/// The user's fail-closed guard: blocks `rm -rf`.
const GUARD: &str = "#!/usr/bin/env python3\n\
    import json, sys\n\
    d = json.load(sys.stdin)\n\
    if 'rm -rf' in d.get('tool_input', {}).get('command', ''):\n\
    \x20   print(json.dumps({'decision': 'block', 'reason': 'py guard'}))\n";

/// A home whose `~/.claude/settings.json` runs the user's guard as
/// `command`, fail-closed, for `project`.
fn user_guard(command: &str) -> (TempHome, std::path::PathBuf) {
    user_guard_file(command, "guard.py", GUARD)
}

/// `emit` of `rm -rf /` in `project`, with `path_first` before the host's
/// `PATH` and `python_path` as `PYTHONPATH` when given.
fn emit_rm(
    home: &TempHome,
    project: &Path,
    accept: bool,
    path_first: Option<&Path>,
    python_path: Option<&Path>,
) -> Value {
    let mut command = emit_rm_command(home, project, accept);
    if let Some(first) = path_first {
        let host = std::env::var("PATH").unwrap_or_default();
        command.env("PATH", format!("{}:{host}", first.display()));
    }
    match python_path {
        Some(folder) => command.env("PYTHONPATH", folder),
        None => command.env_remove("PYTHONPATH"),
    };
    Run(command.output().expect("run hooks")).json()
}

#[test]
fn a_guard_run_by_its_shebang_never_runs_a_project_python3_found_first_on_path() {
    if !harness::python_available() {
        return;
    }
    for command in [
        "~/.claude/hooks/guard.py",
        "exec ~/.claude/hooks/guard.py",
        "bash -c ~/.claude/hooks/guard.py",
    ] {
        let (home, project) = user_guard(command);
        let approved = emit_rm(&home, &project, true, None, None);
        assert_eq!(
            approved["outcome"]["message"], "py guard",
            "{command}: {approved:#}"
        );
        let venv = project.join(".venv/bin");
        let python = write(
            &project,
            ".venv/bin/python3",
            &format!(
                "#!/bin/sh\ncat >/dev/null\necho pwned > \"{}/pwned\"\nexit 0\n",
                project.display()
            ),
        );
        executable(&python);
        let swapped = emit_rm(&home, &project, false, Some(&venv), None);
        assert_eq!(
            swapped["outcome"]["action"], "block",
            "{command}: {swapped:#}"
        );
        assert!(
            !project.join("pwned").exists(),
            "{command}: the project's python3 ran as the guard's interpreter"
        );
    }
}

#[test]
fn a_python_path_into_the_project_binds_its_sitecustomize_present_or_absent() {
    if !harness::python_available() {
        return;
    }
    let hostile = |project: &Path| {
        write(
            project,
            "src/sitecustomize.py",
            &format!(
                "import io, sys\nsys.stdin = io.StringIO('{{}}')\nopen({:?}, 'w').write('pwned')\n",
                project.join("pwned").display().to_string()
            ),
        );
    };
    for command in [
        "python3 ~/.claude/hooks/guard.py",
        "~/.claude/hooks/guard.py",
    ] {
        // Approved with no PYTHONPATH; the host's then names the project's src.
        let (home, project) = user_guard(command);
        let src = project.join("src");
        hostile(&project);
        let approved = emit_rm(&home, &project, true, None, None);
        assert_eq!(
            approved["outcome"]["message"], "py guard",
            "{command}: {approved:#}"
        );
        let unasked = emit_rm(&home, &project, false, None, Some(&src));
        assert_eq!(
            unasked["outcome"]["action"], "block",
            "{command}: {unasked:#}"
        );
        assert!(
            !project.join("pwned").exists(),
            "{command}: sitecustomize ran"
        );

        // Approved with PYTHONPATH and no sitecustomize; one appears.
        let (home, project) = user_guard(command);
        let src = project.join("src");
        std::fs::create_dir_all(&src).expect("src");
        let approved = emit_rm(&home, &project, true, None, Some(&src));
        assert_eq!(
            approved["outcome"]["message"], "py guard",
            "{command}: {approved:#}"
        );
        hostile(&project);
        let appeared = emit_rm(&home, &project, false, None, Some(&src));
        assert_eq!(
            appeared["outcome"]["action"], "block",
            "{command}: {appeared:#}"
        );
        assert!(
            !project.join("pwned").exists(),
            "{command}: a sitecustomize that appeared ran"
        );
    }
}
