//! Red team round 10, the memory of guards: a `fail_closed` guard of the
//! native `config.yaml` read well once keeps blocking when the file drops it
//! without taking it out (R10-5); so do the imported guards a `hooks_from:`
//! list dropped that way (R10-6), and those of a settings file that breaks
//! when its record cannot be written or read (R10-7). A guard taken out
//! cleanly is gone.

use serde_json::{Value, json};

use crate::dialects::{answering, emit_terminal, home_with, in_project, user_fail_closed_guard};
use crate::support::TempHome;

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

/// A home whose `config.yaml` has one native `fail_closed` guard that
/// blocks every call, read (and approved) once; returns the config's text
/// for the guard's entry (`- command: …\n      fail_closed: true`).
fn native_guard() -> (TempHome, std::path::PathBuf, String) {
    let (home, project) = home_with("[]");
    let guard = home.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\n{}",
            answering(&json!({"action": "block", "message": "native guard"}))
        ),
    );
    let entry = format!("- command: {}\n      fail_closed: true", guard.display());
    home.config(&format!("hooks:\n  pre_tool_call:\n    {entry}\n"));
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("native guard"),
        "{approved:#}"
    );
    (home, project, entry)
}

#[test]
fn a_native_guard_the_file_drops_without_taking_it_out_keeps_blocking() {
    let long_comments = "# nothing\n".repeat(200_000);
    let shapes = [
        "hooks: null\n",
        "hooks:\n#  pre_tool_call:\n#    ENTRY\n",
        "hooks:\n  pre_tool_call: null\n",
        "hooks:\n  pre_tool_call:\n    command: COMMAND\n",
        "hooks:\n  pre_tool_call:\n    - cmd: COMMAND\n      fail_closed: true\n",
        "hooks:\n  pre_tool_call:\n    - COMMAND\n",
        "hooks:\n  pre_tool_call:\n    ENTRY\nhooks: {}\n",
        "Hooks:\n  pre_tool_call:\n    ENTRY\n",
        "hooks:\n  pre_tool_cal:\n    ENTRY\n",
        "hooks: \"x\"\n",
        "null\n",
        // Emptied (red team R39-1): what a crashed editor or a stray `>` leaves.
        "",
        " \n\n",
        "# hooks:\n#  pre_tool_call:\n",
        "---\n",
        "---\n...\n",
        // Past what a shorter read saw (R40-8), and a file of no setting (R40-9).
        long_comments.as_str(),
        "{}\n",
        "<<: ~\n",
        // (`fail_closed: "true"` no longer drops it: it fails closed,
        // docs/decisions/fail-closed-spelled-oddly.md.)
    ];
    for shape in shapes {
        let (home, project, entry) = native_guard();
        let command = entry
            .trim_start_matches("- command: ")
            .split('\n')
            .next()
            .unwrap_or_default()
            .to_owned();
        home.config(&shape.replace("ENTRY", &entry).replace("COMMAND", &command));
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(action(&emitted), &json!("block"), "{shape}: {emitted:#}");
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("no longer reads"), "{shape}: {message}");
        // The file is still what it was: the block holds on the next call too.
        let again = emit_terminal(&home, &project, "ls", false);
        assert_eq!(action(&again), &json!("block"), "{shape}: {again:#}");
    }
}

#[test]
fn a_native_guard_taken_out_cleanly_is_gone() {
    for shape in ["hooks: {}\n", "model: x\n", "hooks:\n  pre_tool_call: []\n"] {
        let (home, project, _) = native_guard();
        home.config(shape);
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(emitted["outcome"], Value::Null, "{shape:?}: {emitted:#}");
    }
    // Fixed after a break, the block lifts.
    let (home, project, entry) = native_guard();
    home.config("hooks: null\n");
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    assert_eq!(
        listed["shell_guards_down"][0]["blocks"], "pre_tool_call",
        "{listed}"
    );
    assert_eq!(in_project(&home, &project, &["doctor"]).code(), Some(1));
    assert_eq!(
        action(&emit_terminal(&home, &project, "ls", false)),
        &json!("block")
    );
    home.config(&format!("hooks:\n  pre_tool_call:\n    {entry}\n"));
    let fixed = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        fixed["outcome"]["message"],
        json!("native guard"),
        "{fixed:#}"
    );
}

#[test]
fn a_config_yaml_that_is_a_dangling_link_is_refused_by_name() {
    let (home, project, _) = native_guard();
    let config = home.hermes.join("config.yaml");
    std::fs::remove_file(&config).expect("remove");
    std::os::unix::fs::symlink(home.user_home.join("dotfiles/config.yaml"), &config).expect("link");
    let run = in_project(&home, &project, &["emit", "pre_tool_call", "--json"]);
    assert_eq!(run.code(), Some(2), "{}", run.stdout());
    assert!(run.stderr().contains("is a link to"), "{}", run.stderr());
    assert!(
        !run.stderr().contains("exist: it is a link"),
        "said once: {}",
        run.stderr()
    );
}

/// A home importing the user's `~/.claude` failClosed guard, read once.
fn imported_guard() -> (TempHome, std::path::PathBuf) {
    let (home, project) = home_with("[claude]");
    let ran = answering(&json!({"decision": "block", "reason": "user guard"}));
    user_fail_closed_guard(&home, "Bash", &ran, None);
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("user guard"),
        "{approved:#}"
    );
    (home, project)
}

#[test]
fn an_import_list_that_drops_its_format_without_taking_it_out_keeps_blocking() {
    for list in [
        "hooks_from: null\n",
        "hooks_from: {claude: true}\n",
        "hooks_from: [claude]\nhooks_from: []\n",
        "hooks-from: [claude]\n",
        "null\n",
    ] {
        let (home, project) = imported_guard();
        home.config(list);
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(action(&emitted), &json!("block"), "{list}: {emitted:#}");
    }
    for list in ["hooks_from: []\n", "model: x\n", "hooks_from: [codex]\n"] {
        let (home, project) = imported_guard();
        home.config(list);
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(emitted["outcome"], Value::Null, "{list}: {emitted:#}");
    }
}

#[test]
fn a_settings_file_that_breaks_without_a_usable_record_blocks() {
    // The record cannot be written: the cache folder's place is a file.
    let (home, project) = home_with("[claude]");
    std::fs::write(home.hermes.join("guard-records"), "").expect("a file");
    let ran = answering(&json!({"decision": "block", "reason": "user guard"}));
    user_fail_closed_guard(&home, "Bash", &ran, None);
    let run = in_project(
        &home,
        &project,
        &["--accept-hooks", "emit", "pre_tool_call", "--json"],
    );
    assert!(
        run.stderr().contains("cannot be written"),
        "{}",
        run.stderr()
    );
    let settings = home.user_home.join(".claude/settings.json");
    std::fs::write(&settings, "{\"hooks\":").expect("truncate");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");

    // The record is corrupted, then the file breaks.
    let (home, project) = imported_guard();
    let records = home.hermes.join("guard-records");
    for record in std::fs::read_dir(&records).expect("records") {
        std::fs::write(record.expect("entry").path(), "garbage").expect("corrupt");
    }
    let settings = home.user_home.join(".claude/settings.json");
    std::fs::write(&settings, "{\"hooks\":").expect("truncate");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_second_hooks_key_that_drops_an_imported_guard_keeps_blocking() {
    let (home, project) = imported_guard();
    let settings = home.user_home.join(".claude/settings.json");
    let good: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("JSON");
    let twice = format!("{{\"hooks\":{},\"hooks\":{{}}}}", good["hooks"]);
    assert!(serde_json::from_str::<Value>(&twice).is_ok(), "{twice}");
    std::fs::write(&settings, &twice).expect("write");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{twice}: {emitted:#}");
}

#[test]
fn a_managed_guard_whose_file_breaks_keeps_blocking() {
    let (home, project) = home_with("[]");
    let guard = home.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\n{}",
            answering(&json!({"action": "block", "message": "admin guard"}))
        ),
    );
    let managed = home.user_home.join("managed-scope");
    std::fs::create_dir_all(&managed).expect("managed");
    let text = format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        guard.display()
    );
    std::fs::write(managed.join("config.yaml"), &text).expect("managed config");
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("admin guard"),
        "{approved:#}"
    );
    std::fs::write(managed.join("config.yaml"), "hooks: [\n").expect("break it");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_settings_file_that_breaks_after_the_caches_are_cleared_keeps_blocking() {
    // R35-2: the records lived in `.hooks-cache`; clearing it made a broken
    // settings file read as never guarded, and `rm -rf /` was allowed.
    let (home, project) = imported_guard();
    std::fs::remove_dir_all(home.hermes.join(".hooks-cache")).ok();
    let settings = home.user_home.join(".claude/settings.json");
    std::fs::write(&settings, "{\"hooks\": {").expect("truncate");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_broken_settings_file_without_a_record_that_names_fail_closed_blocks() {
    // No record at all (removed), but the text still says it guards.
    let (home, project) = imported_guard();
    std::fs::remove_dir_all(home.hermes.join("guard-records")).expect("records");
    let settings = home.user_home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings");
    assert!(text.contains("failClosed"), "{text}");
    std::fs::write(&settings, &text[..text.len() - 3]).expect("truncate");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_guard_added_with_a_typo_to_a_file_read_without_one_blocks() {
    // R36-4: the record of the last good read ("no guard") won over the
    // broken text that now holds one, and `rm -rf /` was allowed.
    let (home, project, settings) = read_without_a_guard();
    let guarded = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true", "failClosed": true},]}]}}"#;
    for text in [guarded.as_bytes().to_vec(), utf16(guarded)] {
        std::fs::write(&settings, &text).expect("broken");
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
    }
}

/// A home importing `~/.claude` whose settings file, holding one hook and
/// no guard, was read (and approved) once; returns it with its path.
fn read_without_a_guard() -> (TempHome, std::path::PathBuf, std::path::PathBuf) {
    let (home, project) = home_with("[claude]");
    let plain = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": "true"}]}]}});
    let settings =
        crate::dialects::write(&home.user_home, ".claude/settings.json", &plain.to_string());
    let read = emit_terminal(&home, &project, "ls", true);
    assert_eq!(read["runs"][0]["status"], json!("completed"), "{read:#}");
    (home, project, settings)
}

/// `text` in UTF-16 (little-endian, with its byte order mark).
fn utf16(text: &str) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xFE];
    text.encode_utf16()
        .for_each(|unit| bytes.extend(unit.to_le_bytes()));
    bytes
}

#[test]
fn a_guard_after_nine_megabytes_of_blanks_blocks() {
    // R37-6: the file is over the 8 MiB a settings file may be, and the
    // text was read for failClosed only as far as that.
    let (home, project, settings) = read_without_a_guard();
    let guarded = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true", "failClosed": true}]}]}}"#;
    let padded = format!("{}{guarded}", " ".repeat(9 << 20));
    std::fs::write(&settings, padded).expect("padded");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}
