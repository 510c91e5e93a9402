//! Red team R42-8: the user's hook script (`bash ~/.claude/hooks/x.sh`,
//! run in every project) or a file outside the project that a hook runs or
//! sources (`. /tmp/gen.sh`) runs the project's `tools/g.sh` by a static
//! name. Only the script itself was bound, so a cloned repository's
//! `tools/g.sh`, or an edit of it after approval, ran unasked; the direct
//! hook `sh tools/g.sh` binds it. The project's scripts a bound script
//! names are now bound and followed in turn; what lies outside the project
//! and the project's programs (binaries) stay unbound.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, write};
use crate::round39::{GUARDS, LEAVES_A_MARK, accepted_then_edited, assert_guarded, runs_guarded};

/// Makes `path` executable.
fn executable(path: &std::path::Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn a_user_hook_script_binds_the_project_script_it_runs() {
    let (home, project) = home_with("[claude]");
    executable(&write(&project, "tools/g.sh", GUARDS));
    let command = "bash ~/.claude/hooks/x.sh";
    for body in [
        "#!/bin/bash\nsh tools/g.sh a\n",
        "#!/bin/bash\ncd \"$CLAUDE_PROJECT_DIR\"\n./tools/g.sh a\n",
        "#!/bin/bash\nsh \"${PWD}/tools/g.sh\" a\n",
    ] {
        write(&home.user_home, ".claude/hooks/x.sh", body);
        let accepted = accepted_then_edited(&home, &project, command);
        assert_guarded(body, &accepted);
    }
}

#[test]
fn a_file_outside_the_project_run_or_sourced_binds_the_project_script_it_runs() {
    let (home, project) = home_with("[claude]");
    let generated = write(&home.user_home, "gen/gen.sh", "sh tools/g.sh a\n");
    for how in [".", "sh", "bash"] {
        let command = format!("{how} {}", generated.display());
        let accepted = accepted_then_edited(&home, &project, &command);
        assert_guarded(&command, &accepted);
    }
}

#[test]
fn what_a_bound_project_script_runs_is_followed_in_turn() {
    let (home, project) = home_with("[claude]");
    write(&home.user_home, ".claude/hooks/x.sh", "sh tools/run.sh a\n");
    for run in [
        "sh tools/g.sh \"$1\"\n",
        "sh \"$(dirname \"$0\")/g.sh\" \"$1\"\n",
    ] {
        write(&project, "tools/run.sh", run);
        let accepted = accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
        assert_guarded(run, &accepted);
    }
}

#[test]
fn a_project_program_stays_unbound_while_the_project_script_is_bound() {
    // A program built in the project is rebuilt often: the hook keeps
    // running without asking (a tool's own files are not read as the
    // project's scripts; the reverted first attempt bound them).
    let (home, project) = home_with("[claude]");
    let program = project.join("target/debug/tool");
    std::fs::create_dir_all(program.parent().expect("parent")).expect("mkdir");
    std::fs::copy("/bin/true", &program).expect("copy true");
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "./target/debug/tool || true\nsh tools/g.sh a\n",
    );
    write(&project, "tools/g.sh", GUARDS);
    let command = "bash ~/.claude/hooks/x.sh";
    runs_guarded(&home, &project, command);
    std::fs::copy("/bin/false", &program).expect("rebuilt");
    assert_guarded(command, &emit_terminal(&home, &project, "ls", false));
    write(&project, "tools/g.sh", LEAVES_A_MARK);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "the edit ran unasked");
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
}
