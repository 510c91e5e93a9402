//! Named Unix sockets a sandboxed hook must not reach (red-team round 6,
//! R6-22): Landlock does not cover `connect()` on a socket file, so the
//! user's runtime folder (`/run/user/<uid>`: the session bus, ssh and gpg
//! agents) and the home's socket places (`~/.gnupg`, an ssh
//! `ControlMaster` socket in `~/.ssh`) are masked in the hook's mount
//! namespace, and the session's socket variables leave its environment.
//! Each probe is first run with no sandbox, where it must reach the
//! listener (so an unreachable socket is the sandbox's doing).

#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use hermes_hooks_process::run_sandboxed;
use hermes_hooks_process::sandbox::{Context, CustomRules, Profile, Sandbox};

use crate::sandbox::{World, stdout};
use crate::support::{limits, sh};

/// A listener answering `AGENT-SECRET` to every connection, its socket
/// file removed when dropped.
pub(crate) struct Listener {
    pub(crate) path: PathBuf,
}

impl Listener {
    pub(crate) fn at(path: PathBuf) -> Listener {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).expect("bind the listener");
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let _ = stream.write_all(b"AGENT-SECRET\n");
            }
        });
        Listener { path }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A scratch folder (in the runtime folder, in /tmp), removed when dropped (a failed
/// assertion included).
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Connects to each named socket: prints `<NAME>-REACHED <answer>` or
/// `<NAME>-UNREACHABLE`.
pub(crate) fn probes(sockets: &[(&str, &Path)]) -> String {
    sockets
        .iter()
        .map(|(name, socket)| {
            format!(
                "if out=$(perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ARGV[0]) \
                 or exit 1; print scalar <$s>' '{}' 2>/dev/null) && [ -n \"$out\" ]; \
                 then echo \"{name}-REACHED $out\"; else echo \"{name}-UNREACHABLE\"; fi\n",
                socket.display()
            )
        })
        .collect()
}

/// The user's runtime folder, made if missing where this runs as root;
/// `None` (said) where it is missing and cannot be made.
fn runtime_folder() -> Option<PathBuf> {
    let uid = rustix::process::getuid();
    let runtime = PathBuf::from(format!("/run/user/{}", uid.as_raw()));
    if !runtime.is_dir() {
        if !uid.is_root() {
            eprintln!(
                "skipped: {} is missing and only root may make it",
                runtime.display()
            );
            return None;
        }
        use std::os::unix::fs::DirBuilderExt;
        if let Err(error) = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&runtime)
        {
            eprintln!("skipped: cannot make {}: {error}", runtime.display());
            return None;
        }
    }
    Some(runtime)
}

pub(crate) fn check(out: &str, reached: &[&str], unreachable: &[&str]) {
    assert!(
        !unreachable
            .iter()
            .any(|name| out.contains(&format!("{name}-REACHED"))),
        "{out}"
    );
    for name in reached {
        assert!(
            out.contains(&format!("{name}-REACHED AGENT-SECRET")),
            "{out}"
        );
    }
    for name in unreachable {
        assert!(out.contains(&format!("{name}-UNREACHABLE")), "{out}");
    }
}

#[tokio::test]
async fn the_sessions_sockets_are_unreachable_from_project_and_strict() {
    let Some(runtime) = runtime_folder() else {
        return;
    };
    let id = std::process::id();
    let folder = Scratch(runtime.join(format!("hermes-sandbox-test-{id}")));
    // `bus` right in the folder, `gnupg/S.gpg-agent` in a folder of it.
    let bus = Listener::at(runtime.join(format!("hermes-sandbox-test-{id}.sock")));
    let agent = Listener::at(folder.0.join("S.agent"));
    let world = World::new();
    let script = probes(&[("BUS", &bus.path), ("AGENT", &agent.path)]);
    let free = world.run(Profile::None, &script).await;
    check(&stdout(&free), &["BUS", "AGENT"], &[]);
    for profile in [Profile::Project, Profile::Strict] {
        let output = world.run(profile.clone(), &script).await;
        check(&stdout(&output), &[], &["BUS", "AGENT"]);
    }
    drop((bus, agent, folder));
}

#[tokio::test]
async fn the_homes_agent_and_control_master_sockets_are_unreachable() {
    let world = World::new();
    let gpg = Listener::at(world.home.join(".gnupg/S.gpg-agent"));
    let master = Listener::at(world.home.join(".ssh/cm-git@host:22"));
    let script = probes(&[("GPG", &gpg.path), ("MASTER", &master.path)]);
    let free = world.run(Profile::None, &script).await;
    check(&stdout(&free), &["GPG", "MASTER"], &[]);
    for profile in [Profile::Project, Profile::Strict] {
        let output = world.run(profile.clone(), &script).await;
        check(&stdout(&output), &[], &["GPG", "MASTER"]);
    }
    // The rest of the home reads as before under `project`, and a read in
    // a masked place is still denied (not missing: `--explain` says so).
    let script = "cat \"$HOME/notes.txt\"; cat \"$HOME/.ssh/id_ed25519\"";
    let output = world.run(Profile::Project, script).await;
    assert!(stdout(&output).contains("readable notes"), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("id_ed25519: Permission denied"),
        "{output:?}"
    );
}

#[tokio::test]
async fn a_map_that_lists_the_runtime_folder_keeps_it_and_a_path_folder_in_it_stays() {
    let Some(runtime) = runtime_folder() else {
        return;
    };
    let id = std::process::id();
    let bus = Listener::at(runtime.join(format!("hermes-sandbox-map-{id}.sock")));
    // fnm's way: a `PATH` folder inside the runtime folder.
    let folder = Scratch(runtime.join(format!("hermes-sandbox-map-{id}")));
    let tools = folder.0.join("bin");
    std::fs::create_dir_all(&tools).unwrap();
    let tool = tools.join("probe-tool");
    std::fs::write(&tool, "#!/bin/sh\necho TOOL-RAN\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let world = World::new();
    let script = format!("probe-tool\n{}", probes(&[("BUS", &bus.path)]));
    let limits = limits(20);
    let run = |profile: Profile| {
        let mut context = Context::new(&world.project);
        context.home = Some(world.home.clone());
        context.path.insert(0, tools.clone());
        let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
        let mut command = sh(&script);
        let path = std::env::join_paths(&context.path).unwrap();
        command
            .current_dir(&world.project)
            .env("HOME", &world.home)
            .env("PATH", path);
        run_sandboxed(command, b"", &limits, prepared)
    };
    let project = run(Profile::Project).await.expect("runs");
    let out = stdout(&project);
    assert!(out.contains("TOOL-RAN"), "{project:?}");
    check(&out, &[], &["BUS"]);
    let listing = CustomRules::new(vec![runtime.display().to_string()], vec![], false);
    let custom = run(Profile::Custom(listing)).await.expect("runs");
    check(&stdout(&custom), &["BUS"], &[]);
    drop((bus, folder));
}

/// Red team round 7 (R7b-1): a word of the hook's command that names the
/// runtime folder (`probe.sh /run/user`) made it one of the profile's own
/// files, and what the profile read was left unmasked: the session bus
/// answered. Only the user's setup (a map, `PATH`) keeps a place.
#[tokio::test]
async fn a_word_of_the_command_naming_the_runtime_folder_keeps_it_masked() {
    let Some(runtime) = runtime_folder() else {
        return;
    };
    let id = std::process::id();
    let bus = Listener::at(runtime.join(format!("hermes-sandbox-word-{id}.sock")));
    let world = World::new();
    let script = probes(&[("BUS", &bus.path)]);
    for profile in [Profile::Project, Profile::Strict] {
        let mut context = Context::new(&world.project);
        context.home = Some(world.home.clone());
        context.own_files = vec![runtime.clone(), PathBuf::from("/run")];
        let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
        let mut command = sh(&script);
        command.current_dir(&world.project).env("HOME", &world.home);
        let output = run_sandboxed(command, b"", &limits(20), prepared)
            .await
            .expect("runs");
        check(&stdout(&output), &[], &["BUS"]);
    }
    drop(bus);
}

#[tokio::test]
async fn the_sessions_socket_variables_leave_a_sandboxed_hooks_environment() {
    let world = World::new();
    let mut context = Context::new(&world.project);
    context.home = Some(world.home.clone());
    let script = "echo \"bus=${DBUS_SESSION_BUS_ADDRESS-unset} ssh=${SSH_AUTH_SOCK-unset} \
                  gpg=${GPG_AGENT_INFO-unset} lang=${LANG-unset}\"";
    for (profile, expected) in [
        (Profile::None, "bus=unix:path=/b ssh=/s gpg=/g lang=C"),
        (Profile::Project, "bus=unset ssh=unset gpg=unset lang=C"),
        (Profile::Strict, "bus=unset ssh=unset gpg=unset lang=C"),
    ] {
        let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
        let mut command = sh(script);
        command
            .current_dir(&world.project)
            .env("HOME", &world.home)
            .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/b")
            .env("SSH_AUTH_SOCK", "/s")
            .env("GPG_AGENT_INFO", "/g")
            .env("LANG", "C");
        let output = run_sandboxed(command, b"", &limits(20), prepared)
            .await
            .expect("runs");
        assert!(stdout(&output).contains(expected), "{output:?}");
    }
}
