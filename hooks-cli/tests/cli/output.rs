//! Output discipline: colour only for a terminal, each warning once, a closed
//! stdout ends the command quietly, results on stdout and diagnostics on stderr.

use std::process::Stdio;

use crate::harness::command;
use crate::support::{Run, TempHome};

/// A home whose loading warns through every channel: a gateway hook with no
/// events (logged by discovery and returned to us), an outbound target whose
/// secret variable is unset, and an allowlist that does not parse, with two hooks
/// that consult it.
fn noisy_home() -> TempHome {
    let home = TempHome::new();
    let script = home.script("ok.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {0}\n    - command: {0} --again\n  \
         outbound:\n    - name: t\n      url: https://127.0.0.1:9/x\n      events: [on_session_end]\n      \
         secret_env: CLIUX_TEST_UNSET_SECRET\n",
        script.display()
    ));
    home.write("hooks/noevents/HOOK.yaml", "name: noevents\n");
    home.write(
        "hooks/noevents/handler.py",
        "def handle(e, c):\n    return None\n",
    );
    home.write("shell-hooks-allowlist.json", "{\"approvals\": [ oops");
    home
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack
        .lines()
        .filter(|line| line.contains(needle))
        .count()
}

#[test]
fn each_warning_is_printed_once() {
    let home = noisy_home();
    let run = Run(command(&home, &["emit", "pre_tool_call"])
        .env_remove("CLIUX_TEST_UNSET_SECRET")
        .output()
        .expect("run"));
    let stderr = run.stderr();
    assert_eq!(count(&stderr, "noevents"), 1, "gateway warning:\n{stderr}");
    assert_eq!(
        count(&stderr, "CLIUX_TEST_UNSET_SECRET"),
        1,
        "secret_env warning:\n{stderr}"
    );
    assert_eq!(
        count(&stderr, "shell-hooks-allowlist.json"),
        1,
        "allowlist warning:\n{stderr}"
    );
}

#[test]
fn no_colour_when_stderr_is_not_a_terminal_or_when_told_so() {
    let home = noisy_home();
    for (name, value) in [
        ("TERM", "xterm-256color"),
        ("TERM", "dumb"),
        ("NO_COLOR", "1"),
    ] {
        let run = Run(command(&home, &["-v", "emit", "pre_tool_call"])
            .env(name, value)
            .output()
            .expect("run"));
        assert!(
            !run.stderr().contains('\u{1b}'),
            "{name}={value}: ANSI codes on a pipe:\n{}",
            run.stderr()
        );
        assert!(run.stderr().contains("warning:"), "{}", run.stderr());
    }
}

#[test]
fn clicolor_force_forces_colour() {
    let home = noisy_home();
    let run = Run(command(&home, &["-v", "emit", "pre_tool_call"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .expect("run"));
    assert!(run.stderr().contains('\u{1b}'), "{}", run.stderr());
}

/// Runs `hooks ARGS` with its stdout closed before it writes: as `| head -1` ends up.
fn with_closed_stdout(home: &TempHome, args: &[&str]) -> Run {
    let mut child = command(home, args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    Run(child.wait_with_output().expect("wait"))
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let home = TempHome::new();
    home.only_hook("pre_tool_call", "ok.sh", "#!/bin/sh\necho '{}'\n");
    for args in [
        &["events"][..],
        &["list"],
        &["test", "pre_tool_call"],
        &["completions", "bash"],
    ] {
        let run = with_closed_stdout(&home, args);
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        assert!(
            !run.stderr().contains("Broken pipe"),
            "{args:?}: {}",
            run.stderr()
        );
    }
}

#[test]
fn results_on_stdout_diagnostics_on_stderr() {
    let home = noisy_home();
    let run = home.hooks(&["emit", "pre_tool_call", "--json"]);
    let document = run.json();
    assert_eq!(document["event"], "pre_tool_call");
    assert!(!run.stdout().contains("warning"), "{}", run.stdout());
}
