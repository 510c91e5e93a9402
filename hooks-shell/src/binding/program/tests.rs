//! Tests of the programs a hook runs by name, found on `PATH` (red team
//! round 9, R9-5).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::binding::{Binding, Subject};

/// The user's guard `command` imported for `project`, run with `path` as
/// its `PATH`.
fn guard(command: &str, project: &Path, path: &str) -> Subject {
    Subject {
        event: "pre_tool_call".to_owned(),
        command: command.to_owned(),
        project: Some(project.to_path_buf()),
        words: shlex::split(command),
        cwd: project.to_path_buf(),
        tree: Vec::new(),
        request: None,
        source: None,
        env: vec![("PATH".to_owned(), path.to_owned())],
        bind_tree: false,
        line: None,
    }
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn bound(subject: &Subject) -> Binding {
    subject.binding().expect("binding")
}

/// A home with the user's guard and the machine's `python3`, and a project.
fn layout() -> (tempfile::TempDir, PathBuf, PathBuf, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).expect("project");
    let guard = dir.path().join("home/.claude/hooks/guard.py");
    executable(&guard, "import sys\n");
    let system = dir.path().join("usr/bin");
    executable(&system.join("python3"), "#!/bin/sh\nexec true\n");
    (dir, project, guard, system.display().to_string())
}

#[test]
fn a_project_program_first_on_path_is_bound_and_its_edit_asks_again() {
    let (_dir, project, guard_py, system) = layout();
    let venv = project.join(".venv/bin");
    let with_venv = format!("{}:{system}", venv.display());
    for command in [
        format!("python3 {}", guard_py.display()),
        format!("/usr/bin/env python3 {}", guard_py.display()),
        format!("timeout 5 python3 {}", guard_py.display()),
        format!("cat >/dev/null; python3 {}", guard_py.display()),
    ] {
        // The machine's interpreter is not bound: updating it never asks.
        let ordinary = bound(&guard(&command, &project, &system));
        assert!(
            !ordinary.files.keys().any(|f| f.ends_with("python3")),
            "{command}: {ordinary:?}"
        );
        // No project program yet: the same files with the venv on PATH
        // (the settings' `PATH` value is bound as well, here by its hash).
        let before = bound(&guard(&command, &project, &with_venv));
        assert_eq!(before.files, ordinary.files, "{command}");
        // The project's `python3` appears first on PATH: a new binding.
        executable(&venv.join("python3"), "#!/bin/sh\nexec true\n");
        let swapped = bound(&guard(&command, &project, &with_venv));
        assert!(
            swapped.files.contains_key(&venv.join("python3")),
            "{command}: {swapped:?}"
        );
        assert_ne!(swapped.files, before.files, "{command}");
        // Its edit asks again.
        executable(&venv.join("python3"), "#!/bin/sh\necho '{}'\n");
        assert_ne!(bound(&guard(&command, &project, &with_venv)), swapped);
        std::fs::remove_file(venv.join("python3")).expect("clean");
    }
}

#[test]
fn a_relative_or_empty_path_entry_is_the_folder_the_hook_runs_in() {
    let (_dir, project, guard_py, system) = layout();
    executable(&project.join("bin/python3"), "#!/bin/sh\nexec true\n");
    executable(&project.join("python3"), "#!/bin/sh\nexec true\n");
    let command = format!("python3 {}", guard_py.display());
    let relative = bound(&guard(&command, &project, &format!("bin:{system}")));
    assert!(relative.files.contains_key(&project.join("bin/python3")));
    let empty = bound(&guard(&command, &project, &format!(":{system}")));
    assert!(empty.files.contains_key(&project.join("python3")));
}

#[test]
fn a_virtual_environment_interpreter_binds_what_it_reads_at_start_up() {
    let (dir, project, guard_py, system) = layout();
    let prefix = project.join(".venv");
    std::fs::create_dir_all(prefix.join("bin")).expect("bin");
    std::os::unix::fs::symlink(
        dir.path().join("usr/bin/python3"),
        prefix.join("bin/python3"),
    )
    .expect("link");
    std::fs::write(prefix.join("pyvenv.cfg"), "home = /usr/bin\n").expect("cfg");
    let site = prefix.join("lib/python3.11/site-packages");
    std::fs::create_dir_all(&site).expect("site");
    std::fs::write(site.join("hook.pth"), "import evil; evil.go()\n").expect("pth");
    std::fs::write(site.join("evil.py"), "def go(): pass\n").expect("evil");
    let command = format!("python3 {}", guard_py.display());
    let path = format!("{}:{system}", prefix.join("bin").display());
    let approved = bound(&guard(&command, &project, &path));
    for file in ["bin/python3", "pyvenv.cfg"] {
        assert!(approved.files.contains_key(&prefix.join(file)), "{file}");
    }
    for file in ["hook.pth", "evil.py"] {
        assert!(approved.files.contains_key(&site.join(file)), "{file}");
    }
    std::fs::write(site.join("evil.py"), "def go(): print('{}')\n").expect("edit");
    assert_ne!(bound(&guard(&command, &project, &path)), approved);
}

#[test]
fn a_users_own_hook_finding_a_program_of_its_folder_is_bound_to_that_folder() {
    let (_dir, project, guard_py, system) = layout();
    let mut native = guard(
        &format!("python3 {}", guard_py.display()),
        &project,
        &system,
    );
    native.project = None;
    assert_eq!(native.bound_project(), None);
    executable(&project.join("bin/python3"), "#!/bin/sh\nexec true\n");
    native.env = vec![("PATH".to_owned(), format!("bin:{system}"))];
    assert_eq!(native.bound_project(), Some(project.clone()));
    assert!(
        bound(&native)
            .files
            .contains_key(&project.join("bin/python3"))
    );
}

#[test]
fn the_interpreter_of_a_script_run_as_the_program_is_found_as_its_shebang_finds_it() {
    let (_dir, project, guard_py, system) = layout();
    let venv = project.join(".venv/bin");
    let with_venv = format!("{}:{system}", venv.display());
    let shown = guard_py.display();
    for shebang in [
        "#!/usr/bin/env python3".to_owned(),
        "#!/usr/bin/env -S PYTHONUNBUFFERED=1 python3 -u".to_owned(),
        format!("#!{}", venv.join("python3").display()),
    ] {
        executable(&guard_py, &format!("{shebang}\nimport sys\n"));
        for command in [
            format!("{shown}"),
            format!("exec {shown}"),
            format!("bash -c '{shown}'"),
        ] {
            let before = bound(&guard(&command, &project, &with_venv));
            assert!(
                !before.files.keys().any(|f| f.starts_with(&venv)),
                "{shebang} {command}: {before:?}"
            );
            // The project's `python3` is the one the `#!` line runs now.
            executable(&venv.join("python3"), "#!/bin/sh\nexec true\n");
            let swapped = bound(&guard(&command, &project, &with_venv));
            assert!(
                swapped.files.contains_key(&venv.join("python3")),
                "{shebang} {command}: {swapped:?}"
            );
            executable(&venv.join("python3"), "#!/bin/sh\necho '{}'\n");
            assert_ne!(bound(&guard(&command, &project, &with_venv)), swapped);
            std::fs::remove_file(venv.join("python3")).expect("clean");
        }
    }
}

#[test]
fn a_python_path_folder_in_the_project_binds_its_start_up_modules() {
    let (dir, project, guard_py, system) = layout();
    executable(&guard_py, "#!/usr/bin/env python3\nimport sys\n");
    let src = project.join("src");
    std::fs::create_dir_all(&src).expect("src");
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).expect("elsewhere");
    for command in [
        format!("python3 {}", guard_py.display()),
        format!("{}", guard_py.display()),
    ] {
        let with = |python_path: &Path| {
            let mut subject = guard(&command, &project, &system);
            let value = python_path.display().to_string();
            subject.env.push(("PYTHONPATH".to_owned(), value));
            subject
        };
        // A folder outside the project is not the repository's.
        let elsewhere = bound(&with(&outside));
        assert!(
            !elsewhere.files.keys().any(|f| f.starts_with(&outside)),
            "{command}: {elsewhere:?}"
        );
        // Absent, then present: a new binding.
        let absent = bound(&with(&src));
        assert!(
            absent.files.contains_key(&src.join("sitecustomize.py")),
            "{command}: {absent:?}"
        );
        assert!(absent.files.contains_key(&src.join("usercustomize.py")));
        std::fs::write(src.join("sitecustomize.py"), "import sys\n").expect("site");
        let present = bound(&with(&src));
        assert_ne!(present, absent, "{command}");
        std::fs::write(src.join("usercustomize.py"), "import os\n").expect("user");
        assert_ne!(bound(&with(&src)), present, "{command}");
        for module in ["sitecustomize.py", "usercustomize.py"] {
            std::fs::remove_file(src.join(module)).expect("clean");
        }
    }
}
