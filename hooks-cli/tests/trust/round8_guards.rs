//! Red team round 8, the guards: an imported fail-closed guard that fails
//! after printing a JSON object (an EXIT trap's `{}`, a crash after a
//! `systemMessage`) blocks, in every dialect, as a native one does (R8-1);
//! a project folder that holds the user's home keeps the user's `~/.claude`
//! hooks the user's, so its `disableAllHooks` never turns the user's guard
//! off (R8-2).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_rm_command, emit_terminal, home_with, user_fail_closed_guard, write,
};
use crate::support::{Run, TempHome};

/// Bodies of a guard that fails after answering: the answer decides nothing.
const FAILS_AFTER_ANSWERING: [&str; 4] = [
    "cat >/dev/null; echo '{}'; exit 1",
    "cat >/dev/null; echo '{\"systemMessage\":\"guard starting\"}'; exit 1",
    "cat >/dev/null; echo '{\"continue\":true}'; exit 3",
    "cat >/dev/null; echo '{}'; kill -9 $$",
];

/// A guard as users write them: `set -e`, an EXIT trap that always prints
/// valid JSON, and a helper that cannot start (as `python3` cannot with a
/// command too long for `exec`, which the agent chooses).
const TRAPPED_GUARD: &str =
    "set -e\ntrap 'echo \"{}\"' EXIT\ninput=$(cat)\nmissing_helper_tool_r8 \"$input\"\n";

/// The user's guard `body` in `~/<folder>/<file>` of `dialect`, fail-closed.
fn user_guard(home: &TempHome, dialect: &str, body: &str) {
    let folder = format!(".{dialect}");
    let guard = write(&home.user_home, &format!("{folder}/guard.sh"), body);
    let command = format!("bash {}", guard.display());
    let (file, settings) = match dialect {
        "cursor" => (
            "hooks.json",
            json!({"version": 1, "hooks": {"beforeShellExecution": [
                {"command": command, "failClosed": true}
            ]}}),
        ),
        "codex" => (
            "hooks.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": command, "failClosed": true}
            ]}]}}),
        ),
        _ => (
            "settings.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": command, "failClosed": true}
            ]}]}}),
        ),
    };
    write(
        &home.user_home,
        &format!("{folder}/{file}"),
        &settings.to_string(),
    );
}

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

#[test]
fn an_imported_fail_closed_guard_that_fails_after_answering_blocks() {
    for dialect in ["claude", "codex", "cursor"] {
        for body in FAILS_AFTER_ANSWERING.iter().chain([&TRAPPED_GUARD]) {
            let (home, project) = home_with(&format!("[{dialect}]"));
            user_guard(&home, dialect, body);
            let approved = emit_terminal(&home, &project, "rm -rf /", true);
            assert_eq!(
                action(&approved),
                &json!("block"),
                "{dialect} {body}: {approved:#}"
            );
            let message = approved["outcome"]["message"].as_str().unwrap_or("");
            assert!(
                message.contains("failed closed"),
                "{dialect} {body}: {message}"
            );
            let unasked = emit_terminal(&home, &project, "rm -rf /", false);
            assert_eq!(
                action(&unasked),
                &json!("block"),
                "{dialect} {body}: {unasked:#}"
            );
        }
    }
}

#[test]
fn a_fail_open_guard_that_fails_after_answering_is_read_by_its_answer() {
    // Not fail-closed, the reference's reading holds: the JSON decides.
    let (home, project) = home_with("[claude]");
    let guard = write(
        &home.user_home,
        ".claude/guard.sh",
        FAILS_AFTER_ANSWERING[0],
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("bash {}", guard.display())}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_ne!(action(&emitted), &json!("block"), "{emitted:#}");
}

/// `emit` of `rm -rf /` in `project` with `HOME` set to `user_home`.
fn emit_with_home(home: &TempHome, user_home: &Path, project: &Path, accept: bool) -> Run {
    let mut command = emit_rm_command(home, project, accept);
    command.env("HOME", user_home);
    Run(command.output().expect("run hooks"))
}

#[test]
fn a_project_holding_the_home_never_turns_the_users_guard_off() {
    // The project is a checkout whose HOME lives inside it (a container or CI workspace).
    let (home, _) = home_with("[claude]");
    let project = home.user_home.clone();
    let user_home = project.join("home");
    let guard = write(
        &user_home,
        ".claude/guard.sh",
        "cat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"user guard\"}'\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("sh {}", guard.display()), "failClosed": true}
    ]}]}});
    write(&user_home, ".claude/settings.json", &settings.to_string());
    let approved = emit_with_home(&home, &user_home, &project, true).json();
    assert_eq!(
        approved["outcome"]["message"],
        json!("user guard"),
        "{approved:#}"
    );
    let unasked = emit_with_home(&home, &user_home, &project, false).json();
    assert_eq!(
        unasked["outcome"]["message"],
        json!("user guard"),
        "approved once: {unasked:#}"
    );

    write(
        &project,
        ".claude/settings.json",
        "{\"disableAllHooks\": true}",
    );
    let run = emit_with_home(&home, &user_home, &project, false);
    let emitted = run.json();
    assert_eq!(
        emitted["outcome"]["message"],
        json!("user guard"),
        "{emitted:#}"
    );
    let warning = run.stderr();
    assert!(
        warning.contains("turns off this project's Claude Code hooks only"),
        "{warning}"
    );
}

#[test]
fn a_fail_closed_guard_naming_no_tool_guards_the_tool_meant_and_says_so() {
    // R8-12: `bash`, Hermes's own `terminal`, another agent's `Shell`: no
    // call arrives with these names, so as written the guard never runs.
    let cases = [
        ("bash", None),
        ("terminal", None),
        ("Bash", Some("bash(rm *)")),
        ("Bash", Some("Shell(rm *)")),
    ];
    for (matcher, rule) in cases {
        let (home, project) = home_with("[claude]");
        let ran = answering(&json!({"decision": "block", "reason": "guard ran"}));
        user_fail_closed_guard(&home, matcher, &ran, rule);
        let case = format!("matcher {matcher} if {rule:?}");
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["message"],
            json!("guard ran"),
            "{case}: {emitted:#}"
        );
        let doctor = crate::dialects::in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{case}");
        assert!(
            doctor
                .problems()
                .contains("names no tool a call arrives with"),
            "{case}"
        );
    }
}

#[test]
fn a_sandboxed_project_guard_finds_its_own_folder_by_its_own_name() {
    // The checked copy of the tool folder is mounted over it, so the script
    // runs by its path: `$0`, `BASH_SOURCE` and `__file__` name its folder
    // (from a sealed memfd they named /proc/self/fd/N, and a fail-open guard
    // that sources a sibling by them stopped guarding, in silence).
    let (home, project) = home_with("[claude]");
    let deny = "echo '{\"decision\":\"block\",\"reason\":\"sibling rules say no\"}'";
    write(
        &project,
        ".claude/hooks/rules.sh",
        &format!("check() {{ {deny}; }}\n"),
    );
    write(&project, ".claude/hooks/rules.txt", "rm -rf\n");
    let guards = [
        (
            "dollar0.sh",
            "cat >/dev/null\n. \"$(dirname \"$0\")/rules.sh\"\ncheck\n",
        ),
        (
            "source.sh",
            "cat >/dev/null\nsource \"$(dirname \"${BASH_SOURCE[0]}\")/rules.sh\"\ncheck\n",
        ),
        (
            "file.py",
            "import json, pathlib, sys\nsys.stdin.read()\n\
             rules = (pathlib.Path(__file__).parent / 'rules.txt').read_text()\n\
             print(json.dumps({'decision': 'block', 'reason': 'sibling rules say no'}) if 'rm' in rules else '{}')\n",
        ),
    ];
    for (name, body) in guards {
        write(&project, &format!(".claude/hooks/{name}"), body);
        let runner = if name.ends_with(".py") {
            "python3"
        } else {
            "bash"
        };
        let command = format!("{runner} \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{name}");
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}
        ]}]}});
        write(&project, ".claude/settings.json", &settings.to_string());
        let approved = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            approved["runs"][0]["sandbox"],
            json!("project"),
            "{name}: {approved:#}"
        );
        assert_eq!(
            approved["outcome"]["message"],
            json!("sibling rules say no"),
            "{name}: {approved:#}"
        );
        let unasked = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(
            unasked["outcome"]["message"],
            json!("sibling rules say no"),
            "{name}: {unasked:#}"
        );
    }
}

#[test]
fn an_unsandboxed_python_guard_run_sealed_knows_its_own_file() {
    // The user's own hook runs unsandboxed from its sealed memfd; Python
    // compiles those bytes under the script's path, so `__file__`,
    // `sys.argv` and `sys.path[0]` are what Python gives a script.
    let (home, project) = home_with("[claude]");
    write(&home.user_home, ".claude/hooks/rules.txt", "rm -rf\n");
    write(
        &home.user_home,
        ".claude/hooks/helper.py",
        "WORD = 'sibling'\n",
    );
    let guard = write(
        &home.user_home,
        ".claude/hooks/guard.py",
        "import json, pathlib, sys\nsys.stdin.read()\nimport helper\n\
         rules = (pathlib.Path(__file__).parent / 'rules.txt').read_text().strip()\n\
         reason = ' '.join([helper.WORD, rules, sys.argv[0], sys.argv[1], sys.path[0], __name__])\n\
         print(json.dumps({'decision': 'block', 'reason': reason}))\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("python3 -u {} first", guard.display())}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    let folder = guard.parent().expect("folder").display().to_string();
    let expected = format!("sibling rm -rf {} first {folder} __main__", guard.display());
    for accept in [true, false] {
        let emitted = emit_terminal(&home, &project, "rm -rf /", accept);
        assert_eq!(emitted["runs"][0]["sandbox"], json!(null), "{emitted:#}");
        assert_eq!(
            emitted["outcome"]["message"],
            json!(expected),
            "{emitted:#}"
        );
    }
}

#[test]
fn an_unsandboxed_shell_guard_run_sealed_finds_its_folder_by_dollar_zero() {
    // The user's own hook runs unsandboxed from its sealed memfd: `$0`
    // named /proc/self/fd/N, so a guard sourcing a sibling by it failed,
    // and failing open, stopped guarding in silence (red team R28b-12).
    // The shell now sources the sealed bytes with `$0` the script's path.
    let (home, project) = home_with("[claude]");
    let deny = "echo '{\"decision\":\"block\",\"reason\":\"sibling rules say no\"}'";
    write(
        &home.user_home,
        ".claude/hooks/rules.sh",
        &format!("check() {{ {deny}; }}\n"),
    );
    let body = "cat >/dev/null\n. \"$(dirname \"$0\")/rules.sh\"\n[ \"$1\" = first ] && check\n";
    let guard = write(&home.user_home, ".claude/hooks/dollar0.sh", body);
    let direct = write(
        &home.user_home,
        ".claude/hooks/direct.sh",
        &format!("#!/bin/sh\n{body}"),
    );
    crate::dialects::executable(&direct);
    for command in [
        format!("bash {} first", guard.display()),
        format!("sh -e {} first", guard.display()),
        format!("{} first", direct.display()),
    ] {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}
        ]}]}});
        write(
            &home.user_home,
            ".claude/settings.json",
            &settings.to_string(),
        );
        for accept in [true, false] {
            let emitted = emit_terminal(&home, &project, "rm -rf /", accept);
            assert_eq!(emitted["runs"][0]["sandbox"], json!(null), "{emitted:#}");
            assert_eq!(
                emitted["outcome"]["message"],
                json!("sibling rules say no"),
                "{command}: {emitted:#}"
            );
        }
    }
}
