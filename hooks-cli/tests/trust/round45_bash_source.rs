//! Red team R42-13: a bash guard run from its sealed copy saw
//! `BASH_SOURCE` name the copy (`/proc/self/fd/N`), so a guard finding its
//! library by it (`"$(dirname "${BASH_SOURCE[0]}")"/lib.sh`,
//! `"${BASH_SOURCE%/*}"/lib.sh`) failed every run, and one running `main`
//! only when `[[ "${BASH_SOURCE[0]}" == "$0" ]]` never ran it: approved,
//! each allowed everything, in silence. The copy bash sources now reads
//! the script's path there, and is still the checked bytes.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, executable, home_with, user_fail_closed_command, write};

/// Blocks with exit 2, saying so on stderr.
const LIB: &str = "check() { cat >/dev/null; echo 'the library says no' >&2; exit 2; }\n";

/// Guards reading `BASH_SOURCE`, and what each blocks with.
const GUARDS: [(&str, &str); 3] = [
    (
        "#!/bin/bash\nSCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n\
         source \"$SCRIPT_DIR/lib.sh\"\ncheck\n",
        "the library says no",
    ),
    (
        "#!/bin/bash\nsource \"${BASH_SOURCE%/*}/lib.sh\"\ncheck\n",
        "the library says no",
    ),
    (
        "#!/bin/bash\nmain() {\n  cat >/dev/null\n  echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\
         \"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"main says no\"}}'\n}\n\
         if [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then\n  main \"$@\"\nfi\n",
        "main says no",
    ),
];

/// `settings` (a Claude settings file) running `command` for every Bash
/// call, neither fail-closed nor sandboxed in a project's folder copy.
fn settings(command: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}
    ]}]}})
    .to_string()
}

/// Asserts that `emitted` blocked with `message`.
fn assert_blocked(emitted: &Value, message: &str, what: &str) {
    assert_eq!(
        emitted["outcome"]["action"],
        json!("block"),
        "{what}: {emitted:#}"
    );
    assert_eq!(
        emitted["outcome"]["message"],
        json!(message),
        "{what}: {emitted:#}"
    );
}

/// Writes each guard as `<folder>/x.sh` (executable) beside [`LIB`], the
/// hook run by `command`: approved, then again, it blocks.
fn each_guard_blocks(folder: &Path, command: &str, run: &dyn Fn(bool) -> Value) {
    write(folder, "lib.sh", LIB);
    for (guard, message) in GUARDS {
        executable(&write(folder, "x.sh", guard));
        for accept in [true, false] {
            let emitted = run(accept);
            assert_blocked(&emitted, message, &format!("{command} running {guard}"));
            assert_eq!(emitted["runs"][0].get("sandbox"), None, "{emitted:#}");
        }
    }
}

#[test]
fn a_project_guard_finding_itself_by_bash_source_guards() {
    for command in [
        "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh",
        "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh",
    ] {
        let (home, project) = home_with("[claude]");
        // The script runs from its sealed copy, not by its path.
        home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
        write(&project, ".claude/settings.json", &settings(command));
        each_guard_blocks(&project.join(".claude/hooks"), command, &|accept| {
            emit_terminal(&home, &project, "rm -rf /", accept)
        });
    }
}

#[test]
fn a_user_guard_finding_itself_by_bash_source_guards() {
    for command in ["bash ~/.claude/hooks/x.sh", "~/.claude/hooks/x.sh"] {
        let (home, project) = home_with("[claude]");
        write(&home.user_home, ".claude/settings.json", &settings(command));
        each_guard_blocks(&home.user_home.join(".claude/hooks"), command, &|accept| {
            emit_terminal(&home, &project, "rm -rf /", accept)
        });
    }
}

#[test]
fn content_copied_over_the_guard_after_the_check_never_runs() {
    // The command itself replaces the checked script before the shell
    // reaches it: the checked bytes, `BASH_SOURCE` renamed, run.
    for run in ["bash tools/x.sh", "tools/x.sh"] {
        let (home, project) = home_with("[claude]");
        let marker = project.join("PWNED");
        let (guard, message) = GUARDS[2];
        executable(&write(&project, "tools/x.sh", guard));
        let other = format!(
            "#!/bin/bash\ncat >/dev/null\ntouch {}\n# ${{BASH_SOURCE[0]}}\n",
            marker.display()
        );
        write(&project, "tools/other.sh", &other);
        let command =
            format!("cd \"$CLAUDE_PROJECT_DIR\" && cp tools/other.sh tools/x.sh && {run}");
        user_fail_closed_command(&home, &command);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert!(!marker.exists(), "{run}: other content ran: {emitted:#}");
        assert_blocked(&emitted, message, run);
    }
}

/// A command that opens the descriptors a script commonly names (`exec
/// 9>lock; flock 9`) before it runs the checked script: the sealed copy is
/// read through a number above them, so the checked bytes still run, not
/// content copied over the script after the check (the copy's own number,
/// redirected, made the run go by path).
#[test]
fn a_command_opening_low_descriptors_still_runs_the_checked_bytes() {
    let (home, project) = home_with("[claude]");
    let marker = project.join("PWNED");
    let (guard, message) = GUARDS[2];
    executable(&write(&project, "tools/x.sh", guard));
    let other = format!("#!/bin/bash\ncat >/dev/null\ntouch {}\n", marker.display());
    write(&project, "tools/other.sh", &other);
    let opens: Vec<String> = (3..64).map(|fd| format!("{fd}>>lock")).collect();
    let command = format!(
        "cd \"$CLAUDE_PROJECT_DIR\" && bash -c 'exec {} && cp tools/other.sh tools/x.sh && bash \
         tools/x.sh'",
        opens.join(" ")
    );
    user_fail_closed_command(&home, &command);
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert!(!marker.exists(), "other content ran: {emitted:#}");
    assert_blocked(&emitted, message, &command);
}
