//! Red team round 79 (round 78's fixes attacked), through the real binary:
//! a fail-closed guard's records were found only under some spellings of
//! the home (the `hooks_from:` records, a `config.yaml` that is itself a
//! link, a home mounted at a second path, an older record under a name one
//! spelling no longer writes: R79-1, -2, -4, -5), a guard record emptied
//! by a crash read as "never guarded" (R79-3), and deleting a guard's
//! last-line matcher on purpose (the guard now wider) kept blocking.

use std::path::Path;

use crate::round78::action_with_home;
use crate::support::TempHome;

/// A crash guard's script (it fails, so a fail-closed guard blocks).
const CRASHES: &str = "#!/bin/sh\ncat >/dev/null\nexit 1\n";

/// The user's config.yaml of fail-closed `terminal` guards running each of
/// `commands`, after a first line `model: x`.
fn guards(commands: &[&Path]) -> String {
    let entries: String = commands
        .iter()
        .map(|command| {
            format!(
                "    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
                command.display()
            )
        })
        .collect();
    format!("model: x\nhooks_from: []\nhooks:\n  pre_tool_call:\n{entries}")
}

/// Writes the user's `~/.claude/settings.json` of one fail-closed Bash
/// guard that crashes.
pub(crate) fn user_claude_crash_guard(home: &TempHome) {
    let guard = home.script("crash.sh", CRASHES);
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": guard, "failClosed": true}
    ]}]}});
    let settings = settings.to_string();
    crate::dialects::write(&home.user_home, ".claude/settings.json", &settings);
}

/// The Hermes home named through a link (`<HOME>/linked/.hermes`).
fn linked_home(home: &TempHome) -> std::path::PathBuf {
    let link = home.user_home.join("linked");
    std::os::unix::fs::symlink(&home.user_home, &link).expect("link");
    link.join(".hermes")
}

/// Approves `text` (the user's config.yaml) reading it only through
/// `hermes`: it blocks.
fn approved_through(home: &TempHome, project: &Path, hermes: &Path, text: &str) {
    home.config(text);
    assert_eq!(action_with_home(home, project, hermes, true).0, "block");
    assert_eq!(action_with_home(home, project, hermes, false).0, "block");
}

#[test]
fn an_imported_guards_record_is_found_through_a_linked_home() {
    // R79-1: `hooks_from:` emptied, read through another spelling.
    let (home, project) = crate::dialects::home_with("[claude]");
    user_claude_crash_guard(&home);
    assert_eq!(crate::round75::action(&home, &project, None, true), "block");
    let linked = linked_home(&home);
    home.config("model: x\nhooks_from:\n");
    let (action, warnings) = action_with_home(&home, &project, &linked, false);
    assert_eq!(action, "block", "{warnings}");
}

#[test]
fn a_config_yaml_that_is_a_link_keeps_its_guard_once_the_link_is_gone() {
    // R79-2: good reads through a linked home; the link config.yaml deleted.
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    let real = home.user_home.join("dotfiles/real.yaml");
    crate::dialects::write(&home.user_home, "dotfiles/real.yaml", &guards(&[&guard]));
    let file = home.hermes.join("config.yaml");
    std::fs::remove_file(&file).expect("the plain file");
    std::os::unix::fs::symlink(&real, &file).expect("link");
    let linked = linked_home(&home);
    // Approved and read through the linked spelling only.
    approved_through(
        &home,
        &project,
        &linked,
        &std::fs::read_to_string(&real).expect("text"),
    );
    std::fs::remove_file(&file).expect("delete the link");
    let (action, warnings) = action_with_home(&home, &project, &home.hermes, false);
    assert_eq!(action, "block", "{warnings}");
}

#[test]
fn the_record_written_last_is_read_whatever_the_spelling() {
    // R79-5: guard A read through the link; guard B added and read through
    // the real spelling only; a cut before B's `fail_closed`, read through
    // the link, found A's older record there first.
    let (home, project) = crate::dialects::home_with("[]");
    let first = home.script("allows.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    let second = home.script("crash.sh", CRASHES);
    let linked = linked_home(&home);
    home.config(&guards(&[&first]));
    assert_eq!(action_with_home(&home, &project, &linked, true).0, "allow");
    let both = guards(&[&first, &second]);
    home.config(&both);
    assert_eq!(crate::round75::action(&home, &project, None, true), "block");
    assert_eq!(
        crate::round75::action(&home, &project, None, false),
        "block"
    );
    home.config(&both[..both.rfind("      fail_closed").expect("B's line")]);
    let (action, warnings) = action_with_home(&home, &project, &linked, false);
    assert_eq!(action, "block", "{warnings}");
}

/// The files of `home`'s guard records whose text contains `marker`.
fn records(home: &TempHome, marker: &str) -> Vec<std::path::PathBuf> {
    let folder = std::fs::read_dir(home.hermes.join("guard-records")).expect("records");
    let files = folder.map(|entry| entry.expect("entry").path());
    files
        .filter(|file| std::fs::read_to_string(file).is_ok_and(|text| text.contains(marker)))
        .collect()
}

#[test]
fn a_record_that_cannot_be_read_never_reads_as_no_guard() {
    // R79-3: the guard record emptied (a crash after a rename), then
    // `hooks: null`; the line record garbage, then a cut.
    for damage in ["guard record emptied", "line record garbage"] {
        let (home, project) = crate::dialects::home_with("[]");
        let guard = home.script("crash.sh", CRASHES);
        let text = guards(&[&guard]);
        home.config(&text);
        assert_eq!(crate::round75::action(&home, &project, None, true), "block");
        let (marker, written, broken) = match damage {
            "guard record emptied" => ("fail_closed_events", "", "model: x\nhooks:\n".to_owned()),
            _ => (
                "prefixes",
                "garbage",
                text[..text.find("    - command").expect("entry")].to_owned(),
            ),
        };
        let found = records(&home, marker);
        assert!(!found.is_empty(), "{damage}: no record");
        for file in found {
            std::fs::write(file, written).expect("damage");
        }
        home.config(&broken);
        let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
        assert_eq!(action, "block", "{damage}: {warnings}");
    }
}

#[test]
fn deleting_a_guards_last_line_matcher_on_purpose_widens_it_and_reads_as_written() {
    // Round 79's usability finding: the guard, now on every tool, is not
    // lost; it runs (and allows) on every call.
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("allows.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    let text = format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n      matcher: terminal\n",
        guard.display()
    );
    home.config(&text);
    assert_eq!(crate::round75::action(&home, &project, None, true), "allow");
    home.config(&text[..text.find("      matcher").expect("matcher")]);
    let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
    assert_eq!(action, "allow", "{warnings}");
}

#[test]
fn a_home_mounted_at_a_second_path_finds_its_records() {
    // R79-4: the same home bind-mounted elsewhere (a container given the
    // host's). Needs a mount namespace: root, as CI runs.
    let can_mount = std::process::Command::new("unshare")
        .args(["-m", "true"])
        .status()
        .is_ok_and(|status| status.success());
    if !can_mount {
        eprintln!("skipped: no mount namespace here (unshare -m needs root)");
        return;
    }
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    let text = guards(&[&guard]);
    home.config(&text);
    assert_eq!(crate::round75::action(&home, &project, None, true), "block");
    home.config(&text[..text.find("    - command").expect("entry")]);
    let payload = home.write(
        "payload.json",
        r#"{"tool_name":"terminal","args":{"command":"rm -rf /"}}"#,
    );
    let mount = home.user_home.join("mounted");
    std::fs::create_dir(&mount).expect("mount point");
    let script = "mount --bind \"$1\" \"$2\" && exec \"$3\" --home \"$2/.hermes\" emit \
                  pre_tool_call --json --payload-file \"$4\"";
    let output = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .args([&home.user_home, &mount])
        .arg(env!("CARGO_BIN_EXE_hooks"))
        .arg(&payload)
        .env("HOME", &mount)
        .env("HERMES_MANAGED_DIR", mount.join("managed-scope"))
        .env_remove("HERMES_HOME")
        .current_dir(&project)
        .output()
        .expect("unshare runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("emit --json");
    assert_eq!(document["outcome"]["action"], "block", "{stderr}");
}
