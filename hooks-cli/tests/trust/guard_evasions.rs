//! The user's own fail-closed guards against what a repository, an agent's
//! command or the user's own edits can do to them (red-team round 3): an
//! `if` rule a command slips past (B5), a settings file that is a FIFO or a
//! link to `/dev/stdin` (B6), safe mode (B7), a guard moved out of the
//! `hooks` key (B8).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, home_with, in_project, write};
use crate::harness;
use crate::support::{Run, TempHome};

/// Denies every call it is run for.
const DENY_ALL: &str = "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"user guard\"}}'\n";

/// The user's `~/.claude/settings.json` with one fail-closed Bash guard
/// (denying everything it sees), narrowed by `rule` when given.
fn user_guard(home: &TempHome, rule: Option<&str>) -> String {
    let guard = home.script("guard.sh", DENY_ALL);
    let mut handler = json!({"type": "command", "command": guard.display().to_string(),
        "failClosed": true});
    if let Some(rule) = rule {
        handler["if"] = json!(rule);
    }
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    let text = settings.to_string();
    write(&home.user_home, ".claude/settings.json", &text);
    text
}

fn action(emitted: &Value) -> Value {
    emitted["outcome"]["action"].clone()
}

#[test]
fn a_fail_closed_if_rule_runs_for_every_way_of_running_the_program() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, Some("Bash(rm *)"));
    for command in [
        "rm -rf /",
        "\"rm\" -rf /",
        "'rm' -rf /",
        "r\"\"m -rf /",
        "/bin/rm -rf /",
        "bash -c \"rm -rf /\"",
        "sh -ec 'ls; rm -rf /'",
        "eval \"rm -rf /\"",
        "xargs rm -rf <<< /",
        "command rm -rf /",
        "$(printf rm) -rf /",
    ] {
        let emitted = emit_terminal(&home, &project, command, true);
        assert_eq!(action(&emitted), json!("block"), "{command}: {emitted}");
    }
    // The rule still narrows: a command that cannot run rm skips the guard.
    for command in ["ls -la", "echo 'rm -rf /'", "bash -c 'ls'"] {
        let emitted = emit_terminal(&home, &project, command, true);
        assert_eq!(action(&emitted), Value::Null, "{command}: {emitted}");
    }
}

/// Runs `hooks` in `project` with `stdin`, killing it after the hang guard;
/// `None` when it had to be killed (it hung).
fn finishes(home: &TempHome, project: &Path, args: &[&str], stdin: Stdio) -> Option<Run> {
    let mut full = vec!["--project", project.to_str().expect("UTF-8")];
    full.extend_from_slice(args);
    let mut command = harness::command(home, &full);
    let mut child = command
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hooks");
    let start = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > harness::HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Run(child.wait_with_output().expect("output")))
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success());
}

#[test]
fn a_settings_file_that_is_a_fifo_or_links_to_stdin_never_stalls_hooks() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, None);
    let settings = project.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    std::os::unix::fs::symlink("/dev/stdin", &settings).expect("link");
    let payload = home.write(
        "payload.json",
        &json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"})
            .to_string(),
    );
    let emit = [
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        payload.to_str().expect("UTF-8"),
    ];
    // Stdin an open pipe nobody writes to, as an agent that keeps its stdin.
    let mut silent = Command::new("sleep")
        .arg("60")
        .stdout(Stdio::piped())
        .spawn()
        .expect("sleep");
    let pipe = Stdio::from(silent.stdout.take().expect("pipe"));
    let linked = finishes(&home, &project, &emit, pipe);
    let _ = silent.kill();
    let _ = silent.wait();
    let linked = linked.expect("a settings file linked to /dev/stdin stalled `hooks emit`");
    assert_eq!(
        action(&linked.json()),
        json!("block"),
        "{}",
        linked.stderr()
    );
    assert!(
        linked.stderr().contains("not a regular file"),
        "{}",
        linked.stderr()
    );

    std::fs::remove_file(&settings).expect("unlink");
    mkfifo(&settings);
    for args in [&emit[..], &["list"], &["doctor"], &["approve", "--all"]] {
        let run = finishes(&home, &project, args, Stdio::null())
            .unwrap_or_else(|| panic!("a FIFO settings file stalled `hooks {args:?}`"));
        let shown = format!("{}{}", run.stdout(), run.stderr());
        assert!(
            shown.contains("a FIFO, not a regular file"),
            "{args:?}: {shown}"
        );
    }
}

#[test]
fn the_users_guarded_settings_file_turned_fifo_blocks_and_config_yaml_fifo_is_an_error() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, None);
    let first = emit_terminal(&home, &project, "ls", true);
    assert_eq!(action(&first), json!("block"), "{first}");
    mkfifo(&home.user_home.join(".claude/settings.json"));
    let payload = home.write(
        "payload.json",
        &json!({"tool_name": "terminal", "args": {"command": "ls"}, "task_id": "t"}).to_string(),
    );
    let emit = [
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        payload.to_str().expect("UTF-8"),
    ];
    let run = finishes(&home, &project, &emit, Stdio::null()).expect("a FIFO stalled emit");
    assert_eq!(action(&run.json()), json!("block"), "{}", run.stderr());

    mkfifo(&home.hermes.join("config.yaml"));
    let run =
        finishes(&home, &project, &["list"], Stdio::null()).expect("config.yaml FIFO stalled");
    assert!(
        run.stderr().contains("not a regular file"),
        "{}",
        run.stderr()
    );
}

#[test]
fn safe_mode_says_the_users_config_yaml_guards_are_off() {
    let home = TempHome::new();
    let guard = home.script("guard.sh", "#!/bin/sh\ncat >/dev/null\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: {}\n      fail_closed: true\n",
        guard.display()
    ));
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let mut command = harness::command(
        &home,
        &[
            "--project",
            project.to_str().expect("UTF-8"),
            "emit",
            "pre_tool_call",
            "--json",
        ],
    );
    command.env("HERMES_SAFE_MODE", "1");
    let run = harness::with_stdin(
        command,
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}})
            .to_string()
            .as_bytes(),
    );
    assert!(
        run.stderr()
            .contains("HERMES_SAFE_MODE=1: 1 fail-closed hook(s) of config.yaml are off"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_settings_files_guard_moved_out_of_the_hooks_key_keeps_blocking() {
    let (home, project) = home_with("[claude]");
    let good: Value = serde_json::from_str(&user_guard(&home, None)).expect("json");
    let first = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(action(&first), json!("block"), "{first}");
    let settings = home.user_home.join(".claude/settings.json");

    // The guarded entries at the top level, still fail-closed.
    std::fs::write(&settings, good["hooks"].to_string()).expect("write");
    let moved = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&moved), json!("block"), "{moved}");
    let doctor = in_project(&home, &project, &["doctor"]).problems();
    assert!(doctor.contains("no top-level \"hooks\" key"), "{doctor}");

    // Moved and no longer fail-closed: what it guarded at its last good read still blocks.
    let mut unguarded = good["hooks"].clone();
    unguarded["PreToolUse"][0]["hooks"][0]["failClosed"] = json!(false);
    std::fs::write(&settings, unguarded.to_string()).expect("write");
    let cached = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&cached), json!("block"), "{cached}");
}
