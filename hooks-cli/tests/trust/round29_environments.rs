//! Red team round 28c: an environment's modules are read as far as
//! imports go. Code an environment imports in turn (R28c-1), what
//! `sitecustomize` imports or a `sitecustomize` package (R28c-2), `.pth`
//! import lines of other shapes (R28c-3), `-m`, `-c` and a console script's
//! installed package (R28c-6) and a `.pyc` with no source (R28c-7) name a
//! project file by its path: a change to it asks again. Installed code
//! too large to read on every run binds the whole project instead.

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round28::{changed_asks_again, checkout_without_environment, poison, site_of};

/// Python running the project's `tools/boot.py` by its path.
pub(crate) fn runs_boot(project: &Path) -> String {
    let boot = project.join("tools/boot.py").display().to_string();
    format!("import runpy\nrunpy.run_path({boot:?})\n")
}

/// A checkout whose ignored environment is set up by `install` (given the
/// project and its site folder), the hook `command` approved; a change to
/// `tools/boot.py` must ask again.
pub(crate) fn boot_change_asks_again(command: &str, install: impl FnOnce(&Path, &Path)) {
    changed_asks_again(
        command,
        |project| {
            let site = site_of(project);
            write(project, "tools/boot.py", "X = 1\n");
            write(project, "check.py", "print('{}')\n");
            install(project, &site);
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "tools/boot.py", marker),
    );
}

#[test]
fn what_an_environment_module_imports_in_turn_is_read() {
    let check = ".venv/bin/python check.py";
    // R28c-1: a `.pth` line's module importing another; a package's submodule.
    boot_change_asks_again(check, |project, site| {
        write(site, "b.pth", "import bootmod\n");
        write(site, "bootmod.py", "import bootmod2\n");
        write(site, "bootmod2.py", &runs_boot(project));
    });
    boot_change_asks_again(check, |project, site| {
        write(site, "b.pth", "import bootpkg\n");
        write(site, "bootpkg/__init__.py", "from . import real\n");
        write(site, "bootpkg/real.py", &runs_boot(project));
    });
    // R28c-2: what `sitecustomize` imports; a `sitecustomize` package.
    boot_change_asks_again(check, |project, site| {
        write(site, "sitecustomize.py", "import bootmod\n");
        write(site, "bootmod.py", &runs_boot(project));
    });
    boot_change_asks_again(check, |project, site| {
        write(site, "sitecustomize/__init__.py", &runs_boot(project));
    });
    // R28c-3: `.pth` import lines of other shapes.
    for line in [
        "import os;import bootmod",
        "import os; __import__(\"bootmod\")",
        "import importlib; importlib.import_module('bootmod')",
    ] {
        boot_change_asks_again(check, |project, site| {
            write(site, "b.pth", &format!("{line}\n"));
            write(site, "bootmod.py", &runs_boot(project));
        });
    }
}

#[test]
fn what_a_hook_runs_from_an_environment_is_read_as_far_as_it_imports() {
    // R28c-6: `-m`, `-c`, and the hook's own script importing a package.
    for command in [
        ".venv/bin/python -m bootmod",
        ".venv/bin/python -c 'import bootmod'",
        ".venv/bin/python check_env.py",
    ] {
        boot_change_asks_again(command, |project, site| {
            write(
                site,
                "bootmod.py",
                &format!("{}print('{{}}')\n", runs_boot(project)),
            );
            write(project, "check_env.py", "import bootmod\n");
        });
    }
    // A console script of an installed (not editable) package.
    boot_change_asks_again(".venv/bin/mytool", |project, site| {
        write(site, "mypkg/__init__.py", "");
        let cli = format!(
            "def main():\n    {}",
            runs_boot(project).replace('\n', "\n    ")
        );
        write(site, "mypkg/cli.py", &cli);
        let python = project.join(".venv/bin/python");
        let tool = format!(
            "#!{}\nfrom mypkg.cli import main\nmain()\nprint('{{}}')\n",
            python.display()
        );
        write(project, ".venv/bin/mytool", &tool);
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(project.join(".venv/bin/mytool"), mode).expect("chmod");
    });
}

/// Compiles `source` to the sourceless `compiled` file.
fn compile(source: &str, compiled: &Path) {
    let folder = tempfile::tempdir().expect("folder");
    let file = folder.path().join("m.py");
    std::fs::write(&file, source).expect("source");
    let status = std::process::Command::new("python3")
        .args(["-c", "import py_compile,sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)"])
        .arg(&file)
        .arg(compiled)
        .status()
        .expect("python3 runs");
    assert!(status.success());
}

#[test]
fn a_compiled_module_with_no_source_is_read_for_its_strings() {
    // R28c-7: a sourceless `sitecustomize.pyc`; a `.pth` importing a `.pyc`.
    let check = ".venv/bin/python check.py";
    boot_change_asks_again(check, |project, site| {
        compile(&runs_boot(project), &site.join("sitecustomize.pyc"));
    });
    boot_change_asks_again(check, |project, site| {
        write(site, "b.pth", "import bootmod\n");
        compile(&runs_boot(project), &site.join("bootmod.pyc"));
    });
}

#[test]
fn installed_code_read_binds_only_what_it_names() {
    // A hook running an installed package whose modules import each other
    // and name no project file: a README edit runs it again unasked.
    let (home, project) = home_with("[claude]");
    let site = site_of(&project);
    write(&site, "b.pth", "import tool\n");
    write(&site, "tool/__init__.py", "from . import core, util\n");
    write(
        &site,
        "tool/core.py",
        "from .util import helper\nimport json\n",
    );
    write(
        &site,
        "tool/util.py",
        "def helper():\n    return 'README.md'\n",
    );
    write(&project, "README.md", "notes\n");
    write(&project, "check.py", "import tool\nprint('{}')\n");
    checkout_without_environment(&project);
    approve_project_hook(&home, &project, ".venv/bin/python check.py");
    write(&project, "README.md", "more notes\n");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again:#}");
}

#[test]
fn installed_code_too_large_to_read_binds_the_whole_project() {
    // More modules imported at start-up than are read on every run: the
    // whole project is bound by what each entry is, not the hook refused.
    let (home, project) = home_with("[claude]");
    let site = site_of(&project);
    let names: Vec<String> = (0..10_001).map(|at| format!("m{at}")).collect();
    for name in &names {
        write(&site, &format!("{name}.py"), "X = 1\n");
    }
    write(
        &site,
        "sitecustomize.py",
        &format!("import {}\n", names.join(", ")),
    );
    write(&project, "notes/data.txt", "1\n");
    write(&project, "check.py", "print('{}')\n");
    checkout_without_environment(&project);
    approve_project_hook(&home, &project, ".venv/bin/python check.py");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again:#}");
    write(&project, "notes/data.txt", "2\n");
    let changed = emit_terminal(&home, &project, "ls", false);
    assert_ne!(
        changed["runs"][0]["status"],
        json!("completed"),
        "{changed:#}"
    );
}

#[test]
fn folders_environment_code_puts_on_the_module_path_are_searched() {
    let check = ".venv/bin/python check.py";
    // A `.pth` path line naming a folder of the environment, and a module
    // there a `.pth` import line imports.
    boot_change_asks_again(check, |project, site| {
        write(site, "b.pth", "extra\nimport bootmod\n");
        write(site, "extra/bootmod.py", &runs_boot(project));
    });
    // `sys.path.insert` of a folder of the environment, by its path.
    boot_change_asks_again(check, |project, site| {
        let hidden = project.join(".venv/hidden");
        let line = format!(
            "import sys\nsys.path.insert(0, {:?})\nimport bootmod\n",
            hidden.display().to_string()
        );
        write(site, "sitecustomize.py", &line);
        write(&hidden, "bootmod.py", &runs_boot(project));
    });
    // ... and of a project folder: the module imported from it is the
    // project's code.
    changed_asks_again(
        check,
        |project| {
            let site = site_of(project);
            let tools = project.join("tools").display().to_string();
            let line = format!("import sys\nsys.path.insert(0, {tools:?})\nimport projmod\n");
            write(&site, "sitecustomize.py", &line);
            write(project, "tools/projmod.py", "X = 1\n");
            write(project, "check.py", "print('{}')\n");
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "tools/projmod.py", marker),
    );
}

#[test]
fn entry_point_plugins_and_zips_an_environment_loads_are_bound() {
    let check = ".venv/bin/python check.py";
    // A plugin a package declares (`[pytest11]`), loaded by installed code
    // through `importlib.metadata.entry_points`.
    boot_change_asks_again(check, |project, site| {
        let loader = "from importlib.metadata import entry_points\nfor ep in entry_points(group='hooks.plugins'):\n    ep.load()\n";
        write(site, "tool.py", loader);
        write(
            site,
            "evil-1.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
        );
        write(
            site,
            "evil-1.0.dist-info/entry_points.txt",
            "[hooks.plugins]\nevil = evilplugin\n",
        );
        write(site, "evilplugin.py", &runs_boot(project));
        write(project, "check.py", "import tool\nprint('{}')\n");
    });
    // A zip on the module path: its modules cannot be read, so the whole
    // project is bound.
    boot_change_asks_again(check, |project, site| {
        write(site, "b.pth", "payload.zip\nimport bootmod\n");
        let zip = site.join("payload.zip");
        let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('bootmod.py', sys.argv[2])\n";
        let status = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&zip)
            .arg(runs_boot(project))
            .status()
            .expect("python3 runs");
        assert!(status.success());
    });
}

#[test]
fn a_project_module_installed_code_imports_is_bound() {
    // R29-1: installed code imports a project module by a dotted name or
    // from its package, found on the module path from the script's folder.
    for line in ["from tools import boot", "import tools.boot"] {
        changed_asks_again(
            ".venv/bin/python check.py",
            |project| {
                let site = site_of(project);
                write(&site, "envmod.py", &format!("{line}\n"));
                write(project, "tools/boot.py", "X = 1\n");
                write(project, "check.py", "import envmod\nprint('{}')\n");
                checkout_without_environment(project);
            },
            |project, marker| poison(project, "tools/boot.py", marker),
        );
    }
}
