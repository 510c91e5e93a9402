//! Red team round 35: what a project hook reaches through its tools. pip's
//! local projects other than `.` and its `--find-links` folders (R35-3,
//! R35-4); Flask's `from_pyfile` files (R35-5); python-dotenv's `.env`
//! read by a hook's own code (R35-6); cfn-lint's `--config-file` rules and
//! what a rule file imports from outside its folder (R35-7).

use crate::dialects::write;
use crate::round28::{changed_asks_again, checkout_without_environment};
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

/// R37-5: a direct reference to a local folder, a `file:` line, and the
/// requirements files pip's variables name.
#[test]
fn pips_direct_references_and_requirements_variables_are_bound() {
    let pkg = ("pkg/setup.py", SETUP);
    let poisoned = [("pkg/setup.py", "open('PWNED', 'w')\n")];
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 4] = [
        (
            "true || pip install --no-deps \"p @ file://$CLAUDE_PROJECT_DIR/pkg\"",
            &[pkg],
        ),
        (
            "true || pip install --no-deps -r req.txt",
            &[pkg, ("req.txt", "file:pkg#egg=p\n")],
        ),
        (
            "true || pip install --no-deps -r req.txt",
            &[pkg, ("req.txt", "./pkg#egg=p\n")],
        ),
        (
            "true || PIP_REQUIREMENT=req.txt pip install --no-deps",
            &[pkg, ("req.txt", "./pkg\n")],
        ),
    ];
    changed_asks_again(
        "true || PIP_CONSTRAINT=cons.txt pip install --no-deps -r req.txt",
        |project| {
            write(project, "pkg/setup.py", SETUP);
            write(project, "req.txt", "p\n");
            let reference = format!("p @ file://{}/pkg\n", project.display());
            write(project, "cons.txt", &reference);
            checkout_without_environment(project);
        },
        |project, _| {
            write(project, "pkg/setup.py", "open('PWNED', 'w')\n");
        },
    );
    each_holds(&cases, |(command, setup)| {
        asks_after(command, setup, &poisoned)
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
    let root_path = "import os\nfrom flask import Flask\napp = Flask(__name__)\n\
        app.config.from_pyfile(os.path.join(app.root_path, \"conf\", \"s.cfg\"))\n";
    let keyword = "from flask import Flask\napp = Flask(__name__)\n\
        app.config.from_pyfile(filename=\"s.cfg\")\n";
    let cases: [Case; 7] = [
        // R37-5: a joined path, a keyword argument.
        (
            "true || flask routes",
            &[("app.py", root_path), ("conf/s.cfg", "X = 1\n")],
            &[("conf/s.cfg", "X = 2\n")],
        ),
        (
            "true || flask routes",
            &[("app.py", keyword), ("s.cfg", "X = 1\n")],
            &[("s.cfg", "X = 2\n")],
        ),
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
    let rules = ("rules/r.py", "X = 1\n");
    let changed_rules: &[(&str, &str)] = &[("rules/r.py", "X = 2\n")];
    let cases: [Case; 7] = [
        // R37-5: the option's other spellings.
        (
            "true || cfn-lint --append-rules=rules -- t.yaml",
            &[template, rules],
            changed_rules,
        ),
        (
            "true || cfn-lint -arules -- t.yaml",
            &[template, rules],
            changed_rules,
        ),
        (
            "true || cfn-lint -a rules -- t.yaml",
            &[template, rules],
            changed_rules,
        ),
        (
            "true || cfn-lint --append-rules rules t.yaml",
            &[template, rules],
            changed_rules,
        ),
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
