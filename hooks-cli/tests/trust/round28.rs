//! Round 27's open case and red team round 28: a Python environment in a
//! project no git checkout tells about binds the whole project beside it
//! (R27-5); one committed in a checkout above the project (R28-6), in a
//! SHA-256 or split index (R28-4, R28-5) or behind a link (R28-7) is read
//! as the repository's code; what an environment's own files lead to in
//! the project is bound (an editable install, a link, a `.pth` line:
//! R28-1 to R28-3); a changed `IFS` (R28-9), a glob copied outside the
//! project (R28-10), a NUL byte (R28-11) and a setting's name built at run
//! time (R28-12) in shell text.

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round27::{environment, environment_at, refused};

/// Installed code that runs a project file outside its environment.
const RUNS_STEP: &str = "import subprocess\nsubprocess.run(['sh', 'lib/step.sh'])\n";

/// `git` with `args` in `folder`, which must succeed.
pub(crate) fn git(folder: &Path, args: &[&str]) {
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
pub(crate) fn environment_running_a_step(project: &Path) {
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
fn an_environment_in_a_checkout_holding_nothing_of_the_project_binds_it_whole() {
    // A folder unpacked into a home kept in git: the checkout above it
    // tracks files, none of them in the project.
    let (home, top) = home_with("[claude]");
    write(&top, "dotfiles/.bashrc", "# the user's\n");
    git(&top, &["init", "-q"]);
    git(&top, &["add", "dotfiles"]);
    git(&top, &["commit", "-qm", "dotfiles"]);
    let project = top.join("downloads/project");
    environment_running_a_step(&project);
    changed_step_asks_again(&home, &project);
}

#[test]
fn a_new_checkouts_environment_is_the_users() {
    // `git init` with nothing added yet: the user's new project, whose
    // environment is not read and whose other files are not bound whole.
    let (home, project) = home_with("[claude]");
    environment_running_a_step(&project);
    git(&project, &["init", "-q"]);
    approve_project_hook(&home, &project, ".venv/bin/python check.py");
    write(&project, "README.md", "notes\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
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
    // `source` and `sh` drop the NUL and run the rest (R28-11).
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
    // and its folder is chosen then too (R28-12).
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

/// The `site-packages` of a hand-made environment at `.venv` of `project`.
pub(crate) fn site_of(project: &Path) -> std::path::PathBuf {
    environment(project)
}

/// Approves `command` in a fresh project set up by `setup`, runs `change`
/// (given the project and a marker path), and asserts the next `emit`
/// neither writes the marker nor completes.
pub(crate) fn changed_asks_again(
    command: &str,
    setup: impl FnOnce(&Path),
    change: impl FnOnce(&Path, &Path),
) {
    let (home, project) = home_with("[claude]");
    setup(&project);
    approve_project_hook(&home, &project, command);
    let marker = project.join("PWNED");
    change(&project, &marker);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{command}: {emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{command}: {emitted:#}"
    );
}

/// Appends code writing `marker` to the project file `relative`.
pub(crate) fn poison(project: &Path, relative: &str, marker: &Path) {
    let path = project.join(relative);
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str(&format!("\nopen({marker:?}, 'w')\n"));
    std::fs::write(&path, text).expect("poisoned");
}

/// Makes `project` a git checkout committing all but its `.venv`, the
/// user's own environment (outside a checkout the whole project is bound).
pub(crate) fn checkout_without_environment(project: &Path) {
    write(project, ".gitignore", ".venv/\n");
    git(project, &["init", "-q"]);
    git(project, &["add", "-A"]);
    git(
        project,
        &["commit", "-qm", "the project, not its environment"],
    );
}

#[test]
fn what_an_environment_leads_to_in_the_project_asks_again() {
    // R28-1: an editable install (`.pth` folder line) and its console script.
    changed_asks_again(
        ".venv/bin/mytool",
        |project| {
            let site = site_of(project);
            write(project, "src/mypkg/__init__.py", "");
            write(
                project,
                "src/mypkg/cli.py",
                "def main():\n    print('{}')\n",
            );
            write(
                &site,
                "mypkg.pth",
                &format!("{}\n", project.join("src").display()),
            );
            let python = project.join(".venv/bin/python");
            let tool = format!(
                "#!{}\nfrom mypkg.cli import main\nmain()\n",
                python.display()
            );
            write(project, ".venv/bin/mytool", &tool);
            let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
            std::fs::set_permissions(project.join(".venv/bin/mytool"), mode).expect("chmod");
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "src/mypkg/cli.py", marker),
    );
    // R28-2: an installed module that is a link to a project file.
    changed_asks_again(
        ".venv/bin/python check.py",
        |project| {
            let site = site_of(project);
            std::fs::create_dir_all(&site).expect("site");
            write(project, "lib/helper.py", "X = 1\n");
            std::os::unix::fs::symlink(project.join("lib/helper.py"), site.join("helper.py"))
                .expect("link");
            write(project, "check.py", "import helper\nprint('{}')\n");
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "lib/helper.py", marker),
    );
    // R28-3: a `.pth` import line running a project file.
    changed_asks_again(
        ".venv/bin/python check.py",
        |project| {
            let site = site_of(project);
            write(project, "tools/boot.py", "X = 1\n");
            let boot = project.join("tools/boot.py");
            let line = format!(
                "import runpy; runpy.run_path({:?})\n",
                boot.display().to_string()
            );
            write(&site, "boot.pth", &line);
            write(project, "check.py", "print('{}')\n");
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "tools/boot.py", marker),
    );
}

/// A git checkout at `project` made with `init` arguments, committing its
/// environment (whose `sitecustomize` runs `lib/step.sh`) and code.
fn committed_environment(project: &Path, init: &[&str]) {
    environment_running_a_step(project);
    let mut args = vec!["init", "-q"];
    args.extend_from_slice(init);
    git(project, &args);
    git(project, &["add", "-f", ".venv", "check.py", "lib"]);
    git(
        project,
        &["commit", "-qm", "a repository shipping its environment"],
    );
}

#[test]
fn an_environment_committed_in_any_index_git_writes_is_read() {
    // R28-4: a SHA-256 repository (a clone keeps its remote's format;
    // git 2.29 and later make one).
    let probe = tempfile::tempdir().expect("probe");
    let sha256 = std::process::Command::new("git")
        .args(["init", "-q", "--object-format", "sha256"])
        .current_dir(probe.path())
        .status()
        .is_ok_and(|status| status.success());
    if sha256 {
        let (home, project) = home_with("[claude]");
        committed_environment(&project, &["--object-format", "sha256"]);
        changed_step_asks_again(&home, &project);
    } else {
        eprintln!("skipped the SHA-256 case: this git makes no SHA-256 repository");
    }
    // R28-5: `core.splitIndex`, the entries in a shared index file.
    let (home, project) = home_with("[claude]");
    committed_environment(&project, &[]);
    git(&project, &["update-index", "--split-index"]);
    changed_step_asks_again(&home, &project);
}

#[test]
fn a_link_to_a_committed_environment_is_read_as_the_repositorys_code() {
    // R28-7: the committed environment at `tools/env`, the user's `.venv` a link to it.
    let (home, project) = home_with("[claude]");
    committed_environment(&project, &[]);
    std::fs::rename(project.join(".venv"), project.join("tools-env")).expect("moved");
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "moved"]);
    std::os::unix::fs::symlink("tools-env", project.join(".venv")).expect("link");
    changed_step_asks_again(&home, &project);
}

#[test]
fn a_split_or_a_copy_the_text_does_not_show_is_read() {
    // R28-9: `IFS=,` splits `$v` into `PYTHONPATH=lib python3 check.py`.
    let run = "IFS=,\nv=\"PYTHONPATH=lib,python3,check.py\"\nenv $v\n";
    let files = [
        ("run.sh", run),
        ("check.py", "import helper\nprint('{}')\n"),
        ("lib/helper.py", "X = 1\n"),
    ];
    refused("bash run.sh", &files, "IFS=,");
    // R28-10: `cp lib/*` into the folder Python searches.
    let run = "D=${TMPDIR:-/tmp}/copy\nmkdir -p $D\ncp lib/* $D/\nPYTHONPATH=$D python3 check.py\n";
    changed_asks_again(
        "bash run.sh",
        |project| {
            write(project, "run.sh", run);
            write(project, "check.py", "import helper\nprint('{}')\n");
            write(project, "lib/helper.py", "X = 1\n");
        },
        |project, marker| poison(project, "lib/helper.py", marker),
    );
}

#[test]
fn an_environment_a_few_folders_down_approves_and_binds_what_it_holds() {
    // R28-8: `tools/.venv` took over 14 minutes to approve, read as code.
    let (home, project) = home_with("[claude]");
    let site = environment_at(&project, "tools/.venv");
    for at in 0..5_200 {
        write(&site, &format!("bulk/m{at}.py"), "x = 1\n");
    }
    write(&site, "helper_mod.py", "VALUE = 1\n");
    write(&project, "tools/other.py", "print(1)\n");
    write(&project, "check.py", "import helper_mod\nprint('{}')\n");
    write(&project, ".gitignore", "tools/.venv/\n");
    git(&project, &["init", "-q"]);
    git(&project, &["add", "-A"]);
    git(
        &project,
        &["commit", "-qm", "the project, not its environment"],
    );
    approve_project_hook(&home, &project, "tools/.venv/bin/python check.py");
    write(&project, "README.md", "notes\n");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again:#}");
    let marker = project.join("PWNED");
    let text = format!("open({marker:?}, 'w')\nVALUE = 2\n");
    std::fs::write(site.join("helper_mod.py"), text).expect("changed");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}
