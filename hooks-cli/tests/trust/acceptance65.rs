//! The acceptance sweep of issue 27 after round 65, through the real
//! binary: a `config.yaml` written with a misspelt `Hooks:` key holding a
//! `fail_closed` entry from the start said nothing (A65-U2); it is now a
//! warning on every emit and a `doctor` error (no guard was ever active,
//! so nothing is blocked).

use crate::dialects::{emit_terminal, in_project};
use crate::support::TempHome;

#[test]
fn a_fail_closed_entry_under_a_misspelt_key_is_said_from_the_start() {
    let home = TempHome::new();
    home.config("Hooks:\n  pre_tool_call:\n    - command: \"true\"\n      fail_closed: true\n");
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(emitted["outcome"].is_null(), "{emitted:#}");
    let file = home.write("payload.json", "{\"tool_name\":\"terminal\",\"args\":{}}");
    let path = file.to_str().expect("UTF-8 path");
    let run = in_project(
        &home,
        &project,
        &["emit", "pre_tool_call", "--payload-file", path],
    );
    assert!(
        run.stderr().contains("does not read as a guard"),
        "{}",
        run.stderr()
    );
    let doctor = in_project(&home, &project, &["doctor"]);
    assert!(!doctor.0.status.success(), "{}", doctor.stdout());
}
