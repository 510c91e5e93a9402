//! A shell-form imported command run without `sh` gets exactly what `sh -c`
//! would give it: the same argv, environment and working directory. Each
//! command runs twice through the real binary, as written (the shell-free
//! path where it is a simple command) and in a `{ ...; }` group (always through
//! `sh`), with a hostile environment (`IFS`, a name that is not a shell
//! name, a stale `PWD`, `OPTIND`, `PPID`) and a project path holding a space
//! and a `$`; their outputs must be the same.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{home_with, write};
use crate::harness;
use crate::support::Run;

/// Commands as Claude Code users write them, by the project variable forms.
const COMMANDS: &[&str] = &[
    r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/show '[%s]\n' 'a b' "c  d" e=f '' x:~/y"#,
    r#""${CLAUDE_PROJECT_DIR}/.claude/hooks/show" '[%s]\n' one"#,
    r#"$CLAUDE_PROJECT_DIR/.claude/hooks/show '[%s]\n' unquoted"#,
    r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/showenv"#,
    r#"/usr/bin/env"#,
    r#"/usr/bin/printf '[%s]\n' "$CLAUDE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR/x""#,
];

fn link(target: &str, at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, at).unwrap();
}

#[test]
fn the_shell_free_path_gives_what_sh_gives() {
    let (home, project) = home_with("[claude]");
    let project = {
        let tricky = project.join("p q$x");
        std::fs::create_dir_all(&tricky).unwrap();
        tricky
    };
    link("/usr/bin/printf", &project.join(".claude/hooks/show"));
    link("/usr/bin/env", &project.join(".claude/hooks/showenv"));
    let handlers: Vec<Value> = COMMANDS
        .iter()
        .flat_map(|command| {
            [
                json!({"type": "command", "command": command}),
                json!({"type": "command", "command": format!("{{ {command}; }}")}),
            ]
        })
        .collect();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}});
    write(&project, ".claude/settings.json", &settings.to_string());

    let mut test = harness::command(
        &home,
        &[
            "--accept-hooks",
            "--project",
            project.to_str().unwrap(),
            "test",
            "PreToolUse",
            "--for-tool",
            "Bash",
            "--json",
        ],
    );
    test.env("IFS", "x:")
        .env("NOT-A-NAME", "1")
        .env("PWD", "/nonexistent")
        .env("OPTIND", "7")
        .env("PPID", "1")
        .current_dir(&home.user_home);
    let run: Value = serde_json::from_str(Run(test.output().unwrap()).ok().trim()).unwrap();
    let hooks = run["hooks"].as_array().expect("hooks");
    assert_eq!(hooks.len(), COMMANDS.len() * 2, "{run}");
    for (pair, command) in hooks.chunks(2).zip(COMMANDS) {
        let lines = |hook: &Value| {
            let mut lines: Vec<String> = hook["stdout"]
                .as_str()
                .unwrap_or("")
                .lines()
                // The supervisor's mark differs per process tree, by design.
                .filter(|line| !line.starts_with("HERMES_HOOKS_TREE="))
                // So is a sandboxed run's private temporary directory
                // (this project, in /tmp, runs under `project`).
                .filter(|line| !line.starts_with("TMPDIR=/tmp/hermes-hooks-tmp."))
                // The checked script of a shell-free run is run from its
                // sealed copy, with its real path in this variable.
                .filter(|line| !line.starts_with("HERMES_HOOK_SCRIPT="))
                .map(str::to_owned)
                .collect();
            // The order of environment entries carries no meaning.
            lines.sort();
            lines
        };
        let (direct, through_sh) = (lines(&pair[0]), lines(&pair[1]));
        // Unquoted, the space of the path breaks the command, under sh as
        // under Claude Code. `${...}` of a path `sh` would read as code (a
        // `$`, a space) is left to `sh` to expand, so it holds together
        // (Claude Code pastes it as text, and breaks: red-team F9).
        let breaks = command.contains("unquoted");
        assert_eq!(direct.is_empty(), breaks, "{command}: {run}");
        assert_eq!(direct, through_sh, "{command}");
        assert_eq!(pair[0]["exit_code"], pair[1]["exit_code"], "{command}");
    }
    // What those were: the argv as sh splits it, the project path whole.
    let first = hooks[0]["stdout"].as_str().unwrap();
    assert_eq!(first, "[a b]\n[c  d]\n[e=f]\n[]\n[x:~/y]\n", "{run}");
    let env = hooks[6]["stdout"].as_str().unwrap();
    let project_text = project.to_str().unwrap();
    assert!(
        env.lines().any(|l| l == format!("PWD={project_text}")),
        "{env}"
    );
    assert!(env.lines().any(|l| l == "IFS= \t"), "{env}");
    assert!(!env.contains("NOT-A-NAME"), "{env}");
    assert!(
        env.contains(&format!("CLAUDE_PROJECT_DIR={project_text}")),
        "{env}"
    );
}
