//! Round 26's open cases and red team round 27: a wrapper's variable read
//! with every value it is given (R26-2 continuations, R26-4 a later or
//! conditional value, a `for` loop), a setting whose value cannot be read
//! refused (`printf -v`, `read`, a nameref, a wrapper over 1 MiB: R26-2,
//! R26-7), a launcher in another language (R26-8), a folder outside the
//! project filled from it (R26-10), a test runner's settings (R25b-4); and
//! a project's Python environment approves fast and is bound by what its
//! entries are (R27-1..4).

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round25::added_asks_again;

const SUBPROCESS: &str = "import subprocess\nprint('{}')\n";

/// What shadows `subprocess`'s `selectors` in `lib` and writes `marker`.
fn shadow(project: &Path, marker: &Path, folder: &str) {
    let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
    write(project, &format!("{folder}/selectors.py"), &text);
}

#[test]
fn every_value_a_wrapper_gives_a_variable_is_read() {
    for wrapper in [
        "PYTHONPATH=\\\nlib python3 check.py\n",
        "D=x\nf() { PYTHONPATH=$D python3 check.py; }\nD=lib\nf\n",
        "D=lib\n[ -e nonexistent ] && D=other\nPYTHONPATH=$D python3 check.py\n",
        "for D in lib; do PYTHONPATH=$D python3 check.py; done\n",
    ] {
        let files = [
            ("run.sh", wrapper),
            ("check.py", SUBPROCESS),
            ("lib/.keep", ""),
        ];
        added_asks_again("bash run.sh", &files, |project, marker| {
            shadow(project, marker, "lib");
        });
    }
}

/// A project hook running `command` over `files` cannot be approved, and
/// says why (`because`).
pub(crate) fn refused(command: &str, files: &[(&str, &str)], because: &str) {
    let (home, project) = home_with("[claude]");
    for (name, text) in files {
        write(&project, name, text);
    }
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": command}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let emitted = emit_terminal(&home, &project, "ls", true);
    let status = &emitted["runs"][0]["status"];
    assert_ne!(status, &json!("completed"), "{files:?}: {emitted:#}");
    assert!(
        emitted.to_string().contains(because),
        "{because}: {emitted:#}"
    );
}

#[test]
fn a_setting_whose_value_cannot_be_read_cannot_be_approved() {
    for (wrapper, because) in [
        (
            "printf -v PYTHONPATH %s lib\nexport PYTHONPATH\npython3 check.py\n",
            "printf -v",
        ),
        (
            "read -r PYTHONPATH <<EOF\nlib\nEOF\nexport PYTHONPATH\npython3 check.py\n",
            "read",
        ),
        (
            "IFS=: read -r PYTHONPATH _ <<< \"lib:x\"\nexport PYTHONPATH\npython3 check.py\n",
            "read",
        ),
        (
            "declare -n R=PYTHONPATH\nR=lib\nexport PYTHONPATH\npython3 check.py\n",
            "declare -n",
        ),
    ] {
        let files = [("run.sh", wrapper), ("check.py", SUBPROCESS)];
        refused("bash run.sh", &files, because);
    }
    // What a wrapper sets after its first MiB is not read (R26-7).
    let padding = format!("{}\n", "# padding ".repeat(120_000));
    let long = format!("{padding}PYTHONPATH=lib python3 check.py\n");
    refused(
        "bash run.sh",
        &[("run.sh", &long), ("check.py", SUBPROCESS)],
        "over 1 MiB",
    );
}

#[test]
fn a_folder_outside_the_project_filled_from_it_binds_its_source() {
    let outside = tempfile::tempdir().expect("outside");
    let copy = outside.path().join("lib");
    let command = format!(
        "rm -rf {0}; cp -r src {0}; PYTHONPATH={0} python3 check.py",
        copy.display()
    );
    let files = [("check.py", SUBPROCESS), ("src/.keep", "")];
    added_asks_again(&command, &files, |project, marker| {
        shadow(project, marker, "src");
    });
}

#[test]
fn a_node_launcher_setting_the_module_path_binds_its_folder() {
    if !installed("node") {
        println!("skipped: node is not installed");
        return;
    }
    let launcher = "const {execFileSync} = require('child_process');\n\
        process.stdout.write(execFileSync('python3', ['check.py'], \
        {env: {...process.env, PYTHONPATH: 'lib'}}));\n";
    let files = [
        ("launch.js", launcher),
        ("check.py", SUBPROCESS),
        ("lib/.keep", ""),
    ];
    added_asks_again("node launch.js", &files, |project, marker| {
        shadow(project, marker, "lib");
    });
}

#[test]
fn a_test_runners_settings_choosing_other_files_ask_again() {
    // `testpaths = .checks`: a folder the runner's walk skips by its dot.
    let files = [("check.py", SUBPROCESS), (".checks/.keep", "")];
    let command = "command -v pytest >/dev/null; python3 check.py";
    added_asks_again(command, &files, |project, marker| {
        write(project, "pytest.ini", "[pytest]\ntestpaths = .checks\n");
        let test = format!("open({marker:?}, 'w')\n");
        write(project, ".checks/test_x.py", &test);
    });
}

/// A hand-made Python environment at `.venv` of `project` (what `python3
/// -m venv --without-pip` makes), its `site-packages` folder returned.
pub(crate) fn environment(project: &Path) -> std::path::PathBuf {
    environment_at(project, ".venv")
}

/// The same at `folder` of `project` (`tools/.venv`).
pub(crate) fn environment_at(project: &Path, folder: &str) -> std::path::PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import os,sys;print(os.path.realpath(sys.executable));print('python%d.%d' % sys.version_info[:2])"])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let (python, version) = (lines.next().expect("path"), lines.next().expect("version"));
    let home = Path::new(python)
        .parent()
        .expect("folder")
        .display()
        .to_string();
    write(
        project,
        &format!("{folder}/pyvenv.cfg"),
        &format!("home = {home}\ninclude-system-site-packages = false\n"),
    );
    std::fs::create_dir_all(project.join(folder).join("bin")).expect("bin");
    std::os::unix::fs::symlink(python, project.join(folder).join("bin/python")).expect("link");
    project.join(format!("{folder}/lib/{version}/site-packages"))
}

#[test]
fn a_project_environment_approves_and_binds_what_it_holds() {
    let (home, project) = home_with("[claude]");
    let site = environment(&project);
    // More installed files than a hook tree may hold (5,000).
    for at in 0..5_200 {
        write(&site, &format!("bulk/m{at}.py"), "x = 1\n");
    }
    write(&site, "helper_mod.py", "VALUE = 1\n");
    write(&project, "check.py", "import helper_mod\nprint('{}')\n");
    approve_project_hook(&home, &project, ".venv/bin/python check.py");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again:#}");
    // An installed module changed after the approval asks again.
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

#[test]
fn a_committed_environment_is_read_as_the_repositorys_code() {
    let (home, project) = home_with("[claude]");
    let site = environment(&project);
    // Installed code that runs a project file outside the environment.
    let helper = "import subprocess\nsubprocess.run(['sh', 'lib/step.sh'])\n";
    write(&site, "helper_mod.py", helper);
    write(&project, "lib/step.sh", "true\n");
    write(&project, "check.py", "import helper_mod\nprint('{}')\n");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(&project)
            .output()
            .expect("git runs");
        assert!(status.status.success(), "{args:?}: {status:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-f", ".venv", "check.py", "lib"]);
    git(&["commit", "-qm", "a repository shipping its environment"]);
    approve_project_hook(&home, &project, ".venv/bin/python check.py");
    let marker = project.join("PWNED");
    write(
        &project,
        "lib/step.sh",
        &format!("touch {}\n", marker.display()),
    );
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}
