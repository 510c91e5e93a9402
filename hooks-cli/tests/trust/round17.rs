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

/// `rm -rf /` from `project` with each `BASH_ENV` value: the guard still
/// blocks it and the project's file never ran (its `marker` is not made).
pub(crate) fn bash_env_values_withheld(
    home: &TempHome,
    project: &std::path::Path,
    marker: &std::path::Path,
    values: &[&str],
) {
    for value in values {
        let emitted = rm_with_bash_env(home, project, project, value);
        assert!(!marker.exists(), "{value}: {emitted:#}");
        assert_eq!(
            emitted["outcome"]["message"], "no rm",
            "{value}: {emitted:#}"
        );
    }
}

/// The environment a user's approved `~/.claude` guard gets, run in a
/// project holding the (empty) `files`, with `env` set for `hooks`; and what
/// `emit` printed.
pub(crate) fn env_a_users_guard_gets(files: &[&str], env: &[(&str, &str)]) -> (String, Value) {
    let seen = "env > \"$HOME/seen.env\"; cat >/dev/null; echo '{}'\n";
    let (home, project) = user_guard_file("sh ~/.claude/hooks/guard.sh", "guard.sh", seen);
    for file in files {
        write(&project, file, "");
    }
    let mut emit = emit_terminal_command(&home, &project, Some(&project), "ls", true);
    emit.envs(env.iter().copied());
    let emitted = Run(emit.output().expect("run hooks")).json();
    let got = std::fs::read_to_string(home.user_home.join("seen.env")).expect("the guard ran");
    (got, emitted)
}

/// A user's fail-closed Claude guard for `matcher` (and `if` `rule`) runs on
/// a call of the MCP tool `tool`.
pub(crate) fn mcp_guard_runs(matcher: &str, rule: Option<&str>, tool: &str) {
    let answer = json!({"decision": "block", "reason": "mcp guard"});
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
        mcp_guard_runs(matcher, rule, tool);
    }
}
