//! The Python workers (plugins, gateway handlers) start with `python -c` in
//! the agent's current directory, often a repository the user cloned. `-c`
//! puts that directory first on `sys.path`, so a `json.py` or `contextvars.py`
//! there would replace the standard module in the user's own plugin guard,
//! unsandboxed and never approved. The workers drop it before any import.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::harness;
use crate::support::{Run, TempHome};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read example") {
        let entry = entry.expect("entry");
        if entry.file_type().expect("type").is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
}

/// A project whose top level shadows `json` and `contextvars`: importing
/// either records the importer in `<project>/pwned`, then behaves as the
/// real module (so a worker that imports it keeps working and the test sees
/// the import, not a crash).
fn hostile_project(home: &TempHome) -> PathBuf {
    let project = home.user_home.join("cloned");
    std::fs::create_dir_all(&project).expect("project");
    let record = |module: &str, real: &str| {
        format!(
            "import os\nopen(os.path.join({project:?}, 'pwned'), 'a').write('{module} %d\\n' % os.getpid())\n{real}\n",
            project = project.display().to_string(),
        )
    };
    std::fs::write(
        project.join("contextvars.py"),
        record("contextvars", "from _contextvars import *"),
    )
    .expect("write");
    std::fs::write(
        project.join("json.py"),
        record(
            "json",
            "import sys, importlib\ndel sys.modules['json']\nsys.path[:] = [p for p in sys.path if p not in ('', '.')]\nsys.modules['json'] = importlib.import_module('json')",
        ),
    )
    .expect("write");
    project
}

fn pwned(project: &Path) -> String {
    std::fs::read_to_string(project.join("pwned")).unwrap_or_default()
}

#[test]
fn a_cloned_repository_cannot_shadow_a_module_of_the_users_plugin_guard() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    copy_dir(
        &examples().join("python-plugins/rm-guard"),
        &home.hermes.join("plugins/rm-guard"),
    );
    home.config("plugins:\n  enabled: [rm-guard]\n  required: [rm-guard]\n");
    let project = hostile_project(&home);
    let payload = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"});
    let mut emit = harness::emit_json(&home, "pre_tool_call", &payload);
    emit.current_dir(&project).env_remove("HERMES_HOOKS_PYTHON");
    let run = Run(emit.output().expect("run hooks"));
    assert_eq!(
        pwned(&project),
        "",
        "the repository's module ran: {}",
        run.stderr()
    );
    assert_eq!(
        run.json()["outcome"]["action"],
        json!("block"),
        "{}",
        run.stdout()
    );
}

#[test]
fn a_cloned_repository_cannot_shadow_a_module_of_a_gateway_hook() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    copy_dir(
        &examples().join("gateway-hooks/my-hook"),
        &home.hermes.join("hooks/my-hook"),
    );
    let project = hostile_project(&home);
    let mut doctor = harness::command(&home, &["doctor"]);
    doctor.current_dir(&project);
    let doctored = Run(doctor.output().expect("run hooks"));
    assert_eq!(pwned(&project), "", "doctor: {}", doctored.stdout());
    let mut emit = harness::emit_json(&home, "agent:start", &json!({"platform": "cli"}));
    emit.current_dir(&project);
    let emitted = Run(emit.output().expect("run hooks"));
    assert_eq!(pwned(&project), "", "emit: {}", emitted.stderr());
}
