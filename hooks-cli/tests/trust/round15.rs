//! Red team round 15. R15-1: a loader value spelled through a process's
//! own folder (`BASH_ENV=/proc/self/cwd/tools/env.sh`) is the project's
//! wherever `hooks` was started. R15-4: git settings a devcontainer or CI
//! runner gives through the environment (`safe.directory`) reach a user's
//! hook. R15-2: a native guard on a plugin's tool whose name is near a
//! Hermes tool's (`batch`, `memo`) keeps guarding its tool. R15-5: a
//! fail-closed answer with a reason but no verdict blocks. R15-7: a native
//! guard whose pattern matches no tool (`(?!x)Bash`, `|`) is not silent.

use serde_json::json;

use crate::dialects::{emit_terminal_command, in_project, user_guard_file, write};
use crate::round14_native_matchers::{blocked_by_guard, emit, guarded};
use crate::support::Run;

#[test]
fn a_loader_through_proc_self_cwd_is_the_projects_wherever_hooks_starts() {
    let body = "input=$(cat)\ncase \"$input\" in *\"rm -rf\"*) echo '{\"decision\":\"block\",\"reason\":\"no rm\"}';; *) echo '{}';; esac\n";
    let (home, project) = user_guard_file("bash ~/.claude/hooks/guard.sh", "guard.sh", body);
    let mut approve = emit_terminal_command(&home, &project, None, "rm -rf /", true);
    let approved = Run(approve.output().expect("run hooks")).json();
    assert_eq!(approved["outcome"]["message"], "no rm", "{approved:#}");
    let marker = home.user_home.join("pwned");
    write(
        &project,
        "tools/env.sh",
        &format!("touch {marker:?}; echo '{{}}'; exit 0\n"),
    );
    let sub = project.join("sub");
    std::fs::create_dir_all(&sub).expect("sub");
    for folder in [std::path::Path::new("/"), &home.user_home, &sub] {
        for value in [
            "/proc/self/cwd/tools/env.sh",
            "/proc/thread-self/cwd/tools/env.sh",
            "//proc/self/cwd/./tools/env.sh",
        ] {
            let mut emit = emit_terminal_command(&home, &project, Some(folder), "rm -rf /", false);
            emit.env("BASH_ENV", value);
            let emitted = Run(emit.output().expect("run hooks")).json();
            assert!(
                !marker.exists(),
                "{} {value}: {emitted:#}",
                folder.display()
            );
            assert_eq!(emitted["outcome"]["message"], json!("no rm"), "{emitted:#}");
        }
    }
}

#[test]
fn git_settings_a_container_gives_reach_a_users_hook() {
    let settings = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "safe.directory"),
        ("GIT_CONFIG_VALUE_0", "*"),
    ];
    let (env, emitted) = crate::round17::env_a_users_guard_gets(&[], &settings);
    assert_eq!(emitted["runs"][0]["status"], "completed", "{emitted:#}");
    // The container's pair first, then every hook's own (round 53).
    let pairs = crate::round14::git_pairs(&env);
    let expected = [("safe.directory", "*"), ("safe.bareRepository", "explicit")];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect();
    assert_eq!(pairs, expected, "{env}");
}

#[test]
fn a_native_guard_on_a_plugin_tool_near_a_hermes_name_keeps_its_tool() {
    for tool in ["batch", "memo", "todos", "x_search2"] {
        let (home, project) = guarded(tool, true);
        let (emitted, stderr) = emit(&home, &project, tool);
        assert!(blocked_by_guard(&emitted), "{tool}: {emitted:#}");
        assert!(stderr.contains("as written"), "{tool}: {stderr}");
    }
}

#[test]
fn a_fail_closed_answer_with_a_reason_but_no_verdict_blocks() {
    for answer in [
        json!({"reason": "blocked by policy"}),
        json!({"hookSpecificOutput": {}, "reason": "blocked"}),
    ] {
        crate::round14::claude_answer_blocks(&answer, "no verdict");
    }
}

#[test]
fn a_native_guard_whose_pattern_matches_no_tool_is_not_silent() {
    for matcher in ["(?!x)Bash", "|"] {
        let (home, project) = guarded(matcher, true);
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
        assert!(
            doctor.stdout().contains("NEVER RUNS"),
            "{matcher}: {}",
            doctor.stdout()
        );
    }
}
