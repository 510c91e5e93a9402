//! The kernel's record beyond an `open` (red team round 9, R9-4): a
//! fail-closed guard reaches its rules through something its sandbox
//! denies, silences the failure, and allows. Asked for
//! (`Context::record_denials`), each of these is recorded anyway: a
//! `chdir` into the host's `/tmp` (then a relative `open`), a program of
//! the host's `/tmp` run without a `stat` first, a relative path from a
//! `cd /tmp`, a unix socket the hook cannot reach (masked, hidden by its
//! private `/tmp`, an abstract one cut off with the network); and io_uring,
//! whose opens no filter sees, is refused (libuv then opens as usual).
//! What the hook does reach, or the host lacks, is not recorded. Root and
//! an unprivileged user alike (CI is root).
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::PathBuf;

use hermes_hooks_process::sandbox::{CustomRules, Profile};

use crate::sandbox::{World, stdout};

/// A folder of the host's `/tmp` with rules and a policy program, removed
/// when dropped.
struct HostTmpFolder(PathBuf);

impl HostTmpFolder {
    fn new(name: &str) -> HostTmpFolder {
        use std::os::unix::fs::PermissionsExt;
        let dir = PathBuf::from(format!("/tmp/hermes-reach-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("host /tmp folder");
        std::fs::write(dir.join("rules.txt"), "rm -rf\n").unwrap();
        let policy = dir.join("policy");
        std::fs::write(&policy, "#!/bin/sh\necho deny\n").unwrap();
        std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o755)).unwrap();
        HostTmpFolder(dir)
    }

    fn name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for HostTmpFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_host_tmp_folder_reached_by_chdir_exec_or_a_relative_path_is_recorded() {
    let world = World::new();
    let folder = HostTmpFolder::new("chdir");
    let (dir, name) = (folder.0.display(), folder.name());
    let cases = [
        (
            format!(
                "python3 -c 'import os; os.chdir(\"{dir}\"); open(\"rules.txt\")' \
                 2>/dev/null || exit 0"
            ),
            folder.0.clone(),
        ),
        (
            format!(
                "python3 -c 'import subprocess; subprocess.run([\"{dir}/policy\"])' \
                 2>/dev/null || exit 0"
            ),
            folder.0.join("policy"),
        ),
        (
            format!("cd /tmp && cat {name}/rules.txt 2>/dev/null || exit 0"),
            folder.0.join("rules.txt"),
        ),
    ];
    for (script, hidden) in cases {
        let output = world.run_recorded(Profile::Project, true, &script).await;
        assert_eq!(output.exit_code, Some(0), "{script}: {output:?}");
        assert!(output.stderr.is_empty(), "{script}: {output:?}");
        assert_eq!(output.hidden_tmp, Some(hidden), "{script}: {output:?}");
        let unasked = world.run_recorded(Profile::Strict, false, &script).await;
        assert_eq!(unasked.hidden_tmp, None, "{script}: {unasked:?}");
    }
}

/// A script that connects to the unix socket `address` (a Python string
/// literal), prints `reached` if it could and hides why it could not.
fn connect(address: &str) -> String {
    format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); \
         s.connect(\"{address}\"); print(\"reached\")' 2>/dev/null || exit 0"
    )
}

/// A listener on the host's `/tmp` anybody may connect to, removed when dropped.
struct HostTmpSocket(PathBuf, #[allow(dead_code)] UnixListener);

impl HostTmpSocket {
    fn new(name: &str) -> HostTmpSocket {
        use std::os::unix::fs::PermissionsExt;
        let path = PathBuf::from(format!("/tmp/hermes-reach-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).expect("host /tmp socket");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        HostTmpSocket(path, listener)
    }
}

impl Drop for HostTmpSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A listener on the abstract `name` of the host's network namespace.
fn abstract_listener(name: &str) -> UnixListener {
    let address = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    UnixListener::bind_addr(&address).expect("abstract socket")
}

#[tokio::test]
async fn a_unix_socket_masked_hidden_or_cut_off_is_recorded_when_asked() {
    let world = World::new();
    let masked = world.home.join(".ssh/agent.sock");
    let _agent = UnixListener::bind(&masked).expect("a socket in ~/.ssh");
    let hidden = HostTmpSocket::new("daemon.sock");
    let name = format!("hermes-reach-{}", std::process::id());
    let _daemon = abstract_listener(&name);
    let cases = [
        (masked.display().to_string(), masked.display().to_string()),
        (
            hidden.0.display().to_string(),
            hidden.0.display().to_string(),
        ),
        (format!("\\0{name}"), format!("@{name}")),
    ];
    for (address, denied) in cases {
        let script = connect(&address);
        let output = world.run_recorded(Profile::Project, true, &script).await;
        assert_eq!(stdout(&output), "", "{script}: {output:?}");
        assert!(output.stderr.is_empty(), "{script}: {output:?}");
        assert_eq!(
            output.denied_unix_socket,
            Some(denied),
            "{script}: {output:?}"
        );
        assert_eq!(output.network_attempts, 0, "{script}: {output:?}");
        let unasked = world.run_recorded(Profile::Strict, false, &script).await;
        assert_eq!(unasked.denied_unix_socket, None, "{script}: {unasked:?}");
    }
}

#[tokio::test]
async fn a_unix_socket_the_hook_reaches_or_the_host_lacks_is_not_recorded() {
    let world = World::new();
    let mine = world.project.join("mine.sock");
    let _mine = UnixListener::bind(&mine).expect("a socket in the project");
    let name = format!("hermes-reach-open-{}", std::process::id());
    let _daemon = abstract_listener(&name);
    let host = HostTmpSocket::new("same-name.sock");
    let reached = connect(&mine.display().to_string());
    let output = world.run_recorded(Profile::Project, true, &reached).await;
    assert_eq!(stdout(&output), "reached\n", "{output:?}");
    assert_eq!(output.denied_unix_socket, None, "{output:?}");
    // Nobody listens there on the host: nothing was kept from the hook.
    for address in [
        format!("\\0{name}-absent"),
        format!("/tmp/hermes-reach-{}-absent.sock", std::process::id()),
    ] {
        let output = world
            .run_recorded(Profile::Project, true, &connect(&address))
            .await;
        assert_eq!(output.denied_unix_socket, None, "{address}: {output:?}");
    }
    // Its own socket at a host socket's path in its private `/tmp`.
    let own = format!(
        "python3 -c 'import socket; l = socket.socket(socket.AF_UNIX); l.bind(\"{0}\"); \
         l.listen(1); s = socket.socket(socket.AF_UNIX); s.connect(\"{0}\"); print(\"reached\")'",
        host.0.display()
    );
    let output = world.run_recorded(Profile::Project, true, &own).await;
    assert_eq!(stdout(&output), "reached\n", "{output:?}");
    assert_eq!(output.denied_unix_socket, None, "{output:?}");
    // A map that keeps the network keeps abstract sockets: reached.
    let networked = Profile::Custom(CustomRules::new(Vec::new(), Vec::new(), true));
    let script = connect(&format!("\\0{name}"));
    let output = world.run_recorded(networked, true, &script).await;
    assert_eq!(stdout(&output), "reached\n", "{output:?}");
    assert_eq!(output.denied_unix_socket, None, "{output:?}");
}

/// `io_uring_setup(8, params)` in Perl: `ring`, or `errno <n>`.
const IO_URING_SETUP: &str = "perl -e 'my $p = \"\\0\" x 120; my $r = syscall(425, 8, $p); \
     print $r < 0 ? \"errno \" . ($! + 0) : \"ring\"'";

#[tokio::test]
async fn io_uring_is_refused_to_a_recorded_hook_and_its_opens_are_then_recorded() {
    let world = World::new();
    let output = world
        .run_recorded(Profile::Project, true, IO_URING_SETUP)
        .await;
    assert_eq!(
        stdout(&output),
        format!("errno {}", libc::ENOSYS),
        "{output:?}"
    );
    // Unrecorded, the same hook gets what the host gives it.
    let host = std::process::Command::new("sh")
        .args(["-c", IO_URING_SETUP])
        .output()
        .expect("perl");
    let unasked = world
        .run_recorded(Profile::Project, false, IO_URING_SETUP)
        .await;
    assert_eq!(
        stdout(&unasked),
        String::from_utf8_lossy(&host.stdout),
        "{unasked:?}"
    );
    // libuv's async `fs` through io_uring (red team round 9): refused a
    // ring, Node opens the host's `/tmp` file as usual, and it is recorded.
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no node: its io_uring case is not run");
        return;
    }
    let folder = HostTmpFolder::new("uring");
    let script = format!(
        "UV_USE_IO_URING=1 node -e 'require(\"fs\").promises.readFile(\"{}/rules.txt\", \
         \"utf8\").then(t => process.stdout.write(t), () => {{}})' 2>/dev/null",
        folder.0.display()
    );
    let output = world.run_recorded(Profile::Project, true, &script).await;
    assert_eq!(output.exit_code, Some(0), "{output:?}");
    assert_eq!(
        output.hidden_tmp,
        Some(folder.0.join("rules.txt")),
        "{output:?}"
    );
}
