//! Red team round 76 (round 75's fixes attacked), through the real binary:
//! the managed scope's guards were lost when the variable moved after an
//! emit that read its file broken (R76-1), when they stood under an event
//! name written with look-alike characters (R76-2), or when the user's
//! file repeated their command and matcher failing open (R76-3); a
//! fail-closed guard's matcher given twice under such an event name was
//! read last-wins (R76-4).

use serde_json::json;

use crate::round75::action;

/// A command that crashes: a fail-closed guard running it blocks.
const CRASHES: &str = "bash -c \"cat >/dev/null; exit 1\"";

/// A home whose managed scope holds `text`, read once with the variable
/// set; the returned folder is the managed scope's.
fn managed_home(
    text: &str,
) -> (
    crate::support::TempHome,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let (home, project) = crate::dialects::home_with("[]");
    let managed = home.user_home.join("managed-scope");
    std::fs::write(managed.join("config.yaml"), text).expect("managed config");
    (home, project, managed)
}

#[test]
fn managed_guards_stay_recorded_through_a_broken_read_and_odd_event_names() {
    let entry = json!([{"command": CRASHES, "matcher": "terminal", "fail_closed": true}]);
    // Read well, then broken for one emit, then the variable unset.
    let (home, project, managed) = managed_home(&format!("hooks:\n  pre_tool_call: {entry}\n"));
    assert_eq!(action(&home, &project, Some(&managed), true), "block");
    std::fs::write(managed.join("config.yaml"), "hooks: [unclosed\n").expect("break it");
    assert_eq!(action(&home, &project, Some(&managed), true), "block");
    assert_eq!(action(&home, &project, None, true), "block");
    // A guard under an event name that only looks like `pre_tool_call`.
    let odd = format!("hooks:\n  pre_t\u{43e}\u{43e}l_call: {entry}\n");
    let (home, project, managed) = managed_home(&odd);
    assert_eq!(action(&home, &project, Some(&managed), true), "block");
    assert_eq!(action(&home, &project, None, true), "block");
}

#[test]
fn a_users_copy_failing_open_does_not_hold_a_managed_guard() {
    let entry = json!([{"command": CRASHES, "matcher": "terminal", "fail_closed": true}]);
    let (home, project, managed) = managed_home(&format!("hooks:\n  pre_tool_call: {entry}\n"));
    assert_eq!(action(&home, &project, Some(&managed), true), "block");
    let copy = json!([{"command": CRASHES, "matcher": "terminal", "fail_closed": false, "failClosed": true}]);
    home.config(&format!(
        "hooks_from: []\nhooks:\n  pre_tool_call: {copy}\n"
    ));
    assert_eq!(action(&home, &project, None, true), "block");
}

#[test]
fn a_matcher_given_twice_under_a_look_alike_event_guards_every_call() {
    let (home, project) = crate::dialects::home_with("[]");
    let blocks = "bash -c \"cat >/dev/null; echo '{\\\"decision\\\":\\\"block\\\"}'\"";
    home.config(&format!(
        "hooks:\n  pre_t\u{43e}\u{43e}l_call:\n    - command: {blocks:?}\n      matcher: terminal\n      matcher: read_file\n      fail_closed: true\n"
    ));
    let managed = home.user_home.join("managed-scope");
    assert_eq!(action(&home, &project, Some(&managed), true), "block");
}

/// A test starting a program through Perl's IPC modules or `system { $x }`,
/// or through a module it imports by a name it builds
/// (`import_module("sub" + "process")`), cannot be approved (round 75,
/// R75-3: an edited Makefile ran unasked).
#[test]
fn tests_starting_programs_through_ipc_or_a_built_module_name_are_refused() {
    for (command, test, text) in [
        (
            "prove -Q t",
            "t/a.t",
            "use IPC::Open3; my $p = open3(my $i, my $o, undef, \"make\", \"-s\", \"lint\"); waitpid($p, 0); print \"ok 1\\n1..1\\n\";\n",
        ),
        (
            "prove -Q t",
            "t/a.t",
            "my $x = \"make\"; system { $x } \"make\", \"-s\", \"lint\"; print \"ok 1\\n1..1\\n\";\n",
        ),
        (
            "python3 -m pytest -q",
            "test_a.py",
            "import importlib as il\nm = il.import_module(\"sub\" + \"process\")\ndef test_a():\n    m.run([\"make\", \"-s\", \"lint\"])\n",
        ),
    ] {
        crate::round73::test_refused(command, test, text);
    }
}

/// A user's fail-closed guard whose script runs `git diff` in a git
/// project stays approved after its first run (R76-U1: its approval named
/// the project, found through the script, while the lookup read the
/// command only and named none, so every emit asked again).
#[test]
fn a_users_guard_whose_script_runs_git_stays_approved_in_a_git_project() {
    let (home, project) = crate::dialects::home_with("[]");
    crate::round28::git(&project, &["init", "-q", "."]);
    let guard = home.script(
        "g.sh",
        "#!/bin/bash\ncat >/dev/null\ngit diff --stat >/dev/null 2>&1\nexit 0\n",
    );
    home.config(&format!(
        "hooks_from: []\nhooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
        guard.display()
    ));
    let action = |accept: bool| {
        let output =
            crate::dialects::emit_terminal_command(&home, &project, Some(&project), "ls", accept)
                .output()
                .expect("hooks runs");
        let emitted: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("emit --json");
        let action = emitted["outcome"]["action"]
            .as_str()
            .unwrap_or("allow")
            .to_owned();
        (action, String::from_utf8_lossy(&output.stderr).into_owned())
    };
    assert_eq!(action(true).0, "allow");
    for _ in 0..2 {
        let (action, warnings) = action(false);
        assert_eq!(
            action, "allow",
            "asked again after its approval: {warnings}"
        );
        assert!(!warnings.contains("not approved"), "{warnings}");
    }
    let approvals =
        std::fs::read_to_string(home.hermes.join("shell-hooks-allowlist.json")).expect("allowlist");
    let approvals: serde_json::Value = serde_json::from_str(&approvals).expect("JSON");
    assert_eq!(approvals["approvals"].as_array().map(Vec::len), Some(1));
}
