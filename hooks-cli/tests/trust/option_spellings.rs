//! A project hook that runs `make` with its makefile or folder named by an
//! option spelled as make and env read it (`make -ftools/x.mk`,
//! `make -Ctools`, `env -C tools make`) is bound to the file make reads:
//! changed after the approval, it never runs unasked, and a fail-closed
//! hook blocks (red-team round 4, N7).

use std::path::Path;

use serde_json::json;

use crate::dialects::{
    approve_project_hook, emit_json, emit_terminal, home_with, in_project, write,
};
use crate::support::TempHome;

const OK_RECIPE: &str = "check:\n\t@:\n";
const PWN_RECIPE: &str = "check:\n\t@echo PWNED > \"$$CLAUDE_PROJECT_DIR/pwned\"\n";
const PWN_SH: &str = "cat >/dev/null\necho PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";

/// Approves the project's hook `command` with `tools/<makefile>` as it is,
/// then changes that file: the changed recipe must not run.
fn changed_makefile_never_runs(command: &str, makefile: &str) {
    changed_file_never_runs(command, &format!("tools/{makefile}"), OK_RECIPE, PWN_RECIPE);
}

/// Approves the project's hook `command` with `file` holding `good`, then
/// writes `evil` there: it must not run until approved again.
fn changed_file_never_runs(command: &str, file: &str, good: &str, evil: &str) {
    let (home, project) = home_with("[claude]");
    changed_file_never_runs_in((&home, &project), command, file, (good, evil));
}

fn changed_file_never_runs_in(
    (home, project): (&TempHome, &Path),
    command: &str,
    file: &str,
    (good, evil): (&str, &str),
) {
    write(project, file, good);
    approve_project_hook(home, project, command);
    assert!(!project.join("pwned").exists(), "set-up ran the payload");
    write(project, file, evil);
    let after = emit_terminal(home, project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "{command}: the changed {file} ran without a new approval: {after}"
    );
    assert_eq!(after["runs"][0]["status"], json!("skipped"), "{after}");
}

/// `python3 -m tools.check` imports `tools/` from the folder it runs in
/// (first on its module path): the package is bound, not only the
/// interpreter and the tool folder.
#[test]
fn a_module_python_runs_from_the_project_is_bound() {
    changed_file_never_runs(
        "python3 -m tools.check",
        "tools/check.py",
        "import sys\nsys.stdin.read()\n",
        "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n",
    );
}

#[test]
fn make_with_its_makefile_attached_to_dash_f_is_bound_to_it() {
    changed_makefile_never_runs("make -s -ftools/x.mk check", "x.mk");
}

#[test]
fn make_with_its_folder_attached_to_dash_c_is_bound_to_its_makefile() {
    changed_makefile_never_runs("make -sCtools check", "Makefile");
}

#[test]
fn make_run_by_env_in_another_folder_is_bound_to_that_folders_makefile() {
    changed_makefile_never_runs("env -C tools make -s check", "Makefile");
}

#[test]
fn a_fail_closed_make_hook_whose_makefile_changed_blocks() {
    let (home, project) = home_with("[claude]");
    write(&project, "tools/x.mk", OK_RECIPE);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "make -sftools/x.mk check", "failClosed": true}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    in_project(&home, &project, &["approve", "--all"]).ok();
    let payload = json!({"tool_name": "terminal", "args": {"command": "ls"}, "task_id": "t"});
    let approved = emit_json(&home, &project, &[], "pre_tool_call", &payload);
    assert_eq!(approved["outcome"], json!(null), "{approved}");
    write(&project, "tools/x.mk", PWN_RECIPE);
    let changed = emit_json(&home, &project, &[], "pre_tool_call", &payload);
    assert_eq!(changed["outcome"]["action"], json!("block"), "{changed}");
    assert!(!project.join("pwned").exists(), "{changed}");
    assert_listed(&home, &project, "tools/x.mk");
}

/// `list --json` names `file` among what the approval binds.
fn assert_listed(home: &TempHome, project: &Path, file: &str) {
    let listed = in_project(home, project, &["list", "--json"]).json();
    let path = project.join(file).display().to_string();
    assert!(
        listed.to_string().contains(&format!("\"{path}\"")),
        "{file} not bound: {listed:#}"
    );
}

/// A script named inside a `bash -c` string: its project folder is bound as
/// the folder of a script named directly is.
#[test]
fn a_script_named_inside_a_shell_string_is_bound() {
    changed_file_never_runs(
        "bash -c 'python3 tools/a.py --x'",
        "tools/a.py",
        "import sys\nsys.stdin.read()\n",
        "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n",
    );
}

/// `env -C tools` behind other wrappers runs `tools/x.sh`, not the `x.sh`
/// beside the project's top: the approval binds the one that runs.
#[test]
fn a_script_run_by_env_in_another_folder_is_bound() {
    let (home, project) = home_with("[claude]");
    write(&project, "x.sh", "cat >/dev/null\n");
    changed_file_never_runs_in(
        (&home, &project),
        "timeout 20 nice -n 1 env -C tools bash x.sh",
        "tools/x.sh",
        ("cat >/dev/null\nexit 0\n", PWN_SH),
    );
}
