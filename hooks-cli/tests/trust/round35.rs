//! Red team round 35: the consent store and the guard records as files an
//! accident can break (an allowlist that is a FIFO or a link to
//! `/dev/zero`: R35-1).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::dialects::{
    answering, emit_rm_command, emit_terminal, home_with, user_fail_closed_guard,
};
use crate::support::Run;

/// What `command` printed, or `None` when it ran for over 30 s (killed).
fn finished(mut command: std::process::Command) -> Option<Run> {
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hooks runs");
    let id = child.id();
    let started = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output());
    while !waiter.is_finished() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(i32::try_from(id).expect("pid")),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = waiter.join();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Run(waiter.join().expect("waited").expect("output")))
}

#[test]
fn an_allowlist_that_is_no_regular_file_blocks_at_once_and_says_why() {
    // A FIFO held every emit forever; a link to `/dev/zero` was read
    // without end (15.8 GB before it was killed).
    for kind in ["fifo", "zero"] {
        let (home, project) = home_with("[claude]");
        let ran = answering(&json!({"decision": "block", "reason": "user guard"}));
        user_fail_closed_guard(&home, "Bash", &ran, None);
        let approved = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(approved["outcome"]["message"], json!("user guard"));
        let allowlist = home.hermes.join("shell-hooks-allowlist.json");
        std::fs::remove_file(&allowlist).expect("allowlist");
        match kind {
            "fifo" => nix::unistd::mkfifo(&allowlist, nix::sys::stat::Mode::S_IRWXU).expect("fifo"),
            _ => std::os::unix::fs::symlink("/dev/zero", &allowlist).expect("link"),
        }
        let run = finished(emit_rm_command(&home, &project, false))
            .unwrap_or_else(|| panic!("{kind}: emit did not end in 30 s"));
        let emitted = run.json();
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "{kind}: {emitted:#}"
        );
        assert!(
            run.stderr().contains("not a regular file"),
            "{kind}: {}",
            run.stderr()
        );
    }
}

#[test]
fn a_program_a_variable_finds_by_a_glob_is_bound() {
    // R34-5: `$V` was bound as a folder named `$V`; an edit of the tool
    // it matched (`.vtools/bin/lint`, ignored by git) ran unasked. Round
    // 36 (R36-3): the same through `:=`, nested defaults, `export`,
    // `local`, `set --` and a `for` loop.
    crate::round30_open::each_holds(
        &[
            "V=${R35_SURELY_UNSET_V:-.v*}; $V/bin/lint",
            ": ${V:=.v*}; $V/bin/lint",
            "V=${V:-${W:-.v*}}; $V/bin/lint",
            "export V=.v*; $V/bin/lint",
            "f() { local V=.v*; $V/bin/lint; }; f",
            "set -- .v*; \"$1\"/bin/lint",
            "for d in .v*; do PATH=$PWD/$d/bin:$PATH; done; lint",
        ],
        tool_edit_asks_again,
    );
}

/// Approves `command` in a checkout whose `.vtools/bin/lint` git ignores,
/// edits the tool, and asserts the next emit neither runs it nor completes.
fn tool_edit_asks_again(command: &str) {
    crate::round28::changed_asks_again(
        command,
        |project| {
            let lint =
                crate::dialects::write(project, ".vtools/bin/lint", "#!/bin/sh\necho '{}'\n");
            crate::dialects::executable(&lint);
            crate::dialects::write(project, ".gitignore", ".vtools/\n");
            crate::round28::git(project, &["init", "-q"]);
            crate::round28::git(project, &["add", "-A"]);
            crate::round28::git(project, &["commit", "-qm", "without the tool"]);
        },
        |project, marker| {
            let touch = format!("#!/bin/sh\ntouch {}\n", marker.display());
            crate::dialects::write(project, ".vtools/bin/lint", &touch);
        },
    );
}

#[test]
fn a_projects_codex_config_that_is_a_fifo_holds_nothing() {
    // Found beside R35-1: `.codex/config.toml` was read whole before it was
    // checked, so a repository shipping a FIFO held every emit forever.
    let (home, project) = home_with("[codex]");
    std::fs::create_dir_all(project.join(".codex")).expect("folder");
    let config = project.join(".codex/config.toml");
    nix::unistd::mkfifo(&config, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    let run = finished(crate::dialects::emit_terminal_command(
        &home, &project, None, "ls", false,
    ))
    .expect("emit did not end in 30 s");
    assert!(run.stderr().contains("is a FIFO"), "{}", run.stderr());
}
