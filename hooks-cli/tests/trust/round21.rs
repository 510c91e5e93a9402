//! Red team round 21, round 20's fixes attacked: a command variable's
//! argument the program opens from the project (`EDITOR='sh run'`,
//! `GIT_SSH_COMMAND='ssh -F cfg'`: R21a-1, R21a-2), a tool's relative
//! settings file (`KUBECONFIG=.kube/config`: R21a-3) and `${PWD}` are the
//! project's; globs, plain `${HOME}` and `../x` that name nothing in it
//! reach a user's hook (R21a-4 to R21a-6). A project hook's Python whose
//! folder gains a file named as a standard module asks again (R21b-1).

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round17::env_a_users_guard_gets;

#[test]
fn command_arguments_and_settings_files_in_the_project_are_withheld() {
    let values = [
        ("EDITOR", "sh run"),
        ("GIT_SSH_COMMAND", "ssh -F sshcfg"),
        ("AWS_CONFIG_FILE", ".aws/config"),
        ("KUBECONFIG", ".kube/config"),
        ("BASH_ENV", "${PWD}/tools/env.sh"),
    ];
    let files = [
        "run",
        "sshcfg",
        ".aws/config",
        ".kube/config",
        "tools/env.sh",
    ];
    none_reach_a_users_guard(&files, &values);
}

/// With the project holding `files`, none of the host variables `values`
/// reaches a user's guard.
pub(crate) fn none_reach_a_users_guard(files: &[&str], values: &[(&str, &str)]) {
    let (env, _) = env_a_users_guard_gets(files, values);
    for (name, _) in values {
        let given = env
            .lines()
            .any(|line| line.starts_with(&format!("{name}=")));
        assert!(!given, "{name}: {env}");
    }
}

#[test]
fn globs_plain_expansions_and_climbs_naming_nothing_there_reach_a_users_hook() {
    let values = [
        ("CLASSPATH", "/usr/share/java/*"),
        ("MAVEN_OPTS", "-Dmaven.repo.local=${HOME}/.m2/repository"),
        ("CMAKE_PREFIX_PATH", "../install"),
        ("EDITOR", "sh notes"),
    ];
    let (env, _) = env_a_users_guard_gets(&["tools/env.sh"], &values);
    for (name, value) in values {
        let given = env.lines().any(|line| line == format!("{name}={value}"));
        assert!(given, "{name}: {env}");
    }
}

#[test]
fn a_standard_module_a_project_python_hook_imports_unnamed_asks_again() {
    // Options with values, shell forms (R22b-1, R22b-2), a symlinked script (R22b-3).
    for command in [
        "python3 check.py",
        "python3 -m check",
        "python3 -W ignore check.py",
        "python3 -W -I check.py",
        "python3 -- check.py",
        "cd . && python3 check.py",
        "sh -c 'python3 check.py'",
    ] {
        shadow_asks_again(
            command,
            "check.py",
            "import subprocess\nprint('{}')\n",
            "selectors.py",
        );
    }
    // A folder the command enters, one the script puts first (R22b-1, R22b-4).
    let inserts = "import sys\nsys.path.insert(0, 'lib')\nimport helper, subprocess\nprint('{}')\n";
    let entered = "cd lib && python3 -c 'import subprocess'";
    shadow_asks_again(entered, "check.py", inserts, "lib/selectors.py");
    shadow_asks_again("python3 check.py", "check.py", inserts, "lib/selectors.py");
}

/// A project hook running `command` (its script `script` holding `code`,
/// beside `lib/helper.py`) asks again, and runs nothing, once `shadow`
/// appears after the approval.
pub(crate) fn shadow_asks_again(command: &str, script: &str, code: &str, shadow: &str) {
    let (home, project) = home_with("[claude]");
    write(&project, script, code);
    write(&project, "lib/helper.py", "x = 1\n");
    approve_project_hook(&home, &project, command);
    let marker = project.join("PWNED");
    let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
    write(&project, shadow, &text);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{command}: {emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{command}: {emitted:#}"
    );
}
