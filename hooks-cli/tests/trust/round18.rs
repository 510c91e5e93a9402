//! Red team round 18, round 17's fixes attacked: a loader value that climbs
//! out of a project link (`<p>/l/../../tools/env.sh`: R18-1), names the
//! project through `~` (R18-2), or is a glob a shell expands (R18-3) is
//! the project's; `--require  pkg` with two blanks is read as one (R18-4).
//! R18-5: an MCP matcher mixing `-` and `_` runs on Hermes's name.

use crate::round17::{
    approved_bash_guard_and_env_file, bash_env_values_withheld, env_a_users_guard_gets,
    mcp_guard_runs,
};

#[test]
fn loader_values_that_reach_the_project_another_way_are_withheld() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    std::fs::create_dir_all(project.join("a/b")).expect("a/b");
    std::os::unix::fs::symlink(project.join("a/b"), project.join("l")).expect("link");
    let climb = format!("{}/l/../../tools/env.sh", project.display());
    bash_env_values_withheld(
        &home,
        &project,
        &marker,
        &[&climb, "~/project/tools/env.sh"],
    );
    // A value a shell runs, with a glob: withheld (the guard's own command is its business).
    let (env, _) = env_a_users_guard_gets(
        &["tools/ssh.sh", "node_modules/evilpkg/index.js"],
        &[
            ("GIT_SSH_COMMAND", "sh t*ols/ssh.sh"),
            ("NODE_OPTIONS", "--require  evilpkg"),
        ],
    );
    for name in ["GIT_SSH_COMMAND", "NODE_OPTIONS"] {
        assert!(!env.contains(&format!("{name}=")), "{name}: {env}");
    }
}

#[test]
fn an_mcp_matcher_mixing_dashes_and_underscores_runs_on_hermes_name() {
    mcp_guard_runs("mcp__my_org-server__.*", None, "mcp__my_org_server__list");
    mcp_guard_runs(
        "mcp__github__get_file-contents",
        None,
        "mcp__github__get_file_contents",
    );
}
