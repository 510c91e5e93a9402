//! Red team round 28b, round 28's fixes attacked: an empty `git init`
//! above the project (R28b-5), a `pyvenv.cfg` dropped in a project folder
//! outside a checkout (R28b-6), what an environment's start-up files, a
//! `.pth` `addsitedir`, a script of its `bin/` without `#!` and one the
//! hook names elsewhere in it lead to (R28b-1 to R28b-3, R28b-10); `IFS`
//! set in other ways (R28b-8, R28b-11) and a glob over the folder a copy
//! runs in (R28b-9).

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round27::{environment, refused};
use crate::round28::{checkout_without_environment, environment_running_a_step, git};

/// Approves `command` in `project` (of `home`), runs `change`, and asserts
/// the next `emit` neither writes the marker nor completes.
fn asks_again(
    (home, project): (&crate::support::TempHome, &Path),
    command: &str,
    change: impl FnOnce(&Path, &Path),
) {
    approve_project_hook(home, project, command);
    let marker = project.join("PWNED");
    change(project, &marker);
    let emitted = emit_terminal(home, project, "ls", false);
    assert!(!marker.exists(), "{command}: {emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{command}: {emitted:#}"
    );
}

/// Python code writing `marker`.
fn writes(marker: &Path) -> String {
    format!("open({marker:?}, 'w')\n")
}

#[test]
fn a_project_no_checkout_holds_is_bound_whole_whatever_it_holds() {
    let step = |project: &Path, marker: &Path| {
        write(
            project,
            "lib/step.sh",
            &format!("touch {}\n", marker.display()),
        );
    };
    // R28b-5: an empty `git init` above the project.
    let (home, top) = home_with("[claude]");
    let project = top.join("downloads/project");
    environment_running_a_step(&project);
    git(&top, &["init", "-q"]);
    asks_again((&home, &project), ".venv/bin/python check.py", step);
    // R28b-6: a `pyvenv.cfg` dropped in `lib`, outside any checkout.
    let (home, project) = home_with("[claude]");
    environment_running_a_step(&project);
    write(&project, "lib/pyvenv.cfg", "home = /usr/bin\n");
    asks_again((&home, &project), ".venv/bin/python check.py", step);
}

#[test]
fn what_an_environments_other_files_lead_to_asks_again() {
    // R28b-10: its `sitecustomize` runs a project file by a written path.
    let (home, project) = home_with("[claude]");
    let site = environment(&project);
    let boot = project.join("tools/boot.py");
    write(&project, "tools/boot.py", "X = 1\n");
    let code = format!(
        "import runpy; runpy.run_path({:?})\n",
        boot.display().to_string()
    );
    write(&site, "sitecustomize.py", &code);
    write(&project, "check.py", "print('{}')\n");
    checkout_without_environment(&project);
    asks_again(
        (&home, &project),
        ".venv/bin/python check.py",
        |_, marker| {
            std::fs::write(&boot, writes(marker)).expect("changed");
        },
    );
    // R28b-1: a `.pth` line adding a project folder, where a new `.pth` runs.
    let (home, project) = home_with("[claude]");
    let site = environment(&project);
    write(&project, "tools/x.py", "X = 1\n");
    let tools = project.join("tools").display().to_string();
    write(
        &site,
        "ads.pth",
        &format!("import site; site.addsitedir({tools:?})\n"),
    );
    write(&project, "check.py", "print('{}')\n");
    checkout_without_environment(&project);
    asks_again(
        (&home, &project),
        ".venv/bin/python check.py",
        |project, marker| {
            let line = format!("import os; {}", writes(marker).trim_end());
            write(project, "tools/evil.pth", &format!("{line}\n"));
        },
    );
    // R28b-2, R28b-3: a script of its `bin/` without `#!`, one in `Scripts/`.
    for (tool, text) in [
        (
            ".venv/bin/mytool",
            "PYTHONPATH=src exec python3 -c 'import mypkg'\n",
        ),
        (
            ".venv/Scripts/mytool",
            "#!/bin/sh\nPYTHONPATH=src exec python3 -c 'import mypkg'\n",
        ),
    ] {
        let (home, project) = home_with("[claude]");
        environment(&project);
        write(&project, "src/mypkg/__init__.py", "print('{}')\n");
        write(&project, tool, text);
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(project.join(tool), mode).expect("chmod");
        checkout_without_environment(&project);
        asks_again(
            (&home, &project),
            &format!("sh {tool}"),
            |project, marker| {
                let text = format!("{}print('{{}}')\n", writes(marker));
                write(project, "src/mypkg/__init__.py", &text);
            },
        );
    }
}

#[test]
fn an_ifs_set_any_way_or_a_glob_over_the_folder_is_read() {
    let files = |run: &'static str| {
        [
            ("run.sh", run),
            ("check.py", "import helper\nprint('{}')\n"),
            ("lib/helper.py", "X = 1\n"),
        ]
    };
    // R28b-8, R28b-11.
    for (run, because) in [
        (
            "IFS=\" ,\"\nv=\"PYTHONPATH=lib,python3,check.py\"\nenv $v\n",
            "IFS=",
        ),
        (
            "printf -v IFS ,\nv=\"PYTHONPATH=lib,python3,check.py\"\nenv $v\n",
            "IFS",
        ),
        (
            "read -r IFS <<< \",\"\nv=\"PYTHONPATH=lib,python3,check.py\"\nenv $v\n",
            "IFS",
        ),
    ] {
        refused("bash run.sh", &files(run), because);
    }
    // R28b-9: `cp l*/* …` into the folder Python searches.
    let (home, project) = home_with("[claude]");
    let run = "D=${TMPDIR:-/tmp}/copy\nmkdir -p $D\ncp l*/* $D/\nPYTHONPATH=$D python3 check.py\n";
    for (name, text) in files(run) {
        write(&project, name, text);
    }
    asks_again((&home, &project), "bash run.sh", |project, marker| {
        write(project, "lib/helper.py", &writes(marker));
    });
}
