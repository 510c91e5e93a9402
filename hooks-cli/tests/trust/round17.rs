//! Red team round 17, round 16's fixes attacked. R17-1: a loader value a
//! shell expands or unquotes (`$PWD/tools/env.sh`, `~+/…`) is the
//! project's; R17-2: a relative value is looked up where a native hook runs
//! (`P/sub`) as well as in the project; R17-3: `/dev/fd/../cwd/…` is a path
//! through a process. R17-4 to R17-6: Claude's MCP names reach Hermes's MCP
//! calls: an `if` rule `mcp__github`, dashes Hermes spells `_`, and a
//! guard's matcher `mcp__github`.

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_json, emit_terminal_command, home_with, user_fail_closed_guard,
    user_guard_file, write,
};
use crate::support::{Run, TempHome};

pub(crate) const RM_GUARD: &str = "input=$(cat)\ncase \"$input\" in *\"rm -rf\"*) echo '{\"decision\":\"block\",\"reason\":\"no rm\"}';; *) echo '{}';; esac\n";

/// `rm -rf /` from `folder` with `BASH_ENV=value`: the outcome's message.
pub(crate) fn rm_with_bash_env(
    home: &TempHome,
    project: &std::path::Path,
    folder: &std::path::Path,
    value: &str,
) -> Value {
    let mut emit = emit_terminal_command(home, project, Some(folder), "rm -rf /", false);
    emit.env("BASH_ENV", value);
    Run(emit.output().expect("run hooks")).json()
}

/// A user's approved `bash` guard that blocks `rm -rf` ("no rm"), and the
/// project's `tools/env.sh` that makes the returned marker when it runs.
pub(crate) fn approved_bash_guard_and_env_file()
-> (TempHome, std::path::PathBuf, std::path::PathBuf) {
    let (home, project) = user_guard_file("bash ~/.claude/hooks/guard.sh", "guard.sh", RM_GUARD);
    let mut approve = emit_terminal_command(&home, &project, None, "rm -rf /", true);
    Run(approve.output().expect("run hooks")).json();
    let marker = home.user_home.join("pwned");
    write(
        &project,
        "tools/env.sh",
        &format!("touch {marker:?}; echo '{{}}'; exit 0\n"),
    );
    (home, project, marker)
}

#[test]
fn loader_values_a_shell_expands_or_a_process_path_reaches_are_the_projects() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    for value in [
        "$PWD/tools/env.sh",
        "${PWD}/tools/env.sh",
        "~+/tools/env.sh",
        "/dev/fd/../cwd/tools/env.sh",
        "/proc/thread-self/../../cwd/tools/env.sh",
    ] {
        for folder in [project.as_path(), std::path::Path::new("/")] {
            let emitted = rm_with_bash_env(&home, &project, folder, value);
            assert!(
                !marker.exists(),
                "{value} from {}: {emitted:#}",
                folder.display()
            );
            assert_eq!(
                emitted["outcome"]["message"], "no rm",
                "{value}: {emitted:#}"
            );
        }
    }
}

#[test]
fn a_relative_loader_is_looked_up_where_a_native_hook_runs() {
    let home = TempHome::new();
    let project = home.user_home.join("project");
    let guard = home.write(
        "guard.sh",
        RM_GUARD
            .replace("decision", "action")
            .replace("reason", "message")
            .as_str(),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"bash {}\"\n      fail_closed: true\n",
        guard.display()
    ));
    let sub = project.join("sub");
    let marker = home.user_home.join("pwned");
    write(
        &sub,
        "lib/env.sh",
        &format!("touch {marker:?}; echo '{{}}'; exit 0\n"),
    );
    let mut approve = emit_terminal_command(&home, &project, Some(&sub), "ls", true);
    Run(approve.output().expect("run hooks")).json();
    let emitted = rm_with_bash_env(&home, &project, &sub, "lib/env.sh");
    assert!(!marker.exists(), "{emitted:#}");
    assert_eq!(emitted["outcome"]["message"], "no rm", "{emitted:#}");
}

#[test]
fn claude_mcp_names_reach_hermes_mcp_calls() {
    let answer = json!({"decision": "block", "reason": "mcp guard"});
    for (matcher, rule, tool) in [
        ("", Some("mcp__github"), "mcp_github_create_issue"),
        ("", Some("mcp__github"), "mcp__github__create_issue"),
        ("mcp__my-server__.*", None, "mcp__my_server__create_issue"),
        (
            "mcp__github__create-issue",
            None,
            "mcp__github__create_issue",
        ),
        ("mcp__github", None, "mcp_github_create_issue"),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &answering(&answer), rule);
        let payload = json!({"tool_name": tool, "args": {"title": "x"}, "task_id": "t"});
        let emitted = emit_json(
            &home,
            &project,
            &["--accept-hooks"],
            "pre_tool_call",
            &payload,
        );
        assert_eq!(
            emitted["outcome"]["message"], "mcp guard",
            "{matcher} {rule:?} {tool}: {emitted:#}"
        );
    }
}
