//! Red team round 29, R29-7: an environment the project was installed
//! into (`pip install .`, `uv sync`: a `direct_url.json` naming the
//! project) holds code the repository's build wrote, which may run a
//! project file by a name computed when it runs (`base64`, `%`, a string
//! reversed). No reading sees such a name: the project is bound as a
//! folder an environment leads to, its code by content, so a change to
//! any of it asks again, while a document edit runs the approved hook.
//! An environment installed from an index is not.

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round28::{changed_asks_again, checkout_without_environment, poison, site_of};

/// The hook: the environment's Python running the project's `check.py`.
const HOOK: &str = ".venv/bin/python check.py";

/// Start-up code running `tools/boot.py` by a name it decodes (base64).
const COMPUTED: &str =
    "import base64, runpy\nrunpy.run_path(base64.b64decode('dG9vbHMvYm9vdC5weQ==').decode())\n";

/// A checkout whose ignored environment holds [`COMPUTED`] start-up code
/// and a package whose `direct_url.json` says `record`.
fn installed(project: &Path, record: &str) {
    let site = site_of(project);
    write(project, "tools/boot.py", "X = 1\n");
    write(project, "check.py", "print('{}')\n");
    write(project, "README.md", "# the project\n");
    write(&site, "sitecustomize.py", COMPUTED);
    write(&site, "myproj-1.0.dist-info/METADATA", "Name: myproj\n");
    write(&site, "myproj-1.0.dist-info/direct_url.json", record);
    checkout_without_environment(project);
}

/// A `direct_url.json` naming `project` as the folder installed from.
fn from_project(project: &Path) -> String {
    let url = format!("file://{}", project.display());
    json!({"url": url, "dir_info": {}}).to_string()
}

#[test]
fn code_run_by_a_computed_name_asks_again_in_an_environment_installed_from_the_project() {
    changed_asks_again(
        HOOK,
        |project| installed(project, &from_project(project)),
        |project, marker| poison(project, "tools/boot.py", marker),
    );
    // A record that cannot be read cannot say where from: as if from the
    // project.
    changed_asks_again(
        HOOK,
        |project| installed(project, "{not json"),
        |project, marker| poison(project, "tools/boot.py", marker),
    );
}

/// Approves [`HOOK`] in a project installed with the record `record`
/// (given the project), edits its `README.md`, and returns the next emit.
fn after_readme_edit(record: impl FnOnce(&Path) -> String) -> serde_json::Value {
    let (home, project) = home_with("[claude]");
    let record = record(&project);
    installed(&project, &record);
    approve_project_hook(&home, &project, HOOK);
    write(&project, "README.md", "# the project\n\nMore notes.\n");
    emit_terminal(&home, &project, "ls", false)
}

#[test]
fn a_document_edit_runs_the_approved_hook_however_the_environment_was_installed() {
    let index =
        |_: &Path| json!({"url": "https://files.example/myproj-1.0.whl", "archive_info": {}});
    for emitted in [
        after_readme_edit(from_project),
        after_readme_edit(|project| index(project).to_string()),
    ] {
        assert_eq!(
            emitted["runs"][0]["status"],
            json!("completed"),
            "{emitted:#}"
        );
    }
}
