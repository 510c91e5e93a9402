//! A project's hooks are bound to the project's whole tool folder
//! (`.claude/`, ...), links followed: code an approved script runs, sources
//! conditionally or reaches through a link cannot change unasked
//! (red-team A1, A8, A9).

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

fn script(path: &Path, body: &str) {
    write(
        path.parent().unwrap(),
        path.file_name().unwrap().to_str().unwrap(),
        body,
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Approves the project's hook as it is, then lets `change` edit a file it
/// reaches; the changed code must not run until approved again.
fn changed_code_never_runs_unasked(command: &str, setup: impl Fn(&Path), change: impl Fn(&Path)) {
    let (home, project) = home_with("[claude]");
    setup(&project);
    approve_project_hook(&home, &project, command);
    change(&project);
    let after = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "changed code ran without a new approval: {after}"
    );
    assert_eq!(after["runs"][0]["status"], json!("skipped"), "{after}");
}

const PWN: &str = "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";

#[test]
fn a_script_an_approved_script_runs_is_bound() {
    changed_code_never_runs_unasked(
        "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/a.sh",
        |project| {
            script(
                &project.join(".claude/hooks/a.sh"),
                "#!/bin/sh\nsh \"$CLAUDE_PROJECT_DIR/.claude/hooks/b.sh\"\ncat >/dev/null\n",
            );
            script(&project.join(".claude/hooks/b.sh"), ": ok\n");
        },
        |project| script(&project.join(".claude/hooks/b.sh"), PWN),
    );
}

#[test]
fn a_file_sourced_behind_a_condition_is_bound() {
    changed_code_never_runs_unasked(
        "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/a.sh",
        |project| {
            script(
                &project.join(".claude/hooks/a.sh"),
                "#!/bin/sh\n[ -f \"$CLAUDE_PROJECT_DIR/.claude/lib/x.sh\" ] && . \"$CLAUDE_PROJECT_DIR/.claude/lib/x.sh\"\ncat >/dev/null\n",
            );
            script(&project.join(".claude/lib/x.sh"), ": ok\n");
        },
        |project| script(&project.join(".claude/lib/x.sh"), PWN),
    );
}

#[test]
fn code_behind_a_link_in_the_tool_folder_is_bound() {
    changed_code_never_runs_unasked(
        "for f in \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/d/*.sh; do . \"$f\"; done; cat >/dev/null",
        |project| {
            script(&project.join("tools/x.sh"), ": ok\n");
            std::fs::create_dir_all(project.join(".claude/hooks")).unwrap();
            std::os::unix::fs::symlink("../../tools", project.join(".claude/hooks/d")).unwrap();
        },
        |project| script(&project.join("tools/x.sh"), PWN),
    );
}
