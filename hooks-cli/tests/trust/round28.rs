//! Round 27's open case and red team round 28: a Python environment in a
//! project no git checkout tells about binds the whole project beside it
//! (R27-5), one committed in a checkout above the project is read as the
//! repository's code (R28-2), and a shell file holding a NUL byte is read
//! as the shell runs it (R28-1).

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round27::{environment, refused};

/// Installed code that runs a project file outside its environment.
const RUNS_STEP: &str = "import subprocess\nsubprocess.run(['sh', 'lib/step.sh'])\n";

/// `git` with `args` in `folder`, which must succeed.
fn git(folder: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.email=a@b", "-c", "user.name=a"])
        .args(args)
        .current_dir(folder)
        .output()
        .expect("git runs");
    assert!(status.status.success(), "{args:?}: {status:?}");
}

/// Approves `.venv/bin/python check.py` in `project` (whose environment
/// runs `lib/step.sh`), changes `lib/step.sh` to write a marker, and
/// asserts the next `emit` neither runs it nor completes.
fn changed_step_asks_again(home: &crate::support::TempHome, project: &Path) {
    approve_project_hook(home, project, ".venv/bin/python check.py");
    let marker = project.join("PWNED");
    let step = format!("touch {}\n", marker.display());
    write(project, "lib/step.sh", &step);
    let emitted = emit_terminal(home, project, "ls", false);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}

/// An environment whose installed module runs `lib/step.sh`, and the
/// hook's script importing it, in `project`.
fn environment_running_a_step(project: &Path) {
    let site = environment(project);
    write(&site, "helper_mod.py", RUNS_STEP);
    write(project, "lib/step.sh", "true\n");
    write(project, "check.py", "import helper_mod\nprint('{}')\n");
}

#[test]
fn an_environment_outside_a_git_checkout_binds_the_whole_project() {
    // A project unpacked from an archive: whether its `.venv` came with it
    // cannot be told, so what that code may run is the whole project.
    let (home, project) = home_with("[claude]");
    environment_running_a_step(&project);
    changed_step_asks_again(&home, &project);
}

#[test]
fn an_environment_in_a_checkout_tracking_nothing_binds_the_whole_project() {
    let (home, project) = home_with("[claude]");
    environment_running_a_step(&project);
    git(&project, &["init", "-q"]);
    changed_step_asks_again(&home, &project);
}

#[test]
fn an_environment_committed_in_a_checkout_above_the_project_is_read() {
    // A monorepo: the checkout's top is two folders above the project.
    let (home, top) = home_with("[claude]");
    let project = top.join("services/api");
    environment_running_a_step(&project);
    git(&top, &["init", "-q"]);
    git(&top, &["add", "-f", "services"]);
    git(
        &top,
        &["commit", "-qm", "a repository shipping its environment"],
    );
    changed_step_asks_again(&home, &project);
}

#[test]
fn a_shell_file_holding_a_nul_byte_is_read_as_the_shell_runs_it() {
    // `source` and `sh` drop the NUL and run the rest (R28-1).
    let run = ". ./lib/env.sh\npython3 check.py\n";
    let env = "#\0\nread -r PYTHONPATH <<EOF\nlib\nEOF\nexport PYTHONPATH\n";
    let files = [
        ("run.sh", run),
        ("lib/env.sh", env),
        ("check.py", "print('{}')\n"),
    ];
    refused("bash run.sh", &files, "read");
}

#[test]
fn a_module_setting_whose_name_is_built_from_pieces_cannot_be_approved() {
    // `bash run.sh PATH`: `PYTHON${1}` is `PYTHONPATH` only when it runs,
    // and its folder is chosen then too (R28-3).
    for (run, because) in [
        (
            "export PYTHON${1}=\"$(ls -d z* | head -1)\"\nexec python3 check.py\n",
            "export PYTHON${1}=",
        ),
        (
            "declare -x -- \"PYTHON$1=$(ls -d z* | head -1)\"\nexec python3 check.py\n",
            "declare",
        ),
        (
            "printf -v \"PYTHON$1\" %s \"$(ls -d z* | head -1)\"\nexport PYTHONPATH\nexec python3 check.py\n",
            "printf -v",
        ),
    ] {
        let files = [
            ("run.sh", run),
            ("check.py", "import helper\nprint('{}')\n"),
            ("zz/helper.py", "X = 1\n"),
        ];
        refused("bash run.sh PATH", &files, because);
    }
}
