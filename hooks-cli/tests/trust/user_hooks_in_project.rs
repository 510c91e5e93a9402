//! The user's own hooks run in the project's folder (as Claude Code and
//! Hermes run them), yet never run the repository's code unapproved
//! (red-team B1-B3): a `python3 -c` / `-m` / piped Python does not import
//! the repository's modules, and a `node_modules/.bin` tool of the project
//! that shadows the installed one is project code, bound in that project.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::dialects::{node_tool_package, write};
use crate::support::{Run, TempHome};

/// A cloned repository under the user's home.
fn cloned(home: &TempHome, name: &str) -> PathBuf {
    let project = home.user_home.join(name);
    std::fs::create_dir_all(&project).expect("project");
    project
}

/// `hooks [--accept-hooks] emit pre_tool_call --json` in `project`.
fn emit_in(home: &TempHome, project: &Path, accept: bool) -> Value {
    let mut command =
        crate::dialects::emit_terminal_command(home, project, Some(project), "ls", accept);
    let run = Run(command.output().expect("run hooks"));
    serde_json::from_str(&run.stdout())
        .unwrap_or_else(|_| panic!("not JSON: {}\n{}", run.stdout(), run.stderr()))
}

/// A module that records its import in `<project>/pwned`.
fn recording_module(project: &Path, relative: &str) {
    write(
        project,
        relative,
        &format!(
            "open({:?}, 'a').write('imported\\n')\n",
            project.join("pwned").display().to_string()
        ),
    );
}

#[test]
fn a_users_python_c_hook_never_imports_the_repositorys_module() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  pre_tool_call:\n    - command: \"python3 -c 'import json, sys; json.load(sys.stdin)'\"\n      fail_closed: true\n",
    );
    let project = cloned(&home, "cloned");
    recording_module(&project, "json.py");
    let emitted = emit_in(&home, &project, true);
    assert!(
        !project.join("pwned").exists(),
        "the repository's json.py ran: {emitted}"
    );
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted}"
    );
    assert_ne!(emitted["outcome"]["action"], json!("block"), "{emitted}");
}

#[test]
fn a_users_imported_python_m_hook_never_imports_the_repositorys_package() {
    let home = TempHome::new();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "cat | python3 -m json.tool >/dev/null"}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    home.config("hooks_from: [claude]\n");
    let project = cloned(&home, "cloned");
    recording_module(&project, "json/__init__.py");
    write(&project, "json/tool.py", "");
    let emitted = emit_in(&home, &project, true);
    assert!(
        !project.join("pwned").exists(),
        "the repository's json package ran: {emitted}"
    );
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted}"
    );
}

#[test]
fn a_users_python_script_still_imports_its_own_folder() {
    let home = TempHome::new();
    let guard = home.script("guard.py", "import helper\nhelper.check()\n");
    home.script(
        "helper.py",
        "import sys\ndef check():\n    sys.stdin.read()\n    print('blocked by helper', file=sys.stderr)\n    sys.exit(2)\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: python3 {}\n",
        guard.display()
    ));
    let project = cloned(&home, "cloned");
    let emitted = emit_in(&home, &project, true);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
}

const PWN_JS: &str = "require('fs').writeFileSync(process.cwd() + '/pwned', 'PWNED');\n";

#[test]
fn a_projects_node_tool_shadowing_the_users_npx_hook_needs_an_approval_there() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  pre_tool_call:\n    - command: npx --no tool\n      fail_closed: true\n",
    );
    let first = cloned(&home, "first");
    node_tool_package(&first, "// ok\n");
    let approved = emit_in(&home, &first, true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved}"
    );

    // Its package changed: it does not run, the guard blocks, naming the file.
    node_tool_package(&first, PWN_JS);
    let changed = emit_in(&home, &first, false);
    assert!(!first.join("pwned").exists(), "changed tool ran: {changed}");
    assert_eq!(changed["outcome"]["action"], json!("block"), "{changed}");
    let message = changed["outcome"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("node_modules/tool") && message.contains("hooks approve"),
        "the block names neither the file nor what to run: {changed}"
    );

    // Another project's own `tool` is not covered by the approval given in the first.
    let second = cloned(&home, "second");
    node_tool_package(&second, PWN_JS);
    let elsewhere = emit_in(&home, &second, false);
    assert!(
        !second.join("pwned").exists(),
        "another project's tool ran: {elsewhere}"
    );
    assert_eq!(
        elsewhere["outcome"]["action"],
        json!("block"),
        "{elsewhere}"
    );
}
