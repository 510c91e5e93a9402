//! A script edited after approval, with its mtime put back, is new code to
//! `hooks` as a whole: `doctor` reports it (and does not run it), `list` marks
//! it, a fail-closed guard blocks until approved again, and `approve` refreshes it.

use std::time::SystemTime;

use crate::support::TempHome;

const GUARD: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"no\"}'\n";
/// Same length: the edit lets everything through.
const EVIL: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"allow\", \"message\": \"ok\"}'\n";

fn edit_keeping_mtime(script: &std::path::Path, text: &str) {
    let mtime: SystemTime = std::fs::metadata(script)
        .and_then(|meta| meta.modified())
        .expect("mtime");
    std::fs::write(script, text).expect("edit");
    std::fs::File::options()
        .write(true)
        .open(script)
        .and_then(|file| file.set_modified(mtime))
        .expect("restore the mtime");
}

#[test]
fn an_edited_guard_is_reported_blocked_and_approved_again() {
    let home = TempHome::new();
    let script = home.script("guard.sh", GUARD);
    let command = script.to_str().unwrap_or_default().to_owned();
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {command}\n      fail_closed: true\n"
    ));
    home.hooks(&["approve", &command]).ok();
    let doctor = home.hooks(&["doctor"]);
    assert!(
        doctor
            .stdout()
            .contains("✓ script unchanged since approval"),
        "{}",
        doctor.stdout()
    );

    edit_keeping_mtime(&script, EVIL);
    let doctor = home.hooks(&["doctor"]);
    let text = doctor.stdout();
    assert_eq!(doctor.code(), Some(1), "{text}");
    assert!(
        text.contains("script content changed since approval"),
        "{text}"
    );
    assert!(!text.contains("unchanged since approval"), "{text}");
    assert!(
        text.contains("skipped JSON smoke test — its script changed"),
        "{text}"
    );

    let list = home.hooks(&["list"]).ok();
    assert!(
        list.contains("script content changed since approval"),
        "{list}"
    );
    assert!(
        list.contains("fail_closed, ✗ changed since approval)"),
        "{list}"
    );
    let json = home.hooks(&["list", "--json"]).json();
    assert_eq!(json["shell_hooks"][0]["drift"], "changed", "{json}");

    // A host without a terminal: the guard is not run, and its tool calls block.
    let emit = home.hooks(&["emit", "pre_tool_call", "--json"]);
    let document = emit.json();
    assert_eq!(document["outcome"]["action"], "block", "{document}");
    let message = document["outcome"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("changed since it was approved"),
        "{document}"
    );
    assert!(
        emit.stderr()
            .contains("its script changed since it was approved"),
        "{}",
        emit.stderr()
    );

    // Approved again: the new code runs (and is recorded by its new hash).
    let approve = home.hooks(&["approve", &command]).ok();
    assert!(approve.contains(": approved"), "{approve}");
    let document = home.hooks(&["emit", "pre_tool_call", "--json"]).json();
    assert_eq!(document["outcome"], serde_json::Value::Null, "{document}");
    let doctor = home.hooks(&["doctor"]).stdout();
    assert!(
        doctor.contains("✓ script unchanged since approval"),
        "{doctor}"
    );
}
