//! A project's hooks as the trust tests set them up: a Claude settings
//! file with one approved hook, a `node_modules` tool as npm installs it.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, write};
use crate::support::TempHome;

/// `node_modules/.bin/tool` linked into its package, as npm installs it;
/// the package's `lib.js` is `body`.
pub(crate) fn node_tool_package(project: &Path, body: &str) {
    write(
        project,
        "node_modules/tool/package.json",
        r#"{"name":"tool","version":"1.0.0","bin":{"tool":"bin/cli.js"}}"#,
    );
    write(
        project,
        "node_modules/tool/bin/cli.js",
        "#!/usr/bin/env node\nrequire('../lib.js');\n",
    );
    write(project, "node_modules/tool/lib.js", body);
    use std::os::unix::fs::PermissionsExt;
    let cli = project.join("node_modules/tool/bin/cli.js");
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let bin = project.join("node_modules/.bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    if !bin.join("tool").exists() {
        std::os::unix::fs::symlink("../tool/bin/cli.js", bin.join("tool")).expect("link");
    }
}

/// Writes the project's Claude settings with one `PreToolUse` hook running
/// `command`, and approves it by running it once (`--accept-hooks`): the
/// run must complete.
pub(crate) fn approve_project_hook(home: &TempHome, project: &Path, command: &str) -> Value {
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": command}
    ]}]}});
    write(project, ".claude/settings.json", &settings.to_string());
    let approved = emit_terminal(home, project, "ls", true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved}"
    );
    approved
}
