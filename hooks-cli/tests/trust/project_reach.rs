//! Code an approved project hook reaches outside the tool folder (red-team
//! round 3): through its settings file's `env` block (`PATH`, `BASH_ENV`,
//! `HOME`: B1) or through a named script's neighbours (`scripts/`,
//! `tools/`: B2). A change there must ask again, never run.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, home_with, in_project, write};
use crate::harness;

fn script(project: &Path, relative: &str, body: &str) {
    let path = write(project, relative, body);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

const PWN: &str = "#!/bin/sh\necho PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";
const OK: &str = "#!/bin/sh\n: ok\n";

/// Approves the project's `settings` as they are (`setup` may rewrite them), lets
/// `change` edit a file of the repository, and emits again: the changed
/// code must not run.
fn changed_code_never_runs_unasked(
    settings: Value,
    setup: impl Fn(&Path),
    change: impl Fn(&Path),
) -> Value {
    let (home, project) = home_with("[claude]");
    write(&project, ".claude/settings.json", &settings.to_string());
    setup(&project);
    let approved = emit_terminal(&home, &project, "ls", true);
    assert!(!project.join("pwned").exists(), "{approved}");
    change(&project);
    let after = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "changed code ran without a new approval: {after}"
    );
    let listed = in_project(&home, &project, &["list"]);
    let shown = format!("{}{}", listed.stdout(), listed.stderr());
    json!({"approved": approved, "after": after, "list": shown})
}

fn hook(command: &str, env: Value) -> Value {
    json!({"env": env, "hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": command}
    ]}]}})
}

#[test]
fn a_projects_env_block_cannot_point_hooks_at_unbound_code() {
    // PATH: a bare program found in the project's tools/.
    let seen = changed_code_never_runs_unasked(
        hook("checker", json!({"PATH": "TOOLS:/usr/bin:/bin"})),
        |project| {
            let settings = hook(
                "checker",
                json!({"PATH": format!("{}/tools:/usr/bin:/bin", project.display())}),
            );
            write(project, ".claude/settings.json", &settings.to_string());
            script(project, "tools/checker", OK);
        },
        |project| script(project, "tools/checker", PWN),
    );
    let warned = seen["list"].as_str().unwrap_or_default();
    assert!(
        warned.contains("settings.json") && warned.contains("env.PATH"),
        "{warned}"
    );
    // BASH_ENV: sourced by bash before the approved script.
    changed_code_never_runs_unasked(
        hook(
            "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
            json!({"BASH_ENV": "tools/env.sh"}),
        ),
        |project| {
            script(project, ".claude/hooks/check.sh", "cat >/dev/null\n");
            script(project, "tools/env.sh", ": ok\n");
        },
        |project| script(project, "tools/env.sh", PWN),
    );
    // HOME: `$HOME` names a folder of the repository.
    changed_code_never_runs_unasked(
        hook("\"$HOME\"/.claude/hooks/a.sh", json!({"HOME": "VENDOR"})),
        |project| {
            let settings = hook(
                "\"$HOME\"/.claude/hooks/a.sh",
                json!({"HOME": project.join("vendor").display().to_string()}),
            );
            write(project, ".claude/settings.json", &settings.to_string());
            script(project, "vendor/.claude/hooks/a.sh", OK);
        },
        |project| script(project, "vendor/.claude/hooks/a.sh", PWN),
    );
}

#[test]
fn a_user_settings_env_block_is_kept() {
    let (home, project) = home_with("[claude]");
    let capture = home.user_home.join("seen");
    let settings = json!({"env": {"PATH": format!("/opt/mine:{}", std::env::var("PATH").unwrap_or_default())},
    "hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": format!("echo \"$PATH\" > {}", capture.display())}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    emit_terminal(&home, &project, "ls", true);
    let seen = std::fs::read_to_string(&capture).expect("the user's hook ran");
    assert!(seen.starts_with("/opt/mine:"), "{seen}");
}

#[test]
fn a_script_a_named_project_script_runs_is_bound() {
    let seen = changed_code_never_runs_unasked(
        hook("\"$CLAUDE_PROJECT_DIR\"/scripts/check.sh", json!({})),
        |project| {
            script(
                project,
                "scripts/check.sh",
                "#!/bin/sh\ncat >/dev/null\nsh \"$CLAUDE_PROJECT_DIR/scripts/helper.sh\"\n",
            );
            script(project, "scripts/helper.sh", OK);
        },
        |project| script(project, "scripts/helper.sh", PWN),
    );
    ran_then_asked(&seen);
}

/// The approved hook ran, and the changed one was skipped (asks again).
fn ran_then_asked(seen: &Value) {
    assert_eq!(
        seen["approved"]["runs"][0]["status"],
        json!("completed"),
        "{seen}"
    );
    assert_eq!(
        seen["after"]["runs"][0]["status"],
        json!("skipped"),
        "{seen}"
    );
}

#[test]
fn a_module_a_named_python_script_imports_is_bound() {
    if !harness::python_available() {
        return;
    }
    let seen = changed_code_never_runs_unasked(
        hook("python3 tools/check.py", json!({})),
        |project| {
            write(
                project,
                "tools/check.py",
                "import sys\nsys.stdin.read()\nfrom sub import util\n",
            );
            write(project, "tools/sub/__init__.py", "");
            write(project, "tools/sub/util.py", "pass\n");
        },
        |project| {
            write(
                project,
                "tools/sub/util.py",
                "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n",
            );
        },
    );
    ran_then_asked(&seen);
}

/// A variable on no list that names a file of the project (red-team round 4,
/// N1: `MAKEFILES=tools/extra.mk`, `OPENSSL_CONF=./x.cnf`): the hook sources
/// what `$HOOK_SOURCE` names; a change there must ask again, never run.
#[test]
fn a_projects_env_value_naming_a_project_file_cannot_point_hooks_at_it() {
    let seen = changed_code_never_runs_unasked(
        hook(
            "sh -c '. \"$CLAUDE_PROJECT_DIR/${HOOK_SOURCE:-/dev/null}\"; cat >/dev/null'",
            json!({"HOOK_SOURCE": "tools/lib.sh"}),
        ),
        |project| script(project, "tools/lib.sh", ": ok\n"),
        |project| script(project, "tools/lib.sh", PWN),
    );
    let warned = seen["list"].as_str().unwrap_or_default();
    assert!(
        warned.contains("env.HOOK_SOURCE") && warned.contains("tools/lib.sh"),
        "{warned}"
    );
}
