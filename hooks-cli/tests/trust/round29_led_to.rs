//! Red team round 28c, R28c-5: project code a Python environment leads to
//! (an editable install's `.pth` naming `src`) in a git checkout is bound
//! by its names and the content of its code, not by its documents: an
//! edit of `src/README.md` runs the approved hook, while changed code, a
//! new module or a new `.pth` there still asks again, there and where a
//! `.pth` names the project's top (a flat layout).

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round27::environment;
use crate::round28::checkout_without_environment;

/// The hook: the environment's Python running the project's `check.py`.
const HOOK: &str = ".venv/bin/python check.py";

/// A git checkout at `project` (its `.venv` ignored, the user's) whose
/// environment's `.pth` names `led` (`src`, or `""`: the project's top),
/// where the package `mypkg` and a `README.md` are.
fn editable_install(project: &Path, led: &str) {
    let site = environment(project);
    let folder = project.join(led);
    write(&folder, "mypkg/__init__.py", "X = 1\n");
    write(&folder, "README.md", "# mypkg\n");
    write(project, "README.md", "# the project\n");
    write(project, "check.py", "import mypkg\nprint('{}')\n");
    let line = format!("{}\n", folder.display());
    write(&site, "_editable.pth", &line);
    checkout_without_environment(project);
}

/// Approves [`HOOK`] in a project set up with `led`, runs `change` (given
/// the project, the led-to folder and a marker path), and returns the next
/// `emit` and whether the marker was written.
fn after(led: &str, change: impl FnOnce(&Path, &Path, &Path)) -> (serde_json::Value, bool) {
    let (home, project) = home_with("[claude]");
    editable_install(&project, led);
    approve_project_hook(&home, &project, HOOK);
    let marker = project.join("PWNED");
    change(&project, &project.join(led), &marker);
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

#[test]
fn a_document_where_an_environment_leads_runs_the_approved_hook() {
    let (emitted, _) = after("src", |_, led, _| {
        append(led, "README.md", "\nMore notes.\n");
    });
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
    // Outside the folder an environment leads to, as before; and where
    // the `.pth` names the project's top (a flat layout: R28c-5).
    for led in ["src", ""] {
        let (emitted, _) = after(led, |project, _, _| {
            append(project, "README.md", "\nMore notes.\n");
        });
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("completed"),
            "{led}: {emitted:#}"
        );
    }
}

#[test]
fn code_or_a_new_name_where_an_environment_leads_still_asks_again() {
    type Change = fn(&Path, &Path, &Path);
    let changes: [(&str, Change); 4] = [
        ("its code changed", |_, led, marker| {
            append(
                led,
                "mypkg/__init__.py",
                &format!("open({marker:?}, 'w')\n"),
            );
        }),
        ("a new module", |_, led, _| {
            write(led, "mypkg/extra.py", "Y = 2\n");
        }),
        ("a new .pth beside the package", |_, led, _| {
            write(led, "more.pth", "import os\n");
        }),
        ("a document made a script", |_, led, marker| {
            let script = format!("#!/bin/sh\ntouch {}\n", marker.display());
            write(led, "README.md", &script);
        }),
    ];
    // In `src` and at the project's top (a flat layout, bound whole).
    for led in ["src", ""] {
        for (what, change) in changes {
            let (emitted, ran) = after(led, change);
            assert!(!ran, "{led:?}, {what}: {emitted:#}");
            assert_ne!(
                emitted["runs"][0]["status"],
                json!("completed"),
                "{led:?}, {what}: {emitted:#}"
            );
        }
    }
}
