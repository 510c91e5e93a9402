//! Red team round 26, round 25's search-path binding attacked: a setting
//! inside `$(…)` (R26-1) or a dotfile with two dots (R26-6) is read, one
//! only the running shell knows is refused (R26-5); and what round 25 made
//! ask or refuse without cause runs again: a script's run folder is not
//! searched (R26-11), the usual script-folder spellings and a venv's
//! `activate` approve (R26-12, R26-13), and a package no code requires
//! changes nothing (R26-14).

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round21::shadow_asks_again;
use crate::round25::added_asks_again;

const SUBPROCESS: &str = "import subprocess\nprint('{}')\n";

/// A project hook running `command` over `files` is approved, `change`
/// is made, and it runs again without a question.
fn runs_again(command: &str, files: &[(&str, &str)], change: impl FnOnce(&std::path::Path)) {
    let (home, project) = home_with("[claude]");
    for (name, text) in files {
        write(&project, name, text);
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(project.join(name), mode).expect("chmod");
    }
    approve_project_hook(&home, &project, command);
    change(&project);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{command}: {emitted:#}"
    );
}

#[test]
fn settings_in_a_substitution_or_a_dotfile_are_read() {
    let command = "out=$(PYTHONPATH=lib python3 check.py); echo \"$out\"";
    shadow_asks_again(command, "check.py", SUBPROCESS, "lib/selectors.py");
    let files = [
        ("check.py", SUBPROCESS),
        (".env.local", "PYTHONPATH=lib\nexport PYTHONPATH\n"),
        ("lib/.keep", ""),
    ];
    added_asks_again(
        ". ./.env.local; python3 check.py",
        &files,
        |project, marker| {
            let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
            write(project, "lib/selectors.py", &text);
        },
    );
}

#[test]
fn a_setting_only_the_running_shell_knows_cannot_be_approved() {
    let (home, project) = home_with("[claude]");
    write(&project, "check.py", SUBPROCESS);
    write(&project, "pp.txt", "PYTHONPATH=lib\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "export $(cat pp.txt); python3 check.py"}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let emitted = emit_terminal(&home, &project, "ls", true);
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
    assert!(
        emitted.to_string().contains("known only when it runs"),
        "{emitted:#}"
    );
}

#[test]
fn what_round_25_asked_or_refused_without_cause_runs_again() {
    let check = "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n\
                 print('{}' if os.environ.get('X', '.') else '')\n";
    // A script's run folder is not searched (R26-11).
    runs_again(
        "python3 .claude/hooks/check.py",
        &[(".claude/hooks/check.py", check)],
        |p| {
            write(p, "utils.py", "x = 1\n");
            std::fs::create_dir_all(p.join("src")).expect("src");
        },
    );
    // The usual script-folder spelling (R26-12).
    let wrapper = "#!/bin/bash\nSCRIPT_DIR=\"$( cd -- \"$( dirname -- \"${BASH_SOURCE[0]}\" )\" &> /dev/null && pwd )\"\n\
                   cd \"$SCRIPT_DIR\"\npython3 check.py\n";
    let files = [
        (".claude/hooks/run.sh", wrapper),
        (".claude/hooks/check.py", check),
    ];
    runs_again("bash .claude/hooks/run.sh", &files, |p| {
        write(p, "app.py", "x = 2\n");
    });
    // A venv's `activate`, whose `deactivate` restores a saved PYTHONHOME (R26-13).
    let activate = "deactivate () {\n    if [ -n \"${_OLD_VIRTUAL_PYTHONHOME:-}\" ] ; then\n\
                    PYTHONHOME=\"${_OLD_VIRTUAL_PYTHONHOME:-}\"\n        export PYTHONHOME\n    fi\n}\n\
                    if [ -n \"${PYTHONHOME:-}\" ] ; then\n    _OLD_VIRTUAL_PYTHONHOME=\"${PYTHONHOME:-}\"\n\
                    unset PYTHONHOME\nfi\n";
    let files = [
        (".venv/bin/activate", activate),
        (".claude/hooks/check.py", check),
    ];
    runs_again(
        ". .venv/bin/activate && python3 .claude/hooks/check.py",
        &files,
        |_| {},
    );
    // A package no code requires (R26-14).
    if installed("node") {
        let js = "require('fs');\nconsole.log('{}')\n";
        runs_again(
            "node .claude/hooks/check.js",
            &[(".claude/hooks/check.js", js)],
            |p| {
                std::fs::create_dir_all(p.join("node_modules/is-odd")).expect("installed");
            },
        );
    }
}

#[test]
fn a_package_json_scripts_settings_are_read() {
    if !installed("npm") {
        return;
    }
    let manifest = "{\"name\":\"x\",\"scripts\":{\"hook\":\"PYTHONPATH=lib python3 check.py\"}}";
    let files = [
        ("package.json", manifest),
        ("check.py", SUBPROCESS),
        ("lib/.keep", ""),
    ];
    added_asks_again("npm run -s hook", &files, |project, marker| {
        let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
        write(project, "lib/selectors.py", &text);
    });
}
