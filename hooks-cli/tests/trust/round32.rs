//! Red team round 32: round 31's fixes attacked. Shell defaults nested, by
//! `:+`, of an array or in a makefile (`$${D:-tools}`; a make function,
//! `$(or $(D),tools)`, is no longer approved: `round45_red.rs`), and an
//! expansion the text cannot give before a path (`${D#x}/check.py`:
//! R32-1 to R32-5); a glob to an environment inside a script (R32-6);
//! more spellings of the folder a copy takes (`abspath('')`,
//! `sys.argv[0]`, `inspect.getfile`: R32-9); a module named in a CSV
//! field, after `ext://`, or read from a text file by `resolve_name`
//! (R32-11); an entry point at the project's top naming a project module
//! (R32-12); a Python script with a zip appended (R32-13).

use crate::dialects::write;
use crate::round28::{changed_asks_again, checkout_without_environment, poison};
use crate::round29_environments::{boot_change_asks_again, runs_boot};
use crate::round30_open::each_holds;
use crate::round31::run_folder_copies_ask_again;

/// A checkout holding `tools/check.py`, `tools/boot.py` (a package) and
/// the files `extra` writes; the hook's change poisons `changed`.
fn asks_after(command: &str, extra: &[(&str, &str)], changed: &str) {
    changed_asks_again(
        command,
        |project| {
            write(project, "tools/__init__.py", "");
            write(project, "tools/check.py", "print('{}')\n");
            write(
                project,
                "tools/boot.py",
                "def f(*a, **k):\n    return 0\nclass H:\n    pass\n",
            );
            for (relative, text) in extra {
                write(project, relative, text);
            }
            checkout_without_environment(project);
        },
        |project, marker| poison(project, changed, marker),
    );
}

#[test]
fn an_expansion_the_text_cannot_give_before_a_path_is_any_folder() {
    let cases: [(&str, &[(&str, &str)]); 5] = [
        ("python3 \"${D:-${E:-tools}}/check.py\"", &[]),
        ("D=1; python3 \"${D:+tools}/check.py\"", &[]),
        ("D=xtools; python3 \"${D#x}/check.py\"", &[]),
        (
            "bash run.sh",
            &[("run.sh", "python3 \"${A[0]:-tools}/check.py\"\n")],
        ),
        (
            "make -s",
            &[("Makefile", "all:\n\tpython3 $${D:-tools}/check.py\n")],
        ),
    ];
    each_holds(&cases, |(command, extra)| {
        asks_after(command, extra, "tools/check.py")
    });
}

#[test]
fn a_glob_to_an_environment_inside_a_script_binds_it() {
    let cases = [".v*/bin/python check.py\n", ".venv/bin/pyth* check.py\n"];
    each_holds(&cases, |script| {
        boot_change_asks_again("bash run.sh", |project, site| {
            write(project, "run.sh", script);
            write(site, "b.pth", "import bootmod\n");
            write(site, "bootmod.py", &runs_boot(project));
        });
    });
}

#[test]
fn python_naming_its_script_folder_or_an_empty_path_copies_the_run_folder() {
    run_folder_copies_ask_again(&[
        "os.path.abspath('')",
        "os.path.dirname(os.path.abspath(sys.argv[0]))",
        "os.path.dirname(inspect.getfile(inspect.currentframe()))",
    ]);
}

#[test]
fn a_module_named_in_data_or_an_entry_point_at_the_top_is_read() {
    let csv = "import csv, importlib\nfor row in csv.reader(open('mods.csv')):\n    importlib.import_module(row[0])\n";
    let json_config =
        "import json, logging.config\nlogging.config.dictConfig(json.load(open('log.json')))\n";
    let text = "import pkgutil\npkgutil.resolve_name(open('ep.txt').read().strip())\n";
    let points =
        "import importlib.metadata as md\nfor ep in md.entry_points(group='g'):\n    ep.load()\n";
    let log = r#"{"version": 1, "handlers": {"h": {"class": "logging.StreamHandler", "stream": "ext://tools.boot.H"}}}"#;
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (csv, &[("mods.csv", "tools.boot,1\n")]),
        (json_config, &[("log.json", log)]),
        (text, &[("ep.txt", "tools.boot:f\n")]),
        (
            points,
            &[
                ("ok-1.0.dist-info/METADATA", "Name: ok\nVersion: 1.0\n"),
                (
                    "ok-1.0.dist-info/entry_points.txt",
                    "[g]\nx = tools.boot:f\n",
                ),
            ],
        ),
    ];
    each_holds(&cases, |(check, extra)| {
        let mut files = extra.to_vec();
        let check = format!("{check}print('{{}}')\n");
        files.push(("check.py", &check));
        asks_after("python3 check.py", &files, "tools/boot.py");
    });
}

#[test]
fn a_python_script_with_a_zip_appended_binds_what_the_zip_imports() {
    // R32-13: Python runs the appended zip's `__main__`, not the text;
    // its members are deflated, unread.
    changed_asks_again(
        "python3 check.py",
        |project| {
            write(project, "lib/helper.py", "X = 1\n");
            write(
                project,
                "zipped/__main__.py",
                "import sys\nsys.path.insert(0, 'lib')\nimport helper\nprint('{}')\n",
            );
            let zip = project.join("app.zip");
            let status = std::process::Command::new("python3")
                .args(["-m", "zipapp", "-c"])
                .arg(project.join("zipped"))
                .arg("-o")
                .arg(&zip)
                .status()
                .expect("python3 runs");
            assert!(status.success());
            std::fs::remove_dir_all(project.join("zipped")).expect("removed");
            let mut script = b"print('{}')\n".to_vec();
            script.extend(std::fs::read(&zip).expect("zip"));
            std::fs::write(project.join("check.py"), script).expect("script");
            std::fs::remove_file(zip).expect("removed");
            checkout_without_environment(project);
        },
        |project, marker| poison(project, "lib/helper.py", marker),
    );
}
