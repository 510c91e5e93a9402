//! Which program a `handler.py` worker starts: a pyenv/asdf shim once per
//! version choice, then the program it chose; any other wrapper every time.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hermes_hooks_gateway::GatewayOptions;
use serde_json::{Value, json};

use crate::support::{Home, emit, values};

const REPORTS_ITS_PYTHON: &str = "import os, sys\ndef handle(event_type, context):\n    return os.environ.get('SITE_MARK', 'no mark')\n";

fn executable(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.to_owned()
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .count()
}

/// One event through a new gateway (a new worker) with `python`.
async fn one_event(home: &Home, python: &Path) -> Vec<Value> {
    let options = GatewayOptions::default()
        .with_python(python.as_os_str())
        .with_trial_import(false);
    let (gateway, _) = home.gateway_with(options);
    values(&emit(&gateway, "agent:start", json!({})).await)
}

/// A home with one `handler.py` hook and a folder for the interpreter
/// scripts and their start log; `None` (the test is skipped) without python3.
fn setup(log_name: &str) -> Option<(Home, tempfile::TempDir, PathBuf)> {
    if !python_available() {
        return None;
    }
    let home = Home::new();
    home.python_hook("h", "[agent:start]", REPORTS_ITS_PYTHON);
    let tools = tempfile::tempdir().expect("temp dir");
    let log = tools.path().join(log_name);
    Some((home, tools, log))
}

#[tokio::test]
async fn a_version_shim_starts_once_then_the_program_it_chose() {
    let Some((home, tools, log)) = setup("shim.log") else {
        return;
    };
    let pyenv = executable(
        &tools.path().join("pyenv/libexec/pyenv"),
        "#!/bin/sh\nshift 2\nexec python3 \"$@\"\n",
    );
    let shim = executable(
        &tools.path().join("pyenv/shims/python3"),
        &format!(
            "#!/bin/sh\necho started >> '{}'\nexec \"{}\" exec \"python3\" \"$@\"\n",
            log.display(),
            pyenv.display()
        ),
    );
    for _ in 0..3 {
        assert_eq!(one_event(&home, &shim).await, [json!("no mark")]);
    }
    assert_eq!(starts(&log), 1, "the shim runs once, then its choice");
    // An edited shim decides again, once.
    let edited = std::fs::read_to_string(&shim).expect("read") + "# edited\n";
    executable(&shim, &edited);
    for _ in 0..2 {
        assert_eq!(one_event(&home, &shim).await, [json!("no mark")]);
    }
    assert_eq!(starts(&log), 2);
}

#[tokio::test]
async fn a_wrapper_script_runs_for_every_worker() {
    let Some((home, tools, log)) = setup("wrapper.log") else {
        return;
    };
    let wrapper = executable(
        &tools.path().join("bin/python3"),
        &format!(
            "#!/bin/sh\necho started >> '{}'\nSITE_MARK=set-by-the-wrapper\nexport SITE_MARK\nexec python3 \"$@\"\n",
            log.display()
        ),
    );
    for _ in 0..3 {
        assert_eq!(
            one_event(&home, &wrapper).await,
            [json!("set-by-the-wrapper")],
            "what the wrapper sets reaches every worker"
        );
    }
    assert_eq!(starts(&log), 3);
}

use test_support::python_available;
