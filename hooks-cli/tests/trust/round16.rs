//! Red team round 16 (false blocks of rounds 14 and 15's fixes): a Claude
//! `mcp__…` guard runs on Hermes's MCP tools (R16-5); a native guard's
//! approval holds when `hooks` starts in `~` (R16-4); a plugin's
//! `mixture_of_agents` is not `delegate_task` (R16-1); relative words naming
//! nothing in the project reach a user's hook (R16-8); a native guard on a
//! tool a plugin declares is not warned (R16-3).

use crate::dialects::{emit_terminal_command, in_project};
use crate::round14_native_matchers::{blocked_by_guard, emit, guarded};
use crate::support::Run;

#[test]
fn a_claude_mcp_guard_runs_on_hermes_mcp_tools() {
    for matcher in ["mcp__.*", "mcp__github__.*", "mcp__github__create_issue"] {
        crate::round17::mcp_guard_runs(matcher, None, "mcp_github_create_issue");
    }
}

#[test]
fn a_native_approval_holds_when_hooks_starts_in_the_home() {
    let (home, project) = crate::round14::native_rm_guard();
    let mut approve = emit_terminal_command(&home, &project, Some(&project), "ls", true);
    Run(approve.output().expect("run hooks")).json();
    for folder in [
        home.user_home.as_path(),
        std::path::Path::new("/"),
        &project,
    ] {
        let mut emit = emit_terminal_command(&home, &project, Some(folder), "ls", false);
        let emitted = Run(emit.output().expect("run hooks")).json();
        assert_eq!(
            emitted["outcome"],
            serde_json::Value::Null,
            "{}: {emitted:#}",
            folder.display()
        );
    }
}

#[test]
fn a_native_guard_on_a_plugin_tool_with_a_live_name_inside_keeps_to_its_tool() {
    let (home, project) = guarded("mixture_of_agents", true);
    let (delegate, _) = emit(&home, &project, "delegate_task");
    assert_eq!(delegate["outcome"], serde_json::Value::Null, "{delegate:#}");
    let (own, _) = emit(&home, &project, "mixture_of_agents");
    assert!(blocked_by_guard(&own), "{own:#}");
    let doctor = in_project(&home, &project, &["doctor"]);
    assert_eq!(doctor.code(), Some(0), "{}", doctor.stdout());
}

#[test]
fn a_native_guard_on_a_tool_a_plugin_declares_is_not_said_to_never_run() {
    for matcher in [
        "jira_create_ticket",
        "read_file|jira_create_ticket",
        "jira_.*",
    ] {
        let (home, project) = guarded(matcher, true);
        let plugin = home.hermes.join("plugins/jira");
        std::fs::create_dir_all(&plugin).expect("plugin folder");
        std::fs::write(
            plugin.join("plugin.yaml"),
            "name: jira\nprovides_tools: [jira_create_ticket]\n",
        )
        .expect("manifest");
        let (own, stderr) = emit(&home, &project, "jira_create_ticket");
        assert!(blocked_by_guard(&own), "{matcher}: {own:#}");
        assert!(!stderr.contains("NEVER RUNS"), "{matcher}: {stderr}");
        let (other, _) = emit(&home, &project, "terminal");
        assert_eq!(
            other["outcome"],
            serde_json::Value::Null,
            "{matcher}: {other:#}"
        );
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_eq!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
    }
    // A name no plugin declares is still said to never run.
    let (home, project) = guarded("jira_create_ticket", true);
    let (_, stderr) = emit(&home, &project, "jira_create_ticket");
    assert!(stderr.contains("provides_tools"), "{stderr}");
}

#[test]
fn relative_words_naming_nothing_in_the_project_reach_a_users_hook() {
    let ordinary = [
        ("GIT_AUTHOR_NAME", "jane.doe"),
        ("GIT_HTTP_USER_AGENT", "git/2.43.0"),
        ("LESSOPEN", "| /usr/bin/lesspipe %s"),
        (
            "NIX_PATH",
            "nixpkgs=/nix/var/nix/profiles/per-user/root/channels/nixpkgs",
        ),
        ("PIP_NO_CACHE_DIR", "off"),
        (
            "JDK_JAVA_OPTIONS",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
        ),
    ];
    let (env, _) = crate::round17::env_a_users_guard_gets(&[], &ordinary);
    for (name, value) in ordinary {
        assert!(env.contains(&format!("{name}={value}\n")), "{name}: {env}");
    }
}
