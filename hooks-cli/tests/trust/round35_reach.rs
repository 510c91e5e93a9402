//! Red team round 35: what a project hook reaches through its tools. pip's
//! local projects other than `.` and its `--find-links` folders (R35-3,
//! R35-4); Flask's `from_pyfile` files (R35-5); python-dotenv's `.env`
//! read by a hook's own code (R35-6); cfn-lint's `--config-file` rules and
//! what a rule file imports from outside its folder (R35-7).

use crate::round30_open::each_holds;
use crate::round33_reach::asks_after;

/// A `setup.py` that builds nothing.
const SETUP: &str = "from setuptools import setup\nsetup(name='p')\n";

#[test]
fn the_local_projects_pip_builds_are_bound() {
    let pkg = ("pkg/setup.py", SETUP);
    let poisoned = ("pkg/setup.py", "open('PWNED', 'w')\n");
    let backend = [
        (
            "pkg/pyproject.toml",
            "[build-system]\nrequires = []\nbuild-backend = \"bk\"\nbackend-path = [\"_b\"]\n",
        ),
        ("pkg/_b/bk.py", "X = 1\n"),
    ];
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(&'a str, &'a str)]);
    let cases: [Case; 7] = [
        ("true || pip install --no-deps ./pkg", &[pkg], &[poisoned]),
        (
            "true || pip install -e pkg",
            &[pkg],
            &[("pkg/setup.cfg", "[metadata]\nname = p\n")],
        ),
        (
            "true || pip install -r requirements.txt",
            &[pkg, ("requirements.txt", "-e ./pkg\n")],
            &[poisoned],
        ),
        (
            "true || python3 -m pip install -r requirements.txt",
            &[
                pkg,
                ("requirements.txt", "-c cons.txt\n-r reqs/more.txt\n"),
                ("cons.txt", "\n"),
                ("reqs/more.txt", "./pkg  # the project\n"),
            ],
            &[poisoned],
        ),
        (
            "true || pip install --no-deps ./pkg",
            &backend,
            &[("pkg/_b/bk.py", "X = 2\n")],
        ),
        // R35-4: a new archive in a `--find-links` folder.
        (
            "true || pip install --no-index --find-links ./dist p",
            &[("dist/p-1.tar.gz", "one\n")],
            &[("dist/p-2.tar.gz", "two\n")],
        ),
        (
            "true || pip install --no-index -r requirements.txt",
            &[
                ("dist/p-1.tar.gz", "one\n"),
                ("requirements.txt", "--find-links ./dist\np\n"),
            ],
            &[("dist/p-1.tar.gz", "changed\n")],
        ),
    ];
    each_holds(&cases, |(command, setup, change)| {
        asks_after(command, setup, change)
    });
}

#[test]
fn files_flask_and_dotenv_read_for_the_projects_code_are_bound() {
    let app = "from flask import Flask\napp = Flask(__name__)\napp.config.from_pyfile(\"settings.cfg\")\n";
    let instance_app = "from flask import Flask\n\
        app = Flask(__name__, instance_relative_config=True)\n\
        app.config.from_pyfile('app.cfg')\n";
    let loads = "from dotenv import load_dotenv\nimport subprocess\nload_dotenv()\n\
        subprocess.run(['python3', '-c', 'print(1)'])\n";
    let values = "import os, subprocess\nfrom dotenv import dotenv_values\n\
        subprocess.run(['python3'], env={**os.environ, **dotenv_values()})\n";
    let pythonpath = [
        (".env", "PYTHONPATH=lib\n"),
        ("lib/sitecustomize.py", "X = 2\n"),
    ];
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(&'a str, &'a str)]);
    let cases: [Case; 5] = [
        (
            "true || flask routes",
            &[("app.py", app), ("settings.cfg", "X = 1\n")],
            &[("settings.cfg", "X = 2\n")],
        ),
        (
            "true || flask routes",
            &[("app.py", instance_app), ("instance/app.cfg", "X = 1\n")],
            &[("instance/app.cfg", "X = 2\n")],
        ),
        // Missing where Flask looks first: made later, it asks.
        (
            "true || flask routes",
            &[
                ("app.py", instance_app),
                ("app.cfg", "X = 1\n"),
                ("instance/README", "\n"),
            ],
            &[("instance/app.cfg", "X = 2\n")],
        ),
        (
            "true || python3 .claude/hooks/c.py",
            &[(".claude/hooks/c.py", loads), (".env", "X=1\n")],
            &pythonpath,
        ),
        (
            "true || python3 .claude/hooks/c.py",
            &[(".claude/hooks/c.py", values)],
            &pythonpath,
        ),
    ];
    each_holds(&cases, |(command, setup, change)| {
        asks_after(command, setup, change)
    });
}

#[test]
fn the_rules_cfn_lint_loads_and_what_they_import_are_bound() {
    let template = ("t.yaml", "Resources: {}\n");
    let rcfile = (".cfnlintrc", "append_rules:\n  - rules\n");
    let helper = ("lib/rh.py", "X = 1\n");
    let changed_helper = ("lib/rh.py", "X = 2\n");
    let from_cwd = "import sys\nsys.path.insert(0, \"lib\")\nimport rh\n";
    let from_file =
        "import os, sys\nsys.path.insert(0, os.path.dirname(__file__) + \"/../lib\")\nimport rh\n";
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(&'a str, &'a str)]);
    let cases: [Case; 3] = [
        (
            "true || cfn-lint --config-file lint.yml t.yaml",
            &[
                template,
                ("lint.yml", "append_rules:\n  - rules\n"),
                ("rules/r.py", "X = 1\n"),
            ],
            &[("rules/r.py", "X = 2\n")],
        ),
        (
            "true || cfn-lint t.yaml",
            &[template, rcfile, ("rules/r.py", from_cwd), helper],
            &[changed_helper],
        ),
        (
            "true || cfn-lint t.yaml",
            &[template, rcfile, ("rules/r.py", from_file), helper],
            &[changed_helper],
        ),
    ];
    each_holds(&cases, |(command, setup, change)| {
        asks_after(command, setup, change)
    });
}
