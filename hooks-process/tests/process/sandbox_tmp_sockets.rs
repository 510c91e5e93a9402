//! Sockets a sandboxed hook reaches in the host's `/tmp` and in `/run`
//! (red team round 7, R7b-3 and R7b-6). A project in `/tmp` drops the
//! private `/tmp` (the tmpfs would hide it): the host's `/tmp` then has its
//! socket places masked (ssh-agent's `/tmp/ssh-XXXX/agent.N`, a
//! `ControlMaster` right in `/tmp`, an editor's server one folder down). A
//! word of the hook's command naming a `/tmp` path never drops it. Each
//! probe is first run with no sandbox, where it must reach the listener.

#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::path::{Path, PathBuf};

use hermes_hooks_process::run_sandboxed;
use hermes_hooks_process::sandbox::{Context, Profile, Sandbox};

use crate::sandbox::{World, stdout};
use crate::sandbox_sockets::{Listener, Scratch, check, probes};
use crate::support::{limits, sh};

/// Runs `script` under `profile` for a hook of `project` whose command's
/// words name `own_files`; the home is `home`.
async fn run(
    profile: Profile,
    project: &Path,
    home: &Path,
    own_files: &[PathBuf],
    script: &str,
) -> String {
    let mut context = Context::new(project);
    context.home = Some(home.to_path_buf());
    context.own_files = own_files.to_vec();
    let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
    let mut command = sh(script);
    command.current_dir(project).env("HOME", home);
    let output = run_sandboxed(command, b"", &limits(20), prepared)
        .await
        .expect("runs");
    stdout(&output)
}

/// The session's sockets of the host's `/tmp`, as their programs make
/// them: ssh-agent's in a `0700` `ssh-*` folder, an ssh `ControlMaster`
/// right in `/tmp`, an editor's server in a folder of its own.
struct TmpSockets {
    agent: Listener,
    master: Listener,
    editor: Listener,
    _folders: [Scratch; 2],
}

impl TmpSockets {
    fn new() -> TmpSockets {
        use std::os::unix::fs::DirBuilderExt;
        let id = std::process::id();
        let ssh = Scratch(PathBuf::from(format!("/tmp/ssh-hermes{id}")));
        let editor = Scratch(PathBuf::from(format!("/tmp/hermes-editor-{id}")));
        for folder in [&ssh.0, &editor.0] {
            let _ = std::fs::DirBuilder::new().mode(0o700).create(folder);
        }
        TmpSockets {
            agent: Listener::at(ssh.0.join(format!("agent.{id}"))),
            master: Listener::at(PathBuf::from(format!("/tmp/hermes-cm-{id}@host:22"))),
            editor: Listener::at(editor.0.join("server")),
            _folders: [ssh, editor],
        }
    }

    fn probes(&self) -> String {
        probes(&[
            ("AGENT", &self.agent.path),
            ("MASTER", &self.master.path),
            ("EDITOR", &self.editor.path),
        ])
    }
}

const NAMES: [&str; 3] = ["AGENT", "MASTER", "EDITOR"];

#[tokio::test]
async fn a_project_in_tmp_keeps_the_hosts_tmp_sockets_out_of_reach() {
    let sockets = TmpSockets::new();
    let world = World::new();
    let dir = tempfile::Builder::new()
        .prefix("hermes-tmp-project-")
        .tempdir_in("/tmp")
        .unwrap();
    let project = dir.path().canonicalize().unwrap();
    // A socket of the project's own is what the setup reads: kept.
    let own = Listener::at(project.join("own.sock"));
    let script = format!("{}{}", sockets.probes(), probes(&[("OWN", &own.path)]));
    let free = run(Profile::None, &project, &world.home, &[], &script).await;
    check(&free, &["AGENT", "MASTER", "EDITOR", "OWN"], &[]);
    for profile in [Profile::Project, Profile::Strict] {
        let out = run(profile, &project, &world.home, &[], &script).await;
        check(&out, &["OWN"], &NAMES);
    }
    drop(own);
}

#[tokio::test]
async fn a_word_of_the_command_naming_tmp_keeps_the_private_tmp() {
    let sockets = TmpSockets::new();
    let world = World::new();
    // `probe.sh /tmp/`, `probe.sh # see /tmp/ssh-XXXX`: own files in /tmp.
    let words = [
        PathBuf::from("/tmp"),
        sockets.agent.path.parent().unwrap().to_path_buf(),
    ];
    let script = format!("{}echo \"tmpdir=$TMPDIR\"\n", sockets.probes());
    let free = run(Profile::None, &world.project, &world.home, &words, &script).await;
    check(&free, &NAMES, &[]);
    for profile in [Profile::Project, Profile::Strict] {
        let out = run(profile, &world.project, &world.home, &words, &script).await;
        check(&out, &[], &NAMES);
        assert!(out.contains("tmpdir=/tmp\n"), "a private /tmp: {out}");
    }
}

/// Red team round 7 (R7b-6): sockets whose servers trust the caller's uid
/// (PostgreSQL's `peer`, MariaDB's `unix_socket`, supervisord, tailscaled)
/// were reachable. Made here only as root, each socket under a name of its
/// own; a folder made for it is removed after.
#[tokio::test]
async fn the_system_sockets_that_trust_the_callers_uid_are_unreachable() {
    if !rustix::process::getuid().is_root() {
        eprintln!("skipped: only root may make listeners in /run");
        return;
    }
    let places = [
        ("POSTGRES", "/run/postgresql", ".s.PGSQL.5432"),
        ("MYSQL", "/run/mysqld", "mysqld.sock"),
        ("TAILSCALE", "/run/tailscale", "tailscaled.sock"),
        ("PHP", "/run/php", "php8.3-fpm.sock"),
    ];
    let id = std::process::id();
    let mut listeners = Vec::new();
    let mut folders = Vec::new();
    for (name, folder, socket) in places {
        let folder = PathBuf::from(folder);
        if !folder.exists() {
            std::fs::create_dir_all(&folder).unwrap();
            folders.push(Scratch(folder.clone()));
        }
        let socket = folder.join(format!("{socket}.hermes{id}"));
        listeners.push((name, Listener::at(socket)));
    }
    let supervisor = Path::new("/run/supervisor.sock");
    if supervisor.exists() {
        eprintln!("not probed: {} exists here", supervisor.display());
    } else {
        listeners.push(("SUPERVISOR", Listener::at(supervisor.to_path_buf())));
    }
    let names: Vec<&str> = listeners.iter().map(|(name, _)| *name).collect();
    let sockets: Vec<(&str, &Path)> = (listeners.iter())
        .map(|(name, listener)| (*name, listener.path.as_path()))
        .collect();
    let script = probes(&sockets);
    let world = World::new();
    let free = world.run(Profile::None, &script).await;
    check(&stdout(&free), &names, &[]);
    for profile in [Profile::Project, Profile::Strict] {
        let output = world.run(profile, &script).await;
        check(&stdout(&output), &[], &names);
    }
    drop((listeners, folders));
}
