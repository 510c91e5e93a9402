//! A copy of the folder a project hook runs in, itself (red team round
//! 28c, R28c-4): `cp -r .`, `"$PWD"`, `"$(pwd)"`, `"$CLAUDE_PROJECT_DIR"`,
//! `./`, `~+/lib/*`, `tar cf - .` or `cd .. && cp -r project` copied where
//! `PYTHONPATH` then leads, outside the project. Changing `lib/helper.py`
//! after the approval must not run unasked: each folder of the folder it
//! runs in is bound.

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

/// Approves `bash run.sh` running `run` (`$D` a folder outside the
/// project) in an unsandboxed project holding `check.py` (`check`) and
/// `lib/helper.py`, appends code writing a marker to `changed`, and
/// describes the next `emit` when it wrote the marker or completed.
fn ran_unasked(run: &str, check: &str, changed: &str) -> Option<String> {
    // Unsandboxed, to write beside the project a folder named as a path
    // (a `$TMPDIR/copy/lib` word names `lib` itself).
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let outside = home.user_home.join("copy");
    let outside = outside.to_str().expect("UTF-8");
    write(
        &project,
        "run.sh",
        &format!("{run}\n").replace("$D", outside),
    );
    write(&project, "check.py", check);
    write(&project, "lib/helper.py", "X = 1\n");
    approve_project_hook(&home, &project, "bash run.sh");
    let marker = project.join("PWNED");
    let mut text = std::fs::read_to_string(project.join(changed)).expect("read");
    text.push_str(&format!("\nopen({marker:?}, 'w')\n"));
    write(&project, changed, &text);
    let emitted = emit_terminal(&home, &project, "ls", false);
    let completed = emitted["runs"][0]["status"] == json!("completed");
    (marker.exists() || completed).then(|| format!("{run} ({changed}): {emitted:#}"))
}

/// The script importing `helper` from its module path.
const IMPORTS_HELPER: &str = "import helper\nprint('{}')\n";

#[test]
fn a_copy_of_the_folder_the_hook_runs_in_binds_its_folders() {
    let mut ran = Vec::new();
    for (copy, searched) in [
        ("rm -rf $D; cp -r . $D", "$D/lib"),
        ("rm -rf $D; cp -r ./ $D", "$D/lib"),
        ("rm -rf $D; cp -r \"$PWD\" $D", "$D/lib"),
        ("rm -rf $D; cp -r \"$(pwd)\" $D", "$D/lib"),
        ("rm -rf $D; cp -r \"$CLAUDE_PROJECT_DIR\" $D", "$D/lib"),
        ("mkdir -p $D; cp ~+/lib/* $D/", "$D"),
        ("mkdir -p $D; tar cf - . | tar xf - -C $D", "$D/lib"),
        ("rm -rf $D; cd .. && cp -r project $D; cd project", "$D/lib"),
    ] {
        let run = format!("{copy}\nPYTHONPATH={searched} python3 check.py");
        ran.extend(ran_unasked(&run, IMPORTS_HELPER, "lib/helper.py"));
    }
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn a_copy_run_from_outside_the_project_binds_what_it_copies() {
    // R29-2: the project, or a folder of it, copied outside it and a script
    // of the copy run by its path there. Changing the script asks again.
    let mut ran = Vec::new();
    for (copy, changed) in [
        (
            "rm -rf $D; cp -r . $D; python3 $D/check.py",
            "lib/helper.py",
        ),
        ("rm -rf $D; cp -r . $D; python3 $D/check.py", "check.py"),
        (
            "rm -rf $D; cp -r ./* $D/ 2>/dev/null || { mkdir -p $D; cp -r ./* $D/; }; python3 $D/check.py",
            "lib/helper.py",
        ),
        (
            "rm -rf $D; mkdir -p $D; tar cf - . | tar xf - -C $D; python3 \"$D/check.py\"",
            "check.py",
        ),
        (
            "rm -rf $D; cp -r lib $D; python3 -c \"import sys; sys.path.insert(0, '$D'); import helper\"; echo '{}'",
            "lib/helper.py",
        ),
    ] {
        let check = "import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))\nimport helper\nprint('{}')\n";
        ran.extend(ran_unasked(copy, check, changed));
    }
    assert!(ran.is_empty(), "{ran:#?}");
}

#[test]
fn a_path_in_a_folder_of_the_system_copies_nothing() {
    // `/usr/bin` and `/usr/bin/env` named together copy no project code
    // where it runs: a README edit runs the hook unasked.
    let (home, project) = home_with("[claude]");
    write(
        &project,
        "run.sh",
        "PATH=/usr/bin:$PATH\n/usr/bin/env true\ncd \"$CLAUDE_PROJECT_DIR\" && ls \"$CLAUDE_PROJECT_DIR/lib\" >/dev/null\necho '{}'\n",
    );
    write(&project, "lib/helper.py", "X = 1\n");
    write(&project, "README.md", "notes\n");
    approve_project_hook(&home, &project, "bash run.sh");
    write(&project, "lib/helper.py", "X = 2\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}

#[test]
fn a_copy_python_code_makes_of_the_folder_it_runs_in_binds_its_folders() {
    // R29-3: the folder copied by `shutil.copytree` in `-c` code, then on
    // `PYTHONPATH`; or copied by `cp` and put on the module path by `-c`
    // code's `sys.path.insert`.
    let mut ran = Vec::new();
    for copy in [
        "rm -rf $D; python3 -c \"import shutil; shutil.copytree('.', '$D')\"; PYTHONPATH=$D/lib python3 check.py",
        "rm -rf $D; python3 -c \"import shutil, os; shutil.copytree(os.getcwd(), '$D')\"; PYTHONPATH=$D/lib python3 check.py",
        "rm -rf $D; cp -r . $D; python3 -c \"import sys; sys.path.insert(0, '$D/lib'); exec(open('check.py').read())\"",
    ] {
        ran.extend(ran_unasked(copy, IMPORTS_HELPER, "lib/helper.py"));
    }
    assert!(ran.is_empty(), "{ran:#?}");
}
