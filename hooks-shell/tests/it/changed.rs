//! Consent is bound to the code, not only to the command string and an mtime:
//! a script edited after approval (its mtime put back) is new code and needs
//! consent again; an entry without a hash keeps hermes-agent's mtime check.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hermes_hooks_core::{Config, Dispatcher};
use hermes_hooks_shell::{
    Allowlist, Consent, Drift, Prompter, RegisterOptions, Registration, ShellHooks, approval_drift,
};
use serde_json::{Value, json};

use crate::support::{Home, context, tool_event};

struct Scripted {
    answers: VecDeque<&'static str>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Prompter for Scripted {
    fn ask(&mut self, banner: &str, _question: &str) -> Option<String> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(banner.to_owned());
        }
        self.answers.pop_front().map(str::to_owned)
    }
}

fn register(config: &Config, consent: Consent) -> Registration {
    ShellHooks::register(
        config,
        RegisterOptions::new(consent)
            .with_context(context())
            .with_safe_mode(false)
            .with_queue_capacity(8),
    )
}

const APPROVED: &str = "#!/bin/sh\ncat >/dev/null\necho '{}'\n";
/// Same length, same mtime (put back below): only the bytes differ.
const EDITED: &str = "#!/bin/sh\ncat >/dev/null\necho '{]'\n";

/// A home with one guard (`python3`-style: an interpreter and the script) and
/// an approval recorded for it; returns the home, the command and the script.
fn approved_guard(fail_closed: bool) -> (Home, Config, String, std::path::PathBuf) {
    let home = Home::new();
    let script = home.path().join("guard.sh");
    std::fs::write(&script, APPROVED).expect("write");
    let command = format!("sh {}", script.display());
    let config = home.config(json!({"hooks": {"pre_tool_call": [
        {"matcher": "terminal", "command": command, "fail_closed": fail_closed}
    ]}}));
    let approval = Allowlist::in_home(home.path())
        .record("pre_tool_call", &command)
        .expect("record");
    assert!(approval.script_sha256_at_approval.is_some(), "{approval:?}");
    (home, config, command, script)
}

/// Edits the script and puts its mtime back, as an attacker would.
fn edit_keeping_mtime(script: &std::path::Path) {
    let mtime: SystemTime = std::fs::metadata(script)
        .and_then(|meta| meta.modified())
        .expect("mtime");
    std::fs::write(script, EDITED).expect("edit");
    std::fs::File::options()
        .write(true)
        .open(script)
        .and_then(|file| file.set_modified(mtime))
        .expect("restore mtime");
}

#[test]
fn an_edit_with_the_mtime_restored_is_new_code() {
    let (home, config, command, script) = approved_guard(false);
    let entry = Allowlist::in_home(home.path())
        .entry_for("pre_tool_call", &command)
        .expect("entry");
    assert_eq!(approval_drift(&entry, &command), Drift::Unchanged);
    assert_eq!(
        register(&config, Consent::allowlisted_only()).hooks.len(),
        1
    );

    edit_keeping_mtime(&script);
    assert_eq!(approval_drift(&entry, &command), Drift::ContentChanged);
    // No terminal: skipped, with a warning.
    let registration = register(&config, Consent::allowlisted_only());
    assert!(registration.hooks.is_empty());
    assert_eq!(registration.denied.len(), 1);

    // On a terminal the user is asked again, and told why.
    let asked = Arc::new(Mutex::new(Vec::new()));
    let prompter = Scripted {
        answers: VecDeque::from(["y"]),
        asked: Arc::clone(&asked),
    };
    let registration = register(&config, Consent::ask_with(Box::new(prompter)));
    assert_eq!(registration.hooks.len(), 1);
    let asked = asked.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("CHANGED"), "{}", asked[0]);
    // The new approval holds the new hash: no question next time.
    let entry = Allowlist::in_home(home.path())
        .entry_for("pre_tool_call", &command)
        .expect("entry");
    assert_eq!(approval_drift(&entry, &command), Drift::Unchanged);
    assert_eq!(
        register(&config, Consent::allowlisted_only()).hooks.len(),
        1
    );
}

#[test]
fn accepting_hooks_approves_the_new_code_and_records_it() {
    let (home, config, command, script) = approved_guard(false);
    edit_keeping_mtime(&script);
    let registration = register(&config, Consent::accept_all());
    assert_eq!(registration.hooks.len(), 1);
    let entry = Allowlist::in_home(home.path())
        .entry_for("pre_tool_call", &command)
        .expect("entry");
    assert_eq!(approval_drift(&entry, &command), Drift::Unchanged);
}

#[tokio::test]
async fn a_fail_closed_guard_whose_code_changed_blocks() {
    let (_home, config, _command, script) = approved_guard(true);
    edit_keeping_mtime(&script);
    let registration = register(&config, Consent::allowlisted_only());
    assert_eq!(registration.denied.len(), 1);
    let replies = registration.hooks.dispatch(&tool_event("terminal")).await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    let reply: &Value = &replies[0].value;
    assert_eq!(reply["action"], "block", "{reply}");
    let message = reply["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("changed since it was approved"),
        "{message}"
    );
    // Tools its matcher does not cover are not its business.
    assert!(
        registration
            .hooks
            .dispatch(&tool_event("read_file"))
            .await
            .is_empty()
    );
}

#[test]
fn an_entry_without_a_hash_keeps_the_mtime_check() {
    let (home, config, command, script) = approved_guard(false);
    // As hermes-agent (or an older hooks) writes it: no hash.
    let allowlist = Allowlist::in_home(home.path());
    let text = std::fs::read_to_string(allowlist.path()).expect("read");
    let mut document: Value = serde_json::from_str(&text).expect("json");
    document["approvals"][0]
        .as_object_mut()
        .expect("entry")
        .remove("script_sha256_at_approval");
    document["approvals"][0]
        .as_object_mut()
        .expect("entry")
        .remove("binding");
    std::fs::write(allowlist.path(), document.to_string()).expect("write");
    edit_keeping_mtime(&script);
    let entry = allowlist
        .entry_for("pre_tool_call", &command)
        .expect("entry");
    assert_eq!(entry.script_sha256_at_approval, None);
    assert_eq!(approval_drift(&entry, &command), Drift::Unchanged);
    assert_eq!(
        register(&config, Consent::allowlisted_only()).hooks.len(),
        1
    );
    // A later edit that moves the mtime is drift, reported but not refused.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&script, APPROVED).expect("edit");
    std::fs::File::options()
        .write(true)
        .open(&script)
        .and_then(|file| file.set_modified(SystemTime::now() + Duration::from_secs(5)))
        .expect("mtime");
    assert_eq!(approval_drift(&entry, &command), Drift::Modified);
    assert_eq!(
        register(&config, Consent::allowlisted_only()).hooks.len(),
        1
    );
    // The next approval records a hash.
    let entry = allowlist.record("pre_tool_call", &command).expect("record");
    assert!(entry.script_sha256_at_approval.is_some());
    let reread = allowlist
        .entry_for("pre_tool_call", &command)
        .expect("entry");
    assert_eq!(
        reread.script_sha256_at_approval,
        entry.script_sha256_at_approval
    );
}

/// A script swapped, after its approval, for one whose reading cannot bind
/// what it runs is "changed", said at once from the file itself: reading
/// all of it again first made a script too intricate to read cost the
/// reading's whole budget on every run (red team round 64, U-01), and named
/// the hook unapprovable where it had changed.
#[test]
fn a_changed_script_is_changed_before_it_is_read_again() {
    let (home, _config, command, script) = approved_guard(true);
    std::fs::write(&script, "sh $(printf tools/g.%s sh)\n").expect("swap");
    let subject = hermes_hooks_shell::Subject::native("pre_tool_call", &command, None);
    let approvals = Allowlist::in_home(home.path()).approvals();
    match hermes_hooks_shell::standing(&approvals, &subject) {
        hermes_hooks_shell::Standing::Changed(why) => {
            assert_eq!(why, vec![format!("{} changed", script.display())]);
        }
        other => panic!("not changed: {other:?}"),
    }
}
