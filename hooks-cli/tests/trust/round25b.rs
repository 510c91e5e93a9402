//! Red team round 25, other runtimes: a program given the project folder
//! itself (`node .`: R25b-1), jq's module search (R25b-2), git settings of
//! a nested repository (R25b-3), test runners that discover files
//! (R25b-4), `find … -exec sh {}` (R25b-5) and code that lists a folder to
//! load what it finds (R25b-7): a file added or changed there asks again.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round25::added_asks_again;

/// Runs `git` in `folder` with `args`.
fn git(folder: &Path, args: &[&str]) {
    let done = Command::new("git")
        .args(["-c", "user.email=a@b", "-c", "user.name=a"])
        .args(args)
        .current_dir(folder)
        .output()
        .expect("git");
    assert!(done.status.success(), "{done:?}");
}

#[test]
fn a_nested_repositorys_settings_are_bound() {
    if !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    let sub = project.join("sub");
    write(&project, "sub/f", "x\n");
    git(&sub, &["init", "-q", "."]);
    git(&sub, &["add", "f"]);
    git(&sub, &["commit", "-qm", "i"]);
    let command = "cd sub && git status --porcelain >/dev/null; echo '{}'";
    approve_project_hook(&home, &project, command);
    let marker = project.join("PWNED");
    let monitor = format!("touch {}; false", marker.display());
    git(&sub, &["config", "core.fsmonitor", &monitor]);
    write(&project, "sub/f", "y\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}

#[test]
fn files_a_runner_or_find_discovers_ask_again_when_added() {
    let test = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self): pass\n";
    let files = [("tests/test_a.py", test)];
    let command = "python3 -m unittest discover -s tests >/dev/null 2>&1; echo '{}'";
    added_asks_again(command, &files, |project, marker| {
        let code = format!("open({marker:?}, 'w')\n");
        write(project, "tests/test_z.py", &code);
    });
    // `find … -exec sh {}` runs names find computes when it runs: since
    // round 40 (R40-3) it cannot be approved at all, so an added script
    // never runs.
    let (home, project) = crate::dialects::home_with("[claude]");
    write(&project, "hooks/a.sh", "true\n");
    let command = "find hooks -type f -exec sh {} \\; ; echo '{}'";
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal",
        "hooks": [{"type": "command", "command": command}]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let marker = project.join("PWNED");
    write(&project, "hooks/z.sh", &format!("touch {marker:?}\n"));
    let emitted = crate::dialects::emit_terminal(&home, &project, "ls", true);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        serde_json::json!("completed"),
        "{emitted:#}"
    );
}

#[test]
fn node_given_the_project_or_listing_a_folder_binds_what_it_loads() {
    if !installed("node") {
        return;
    }
    let ok = "console.log('{}')\n";
    added_asks_again("node .", &[("index.js", ok)], |project, marker| {
        let code = format!("require('fs').writeFileSync({marker:?}, '')\n{ok}");
        write(project, "index.js", &code);
    });
    let check = "const fs = require('fs');\n\
                 for (const f of fs.readdirSync('plugins')) require('./plugins/' + f);\n\
                 console.log('{}')\n";
    let files = [("check.js", check), ("plugins/a.js", "\n")];
    added_asks_again("node check.js", &files, |project, marker| {
        let code = format!("require('fs').writeFileSync({marker:?}, '')\n");
        write(project, "plugins/z.js", &code);
    });
}

#[test]
fn a_fail_closed_jq_guards_modules_are_bound() {
    if !installed("jq") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(&project, "check.jq", "include \"lib\"; f\n");
    let blocks = "def f: {\"decision\": \"block\", \"reason\": \"guard\"};\n";
    write(&project, "jq/lib.jq", blocks);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "jq -c -L jq -f check.jq", "failClosed": true}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["outcome"]["action"],
        json!("block"),
        "{approved:#}"
    );
    write(&project, "jq/lib.jq", "def f: {};\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}
