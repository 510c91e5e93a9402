//! Red team round 30: a copy of the folder a project hook runs in, made in
//! one of the hook's files and used in another. R30-5: `cp -r . $D` in a
//! sourced or run helper, `shutil.copytree('.', D)` in a Python file, a
//! makefile's recipe, then `python3 $D/check.py` (or both in one Python
//! file or recipe): a code edit asks again. R30-16: `cd $D && make`,
//! `make -C $D`, `npm --prefix $D run t` run the copy's definitions: an
//! edit of what they run asks again. A README edit in a git checkout still
//! runs the approved hook.

use serde_json::{Value, json};

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round28::checkout_without_environment;

/// The project's `check.py`: imports `helper` from its copy's `lib`.
const CHECK: &str = "import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))\nimport helper\nprint('{}')\n";

/// Approves `bash scripts/run.sh` in an unsandboxed project holding
/// `check.py`, `lib/helper.py`, `tools/step.sh`, a `Makefile` and a
/// `package.json` running it, a `README.md` and `files` (`$D` in each a
/// folder outside the project; a git checkout when `git`), appends `added`
/// (`MARKER` the marker's path) to `changed`, and returns the next `emit`
/// and whether the marker was written.
fn after_a_change(files: &[(&str, &str)], git: bool, changed: &str, added: &str) -> (Value, bool) {
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let outside = home.user_home.join("copy");
    let outside = outside.to_str().expect("UTF-8");
    write(&project, "check.py", CHECK);
    write(&project, "lib/helper.py", "X = 1\n");
    write(&project, "tools/step.sh", "echo '{}'\n");
    write(&project, "Makefile", "all:\n\t@bash tools/step.sh\n");
    let scripts = r#"{"name": "x", "version": "1.0.0", "scripts": {"t": "bash tools/step.sh"}}"#;
    write(&project, "package.json", &format!("{scripts}\n"));
    write(&project, "README.md", "# notes\n");
    for (path, text) in files {
        write(&project, path, &format!("{text}\n").replace("$D", outside));
    }
    if git {
        checkout_without_environment(&project);
    }
    approve_project_hook(&home, &project, "bash scripts/run.sh");
    let marker = project.join("PWNED");
    let path = project.join(changed);
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str(&added.replace("MARKER", &marker.display().to_string()));
    std::fs::write(path, text).expect("changed");
    let emitted = emit_terminal(&home, &project, "ls", false);
    (emitted, marker.exists())
}

/// Python code writing the marker.
const PY_MARKER: &str = "\nopen('MARKER', 'w')\n";

/// Shell code writing the marker.
const SH_MARKER: &str = "touch 'MARKER'\n";

/// A project's files, each a path and its text.
type Files<'a> = &'a [(&'a str, &'a str)];

/// Each case of `cases` (files, changed file, code added) that ran unasked.
fn ran_unasked(cases: &[(Files<'_>, &str, &str)]) -> Vec<String> {
    let mut ran = Vec::new();
    for (files, changed, added) in cases {
        let (emitted, marker) = after_a_change(files, false, changed, added);
        if marker || emitted["runs"][0]["status"] == json!("completed") {
            ran.push(format!("{files:?} ({changed}): {emitted:#}"));
        }
    }
    ran
}

/// A helper copying the folder it runs in outside the project.
const COPY_SH: (&str, &str) = ("scripts/copy.sh", "rm -rf $D; cp -r . $D");

#[test]
fn a_copy_made_in_a_shell_helper_binds_what_the_run_uses() {
    let sourced: &[(&str, &str)] = &[
        COPY_SH,
        ("scripts/run.sh", ". scripts/copy.sh; python3 $D/check.py"),
    ];
    let run: &[(&str, &str)] = &[
        COPY_SH,
        (
            "scripts/run.sh",
            "bash scripts/copy.sh; python3 $D/check.py",
        ),
    ];
    let tools: &[(&str, &str)] = &[
        ("scripts/copy.sh", "rm -rf $D; cp -r tools $D"),
        ("scripts/run.sh", ". scripts/copy.sh; bash $D/step.sh"),
    ];
    let ran = ran_unasked(&[
        (sourced, "lib/helper.py", PY_MARKER),
        (sourced, "check.py", PY_MARKER),
        (run, "lib/helper.py", PY_MARKER),
        (tools, "tools/step.sh", SH_MARKER),
    ]);
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn a_copy_made_in_a_python_file_binds_what_the_run_uses() {
    let copy_py =
        "import shutil\nshutil.rmtree('$D', ignore_errors=True)\nshutil.copytree('.', '$D')";
    let split: &[(&str, &str)] = &[
        ("scripts/copy.py", copy_py),
        (
            "scripts/run.sh",
            "python3 scripts/copy.py; python3 $D/check.py",
        ),
    ];
    let go = "import shutil, subprocess, sys\nshutil.rmtree('$D', ignore_errors=True)\n\
              shutil.copytree('.', '$D')\nsubprocess.run([sys.executable, '$D/check.py'])";
    let together: &[(&str, &str)] = &[
        ("scripts/go.py", go),
        ("scripts/run.sh", "python3 scripts/go.py"),
    ];
    // The copy named by a variable the file sets (`f'{X}/check.py'`).
    let named = "import shutil, runpy\nX = '$D'\nshutil.rmtree(X, ignore_errors=True)\n\
                 shutil.copytree('.', X)\nrunpy.run_path(f'{X}/check.py')";
    let by_name: &[(&str, &str)] = &[
        ("scripts/go.py", named),
        ("scripts/run.sh", "python3 scripts/go.py"),
    ];
    let ran = ran_unasked(&[
        (split, "lib/helper.py", PY_MARKER),
        (together, "lib/helper.py", PY_MARKER),
        (together, "check.py", PY_MARKER),
        (by_name, "lib/helper.py", PY_MARKER),
    ]);
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn a_copy_made_in_a_makefile_recipe_binds_what_the_run_uses() {
    let both: &[(&str, &str)] = &[
        (
            "scripts/Makefile",
            "run:\n\trm -rf $D; cp -r . $D\n\tpython3 $D/check.py",
        ),
        ("scripts/run.sh", "make -s -f scripts/Makefile run"),
    ];
    let split: &[(&str, &str)] = &[
        ("scripts/Makefile", "cp:\n\trm -rf $D; cp -r . $D"),
        (
            "scripts/run.sh",
            "make -s -f scripts/Makefile cp; python3 $D/check.py",
        ),
    ];
    let ran = ran_unasked(&[
        (both, "lib/helper.py", PY_MARKER),
        (split, "lib/helper.py", PY_MARKER),
    ]);
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn definitions_run_in_a_copy_are_bound() {
    // R30-16: make and npm read the copy's definitions.
    let mut ran = Vec::new();
    for run in [
        "rm -rf $D; cp -r . $D; cd $D && make -s",
        "rm -rf $D; cp -r . $D; make -s -C $D",
        "rm -rf $D; cp -r . $D; cd $D && npm run -s t",
        "rm -rf $D; cp -r . $D; npm --prefix $D run -s t",
    ] {
        let files: &[(&str, &str)] = &[("scripts/run.sh", run)];
        ran.extend(ran_unasked(&[(files, "tools/step.sh", SH_MARKER)]));
    }
    let files: &[(&str, &str)] = &[("scripts/run.sh", "rm -rf $D; cp -r . $D; make -s -C $D")];
    ran.extend(ran_unasked(&[(files, "Makefile", "\t@touch 'MARKER'\n")]));
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn a_readme_edit_in_a_checkout_runs_the_split_copy() {
    let sourced: &[(&str, &str)] = &[
        COPY_SH,
        ("scripts/run.sh", ". scripts/copy.sh; python3 $D/check.py"),
    ];
    let (emitted, _) = after_a_change(sourced, true, "README.md", "\nmore\n");
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
    let (emitted, marker) = after_a_change(sourced, true, "lib/helper.py", PY_MARKER);
    let status = &emitted["runs"][0]["status"];
    assert!(!marker && *status != json!("completed"), "{emitted:#}");
}
