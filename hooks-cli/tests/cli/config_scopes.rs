//! hermes-agent's config semantics through the binary: `${VAR}` in a hook's
//! command, the managed scope merged over the user's file, and `list`
//! saying which scope each shell hook came from.

use crate::harness;
use crate::support::TempHome;

const BLOCKING: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"guarded\"}'\n";

fn managed(home: &TempHome, yaml: &str) {
    home.write_outside("managed-scope/config.yaml", yaml);
}

trait Outside {
    fn write_outside(&self, relative: &str, text: &str);
}

impl Outside for TempHome {
    fn write_outside(&self, relative: &str, text: &str) {
        let path = self.user_home.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

#[test]
fn a_guard_named_through_an_env_var_runs() {
    let home = TempHome::new();
    let script = home.script("guard.sh", BLOCKING);
    let dir = script.parent().expect("dir").display().to_string();
    home.config("hooks:\n  pre_tool_call:\n    - command: ${GUARD_DIR}/guard.sh\n");
    let mut command = harness::command(
        &home,
        &["--accept-hooks", "emit", "pre_tool_call", "--json"],
    );
    command.env("GUARD_DIR", &dir);
    let output = command.output().expect("run hooks");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(document["outcome"]["action"], "block", "{document}");
}

#[test]
fn a_guard_pinned_in_the_managed_scope_runs_and_is_marked() {
    let home = TempHome::new();
    let guard = home.script("guard.sh", BLOCKING);
    let mine = home.script("mine.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    home.config(&format!(
        "hooks_auto_accept: false\nhooks:\n  pre_tool_call:\n    - command: {}\n  on_session_start:\n    - command: {}\n",
        mine.display(),
        mine.display()
    ));
    managed(
        &home,
        &format!(
            "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
            guard.display()
        ),
    );
    let run = home.hooks(&["--accept-hooks", "emit", "pre_tool_call", "--json"]);
    assert_eq!(run.json()["outcome"]["action"], "block", "{}", run.stderr());

    let listed = home.hooks(&["list", "--json"]).json();
    let hooks = listed["shell_hooks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let scope_of = |command: &std::path::Path| {
        hooks
            .iter()
            .find(|hook| hook["command"] == command.display().to_string())
            .map(|hook| hook["scope"].clone())
    };
    assert_eq!(hooks.len(), 2, "{listed}");
    assert_eq!(scope_of(&guard), Some("managed".into()), "{listed}");
    assert_eq!(scope_of(&mine), Some("user".into()), "{listed}");

    let text = home.hooks(&["list"]).ok();
    let guard_line = text
        .lines()
        .find(|line| line.contains(&guard.display().to_string()))
        .unwrap_or_default();
    assert!(guard_line.contains("managed"), "{text}");
    let mine_line = text
        .lines()
        .find(|line| line.contains(&mine.display().to_string()))
        .unwrap_or_default();
    assert!(!mine_line.contains("managed"), "{text}");
    assert!(text.contains("managed-scope/config.yaml"), "{text}");
}

#[test]
fn a_broken_managed_file_is_a_warning_in_list() {
    let home = TempHome::new();
    home.config("hooks: {}\n");
    managed(&home, "hooks: [\n");
    let listed = home.hooks(&["list", "--json"]).json();
    let warnings = listed["warnings"].to_string();
    assert!(warnings.contains("IGNORING"), "{listed}");
    assert!(warnings.contains("managed-scope/config.yaml"), "{listed}");
}
