//! Red team round 14, R14-3: a native `config.yaml` fail-closed guard whose
//! matcher names no tool a Hermes call arrives with (`Bash`, `Terminal`,
//! `termnal`, `shell`) never ran, and neither `emit` nor `doctor` said so.
//! Now a name whose meaning can be told guards the tool meant, with a
//! warning naming the file and field; one that cannot be told is a `doctor`
//! problem ("NEVER RUNS") that blocks nothing; fail-open hooks run as
//! Hermes runs them; and a guard read another way is never a lost guard.

use serde_json::{Value, json};

use crate::dialects::{answering, home_with, in_project};
use crate::support::TempHome;

const FIELD: &str = "hooks.pre_tool_call[0].matcher";

/// A home whose `config.yaml` has one `pre_tool_call` hook for `matcher`
/// that blocks every call it runs on, fail-closed when `fail_closed`.
pub(crate) fn guarded(matcher: &str, fail_closed: bool) -> (TempHome, std::path::PathBuf) {
    let (home, project) = home_with("[]");
    write_guard(&home, matcher, fail_closed);
    (home, project)
}

fn write_guard(home: &TempHome, matcher: &str, fail_closed: bool) {
    let guard = home.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\n{}",
            answering(&json!({"action": "block", "message": "native guard"}))
        ),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: '{matcher}'\n      \
         fail_closed: {fail_closed}\n",
        guard.display()
    ));
}

/// `emit pre_tool_call --accept-hooks --json` of a `tool` call: its JSON
/// and what it printed on stderr.
pub(crate) fn emit(home: &TempHome, project: &std::path::Path, tool: &str) -> (Value, String) {
    let payload = json!({"tool_name": tool, "args": {"command": "rm -rf /", "path": "/etc/x"},
        "task_id": "t"});
    let file = home.write("payload.json", &payload.to_string());
    let file = file.to_str().expect("UTF-8");
    let args = [
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        file,
    ];
    let run = in_project(home, project, &args);
    (run.json(), run.stderr())
}

pub(crate) fn blocked_by_guard(emitted: &Value) -> bool {
    emitted["outcome"]["message"] == json!("native guard")
}

#[test]
fn a_guard_naming_a_tool_hermes_calls_do_not_arrive_with_guards_the_tool_meant() {
    for matcher in ["Bash", "Terminal", "termnal", "shell", "^Bash$"] {
        let (home, project) = guarded(matcher, true);
        let (emitted, stderr) = emit(&home, &project, "terminal");
        assert!(blocked_by_guard(&emitted), "{matcher}: {emitted:#}");
        let config = home.hermes.join("config.yaml");
        let said = format!("{}: {FIELD}: its matcher '{matcher}'", config.display());
        assert!(stderr.contains(&said), "{matcher}: {stderr}");
        assert!(stderr.contains("write 'terminal'"), "{matcher}: {stderr}");
        // It guards what it meant, and no other tool.
        let (other, _) = emit(&home, &project, "read_file");
        assert_eq!(other["outcome"], Value::Null, "{matcher}: {other:#}");
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
        assert!(doctor.stdout().contains(FIELD), "{}", doctor.stdout());
    }
}

#[test]
fn a_told_name_among_live_ones_guards_the_tool_meant_too() {
    let (home, project) = guarded("read_file|Bash", true);
    for tool in ["terminal", "read_file"] {
        let (emitted, stderr) = emit(&home, &project, tool);
        assert!(blocked_by_guard(&emitted), "{tool}: {emitted:#}");
        assert!(stderr.contains("guards 'terminal' too"), "{stderr}");
    }
    let (other, _) = emit(&home, &project, "write_file");
    assert_eq!(other["outcome"], Value::Null, "{other:#}");
}

#[test]
fn an_untold_name_is_a_doctor_problem_that_blocks_nothing() {
    let (home, project) = guarded("frobnicate", true);
    let (emitted, stderr) = emit(&home, &project, "terminal");
    assert_eq!(emitted["outcome"], Value::Null, "{emitted:#}");
    assert!(stderr.contains(FIELD), "{stderr}");
    assert!(
        stderr.contains("this fail-closed guard NEVER RUNS"),
        "{stderr}"
    );
    let doctor = in_project(&home, &project, &["doctor"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
    assert!(
        doctor.stdout().contains("NEVER RUNS"),
        "{}",
        doctor.stdout()
    );
}

#[test]
fn a_live_matcher_and_a_fail_open_hook_run_as_before() {
    let (home, project) = guarded("terminal", true);
    let (emitted, stderr) = emit(&home, &project, "terminal");
    assert!(blocked_by_guard(&emitted), "{emitted:#}");
    assert!(!stderr.contains(FIELD), "{stderr}");
    // Fail open: Hermes never runs a `Bash` hook on `terminal`; neither do we.
    let (home, project) = guarded("Bash", false);
    let (emitted, stderr) = emit(&home, &project, "terminal");
    assert_eq!(emitted["outcome"], Value::Null, "{emitted:#}");
    assert_eq!(emitted["runs"], json!([]), "{emitted:#}");
    assert!(!stderr.contains(FIELD), "{stderr}");
}

#[test]
fn a_guard_read_another_way_is_never_a_lost_guard() {
    // Read well once (remembered as a guard), then its matcher edited.
    let (home, project) = guarded("terminal", true);
    assert!(blocked_by_guard(&emit(&home, &project, "terminal").0));
    write_guard(&home, "Bash", true);
    let (emitted, _) = emit(&home, &project, "terminal");
    assert!(blocked_by_guard(&emitted), "{emitted:#}");
    let (other, _) = emit(&home, &project, "read_file");
    assert_eq!(other["outcome"], Value::Null, "not lost: {other:#}");
    write_guard(&home, "frobnicate", true);
    let (emitted, _) = emit(&home, &project, "terminal");
    assert_eq!(emitted["outcome"], Value::Null, "not lost: {emitted:#}");
}
