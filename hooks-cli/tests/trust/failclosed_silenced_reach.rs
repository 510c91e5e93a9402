//! A sandboxed fail-closed guard that reaches its rules some other way
//! than an `open`, silenced (red team round 9, R9-4): a Python
//! `os.chdir("/tmp/x")` then a relative `open`, `subprocess.run` of a
//! program in the host's `/tmp` (no `stat` first), a policy daemon on a
//! unix socket in the user's runtime folder (masked) or on an abstract one
//! (cut off with the network), and Node's async `fs` through io_uring. Its
//! sandbox (`project`) denies each; the guard sees no rule and allows. The
//! kernel's record makes each block, naming what to do; the map it names
//! lets the guard reach its daemon. As root and as an unprivileged user.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::failclosed_silenced_guard::{emit_in, project_guard_in};
use super::sandbox::Scene;

/// A Python guard: `body` sets `answer` from its policy source; every
/// error is swallowed (the call allowed), `deny` blocks.
fn python_guard(body: &str) -> String {
    format!(
        "#!/usr/bin/env python3\nimport json, os, socket, subprocess, sys\nsys.stdin.read()\n\
         try:\n    {body}\nexcept Exception:\n    sys.exit(0)\n\
         if answer.strip() in ('deny', 'rm -rf'):\n    \
         print(json.dumps({{'decision': 'block', 'reason': 'policy says no'}}))\n"
    )
}

/// A folder of the host's `/tmp` with rules and a policy program anybody
/// may read, removed when dropped.
struct HostTmpPolicy(PathBuf);

impl HostTmpPolicy {
    fn new(name: &str) -> HostTmpPolicy {
        use std::os::unix::fs::PermissionsExt;
        let dir = PathBuf::from(format!("/tmp/hermes-reach-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("host /tmp folder");
        std::fs::write(dir.join("rules.txt"), "rm -rf\n").unwrap();
        std::fs::write(dir.join("policy"), "#!/bin/sh\necho deny\n").unwrap();
        for (path, mode) in [(&dir, 0o755), (&dir.join("rules.txt"), 0o644)] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let policy = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(dir.join("policy"), policy).unwrap();
        HostTmpPolicy(dir)
    }
}

impl Drop for HostTmpPolicy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A policy daemon: answers `deny` to every connection, until dropped.
struct Daemon {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Daemon {
    fn serve(listener: UnixListener) -> Daemon {
        use std::io::Write;
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        let _ = stream.write_all(b"deny\n");
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
        Daemon {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Emits `rm -rf /` to the approved project guard `script` (failClosed,
/// under `sandbox`: `None` for `project`) and returns the outcome's
/// message; `None` where the case cannot run here.
fn blocked_with(
    unprivileged: bool,
    script: &str,
    sandbox: Option<&str>,
    env: &[(&str, &str)],
    prepare: impl Fn(&Scene),
) -> Option<String> {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return None;
    }
    let scene = project_guard_in(unprivileged, script, true, sandbox)?;
    prepare(&scene);
    let emitted = emit_in(&scene, false, env);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
    Some(
        emitted["outcome"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

fn assert_says(message: &str, words: &[&str]) {
    for words in words.iter().chain(&["failed closed", "`sandbox: none`"]) {
        assert!(message.contains(words), "{words} missing: {message}");
    }
}

fn host_tmp_reached_by_chdir_exec_or_io_uring_blocks(unprivileged: bool) {
    let policy = HostTmpPolicy::new(if unprivileged { "nobody" } else { "root" });
    let dir = policy.0.display();
    let chdir = python_guard(&format!(
        "os.chdir('{dir}'); answer = open('rules.txt').read()"
    ));
    let exec = python_guard(&format!(
        "answer = subprocess.run(['{dir}/policy'], capture_output=True).stdout.decode()"
    ));
    let mut cases = vec![(chdir, dir.to_string()), (exec, format!("{dir}/policy"))];
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok()
    {
        let node = format!(
            "#!/bin/sh\ncat >/dev/null\nv=$(UV_USE_IO_URING=1 node -e \
             'require(\"fs\").promises.readFile(\"{dir}/rules.txt\", \"utf8\")\
             .then(t => process.stdout.write(t), () => {{}})' 2>/dev/null)\n\
             [ -n \"$v\" ] && echo '{{\"decision\":\"block\",\"reason\":\"policy says no\"}}'\n\
             exit 0\n"
        );
        cases.push((node, format!("{dir}/rules.txt")));
    } else {
        eprintln!("no node: its io_uring case is not run");
    }
    for (script, hidden) in cases {
        let Some(message) = blocked_with(unprivileged, &script, None, &[], |_| {}) else {
            return;
        };
        let hid = format!("'project' hid the host's {hidden}");
        assert_says(
            &message,
            &[&hid, &format!("`sandbox: {{read: [{hidden}]}}`")],
        );
    }
}

#[test]
fn a_fail_closed_guard_reaching_the_host_tmp_by_chdir_exec_or_io_uring_blocks_as_root() {
    host_tmp_reached_by_chdir_exec_or_io_uring_blocks(false);
}

#[test]
fn a_fail_closed_guard_reaching_the_host_tmp_by_chdir_exec_or_io_uring_blocks_unprivileged() {
    host_tmp_reached_by_chdir_exec_or_io_uring_blocks(true);
}

/// A guard that asks the daemon at `address` (a Python expression).
fn socket_guard(address: &str) -> String {
    python_guard(&format!(
        "s = socket.socket(socket.AF_UNIX); s.connect({address}); answer = s.recv(16).decode()"
    ))
}

fn abstract_policy_daemon_blocks(unprivileged: bool) {
    let name = format!("hermes-reach-{}-{unprivileged}", std::process::id());
    let address = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _daemon = Daemon::serve(UnixListener::bind_addr(&address).expect("abstract socket"));
    let guard = socket_guard(&format!("'\\0{name}'"));
    let Some(message) = blocked_with(unprivileged, &guard, None, &[], |_| {}) else {
        return;
    };
    let denied = format!("'project' denied the abstract unix socket @{name}");
    assert_says(&message, &[&denied, "`sandbox: {network: true}`"]);
    // The map the message names: the guard asks its daemon and blocks by it.
    let reached = blocked_with(unprivileged, &guard, Some("{network: true}"), &[], |_| {});
    assert_eq!(reached.as_deref(), Some("policy says no"));
}

#[test]
fn a_fail_closed_guard_whose_abstract_policy_daemon_is_cut_off_blocks_as_root() {
    abstract_policy_daemon_blocks(false);
}

#[test]
fn a_fail_closed_guard_whose_abstract_policy_daemon_is_cut_off_blocks_unprivileged() {
    abstract_policy_daemon_blocks(true);
}

/// The scene's runtime folder (`XDG_RUNTIME_DIR`, the user's, `0700`:
/// masked), beside its project.
fn runtime_dir(scene: &Scene) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = scene.project.parent().unwrap().join("runtime");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn runtime_policy_daemon_blocks(unprivileged: bool) {
    if !super::linked_tool_folder::sandbox_applies("a silenced fail-closed guard") {
        return;
    }
    let guard = socket_guard("os.environ['CLAUDE_PROJECT_DIR'] + '/../runtime/policy.sock'");
    let Some(scene) = project_guard_in(unprivileged, &guard, true, None) else {
        return;
    };
    let runtime = runtime_dir(&scene);
    let socket = runtime.join("policy.sock");
    let _daemon = Daemon::serve(UnixListener::bind(&socket).expect("named socket"));
    let env = [("XDG_RUNTIME_DIR", runtime.to_str().expect("UTF-8 path"))];
    let emitted = emit_in(&scene, false, &env);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted}");
    let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
    let socket = std::fs::canonicalize(&socket).unwrap();
    let kept = format!(
        "'project' kept the unix socket {} from it",
        socket.display()
    );
    let listed = format!("`sandbox: {{read: [{}]}}`", socket.display());
    assert_says(message, &[&kept, &listed]);
    // The map the message names: the guard asks its daemon and blocks by it.
    scene.config(&format!(
        "hooks_from:\n  - {{format: claude, path: '{}', sandbox: {{read: ['{}']}}}}\n",
        scene.project.join(".claude/settings.json").display(),
        socket.display()
    ));
    emit_in(&scene, true, &env);
    let emitted = emit_in(&scene, false, &env);
    assert_eq!(
        emitted["outcome"]["message"],
        json!("policy says no"),
        "{emitted}"
    );
    // Fail-open, the guard that cannot ask allows as before.
    let fail_open = project_guard_in(unprivileged, &guard, false, None).expect("as above");
    let runtime = runtime_dir(&fail_open);
    let _daemon = Daemon::serve(UnixListener::bind(runtime.join("policy.sock")).unwrap());
    let env = [("XDG_RUNTIME_DIR", runtime.to_str().expect("UTF-8 path"))];
    let emitted = emit_in(&fail_open, false, &env);
    assert_eq!(emitted["outcome"], Value::Null, "{emitted}");
}

#[test]
fn a_fail_closed_guard_whose_policy_daemon_its_runtime_folder_masks_blocks_as_root() {
    runtime_policy_daemon_blocks(false);
}

#[test]
fn a_fail_closed_guard_whose_policy_daemon_its_runtime_folder_masks_blocks_unprivileged() {
    runtime_policy_daemon_blocks(true);
}
