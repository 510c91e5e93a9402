//! The interpreter behind a shim: a pyenv-style shim (a script that hands
//! over to `pyenv exec`) runs once; the worker, its restarts and later hosts
//! start the real interpreter it chose, until the shim changes.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use hermes_hooks_core::interpreter::{InterpreterSource, PythonInterpreter};
use hermes_hooks_plugin::DiscoverOptions;
use serde_json::json;

use crate::python::{fire, python_available, python_plugin, register};
use crate::support::Home;

/// Longer than the restart throttle (1 s).
const AFTER_RESTART_INTERVAL: Duration = Duration::from_millis(1200);

const GUARD: &str = r#"
import os
def check(tool_name, **kwargs):
    if tool_name == "die":
        os._exit(3)
    return {"action": "block", "message": "guard: checked"}
def register(ctx):
    ctx.register_hook("pre_tool_call", check)
"#;

/// A pyenv-shaped shim (it hands over to `pyenv exec`, here a script that
/// runs `python3`), counting its runs.
fn write_shim(shim: &Path, count: &Path, comment: &str) {
    let pyenv = shim.with_file_name("pyenv");
    std::fs::write(&pyenv, "#!/bin/sh\nshift 2\nexec python3 \"$@\"\n").expect("write pyenv");
    std::fs::set_permissions(&pyenv, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let script = format!(
        "#!/bin/sh\n# {comment}\necho run >> '{}'\nexec \"{}\" exec \"python3\" \"$@\"\n",
        count.display(),
        pyenv.display()
    );
    std::fs::write(shim, script).expect("write the shim");
    std::fs::set_permissions(shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn runs(count: &Path) -> usize {
    std::fs::read_to_string(count).map_or(0, |text| text.lines().count())
}

fn blocked(callbacks: &hermes_hooks_callbacks::Callbacks) -> bool {
    let replies = fire(
        callbacks,
        "pre_tool_call",
        json!({"tool_name": "ls", "args": {}}),
    );
    replies == [json!({"action": "block", "message": "guard: checked"})]
}

#[test]
fn a_shim_runs_once_then_workers_start_its_real_interpreter() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "guard", GUARD);
    let dir = tempfile::tempdir().expect("temp dir");
    let (shim, count) = (dir.path().join("python3"), dir.path().join("runs"));
    write_shim(&shim, &count, "v1");
    let options = || {
        DiscoverOptions::default().with_python(PythonInterpreter::new(
            shim.clone(),
            InterpreterSource::Environment,
        ))
    };
    let config = "plugins: {enabled: [guard]}";
    let first = register(&home, config, options(), Some(30.0));
    assert!(blocked(&first.callbacks));
    assert_eq!(runs(&count), 1);
    // A restart starts the real interpreter.
    let _ = fire(
        &first.callbacks,
        "pre_tool_call",
        json!({"tool_name": "die", "args": {}}),
    );
    std::thread::sleep(AFTER_RESTART_INTERVAL);
    assert!(blocked(&first.callbacks), "restarted");
    assert_eq!(runs(&count), 1);
    drop(first);
    // So does the next host of this home.
    let second = register(&home, config, options(), Some(30.0));
    assert!(blocked(&second.callbacks));
    assert_eq!(runs(&count), 1);
    drop(second);
    // An edited shim decides again, once.
    write_shim(&shim, &count, "v2");
    for _ in 0..2 {
        let again = register(&home, config, options(), Some(30.0));
        assert!(blocked(&again.callbacks));
    }
    assert_eq!(runs(&count), 2);
}
