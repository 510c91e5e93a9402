//! `hooks_from:`: standard files, explicit files, and bad input as warnings.

use std::time::Duration;

use hermes_hooks_core::HookEvent;
use hermes_hooks_shell::dialect::{Dialect, Handler};
use serde_json::json;

use super::World;

fn guard(command: &str) -> serde_json::Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}})
}

#[test]
fn nothing_is_imported_without_hooks_from() {
    let world = World::new();
    world.claude_settings(guard("a.sh"));
    let config = hermes_hooks_core::Config::from_value(world.home.path(), json!({}));
    let found =
        hermes_hooks_shell::dialect::discover(&config, world.project(), Some(world.user.path()));
    assert!(found.hooks.is_empty() && found.warnings.is_empty());
}

#[test]
fn claude_reads_the_user_project_and_local_settings() {
    let world = World::new();
    World::write(
        world.user.path(),
        ".claude/settings.json",
        &guard("user.sh").to_string(),
    );
    world.claude_settings(guard("project.sh"));
    World::write(
        world.project(),
        ".claude/settings.local.json",
        &guard("local.sh").to_string(),
    );
    // The same handler in two files runs once.
    World::write(
        world.project(),
        ".claude/settings.local.json",
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"command": "local.sh"}, {"command": "project.sh"}]}
        ]}})
        .to_string(),
    );
    let found = world.discover(json!(["claude"]));
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let commands: Vec<String> = found.hooks.iter().map(|h| h.consent_command()).collect();
    assert_eq!(commands, ["user.sh", "project.sh", "local.sh"]);
    let hook = &found.hooks[0];
    assert_eq!(hook.dialect, Dialect::Claude);
    assert_eq!(hook.event(), Some(HookEvent::PreToolCall));
    assert_eq!(hook.key, "hooks.PreToolUse[0].hooks[0]");
    // Claude's default of 600 s, clamped to our maximum.
    assert_eq!(hook.timeout, Duration::from_secs(300));
    assert_eq!(hook.timeout_clamped_from, Some(600));
    assert_eq!(hook.cwd, world.project());
}

#[test]
fn disable_all_hooks_is_honoured() {
    let world = World::new();
    world.claude_settings(guard("project.sh"));
    World::write(
        world.project(),
        ".claude/settings.local.json",
        r#"{"disableAllHooks": true}"#,
    );
    let found = world.discover(json!(["claude"]));
    assert!(found.hooks.is_empty());
    assert_eq!(found.disabled_by.len(), 1);
}

#[test]
fn a_bad_file_or_entry_is_a_warning_and_the_rest_loads() {
    let world = World::new();
    world.claude_settings(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command"}, {"command": "good.sh", "timeout": "soon"}]},
            "not an object"
        ],
        "PreToolUze": [{"hooks": [{"command": "typo.sh"}]}],
        "PostToolUse": [{"hooks": [{"type": "prompt", "prompt": "is it fine? $ARGUMENTS"}]}],
        "Notification": [{"hooks": [{"command": "notify.sh", "timeout": 900}]}]
    }}));
    World::write(world.user.path(), ".claude/settings.json", "{ not json");
    let found = world.discover(json!(["claude", "vim", {"format": "claude"}, 7]));
    let keys: Vec<(String, String)> = found
        .warnings
        .iter()
        .map(|w| {
            (
                w.file.file_name().unwrap().to_string_lossy().into_owned(),
                w.key.clone(),
            )
        })
        .collect();
    for expected in [
        ("settings.json", ""),
        ("settings.json", "hooks.PreToolUse[0].hooks[0].command"),
        ("settings.json", "hooks.PreToolUse[0].hooks[1].timeout"),
        ("settings.json", "hooks.PreToolUse[1]"),
        ("settings.json", "hooks.PreToolUze"),
        ("settings.json", "hooks.PostToolUse[0].hooks[0].type"),
        ("settings.json", "hooks.Notification[0].hooks[0].timeout"),
        ("config.yaml", "hooks_from[1]"),
        ("config.yaml", "hooks_from[2]"),
        ("config.yaml", "hooks_from[3]"),
    ] {
        assert!(
            keys.iter()
                .any(|(file, key)| file == expected.0 && key == expected.1),
            "missing warning {expected:?} in {keys:?}"
        );
    }
    let typo = found
        .warnings
        .iter()
        .find(|w| w.key == "hooks.PreToolUze")
        .unwrap();
    assert!(
        typo.message.contains("unknown claude event 'PreToolUze'"),
        "{}",
        typo.message
    );
    let commands: Vec<String> = found.hooks.iter().map(|h| h.consent_command()).collect();
    assert_eq!(commands, ["good.sh", "notify.sh"]);
    assert_eq!(
        found.hooks[1].event(),
        None,
        "Notification has no Hermes event"
    );
    assert_eq!(found.unsupported.len(), 1);
    assert_eq!(found.unsupported[0].kind, "prompt");
}

#[test]
fn a_plugin_hooks_file_runs_with_its_plugin_root() {
    let world = World::new();
    let file = World::write(
        world.user.path(),
        "plugins/fmt/hooks/hooks.json",
        &json!({"description": "x", "hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [
            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh", "args": ["--fix", "${CLAUDE_PROJECT_DIR}"]}
        ]}]}})
        .to_string(),
    );
    let found = world.discover(json!([{"format": "claude", "path": file}]));
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let hook = &found.hooks[0];
    let root = world.user.path().join("plugins/fmt");
    assert_eq!(hook.plugin_root.as_deref(), Some(root.as_path()));
    assert_eq!(
        hook.substitute("${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh"),
        format!("{}/scripts/fmt.sh", root.display())
    );
    assert!(matches!(&hook.handler, Handler::Command { args: Some(args), .. } if args.len() == 2));
    // Claude Code's persistent plugin data folder, in the Hermes home.
    let data = world.home.path().join("plugin-data/claude/fmt");
    assert_eq!(hook.plugin_data().as_deref(), Some(data.as_path()));
    assert!(
        hook.environment()
            .contains(&("CLAUDE_PLUGIN_DATA", data.display().to_string())),
        "{:?}",
        hook.environment()
    );
    assert_eq!(
        hook.consent_command(),
        format!(
            "{}/scripts/fmt.sh --fix {}",
            root.display(),
            world.project().display()
        )
    );
}

#[test]
fn codex_reads_hooks_json_and_config_toml() {
    let world = World::new();
    World::write(
        world.user.path(),
        ".codex/hooks.json",
        &guard("json.sh").to_string(),
    );
    World::write(
        world.project(),
        ".codex/config.toml",
        "model = \"o4\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"toml.sh\"\ntimeout = 30\n",
    );
    // An event Codex does not have is unknown to it, even if Claude Code has it.
    World::write(
        world.project(),
        ".codex/hooks.json",
        &json!({"hooks": {"Notification": []}}).to_string(),
    );
    let found = world.discover(json!(["codex"]));
    let commands: Vec<String> = found.hooks.iter().map(|h| h.consent_command()).collect();
    assert_eq!(commands, ["json.sh", "toml.sh"]);
    assert_eq!(found.hooks[1].timeout, Duration::from_secs(30));
    assert!(
        found.warnings.iter().any(|w| w.key == "hooks.Notification"),
        "{:?}",
        found.warnings
    );
    World::write(world.project(), ".codex/config.toml", "[hooks\n");
    let broken = world.discover(json!(["codex"]));
    assert!(
        broken
            .warnings
            .iter()
            .any(|w| w.message.contains("is not valid TOML")),
        "{:?}",
        broken.warnings
    );
}

#[test]
fn cursor_runs_user_hooks_from_its_folder_and_resolves_paths_from_the_file() {
    let world = World::new();
    World::write(world.project(), ".cursor/hooks/format.sh", "exit 0\n");
    World::write(
        world.project(),
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeShellExecution": [{"command": "hooks/format.sh --check", "failClosed": true, "timeout": 5}],
            "workspaceOpen": [{"command": "x.sh"}]
        }})
        .to_string(),
    );
    World::write(
        world.user.path(),
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}).to_string(),
    );
    let found = world.discover(json!(["cursor"]));
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let user = &found.hooks[0];
    assert_eq!(user.cwd, world.user.path().join(".cursor"));
    assert_eq!(user.event(), Some(HookEvent::PreVerify));
    let shell = &found.hooks[1];
    let script = world.project().join(".cursor/hooks/format.sh");
    assert_eq!(
        shell.consent_command(),
        format!("{} --check", script.display())
    );
    assert!(shell.fail_closed);
    assert_eq!(shell.cwd, world.project());
    assert_eq!(found.hooks[2].event(), None);
}

#[test]
fn an_explicit_settings_file_runs_for_the_project_it_belongs_to() {
    let world = World::new();
    let other = tempfile::tempdir().expect("tempdir");
    let file = World::write(
        other.path(),
        ".claude/settings.json",
        &guard("x.sh").to_string(),
    );
    let found = world.discover(json!([{"format": "claude", "path": file}]));
    assert_eq!(found.hooks[0].project, other.path());
    assert_eq!(found.hooks[0].cwd, other.path());
    // A user settings file keeps the project given.
    let user = World::write(
        world.user.path(),
        ".claude/settings.json",
        &guard("y.sh").to_string(),
    );
    let found = world.discover(json!([{"format": "claude", "path": user}]));
    assert_eq!(found.hooks[0].project, world.project());
}
