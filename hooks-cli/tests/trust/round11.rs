//! Red team round 11: a host variable that makes an interpreter load a
//! project file (`BASH_ENV`, `PYTHONUSERBASE`…) is not passed to a hook
//! (R11-6); a project venv's `.pth` path line binds the start-up modules of
//! the folder it adds (R11-7); a `#!python3` line binds the `python3` the
//! kernel takes from the folder the script runs in (R11-8); a fail-closed
//! guard whose answer passed the output cap blocks (R11-9). Round 12: a
//! `.pth` import line binds the module or file it reaches (R12-3); a
//! code-loading variable's bare relative value is the project's (R12-1).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_rm_command, executable, home_with, user_guard_file, write};
use crate::harness;
use crate::support::{Run, TempHome};

/// A home whose `~/.claude/settings.json` runs `command` fail-closed, with
/// `guard` (a file name under `~/.claude/hooks/`) holding `body`.
fn user_guard(command: &str, guard: &str, body: &str) -> (TempHome, std::path::PathBuf) {
    user_guard_file(command, guard, body)
}

/// `emit` of `rm -rf /` in `project` with `env` set for `hooks`.
fn emit_rm(home: &TempHome, project: &Path, accept: bool, env: &[(&str, String)]) -> Value {
    let mut command = emit_rm_command(home, project, accept);
    command.env_remove("PYTHONPATH");
    for (name, value) in env {
        command.env(name, value);
    }
    Run(command.output().expect("run hooks")).json()
}

const SH_GUARD: &str = "#!/bin/bash\ncase \"$(cat)\" in *'rm -rf'*) \
    echo '{\"decision\":\"block\",\"reason\":\"sh guard\"}';; esac\n";

const PY_GUARD: &str = "#!/usr/bin/env python3\n\
    import json, sys\n\
    d = json.load(sys.stdin)\n\
    if 'rm -rf' in d.get('tool_input', {}).get('command', ''):\n\
    \x20   print(json.dumps({'decision': 'block', 'reason': 'py guard'}))\n";

/// Python that writes `<project>/pwned` when it runs.
fn pwn_py(project: &Path) -> String {
    format!(
        "open({:?}, 'w').write('pwned')\n",
        project.join("pwned").display().to_string()
    )
}

#[test]
fn a_host_variable_that_loads_a_project_file_is_not_passed_to_the_guard() {
    let (home, project) = user_guard("bash ~/.claude/hooks/guard.sh", "guard.sh", SH_GUARD);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "sh guard", "{approved:#}");
    let bash_env = write(
        &project,
        ".bash_env",
        &format!("echo pwned > {:?}\n", project.join("pwned")),
    );
    let emitted = emit_rm(
        &home,
        &project,
        false,
        &[("BASH_ENV", bash_env.display().to_string())],
    );
    assert_eq!(emitted["outcome"]["message"], "sh guard", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "BASH_ENV ran the project's file"
    );

    if !harness::python_available() {
        return;
    }
    let (home, project) = user_guard("python3 ~/.claude/hooks/guard.py", "guard.py", PY_GUARD);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "py guard", "{approved:#}");
    let version = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; print('python%d.%d' % sys.version_info[:2])",
        ])
        .output()
        .expect("python3");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let site = format!(".pyuser/lib/{version}/site-packages/zz.pth");
    write(
        &project,
        &site,
        &format!("import os; {}", pwn_py(&project).trim()),
    );
    let base = project.join(".pyuser").display().to_string();
    let emitted = emit_rm(&home, &project, false, &[("PYTHONUSERBASE", base)]);
    assert_eq!(emitted["outcome"]["message"], "py guard", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "PYTHONUSERBASE ran the project's .pth"
    );
}

/// A project whose own hook runs `python3 .claude/hooks/check.py` by the
/// project's venv, whose site folder holds a `.pth` file with `pth` (its
/// `{src}` the project's `src`); approved with the venv first on `PATH`.
/// Returns the home, the project and that `PATH`.
fn project_venv_hook(pth: &str) -> (TempHome, std::path::PathBuf, String) {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        ".claude/hooks/check.py",
        "import sys\nsys.stdin.read()\nprint('{}')\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.py"}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let venv = project.join(".venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(made.success());
    let site = std::fs::read_dir(venv.join("lib"))
        .expect("lib")
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .find(|site| site.is_dir())
        .expect("site-packages");
    let src = project.join("src");
    std::fs::create_dir_all(&src).expect("src");
    let text = pth.replace("{src}", &src.display().to_string());
    std::fs::write(site.join("zz_project.pth"), text).expect("pth");
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let approved = emit_rm(&home, &project, true, &[("PATH", path.clone())]);
    assert_eq!(approved["runs"][0]["status"], "completed", "{approved:#}");
    (home, project, path)
}

/// Asserts the project's hook no longer runs unasked.
fn asks_again(home: &TempHome, project: &Path, path: String, what: &str) {
    let emitted = emit_rm(home, project, false, &[("PATH", path)]);
    assert_ne!(
        emitted["runs"][0]["status"], "completed",
        "{what} ran unasked: {emitted:#}"
    );
    assert!(!project.join("pwned").exists(), "{what} ran unasked");
}

#[test]
fn a_venv_pth_path_line_binds_the_sitecustomize_of_its_folder() {
    if !harness::python_available() {
        return;
    }
    // The project's own hook (a user's hook never searches the project:
    // `a_users_guard_never_searches…`).
    let (home, project, path) = project_venv_hook("{src}\n");
    write(&project, "src/sitecustomize.py", &pwn_py(&project));
    asks_again(&home, &project, path, "the .pth folder's sitecustomize");
}

#[test]
fn a_pth_import_line_binds_what_it_reaches() {
    if !harness::python_available() {
        return;
    }
    // `import boot`, found in the folder a path line added (R12-3).
    let (home, project, path) = project_venv_hook("{src}\nimport boot\n");
    write(&project, "src/boot.py", &pwn_py(&project));
    asks_again(&home, &project, path, "the module an import line names");
    // A file an import line runs by a path relative to the working folder.
    let pth = "import os; os.path.exists('tools/boot.py') and exec(open('tools/boot.py').read())\n";
    let (home, project, path) = project_venv_hook(pth);
    write(&project, "tools/boot.py", &pwn_py(&project));
    asks_again(&home, &project, path, "the file an import line runs");
}

#[test]
fn a_code_loading_variable_with_a_bare_relative_value_is_not_passed() {
    // `BASH_ENV=hookenv`: bash sources it from the folder it runs in, the project (R12-1).
    let (home, project) = user_guard("bash ~/.claude/hooks/guard.sh", "guard.sh", SH_GUARD);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "sh guard", "{approved:#}");
    write(
        &project,
        "hookenv",
        &format!("echo pwned > {:?}\n", project.join("pwned")),
    );
    let emitted = emit_rm(
        &home,
        &project,
        false,
        &[("BASH_ENV", "hookenv".to_owned())],
    );
    assert_eq!(emitted["outcome"]["message"], "sh guard", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "BASH_ENV=hookenv ran the project's file"
    );
}

#[test]
fn a_relative_shebang_binds_the_interpreter_the_kernel_takes_from_the_folder() {
    let guard = SH_GUARD.replacen("#!/bin/bash", "#!bash", 1);
    let (home, project) = user_guard("~/.claude/hooks/guard.sh", "guard.sh", &guard);
    let real = write(&project, "bash", "#!/bin/bash\nexec /bin/bash \"$@\"\n");
    executable(&real);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "sh guard", "{approved:#}");
    let swapped = format!(
        "#!/bin/sh\ncat >/dev/null\necho pwned > {:?}\n",
        project.join("pwned")
    );
    write(&project, "bash", &swapped);
    let emitted = emit_rm(&home, &project, false, &[]);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "the project's ./bash ran as the guard's interpreter"
    );
}

#[test]
fn a_fail_closed_answer_past_the_output_cap_blocks() {
    let padded = |first: &str, last: &str| {
        format!(
            "#!/bin/sh\ncat >/dev/null\nprintf '%s' '{first}'\n\
             head -c 2000000 /dev/zero | tr '\\0' ' '\nprintf '%s' '{last}'\n"
        )
    };
    let claude = padded(
        r#"{"decision":"approve"}"#,
        r#"{"decision":"block","reason":"late"}"#,
    );
    let (home, project) = user_guard("~/.claude/hooks/guard.sh", "guard.sh", &claude);
    let emitted = emit_rm(&home, &project, true, &[]);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");

    let (home, project) = home_with("[]");
    let native = home.script(
        "guard.sh",
        &padded("{}", r#"{"action":"block","message":"late"}"#),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        native.display()
    ));
    let emitted = emit_rm(&home, &project, true, &[]);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

#[test]
fn a_users_guard_never_searches_the_project_for_programs_or_modules() {
    // A program the guard's script runs by name, found first in a project
    // folder on the host's PATH (direnv's `PATH_add bin`).
    let guard = "#!/bin/bash\ninput=$(cat)\nhelper-tool >/dev/null 2>&1\n\
                 case \"$input\" in *'rm -rf'*) echo '{\"decision\":\"block\",\"reason\":\"sh guard\"}';; esac\n";
    let (home, project) = user_guard("bash ~/.claude/hooks/guard.sh", "guard.sh", guard);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "sh guard", "{approved:#}");
    let tool = write(
        &project,
        "bin/helper-tool",
        &format!("#!/bin/sh\necho pwned > {:?}\n", project.join("pwned")),
    );
    executable(&tool);
    let path = format!(
        "{}:{}",
        project.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let emitted = emit_rm(&home, &project, false, &[("PATH", path)]);
    assert_eq!(emitted["outcome"]["message"], "sh guard", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "the project's bin/helper-tool ran in the user's guard"
    );

    // A module the user's Python guard imports, shadowed by a project
    // folder on the host's PYTHONPATH.
    if !harness::python_available() {
        return;
    }
    let (home, project) = user_guard("python3 ~/.claude/hooks/guard.py", "guard.py", PY_GUARD);
    let approved = emit_rm(&home, &project, true, &[]);
    assert_eq!(approved["outcome"]["message"], "py guard", "{approved:#}");
    write(
        &project,
        "src/json.py",
        &format!("{}loads = dumps = load = None\n", pwn_py(&project)),
    );
    let src = project.join("src").display().to_string();
    let emitted = emit_rm(&home, &project, false, &[("PYTHONPATH", src)]);
    assert_eq!(emitted["outcome"]["message"], "py guard", "{emitted:#}");
    assert!(
        !project.join("pwned").exists(),
        "the project's json.py ran in the user's guard"
    );
}

#[test]
fn ordinary_variables_reach_the_users_guard() {
    // Round 13, R13-1: a time zone, a proxy URL or `NODE_ENV` names no file
    // of the project; a guard that needs them still gets them.
    let guard = "#!/bin/bash\ncat >/dev/null\n\
                 case \"$TZ|$HTTPS_PROXY|$NODE_ENV\" in\n\
                 'Europe/Berlin|http://proxy:3128/|production') echo '{\"decision\":\"block\",\"reason\":\"env guard\"}';;\n\
                 *) exit 1;;\nesac\n";
    let (home, project) = user_guard("bash ~/.claude/hooks/guard.sh", "guard.sh", guard);
    let env = [
        ("TZ", "Europe/Berlin".to_owned()),
        ("HTTPS_PROXY", "http://proxy:3128/".to_owned()),
        ("NODE_ENV", "production".to_owned()),
    ];
    let emitted = emit_rm(&home, &project, true, &env);
    assert_eq!(emitted["outcome"]["message"], "env guard", "{emitted:#}");
}
