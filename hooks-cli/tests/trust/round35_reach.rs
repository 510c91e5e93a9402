//! Red team round 35: what a project hook reaches through its tools. pip's
//! local projects other than `.` and its `--find-links` folders (R35-3,
//! R35-4).

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
