//! Red team round 81 (round 80's generations attacked), through the real
//! binary: a line record removed under one spelling's keys only was
//! outranked by another spelling's older one, so a cut read as an edit
//! (R81-3); a record an older version wrote (no generation) lost to any
//! newer version's record, however stale (R81-1).

use std::path::Path;

use crate::round78::action_with_home;
use crate::support::TempHome;

/// A crash guard's script (it fails, so a fail-closed guard blocks).
const CRASHES: &str = "#!/bin/sh\ncat >/dev/null\nexit 1\n";

/// The user's config.yaml of one `terminal` guard running `guard`.
fn guard_file(model: &str, guard: &Path, fail_closed: bool) -> String {
    format!(
        "model: {model}\nhooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: {fail_closed}\n",
        guard.display()
    )
}

#[test]
fn a_removed_line_record_never_comes_back_from_another_spelling() {
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    let link = home.user_home.join("linked");
    std::os::unix::fs::symlink(&home.user_home, &link).expect("link");
    let linked = link.join(".hermes");
    // Three guarded edits read through the link.
    for model in ["a", "b", "c"] {
        home.config(&guard_file(model, &guard, true));
        action_with_home(&home, &project, &linked, true);
    }
    // No guard, then a guard again, read through the real spelling only.
    home.config(&guard_file("c", &guard, false));
    action_with_home(&home, &project, &home.hermes, true);
    let text = format!(
        "# settings below\ndisplay: {{compact: true}}\n{}",
        guard_file("d", &guard, true)
    );
    home.config(&text);
    assert_eq!(
        action_with_home(&home, &project, &home.hermes, true).0,
        "block"
    );
    // Cut at the line's end before `fail_closed`, read through the link.
    home.config(&text[..text.find("      fail_closed").expect("line")]);
    let (action, warnings) = action_with_home(&home, &project, &linked, false);
    assert_eq!(action, "block", "{warnings}");
}

/// The guard records of `home` (the files of `guard-records/`).
fn record_files(home: &TempHome) -> Vec<std::path::PathBuf> {
    let folder = std::fs::read_dir(home.hermes.join("guard-records")).expect("records");
    folder.map(|entry| entry.expect("entry").path()).collect()
}

#[test]
fn an_older_versions_later_record_is_read_before_a_newer_versions_older_one() {
    // R81-1: this version records the file without a guard; an older one
    // (its records keep no generation, and not the key of the folder's
    // identity) records it with one, later; then the file is deleted.
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    assert_eq!(crate::round75::action(&home, &project, None, true), "allow");
    home.config(&guard_file("x", &guard, true));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut written = 0;
    for file in record_files(&home) {
        let text = std::fs::read_to_string(&file).expect("record");
        let record: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let key = record["path"].as_str().unwrap_or("@").to_owned();
        if record.get("fail_closed_events").is_some() && !key.starts_with('@') {
            let older = serde_json::json!({"version": 1, "path": key,
                "fail_closed_events": ["pre_tool_call"]});
            std::fs::write(&file, older.to_string()).expect("older record");
            written += 1;
        }
    }
    assert!(written > 0, "no record to stand in for an older version's");
    std::fs::remove_file(home.hermes.join("config.yaml")).expect("delete");
    let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
    assert_eq!(action, "block", "{warnings}");
}
