//! Red team round 38's names computed when the hook runs (R38-1, R38-5):
//! `sh "$(printf tools/g.%s sh)"`, `rev`, `tr` and the like name a file no
//! reading of the text can name, so the approval bound only the hook tree
//! and an edit of the file ran unasked. Such a hook now cannot be approved
//! (a fail-closed one blocks, saying why). `$'…'` escapes are read as bash
//! reads them: the file they spell is bound.

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, in_project, user_fail_closed_command, write};

/// A script that leaves `PWNED` in the working folder when it runs.
pub(crate) const LEAVES_A_MARK: &str = "cat >/dev/null\ntouch PWNED\n";

/// A guard that blocks, saying so.
pub(crate) const GUARDS: &str =
    "cat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n";

/// Writes `text` to the two scripts the computed names below reach.
pub(crate) fn scripts(home: &crate::support::TempHome, project: &std::path::Path, text: &str) {
    write(&home.user_home, "bin/g.sh", text);
    write(project, "tools/g.sh", text);
}

/// The user's fail-closed guard `command` accepted while its scripts are
/// innocent, then the scripts edited: the edit never runs and the guard
/// blocks. Returns what the accepting emit said.
pub(crate) fn accepted_then_edited(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    command: &str,
) -> serde_json::Value {
    scripts(home, project, GUARDS);
    user_fail_closed_command(home, command);
    let accepted = emit_terminal(home, project, "ls", true);
    scripts(home, project, LEAVES_A_MARK);
    let emitted = emit_terminal(home, project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command}: the edit ran unasked"
    );
    assert_eq!(
        emitted["outcome"]["action"],
        json!("block"),
        "{command}: {emitted:#}"
    );
    accepted
}

/// The user's fail-closed guard `command` runs (accepted) and answers
/// "guarded": a hook the refusal of computed names must not refuse.
pub(crate) fn runs_guarded(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    command: &str,
) {
    user_fail_closed_command(home, command);
    assert_guarded(command, &emit_terminal(home, project, "ls", true));
}

/// Asserts that what an emit of `command` said is the guard's "guarded".
pub(crate) fn assert_guarded(command: &str, emitted: &serde_json::Value) {
    assert_eq!(
        emitted["outcome"]["message"],
        json!("guarded"),
        "{command}: {emitted:#}"
    );
}

#[test]
fn a_user_guard_running_a_computed_name_blocks_and_never_runs() {
    let (home, project) = home_with("[claude]");
    write(&project, "name.txt", "tools/g.sh\n");
    for command in [
        "sh \"$(printf $HOME/bin/g.%s sh)\"",
        "sh \"$(printf tools/g.%s sh)\" a",
        "sh \"$(echo hs.g/sloot | rev)\" a",
        "sh \"$(echo TOOLS/G.SH | tr A-Z a-z)\" a",
        "N=$(printf tools/g.%s sh); sh \"$N\"",
        "read -r N < name.txt; sh \"$N\"",
        "echo hs.g/sloot | rev | xargs sh",
        "bash -c 'sh \"$(printf tools/g.%s sh)\"'",
        "cd \"$(printf tools)\" && sh g.sh",
        "sh \"tools/$(uname | tr A-Z a-z | sed s/linux/g/).sh\"",
    ] {
        let accepted = accepted_then_edited(&home, &project, command);
        assert!(
            !home.user_home.join("PWNED").exists(),
            "{command}: the edit ran"
        );
        let message = accepted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("computed only when it runs"),
            "{command}: {message}"
        );
        // It cannot be approved: the message never says to approve it.
        assert!(!message.contains("then approve it"), "{command}: {message}");
    }
}

#[test]
fn a_native_guard_running_a_computed_name_blocks_and_says_it_cannot_be_approved() {
    let (home, project) = home_with("[]");
    scripts(&home, &project, GUARDS);
    home.config(
        "hooks:\n  pre_tool_call:\n    - command: sh \"$(printf tools/g.%s sh)\"\n      fail_closed: true\n",
    );
    let accepted = emit_terminal(&home, &project, "ls", true);
    scripts(&home, &project, LEAVES_A_MARK);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "the edit ran unasked");
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    let message = accepted["outcome"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cannot be approved as it is"), "{message}");
    assert!(!message.contains("to approve it, run"), "{message}");
}

#[test]
fn a_project_hook_running_a_computed_name_is_never_run() {
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    for command in [
        "sh \"$(echo hs.g/sloot | rev)\" a",
        "sh \"$(echo TOOLS/G.SH | tr A-Z a-z)\" a",
        "cd \"$CLAUDE_PROJECT_DIR\" && sh \"$(printf tools/g.%s sh)\" a",
    ] {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": command}]}]}});
        write(&project, ".claude/settings.json", &settings.to_string());
        write(&project, "tools/g.sh", GUARDS);
        let approve = in_project(&home, &project, &["approve", "--all"]);
        emit_terminal(&home, &project, "ls", true);
        write(&project, "tools/g.sh", LEAVES_A_MARK);
        emit_terminal(&home, &project, "ls", false);
        assert!(
            !project.join("PWNED").exists(),
            "{command}: the edit ran unasked"
        );
        assert!(
            approve.stderr().contains("computed only when it runs")
                || approve.stdout().contains("computed only when it runs"),
            "{command}: {}\n{}",
            approve.stdout(),
            approve.stderr()
        );
    }
}

#[test]
fn a_script_spelled_with_ansi_c_escapes_is_bound_and_run_checked() {
    let (home, project) = home_with("[claude]");
    let guard = write(&home.user_home, "bin/guard.sh", GUARDS);
    let spelled = guard.display().to_string().replace(".sh", "\\\\x2esh");
    let command = format!("bash -c \"sh \\$'{spelled}'\"");
    user_fail_closed_command(&home, &command);
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("guarded"),
        "{command}: {approved:#}"
    );
    write(&home.user_home, "bin/guard.sh", LEAVES_A_MARK);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command}: the edit ran unasked"
    );
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
}

#[test]
fn a_script_that_computes_the_name_it_runs_cannot_be_approved() {
    let (home, project) = home_with("[claude]");
    for (command, script, text) in [
        (
            "sh $HOME/bin/run.sh",
            "bin/run.sh",
            "sh \"$(printf tools/g.%s sh)\"\n",
        ),
        (
            "bash $HOME/bin/run",
            "bin/run",
            "#!/bin/bash\n. \"$HOME/bin/lib.sh\"\nrun_it\n",
        ),
    ] {
        write(
            &home.user_home,
            "bin/lib.sh",
            "run_it() { bash \"$(echo hs.g/sloot | rev)\"; }\n",
        );
        write(&home.user_home, script, text);
        let accepted = accepted_then_edited(&home, &project, command);
        let message = accepted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("named only when it runs"),
            "{command}: {message}"
        );
    }
}
