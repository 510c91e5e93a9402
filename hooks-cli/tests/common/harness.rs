//! Running `hooks` with more control than `TempHome::hooks`: extra environment,
//! stdin, a closed stdout, a memory limit.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Run, TempHome};

/// `hooks --home <hermes> ARGS` with HOME set to the scratch dir and none of
/// the caller's settings that change what `hooks` does, not started yet.
pub fn command(home: &TempHome, args: &[&str]) -> Command {
    command_naming_home(home, &home.hermes, args)
}

/// [`command`] with the Hermes home named `hermes` (another spelling of
/// it: through a link, with `..`).
pub fn command_naming_home(home: &TempHome, hermes: &std::path::Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks"));
    command
        .arg("--home")
        .arg(hermes)
        .args(args)
        .env("HOME", &home.user_home)
        // Never the machine's /etc/hermes: a managed scope only where a test makes one.
        .env("HERMES_MANAGED_DIR", home.user_home.join("managed-scope"))
        .env_remove("HERMES_HOME")
        .env_remove("HERMES_ACCEPT_HOOKS")
        .env_remove("HERMES_SAFE_MODE")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("HOOKS_LOG");
    command
}

/// [`command`] for `hooks emit EVENT --payload-file <payload.json> --json`,
/// with `payload` written into the home first.
pub fn emit_json(home: &TempHome, event: &str, payload: &serde_json::Value) -> Command {
    let file = home.write("payload.json", &payload.to_string());
    command(
        home,
        &[
            "emit",
            event,
            "--payload-file",
            &file.to_string_lossy(),
            "--json",
        ],
    )
}

/// Runs `command` to the end with `stdin` written to it.
pub fn with_stdin(mut command: Command, stdin: &[u8]) -> Run {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn hooks");
    if let Some(mut pipe) = child.stdin.take() {
        // The command may refuse the input before reading it all: ignore EPIPE.
        let _ = pipe.write_all(stdin);
    }
    Run(child.wait_with_output().expect("wait hooks"))
}

/// The bound of a hang guard (no speed check): half the 600 s that a test's
/// hung handler or plugin sleeps, so only a run that waited for it gets there.
pub const HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs `command`, killing it if it outlives `bound`; `None` when it had to be killed.
pub fn within(mut command: Command, bound: Duration) -> Option<Run> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn hooks");
    // Drained while it runs: output larger than a pipe's buffer must not
    // block the child until the bound kills it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(Run(std::process::Output {
                status,
                stdout: stdout.join().unwrap_or_default(),
                stderr: stderr.join().unwrap_or_default(),
            }));
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `done` until it holds. A hang guard, no speed check: it fails only
/// when `what` has not happened after [`HANG_GUARD`].
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < HANG_GUARD, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` to exit; a hang guard that kills it and fails naming
/// `what` after [`HANG_GUARD`].
pub fn wait_exit(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("never exited: {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `first` and `second` side by side (two runs that each wait out a
/// bound, independent of each other); a panic in either is the test's.
pub fn side_by_side<A: Send, B: Send>(
    first: impl FnOnce() -> A + Send,
    second: impl FnOnce() -> B + Send,
) -> (A, B) {
    std::thread::scope(|scope| {
        let second = scope.spawn(second);
        let first = first();
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}

/// Whether `python3` runs here (a test that needs it skips without it, but fails in CI).
pub use test_support::python_available;
