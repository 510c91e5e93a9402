//! Red team round 30: a copy of the folder a project hook runs in, run
//! from outside the project. R30-20: the script run by a glob
//! (`python3 /tmp/X*/check.py`, `/tmp/X?/check.py`) is still the copy's,
//! and a code edit asks again. R30-18: in a git checkout the copy binds
//! tracked documents by name (a `README.md`, `docs/guide.md` or
//! `data/x.csv` edit runs the approved hook) and code by content.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round28::checkout_without_environment;

/// The project's `check.py`: imports `helper` from its copy's `lib`.
const CHECK: &str = "import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))\nimport helper\nprint('{}')\n";

/// Approves `bash run.sh` running `run` (`$D` a folder outside the
/// project) in an unsandboxed project holding `check.py`, `lib/helper.py`
/// and documents (a git checkout when `git`), appends `added` to
/// `changed`, and returns the next `emit` and whether `PWNED` was written.
fn after_a_change(run: &str, git: bool, changed: &str, added: &str) -> (Value, bool) {
    after_a_change_in(run, git, changed, added, |_, _| {})
}

/// [`after_a_change`], with `prepare` given the project and the folder
/// outside it before the approval (after the commit: what it adds is
/// untracked).
pub(crate) fn after_a_change_in(
    run: &str,
    git: bool,
    changed: &str,
    added: &str,
    prepare: impl FnOnce(&Path, &Path),
) -> (Value, bool) {
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let outside = home.user_home.join("copy");
    let outside = outside.to_str().expect("UTF-8");
    write(
        &project,
        "run.sh",
        &format!("{run}\n").replace("$D", outside),
    );
    write(&project, "check.py", CHECK);
    write(&project, "lib/helper.py", "X = 1\n");
    write(&project, "README.md", "# notes\n");
    write(&project, "docs/guide.md", "Guide\n");
    write(&project, "data/x.csv", "a,b\n1,2\n");
    if git {
        checkout_without_environment(&project);
    }
    prepare(&project, &home.user_home.join("copy"));
    approve_project_hook(&home, &project, "bash run.sh");
    let marker = project.join("PWNED");
    append(
        &project,
        changed,
        &added.replace("MARKER", &format!("{marker:?}")),
    );
    let emitted = emit_terminal(&home, &project, "ls", false);
    (emitted, marker.exists())
}

/// Appends `text` to the file `relative` under `base`.
fn append(base: &Path, relative: &str, text: &str) {
    let path = base.join(relative);
    let mut old = std::fs::read_to_string(&path).expect("read");
    old.push_str(text);
    std::fs::write(path, old).expect("appended");
}

/// Code writing the marker, appended to a Python file.
pub(crate) const WRITES_MARKER: &str = "\nopen(MARKER, 'w')\n";

#[test]
fn a_copy_run_by_a_glob_outside_the_project_binds_what_it_copies() {
    // R30-20: the glob names a path inside the copy, as the shell expands it.
    let mut ran = Vec::new();
    for (run, changed) in [
        (
            "rm -rf $D; cp -r . $D; python3 $D*/check.py",
            "lib/helper.py",
        ),
        ("rm -rf $D; cp -r . $D; python3 $D*/check.py", "check.py"),
        (
            "rm -rf $D1; cp -r . $D1; python3 $D?/check.py",
            "lib/helper.py",
        ),
    ] {
        let (emitted, marker) = after_a_change(run, false, changed, WRITES_MARKER);
        if marker || emitted["runs"][0]["status"] == json!("completed") {
            ran.push(format!("{run} ({changed}): {emitted:#}"));
        }
    }
    assert!(ran.is_empty(), "{ran:#?}");
}

/// The R30-18 hook: the project copied outside it and its script run there.
const COPY_RUN: &str = "rm -rf $D; cp -r . $D && python3 $D/check.py";

#[test]
fn a_document_edit_in_a_checkout_runs_the_approved_copy() {
    // R30-18: tracked documents and data are bound by name.
    for document in ["README.md", "docs/guide.md", "data/x.csv"] {
        let (emitted, _) = after_a_change(COPY_RUN, true, document, "\nmore\n");
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("completed"),
            "{document}: {emitted:#}"
        );
    }
}

#[test]
fn a_code_edit_in_a_checkout_still_asks_again_for_the_copy() {
    for changed in ["check.py", "lib/helper.py"] {
        let (emitted, marker) = after_a_change(COPY_RUN, true, changed, WRITES_MARKER);
        let status = &emitted["runs"][0]["status"];
        assert!(
            !marker && *status != json!("completed"),
            "{changed}: {emitted:#}"
        );
    }
}
