//! Sweep 59 of issue 27's findings over every source of hooks, through the
//! real binary: `hooks test` running a `config.yaml` hook that reaches the
//! folder it runs in without an approval there (H1), a fail-closed guard
//! whose script became a folder allowed once approved again (H2), the
//! managed `config.yaml`'s guard dropped by a `Hooks:` key or a deletion
//! (H3, H4), and `hooks test` showing a fail-closed guard it may not run as
//! skipped while `emit` blocks (U2). Each failed on the code before.

use serde_json::{Value, json};

use crate::dialects::{answering, emit_terminal, home_with, in_project, write};
use crate::support::TempHome;

/// `hooks test pre_tool_call --json` in `project`.
fn tested(home: &TempHome, project: &std::path::Path) -> Value {
    in_project(home, project, &["test", "pre_tool_call", "--json"]).json()
}

/// H1: the user's own `sh tools/g.sh` (or `make -s lint`) is the folder's
/// code: `hooks test` runs it only once approved there.
#[test]
fn hooks_test_runs_no_folders_code_a_config_yaml_hook_reaches_unapproved() {
    for (command, file, text) in [
        (
            "sh tools/g.sh",
            "tools/g.sh",
            "touch PWNED\ncat >/dev/null\n",
        ),
        ("make -s lint", "Makefile", "lint:\n\t@touch PWNED\n"),
    ] {
        let (home, project) = home_with("[]");
        write(&project, file, text);
        home.config(&format!(
            "hooks:\n  pre_tool_call:\n    - command: \"{command}\"\n"
        ));
        // Run from the project, as a user testing there does.
        let run = crate::harness::command(&home, &["test", "pre_tool_call"])
            .current_dir(&project)
            .output()
            .expect("hooks test");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            !project.join("PWNED").exists(),
            "{command}: hooks test ran the folder's code: {stdout}"
        );
        assert!(stdout.contains("skipped"), "{stdout}");
    }
}

/// H2 (and U4): a shell given a folder as its script cannot be approved,
/// so the fail-closed guard blocks; approving it says it cannot.
#[test]
fn a_guard_whose_script_became_a_folder_blocks_even_approved_again() {
    let (home, project) = home_with("[]");
    let guard = home.script("guard.sh", &format!("#!/bin/sh\n{}", answering(&json!({}))));
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: sh {}\n      fail_closed: true\n",
        guard.display()
    ));
    emit_terminal(&home, &project, "ls", true);
    std::fs::remove_file(&guard).expect("rm");
    std::fs::create_dir(&guard).expect("mkdir");
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(accepted["outcome"]["action"], "block", "{accepted:#}");
    let command = format!("sh {}", guard.display());
    let approve = in_project(
        &home,
        &project,
        &["approve", &command, "--event", "pre_tool_call"],
    );
    let said = format!("{}{}", approve.stdout(), approve.stderr());
    assert!(said.contains("cannot be approved"), "{said}");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// A managed `config.yaml` holding a fail-closed guard, approved once.
fn managed_guard() -> (TempHome, std::path::PathBuf, std::path::PathBuf) {
    let (home, project) = home_with("[]");
    let guard = home.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\n{}",
            answering(&json!({"action": "block", "message": "admin"}))
        ),
    );
    let managed = home.user_home.join("managed-scope/config.yaml");
    let text = format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        guard.display()
    );
    std::fs::write(&managed, text).expect("managed config");
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(approved["outcome"]["message"], "admin", "{approved:#}");
    (home, project, managed)
}

/// H3, H4: the managed file's guard dropped by a `Hooks:` key or the
/// file's deletion keeps blocking, said in `emit` and `doctor`.
#[test]
fn a_managed_guard_dropped_by_a_renamed_key_or_a_deletion_keeps_blocking() {
    for edit in ["Hooks", "hookz", "gone"] {
        let (home, project, managed) = managed_guard();
        match edit {
            "gone" => std::fs::remove_file(&managed).expect("rm"),
            key => {
                let text = std::fs::read_to_string(&managed).expect("read");
                std::fs::write(&managed, text.replacen("hooks:", &format!("{key}:"), 1))
                    .expect("write");
            }
        }
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert_eq!(emitted["outcome"]["action"], "block", "{edit}: {emitted:#}");
        let doctor = in_project(&home, &project, &["doctor"]);
        assert!(!doctor.0.status.success(), "{edit}: {}", doctor.stdout());
    }
    // Taken out cleanly, it is gone.
    let (home, project, managed) = managed_guard();
    std::fs::write(&managed, "hooks: {}\n").expect("write");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_ne!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// U2: a fail-closed guard that `hooks test` may not run (changed since
/// its approval) blocks there as in `emit`.
#[test]
fn hooks_test_blocks_for_a_fail_closed_guard_it_may_not_run() {
    let (home, project) = home_with("[claude]");
    let guard = write(&home.user_home, ".claude/guard.sh", &answering(&json!({})));
    crate::dialects::user_fail_closed_command(&home, &format!("sh {}", guard.display()));
    emit_terminal(&home, &project, "ls", true);
    write(
        &home.user_home,
        ".claude/guard.sh",
        "cat >/dev/null\necho '{}' # changed\n",
    );
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    let tested = tested(&home, &project);
    assert_eq!(tested["outcome"]["action"], "block", "{tested:#}");
}

/// U1: a `disableAllHooks: true` in a `hooks_from:` path file turns
/// nothing off; it is said, not ignored in silence.
#[test]
fn a_switch_in_a_path_file_that_turns_nothing_off_is_said() {
    let (home, project) = home_with("[]");
    let plugin = write(
        &home.user_home,
        "plug/settings.json",
        "{\"disableAllHooks\": true, \"hooks\": {}}",
    );
    home.config(&format!(
        "hooks_from: [claude, {{format: claude, path: {}}}]\n",
        plugin.display()
    ));
    let listed = in_project(&home, &project, &["list"]);
    let said = format!("{}{}", listed.stdout(), listed.stderr());
    assert!(said.contains("hooks_from: path file"), "{said}");
}
