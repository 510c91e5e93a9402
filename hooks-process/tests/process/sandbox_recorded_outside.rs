//! The kernel's record of what a sandboxed hook's Landlock ruleset and
//! masks deny it, beyond what an `open` of `/tmp` or a `connect()` shows:
//! a fail-closed guard that sends its question as a datagram to a unix
//! socket it cannot reach (`sendto()`, `sendmsg()` with an address: masked,
//! hidden by its private `/tmp`, an abstract one cut off), or reads or runs
//! its rules where its profile grants nothing (a folder beneath no root,
//! a secret store), silences the failure and allows. Asked for
//! (`Context::record_denials`), each is recorded anyway; what the hook
//! reaches, what the host lacks, a connected socket's sends and the usual
//! interpreters' own start-up are not. Root and an unprivileged user
//! alike (CI is root).
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::PathBuf;

use hermes_hooks_process::sandbox::Profile;

use crate::sandbox::{World, stdout};

/// A script that sends `q` to the unix datagram socket `address` (a Python
/// string literal) with `call` (`sendto`, `sendmsg`), prints `sent` if it
/// could and hides why it could not.
fn send(call: &str, address: &str) -> String {
    let sent = match call {
        "sendto" => format!("s.sendto(b\"q\", \"{address}\")"),
        _ => format!("s.sendmsg([b\"q\"], [], 0, \"{address}\")"),
    };
    format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); \
         {sent}; print(\"sent\")' 2>/dev/null || exit 0"
    )
}

/// A datagram socket of the host's `/tmp` anybody may send to, removed
/// when dropped.
struct HostTmpDatagram(PathBuf, #[allow(dead_code)] UnixDatagram);

impl HostTmpDatagram {
    fn new(name: &str) -> HostTmpDatagram {
        use std::os::unix::fs::PermissionsExt;
        let path = PathBuf::from(format!("/tmp/hermes-dgram-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let socket = UnixDatagram::bind(&path).expect("host /tmp datagram socket");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        HostTmpDatagram(path, socket)
    }
}

impl Drop for HostTmpDatagram {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test]
async fn a_datagram_to_a_unix_socket_masked_hidden_or_cut_off_is_recorded_when_asked() {
    let world = World::new();
    let masked = world.home.join(".ssh/agent.sock");
    let _agent = UnixDatagram::bind(&masked).expect("a datagram socket in ~/.ssh");
    let hidden = HostTmpDatagram::new("policy.sock");
    let name = format!("hermes-dgram-{}", std::process::id());
    let abstract_name = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _daemon = UnixDatagram::bind_addr(&abstract_name).expect("abstract datagram socket");
    let cases = [
        (masked.display().to_string(), masked.display().to_string()),
        (
            hidden.0.display().to_string(),
            hidden.0.display().to_string(),
        ),
        (format!("\\0{name}"), format!("@{name}")),
    ];
    for (address, denied) in cases {
        for call in ["sendto", "sendmsg"] {
            let script = send(call, &address);
            let output = world.run_recorded(Profile::Project, true, &script).await;
            assert_eq!(stdout(&output), "", "{script}: {output:?}");
            assert!(output.stderr.is_empty(), "{script}: {output:?}");
            assert_eq!(
                output.denied_unix_socket,
                Some(denied.clone()),
                "{script}: {output:?}"
            );
            let unasked = world.run_recorded(Profile::Strict, false, &script).await;
            assert_eq!(unasked.denied_unix_socket, None, "{script}: {unasked:?}");
        }
    }
}

#[tokio::test]
async fn a_datagram_the_hook_delivers_or_a_connected_send_is_not_recorded() {
    let world = World::new();
    let mine = world.project.join("mine.sock");
    let _mine = UnixDatagram::bind(&mine).expect("a datagram socket in the project");
    for call in ["sendto", "sendmsg"] {
        let script = send(call, &mine.display().to_string());
        let output = world.run_recorded(Profile::Project, true, &script).await;
        assert_eq!(stdout(&output), "sent\n", "{output:?}");
        assert_eq!(output.denied_unix_socket, None, "{output:?}");
    }
    // Nobody bound there on the host; a socketpair's sends name no address.
    let absent = format!("/tmp/hermes-dgram-{}-absent.sock", std::process::id());
    let output = world
        .run_recorded(Profile::Project, true, &send("sendto", &absent))
        .await;
    assert_eq!(output.denied_unix_socket, None, "{output:?}");
    let pair = "python3 -c 'import socket; a, b = socket.socketpair(socket.AF_UNIX, \
                socket.SOCK_DGRAM); a.send(b\"q\"); a.sendmsg([b\"q\"]); print(b.recv(4))'";
    let output = world.run_recorded(Profile::Project, true, pair).await;
    assert_eq!(stdout(&output), "b'q'\n", "{output:?}");
    assert_eq!(output.denied_unix_socket, None, "{output:?}");
}

/// A folder beside the world's project and home, beneath no root of its
/// profiles, with rules anybody may read and a policy program.
fn outside_folder(world: &World) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = world
        .project
        .parent()
        .expect("a scratch folder")
        .join("srv");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rules.txt"), "rm -rf\n").unwrap();
    let policy = dir.join("policy");
    std::fs::write(&policy, "#!/bin/sh\necho deny\n").unwrap();
    std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

#[tokio::test]
async fn a_read_or_a_run_where_the_profile_grants_nothing_is_recorded_when_asked() {
    let world = World::new();
    let dir = outside_folder(&world);
    let shown = dir.display();
    let key = std::fs::canonicalize(world.home.join(".ssh/id_ed25519")).unwrap();
    let cases = [
        (
            format!("cat {shown}/rules.txt 2>/dev/null || exit 0"),
            dir.join("rules.txt"),
        ),
        (
            format!(
                "python3 -c 'import os; os.chdir(\"{shown}\"); print(open(\"rules.txt\").read())' \
                 2>/dev/null || exit 0"
            ),
            dir.join("rules.txt"),
        ),
        (
            format!(
                "python3 -c 'import subprocess; subprocess.run([\"{shown}/policy\"])' \
                 2>/dev/null || exit 0"
            ),
            dir.join("policy"),
        ),
        (
            format!("{shown}/policy 2>/dev/null || exit 0"),
            dir.join("policy"),
        ),
        (format!("ls {shown} >/dev/null 2>&1 || exit 0"), dir.clone()),
        (
            "cat ~/.ssh/id_ed25519 2>/dev/null || exit 0".to_owned(),
            key.clone(),
        ),
    ];
    for (script, denied) in cases {
        let output = world.run_recorded(Profile::Project, true, &script).await;
        assert_eq!(output.exit_code, Some(0), "{script}: {output:?}");
        assert_eq!(stdout(&output), "", "{script}: {output:?}");
        assert!(output.stderr.is_empty(), "{script}: {output:?}");
        assert_eq!(output.denied_path, Some(denied), "{script}: {output:?}");
        let unasked = world.run_recorded(Profile::Project, false, &script).await;
        assert_eq!(unasked.denied_path, None, "{script}: {unasked:?}");
    }
}

#[tokio::test]
async fn what_the_profile_grants_or_the_host_lacks_and_interpreters_starting_are_not_recorded() {
    let world = World::new();
    let dir = outside_folder(&world);
    let mut scripts = vec![
        "cat src/main.rs >/dev/null; ls /usr >/dev/null; echo ok".to_owned(),
        format!("stat {}/rules.txt >/dev/null; echo ok", dir.display()),
        format!("cat {}/absent 2>/dev/null; echo ok", dir.display()),
        "python3 -c 'import json, os, socket, subprocess, sys; print(\"ok\")'".to_owned(),
        "python3 -I -c 'import ssl, email, http.client; print(\"ok\")'".to_owned(),
        "perl -MPOSIX -MSocket -e 'print \"ok\\n\"'".to_owned(),
        "bash -c 'echo ok'".to_owned(),
    ];
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok()
    {
        scripts.push("node -e 'require(\"fs\"); console.log(\"ok\")'".to_owned());
    }
    for strict in [false, true] {
        for script in &scripts {
            let profile = if strict {
                Profile::Strict
            } else {
                Profile::Project
            };
            let output = world.run_recorded(profile, true, script).await;
            assert!(stdout(&output).ends_with("ok\n"), "{script}: {output:?}");
            assert_eq!(
                output.denied_path, None,
                "strict {strict}: {script}: {output:?}"
            );
        }
    }
    // The home, under `project`.
    let home = "cat ~/notes.txt >/dev/null; echo ok";
    let output = world.run_recorded(Profile::Project, true, home).await;
    assert_eq!(stdout(&output), "ok\n", "{output:?}");
    assert_eq!(output.denied_path, None, "{output:?}");
}
