//! Bounds through the real binary: a gateway `command:*` event's bound is the
//! whole bound, and a handler that exits leaving a child on its stdout is
//! still answered; with helpers the signal tests share.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness;
use crate::support::TempHome;

/// How long a killed process may take to disappear: a hang guard (a survivor
/// of the bug never goes), generous for a loaded machine.
const GONE_WITHIN: Duration = Duration::from_secs(60);

/// Writes an executable gateway handler `hooks/<name>/handler` for `events`.
pub fn executable_handler(home: &TempHome, name: &str, events: &str, body: &str) {
    home.write(
        &format!("hooks/{name}/HOOK.yaml"),
        &format!("name: {name}\nevents: [{events}]\n"),
    );
    let handler = home.write(&format!("hooks/{name}/handler"), body);
    std::fs::set_permissions(&handler, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The pids, one a line, in `path` once it has `count` of them (waits a little).
pub fn pids_in(path: &Path, count: usize) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect();
        // A hang guard: fewer than `count` pids only when they never came.
        if pids.len() >= count || start.elapsed() > GONE_WITHIN {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is gone: no such process, or a zombie awaiting its reaper.
pub fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Asserts every pid is gone within [`GONE_WITHIN`]; survivors are killed
/// before the assertion fails, so a failing test leaves nothing behind.
pub fn assert_all_gone(pids: &[i32], what: &str) {
    let start = Instant::now();
    while start.elapsed() < GONE_WITHIN && !pids.iter().all(|pid| gone(*pid)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<i32> = pids.iter().copied().filter(|pid| !gone(*pid)).collect();
    for pid in survivors.iter().filter(|pid| **pid > 1) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(survivors.is_empty(), "{what}: {survivors:?} survived");
}

#[test]
fn a_command_event_takes_its_command_timeout_and_no_more() {
    let home = TempHome::new();
    home.config("gateway_hooks:\n  command_timeout: 2\n");
    let pids = home.hermes.join("pids");
    executable_handler(
        &home,
        "hung",
        "command:*",
        &format!(
            "#!/bin/sh\nsleep 1000 & echo $! >> {p}\necho $$ >> {p}\nwait\n",
            p = pids.display()
        ),
    );
    home.write(
        "hooks/pyhung/HOOK.yaml",
        "name: pyhung\nevents: [command:*]\n",
    );
    home.write(
        "hooks/pyhung/handler.py",
        &format!(
            "import os, time\ndef handle(event_type, context):\n    \
             open({p:?}, 'a').write(str(os.getpid()) + '\\n')\n    time.sleep(1000)\n",
            p = pids.display().to_string()
        ),
    );
    let mut command = harness::command(&home, &["emit", "command:model", "--json"]);
    command.env("HERMES_HOOKS_PYTHON", "python3");
    // A hang guard: the handlers sleep 1000 s.
    let run = harness::within(command, harness::HANG_GUARD).expect("emit returned");
    let document = run.json();
    assert_eq!(document["replies"], serde_json::json!([]), "{document}");
    assert!(
        run.stderr().contains("command_timeout"),
        "the hung handlers are named: {}",
        run.stderr()
    );
    assert_all_gone(&pids_in(&pids, 3), "the hung handlers");
    // No more than the command bound: the killed handlers' events are done,
    // so the exit's flush finds nothing running. It used to wait its whole
    // 5 s bound for them and then say so; checked by that report, not by a
    // clock (`within` above only guards against a hang).
    assert!(
        !run.stderr().contains("still queued or running"),
        "emit waited for the killed handlers: {}",
        run.stderr()
    );
}
#[test]
fn a_handler_that_exits_leaving_a_child_on_its_stdout_is_answered() {
    let home = TempHome::new();
    let pids = home.hermes.join("pids");
    // The child holds stdout, leaves the session and drops the tree mark; its parent exits.
    executable_handler(
        &home,
        "forky",
        "command:*",
        &format!(
            "#!/bin/sh\n(env -i setsid sleep 1000 & echo $! > {p})\n\
             echo '{{\"decision\": \"deny\", \"message\": \"not now\"}}'\n",
            p = pids.display()
        ),
    );
    let run = harness::within(
        harness::command(&home, &["emit", "command:model", "--json"]),
        Duration::from_secs(30),
    )
    .expect("emit returned");
    let document = run.json();
    // Waiting for the child's stdout to close would lose the deny at the
    // 10 s command bound: the decision itself shows it was read at once.
    assert_eq!(document["outcome"]["decision"], "deny", "{document}");
    assert_all_gone(&pids_in(&pids, 1), "the child that held stdout");
}

#[test]
fn emit_with_a_python_plugin_answers_beside_600_processes_with_an_empty_environment() {
    let home = TempHome::new();
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/python-plugins/rm-guard");
    let plugin = home.hermes.join("plugins/rm-guard");
    std::fs::create_dir_all(&plugin).expect("mkdir plugin");
    for file in ["plugin.yaml", "__init__.py"] {
        std::fs::copy(example.join(file), plugin.join(file)).expect("copy example");
    }
    home.config("plugins:\n  enabled: [rm-guard]\n");
    // The bug cost 10 ms per empty environment per kill scan: tens of
    // seconds beside 600. How long this takes is a benchmark's figure
    // (docs/benchmarks/gateway-and-cli.md), not this test's: here emit
    // answers and exits beside them.
    let mut crowd: Vec<std::process::Child> = (0..600)
        .map(|_| {
            std::process::Command::new("env")
                .args(["-i", "sleep", "60"])
                .stdin(std::process::Stdio::null())
                .spawn()
                .expect("spawn env -i sleep")
        })
        .collect();
    let mut command = harness::command(&home, &["emit", "pre_tool_call", "--json"]);
    command.env("HERMES_HOOKS_PYTHON", "python3");
    let run = harness::within(command, harness::HANG_GUARD);
    for child in &mut crowd {
        let _ = child.kill();
        let _ = child.wait();
    }
    let run = run.expect("emit returned");
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert!(run.json().get("outcome").is_some(), "{}", run.stdout());
}
