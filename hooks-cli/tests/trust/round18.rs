//! Red team round 18, round 17's fixes attacked: a loader value that climbs
//! out of a project link (`<p>/l/../../tools/env.sh`: R18-1), names the
//! project through `~` (R18-2), or is a glob a shell expands (R18-3) is
//! the project's; `--require  pkg` with two blanks is read as one (R18-4).
//! R18-5: an MCP matcher mixing `-` and `_` runs on Hermes's name.

use crate::dialects::{
    answering, emit_json, emit_terminal_command, home_with, user_fail_closed_guard,
    user_guard_file, write,
};
use crate::round17::{approved_bash_guard_and_env_file, rm_with_bash_env};
use crate::support::Run;

#[test]
fn loader_values_that_reach_the_project_another_way_are_withheld() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    std::fs::create_dir_all(project.join("a/b")).expect("a/b");
    std::os::unix::fs::symlink(project.join("a/b"), project.join("l")).expect("link");
    let climb = format!("{}/l/../../tools/env.sh", project.display());
    for value in [climb.as_str(), "~/project/tools/env.sh"] {
        let emitted = rm_with_bash_env(&home, &project, &project, value);
        assert!(!marker.exists(), "{value}: {emitted:#}");
        assert_eq!(
            emitted["outcome"]["message"], "no rm",
            "{value}: {emitted:#}"
        );
    }
    // A value a shell runs, with a glob: withheld (the guard's own command is its business).
    let seen = "env > \"$HOME/seen.env\"; cat >/dev/null; echo '{}'\n";
    let (home, project) = user_guard_file("sh ~/.claude/hooks/guard.sh", "guard.sh", seen);
    write(&project, "tools/ssh.sh", "");
    write(&project, "node_modules/evilpkg/index.js", "");
    let mut emit = emit_terminal_command(&home, &project, Some(&project), "ls", true);
    emit.env("GIT_SSH_COMMAND", "sh t*ols/ssh.sh")
        .env("NODE_OPTIONS", "--require  evilpkg");
    Run(emit.output().expect("run hooks")).json();
    let env = std::fs::read_to_string(home.user_home.join("seen.env")).expect("the guard ran");
    for name in ["GIT_SSH_COMMAND", "NODE_OPTIONS"] {
        assert!(!env.contains(&format!("{name}=")), "{name}: {env}");
    }
}

#[test]
fn an_mcp_matcher_mixing_dashes_and_underscores_runs_on_hermes_name() {
    let answer = serde_json::json!({"decision": "block", "reason": "mcp guard"});
    for matcher in ["mcp__my_org-server__.*", "mcp__github__get_file-contents"] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &answering(&answer), None);
        let tool = if matcher.contains("github") {
            "mcp__github__get_file_contents"
        } else {
            "mcp__my_org_server__list"
        };
        let payload = serde_json::json!({"tool_name": tool, "args": {}, "task_id": "t"});
        let emitted = emit_json(
            &home,
            &project,
            &["--accept-hooks"],
            "pre_tool_call",
            &payload,
        );
        assert_eq!(
            emitted["outcome"]["message"], "mcp guard",
            "{matcher}: {emitted:#}"
        );
    }
}
