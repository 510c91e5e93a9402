//! Red team round 31: round 30's fixes attacked. A shell default naming
//! project code (`"${D:-tools}/check.py"`, R31-1), a glob to an
//! environment's interpreter (R31-2) or, in Python, to a module folder
//! (R31-3), more spellings of the folder a copy takes (`os.environ["PWD"]`,
//! `Path().resolve()`, `sys.path[0]`: R31-4), a pickle's module (R31-5) and
//! `logging.config.fileConfig` (R31-6): a change to the code they reach
//! asks again. And a package's metadata without entry points, as `pip
//! install -e .` writes it, no longer asks again (R31-7).

use std::path::Path;

use serde_json::json;

use crate::dialects::write;
use crate::round28::{changed_asks_again, checkout_without_environment, poison};
use crate::round29_environments::{boot_change_asks_again, runs_boot};
use crate::round30_copies::{WRITES_MARKER, after_a_change_in};
use crate::round30_open::each_holds;

/// A checkout holding `tools/check.py`, `tools/step.sh`, `lib/helper.py`,
/// `tools/boot.py` (a package) and the files `extra` writes.
fn checkout(project: &Path, extra: &[(&str, &str)]) {
    write(project, "tools/__init__.py", "");
    write(project, "tools/check.py", "print('{}')\n");
    write(project, "tools/step.sh", "echo '{}'\n");
    write(
        project,
        "tools/boot.py",
        "def main(*a, **k):\n    return 0\n",
    );
    write(project, "lib/helper.py", "X = 1\n");
    write(project, "check.py", "print('{}')\n");
    for (relative, text) in extra {
        write(project, relative, text);
    }
    checkout_without_environment(project);
}

#[test]
fn a_shell_default_naming_project_code_is_read_as_its_default() {
    let cases = [
        ("python3 \"${D:-tools}/check.py\"", "tools/check.py"),
        ("python3 \"${D-tools}/check.py\"", "tools/check.py"),
        (
            "bash ${S:-tools/step.sh} >/dev/null; echo '{}'",
            "tools/step.sh",
        ),
    ];
    each_holds(&cases, |(command, changed)| {
        changed_asks_again(
            command,
            |project| checkout(project, &[]),
            |project, marker| {
                let text = match changed.ends_with(".sh") {
                    true => format!("\ntouch {marker:?}\n"),
                    false => format!("\nopen({marker:?}, 'w')\n"),
                };
                let path = project.join(changed);
                let old = std::fs::read_to_string(&path).expect("read");
                std::fs::write(path, old + &text).expect("changed");
            },
        );
    });
}

#[test]
fn an_environment_reached_by_a_default_or_a_glob_is_read() {
    let cases = [
        "\"${VENV:-.venv}/bin/python\" check.py",
        ".venv/bin/pyth* check.py",
        ".v*/bin/python check.py",
    ];
    each_holds(&cases, |command| {
        boot_change_asks_again(command, |project, site| {
            write(site, "b.pth", "import bootmod\n");
            write(site, "bootmod.py", &runs_boot(project));
        });
    });
}

#[test]
fn a_module_folder_python_finds_by_a_glob_is_bound() {
    let cases = [
        "import sys, glob\nsys.path.insert(0, glob.glob('li*')[0])\nimport helper\n",
        "import sys, glob\nsys.path[:0] = glob.glob('l*b')\nimport helper\n",
    ];
    each_holds(&cases, |check| {
        changed_asks_again(
            "python3 check.py",
            |project| checkout(project, &[("check.py", &format!("{check}print('{{}}')\n"))]),
            |project, marker| poison(project, "lib/helper.py", marker),
        );
    });
}

#[test]
fn python_naming_the_folder_it_runs_in_copies_all_of_it() {
    run_folder_copies_ask_again(&[
        "os.environ['PWD']",
        "os.getenv('PWD')",
        "os.environ['CLAUDE_PROJECT_DIR']",
        "pathlib.Path().resolve()",
        "sys.path[0]",
        "pathlib.Path(__file__).resolve().parent",
    ]);
}

/// For each spelling of the folder the hook runs in, `run.py` copies it
/// outside the project and imports `helper` from the copy (unsandboxed):
/// an edit of `lib/helper.py` must ask again.
pub(crate) fn run_folder_copies_ask_again(spellings: &[&str]) {
    each_holds(spellings, |spelled| {
        let run = |project: &Path, outside: &Path| {
            let outside = outside.display();
            let code = format!(
                "import os, sys, shutil, pathlib, inspect\nshutil.copytree({spelled}, '{outside}', dirs_exist_ok=True)\nsys.path.insert(0, '{outside}/lib')\nimport helper\nprint('{{}}')\n"
            );
            write(project, "run.py", &code);
        };
        let (emitted, marker) =
            after_a_change_in("python3 run.py", true, "lib/helper.py", WRITES_MARKER, run);
        let status = &emitted["runs"][0]["status"];
        assert!(
            !marker && *status != json!("completed"),
            "{spelled}: {emitted:#}"
        );
    });
}

#[test]
fn a_pickle_and_a_logging_file_config_name_what_they_load() {
    // A pickle is code its data holds: a hook loading one, from a file or
    // a literal, cannot be approved (round 49, H6).
    for check in [
        "import pickle, sys\nsys.path.insert(0, '.')\npickle.load(open('data.pkl', 'rb'))\n",
        "import pickle, sys\nsys.path.insert(0, '.')\npickle.loads(b\"ctools.boot\\nmain\\n.\")\n",
    ] {
        crate::round32_open::unpickling_is_never_approved(
            check,
            "open('data.pkl', 'w').write('ctools.boot\\nmain\\np0\\n.')",
        );
    }
    let config = "import logging.config\nlogging.config.fileConfig('log.ini')\n";
    let ini = "[loggers]\nkeys=root\n[handlers]\nkeys=h\n[formatters]\nkeys=\n[logger_root]\nhandlers=h\n[handler_h]\nclass=StreamHandler\nargs=(__import__('tools.boot'),)\n";
    let cases = [(config, ini)];
    each_holds(&cases, |(check, data)| {
        changed_asks_again(
            "python3 check.py",
            |project| {
                let data_file = "log.ini";
                checkout(
                    project,
                    &[
                        ("check.py", &format!("{check}print('{{}}')\n")),
                        (data_file, data),
                    ],
                );
            },
            |project, marker| poison(project, "tools/boot.py", marker),
        );
    });
    // The file `fileConfig` reads is code: its `args=` line runs.
    changed_asks_again(
        "python3 check.py",
        |project| {
            checkout(
                project,
                &[
                    ("check.py", &format!("{config}print('{{}}')\n")),
                    ("log.ini", &ini.replace("__import__('tools.boot'),", "")),
                ],
            )
        },
        |project, marker| {
            let evil = ini.replace(
                "__import__('tools.boot'),",
                &format!("open({marker:?}, 'w'),"),
            );
            write(project, "log.ini", &evil);
        },
    );
}

#[test]
fn package_metadata_without_entry_points_at_the_top_asks_nothing() {
    // R31-7: `pip install -e .` writes `x.egg-info/` at the project's top.
    let (home, project) = crate::dialects::home_with("[claude]");
    checkout(&project, &[]);
    crate::dialects::approve_project_hook(&home, &project, "python3 check.py");
    write(&project, "x.egg-info/PKG-INFO", "Name: x\nVersion: 1\n");
    write(&project, "x.egg-info/SOURCES.txt", "check.py\n");
    let emitted = crate::dialects::emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}
