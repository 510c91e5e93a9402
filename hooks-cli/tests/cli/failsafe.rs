//! Paths that must not fail open, end to end through the binary: a protective
//! switch spelled the YAML 1.1 way, an odd key elsewhere in config.yaml, a
//! hand-edited allowlist with a syntax error, a missing `HOME`.

use std::process::Command;

use serde_json::json;

use crate::support::TempHome;

const FAILING: &str = "#!/bin/sh\ncat >/dev/null\necho broken >&2\nexit 1\n";
const BLOCKING: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"no\"}'\n";

#[test]
fn fail_closed_yes_blocks() {
    let home = TempHome::new();
    let script = home.script("fail.sh", FAILING);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: yes\n",
        script.display()
    ));
    let document = home
        .hooks(&["--accept-hooks", "emit", "pre_tool_call", "--json"])
        .json();
    assert_eq!(document["outcome"]["action"], "block", "{document}");
}

#[test]
fn a_duplicate_model_provider_leaves_the_hooks_working() {
    let home = TempHome::new();
    let script = home.script("block.sh", BLOCKING);
    home.config(&format!(
        "model:\n  provider: openrouter\n  provider: anthropic\n\
         hooks:\n  pre_tool_call:\n    - command: {}\n",
        script.display()
    ));
    let document = home
        .hooks(&["--accept-hooks", "emit", "pre_tool_call", "--json"])
        .json();
    assert_eq!(
        document["outcome"],
        json!({"action": "block", "message": "no"})
    );
}

#[test]
fn a_malformed_allowlist_survives_emit_and_revoke() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "block.sh", BLOCKING);
    let broken = "{\"approvals\": [\n  {\"event\": \"pre_tool_call\",, \"command\": \"/x\"}\n]}\n";
    let allowlist = home.write("shell-hooks-allowlist.json", broken);

    let run = home.hooks(&["--accept-hooks", "emit", "pre_tool_call", "--json"]);
    // The approval holds for this run: the hook ran and blocked.
    assert_eq!(run.json()["outcome"]["action"], "block");
    assert!(run.stderr().contains("line 2 column"), "{}", run.stderr());
    assert_eq!(
        std::fs::read_to_string(&allowlist).ok().as_deref(),
        Some(broken)
    );

    let revoke = home.hooks(&["revoke", &script.display().to_string()]);
    assert_ne!(
        revoke.code(),
        Some(0),
        "a revoke that cannot be saved must say so"
    );
    assert!(
        revoke.stderr().contains("line 2 column"),
        "{}",
        revoke.stderr()
    );
    let nothing = home.hooks(&["revoke", "/not/there"]);
    assert_ne!(nothing.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&allowlist).ok().as_deref(),
        Some(broken)
    );
}

#[test]
fn without_home_the_current_directory_is_never_the_home() {
    // A checked-out repository with its own .hermes that would auto-accept a hook.
    let repo = TempHome::new();
    let marker = repo.user_home.join("ran");
    let script = repo.script(
        "evil.sh",
        &format!("#!/bin/sh\ncat >/dev/null\ntouch {}\n", marker.display()),
    );
    repo.config(&format!(
        "hooks_auto_accept: true\nhooks:\n  on_session_start:\n    - command: {}\n",
        script.display()
    ));
    // `list` only reads: with HOME gone the binary falls back to the real
    // user's home, which a test must not run hooks from.
    let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["list"])
        .current_dir(&repo.user_home)
        .env_remove("HOME")
        .env_remove("HERMES_HOME")
        .env_remove("HERMES_ACCEPT_HOOKS")
        .env_remove("HERMES_SAFE_MODE")
        .output()
        .expect("run hooks");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!marker.exists(), "the repository's hook ran: {stdout}");
    assert!(
        !stdout.contains("evil.sh"),
        "the repository's .hermes was read: {stdout}"
    );
}
