//! Red team round 30's rows left open by the session that fixed the rest:
//! an environment reached through `..` after a `cd` (R30-4), an
//! environment's `bin/` script the hook's code runs by its path (R30-17),
//! a path joined onto `dirname(__file__)` in installed code (R30-10), a
//! copy reached through a project link to an outside folder (R30-11), a
//! copy of `Path.cwd()` (R30-14), and object paths and relative imports in
//! the project's own code (R30-1, R30-15): a change to the project file
//! they reach asks again.

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round28::changed_asks_again;
use crate::round29_environments::{boot_change_asks_again, runs_boot};
use crate::round30_copies::{WRITES_MARKER, after_a_change_in};

/// Makes `path` executable.
pub(crate) fn executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn an_environment_reached_through_dot_dot_after_cd_is_read() {
    boot_change_asks_again(
        "cd sub && ../.venv/bin/python ../check.py",
        |project, site| {
            write(project, "sub/notes.txt", "notes\n");
            write(site, "b.pth", "import bootmod\n");
            write(site, "bootmod.py", &runs_boot(project));
        },
    );
}

#[test]
fn an_environment_script_the_hooks_code_runs_by_its_path_is_read() {
    boot_change_asks_again("python3 check.py", |project, site| {
        write(
            project,
            "check.py",
            "import subprocess\nsubprocess.run(['.venv/bin/evtool'])\nprint('{}')\n",
        );
        let python = project.join(".venv/bin/python");
        let tool = write(
            project,
            ".venv/bin/evtool",
            &format!("#!{}\nimport bootmod\n", python.display()),
        );
        executable(&tool);
        write(site, "bootmod.py", &runs_boot(project));
    });
}

/// Runs `case` for each of `cases` and asserts none failed, naming each
/// that did.
pub(crate) fn each_holds<T: std::fmt::Debug + Copy>(cases: &[T], case: impl Fn(T)) {
    let failed: Vec<T> = cases
        .iter()
        .copied()
        .filter(|each| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(*each))).is_err()
        })
        .collect();
    assert!(
        failed.is_empty(),
        "these ran changed code unasked: {failed:#?}"
    );
}

#[test]
fn object_paths_and_relative_imports_in_the_projects_own_code_are_read() {
    let cases = [
        (
            "python3 check.py",
            "import pkgutil\npkgutil.resolve_name('tools.boot:main')\n",
        ),
        (
            "python3 check.py",
            "import importlib\nimportlib.import_module('.boot', 'tools')\n",
        ),
        (
            "python3 check.py",
            "import importlib\nm = importlib.import_module('tools.boot.main'.rsplit('.', 1)[0])\n",
        ),
        (
            "PYTHONBREAKPOINT=tools.boot.main python3 check.py",
            "breakpoint()\n",
        ),
    ];
    each_holds(&cases, |(command, check)| {
        boot_change_asks_again(command, |project, _| {
            write(project, "tools/__init__.py", "");
            write(project, "tools/boot.py", "def main():\n    pass\n");
            write(project, "check.py", &format!("{check}print('{{}}')\n"));
        });
    });
}

#[test]
fn a_copy_through_a_project_link_to_an_outside_folder_binds_what_it_copies() {
    // R30-11: `out` is the project's link to a folder outside it; a word
    // through it is outside the project, as the kernel takes it.
    let link = |project: &std::path::Path, outside: &std::path::Path| {
        std::fs::create_dir_all(outside).expect("outside");
        std::os::unix::fs::symlink(outside, project.join("out")).expect("link");
        // Ignored build output, as a build's `out` is.
        write(project, ".gitignore", ".venv/\nout\n");
    };
    let cases = [
        (
            "rm -rf out/c; cp -r . out/c; python3 out/c/check.py",
            "lib/helper.py",
        ),
        (
            "rm -rf out/c; cp -r . out/c; python3 out/c/check.py",
            "check.py",
        ),
        (
            "rm -rf out/lib; cp -r lib out/; PYTHONPATH=out/lib python3 -c 'import helper; print(\"{}\")'",
            "lib/helper.py",
        ),
    ];
    each_holds(&cases, |(run, changed)| {
        let (emitted, marker) = after_a_change_in(run, true, changed, WRITES_MARKER, link);
        let status = &emitted["runs"][0]["status"];
        assert!(
            !marker && *status != serde_json::json!("completed"),
            "{run} ({changed}): {emitted:#}"
        );
    });
}

#[test]
fn a_copy_of_the_files_a_list_names_binds_them() {
    // R30-14: `tar -T` takes the project files to copy from a list file,
    // and Python names the folder it runs in as `pathlib.Path.cwd()`.
    let list = |project: &std::path::Path, _: &std::path::Path| {
        write(project, "files.txt", "check.py\nlib\n");
    };
    let cases = [
        (
            "rm -rf $D; mkdir -p $D; tar cf - -T files.txt | tar xf - -C $D; python3 $D/check.py",
            "lib/helper.py",
        ),
        (
            "rm -rf $D; mkdir -p $D; tar -c --files-from=files.txt | tar -x -C $D; python3 $D/check.py",
            "lib/helper.py",
        ),
        (
            "rm -rf $D; python3 -c 'import shutil, pathlib; shutil.copytree(pathlib.Path.cwd(), \"$D\")'; python3 $D/check.py",
            "lib/helper.py",
        ),
        (
            "rm -rf $D; python3 -c 'import shutil, os; shutil.copytree(os.path.abspath(os.curdir), \"$D\")'; python3 $D/check.py",
            "lib/helper.py",
        ),
    ];
    each_holds(&cases, |(run, changed)| {
        let (emitted, marker) = after_a_change_in(run, true, changed, WRITES_MARKER, list);
        let status = &emitted["runs"][0]["status"];
        assert!(
            !marker && *status != serde_json::json!("completed"),
            "{run} ({changed}): {emitted:#}"
        );
    });
}

#[test]
fn package_metadata_added_where_the_hooks_python_looks_asks_again() {
    // R30-8: no environment; `importlib.metadata` finds a package's
    // metadata in the script's folder, and its entry points name a
    // project module the hook's code loads without naming it.
    let loaders = [
        "import importlib.metadata as md\nfor ep in md.entry_points(group='myplugins'):\n    ep.load()\n",
        "import importlib.metadata as md\nfor d in md.distributions():\n    [ep.load() for ep in d.entry_points if ep.group == 'console_scripts' and ep.name == 'evil']\n",
    ];
    each_holds(&loaders, |loader| {
        changed_asks_again(
            "python3 check.py",
            |project| {
                let marker = project.join("PWNED");
                write(
                    project,
                    "tools/boot.py",
                    &format!("open({marker:?}, 'w')\ndef main():\n    pass\n"),
                );
                write(project, "check.py", &format!("{loader}print('{{}}')\n"));
                write(project, "README.md", "notes\n");
            },
            |project, _| {
                write(
                    project,
                    "evil-1.0.dist-info/METADATA",
                    "Name: evil\nVersion: 1.0\n",
                );
                let points = "[myplugins]\nevil = tools.boot:main\n[console_scripts]\nevil = tools.boot:main\n";
                write(project, "evil-1.0.dist-info/entry_points.txt", points);
            },
        );
    });
}

/// Writes the zip application `tools/app.pyz` of `project`: its
/// `__main__.py` imports `helper` from the archive, which runs `body`.
fn zip_application(project: &std::path::Path, body: &str) {
    let source = project.join("app-source");
    write(&source, "__main__.py", "import helper\nprint('{}')\n");
    write(&source, "helper.py", body);
    std::fs::create_dir_all(project.join("tools")).expect("tools");
    let status = std::process::Command::new("python3")
        .args(["-m", "zipapp"])
        .arg(&source)
        .arg("-o")
        .arg(project.join("tools/app.pyz"))
        .status()
        .expect("python3 runs");
    assert!(status.success());
    std::fs::remove_dir_all(source).expect("source removed");
}

#[test]
fn a_zip_application_runs_from_its_checked_copy_and_a_change_asks_again() {
    // R30-7: the checked launcher compiled a `.pyz` as source; it runs
    // now, its modules read from the sealed copy, and a new archive asks.
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    zip_application(&project, "X = 1\n");
    approve_project_hook(&home, &project, "python3 tools/app.pyz");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        again["runs"][0]["status"],
        serde_json::json!("completed"),
        "{again:#}"
    );
    let marker = project.join("PWNED");
    zip_application(&project, &format!("open({marker:?}, 'w')\n"));
    let changed = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{changed:#}");
    assert_ne!(
        changed["runs"][0]["status"],
        serde_json::json!("completed"),
        "{changed:#}"
    );
}

#[test]
fn a_compiled_script_runs_from_its_checked_copy() {
    // R30-7's sibling: `python3 tools/check.pyc` (no source) was compiled
    // as source by the checked launcher and failed.
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let source = write(&project, "build/check.py", "print('{}')\n");
    let compiled = project.join("tools/check.pyc");
    std::fs::create_dir_all(project.join("tools")).expect("tools");
    let status = std::process::Command::new("python3")
        .args(["-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)"])
        .arg(&source)
        .arg(&compiled)
        .status()
        .expect("python3 runs");
    assert!(status.success());
    std::fs::remove_dir_all(project.join("build")).expect("source removed");
    approve_project_hook(&home, &project, "python3 tools/check.pyc");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        again["runs"][0]["status"],
        serde_json::json!("completed"),
        "{again:#}"
    );
}
