//! Sandboxed runs through the library (the `sandbox` feature): what a
//! `project` / `strict` hook may read, write and reach, enforced by the
//! kernel for the hook and its grandchildren alike. The same rules are
//! tested through the `hooks` binary, as root and as `nobody`, in hooks-cli.
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::path::{Path, PathBuf};

use hermes_hooks_process::sandbox::{Context, Profile, Sandbox};
use hermes_hooks_process::{RunOutput, run_sandboxed};

use crate::support::{limits, sh};

/// A project and a home outside `/tmp` (a tmpfs there would hide them).
pub(crate) struct World {
    _dir: tempfile::TempDir,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
}

impl World {
    pub(crate) fn new() -> World {
        let dir = tempfile::Builder::new()
            .prefix("sandbox-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("scratch");
        let project = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "SECRET KEY").unwrap();
        std::fs::write(home.join("notes.txt"), "readable notes").unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() {}").unwrap();
        World {
            _dir: dir,
            project,
            home,
        }
    }

    pub(crate) async fn run(&self, profile: Profile, script: &str) -> RunOutput {
        let mut context = Context::new(&self.project);
        context.home = Some(self.home.clone());
        let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
        let mut command = sh(script);
        command.current_dir(&self.project).env("HOME", &self.home);
        run_sandboxed(command, b"", &limits(20), prepared)
            .await
            .expect("runs")
    }
}

pub(crate) fn stdout(output: &RunOutput) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn unique_tmp(name: &str) -> PathBuf {
    Path::new("/tmp").join(format!("hermes-sandbox-test-{name}-{}", std::process::id()))
}

#[tokio::test]
async fn project_reads_home_and_project_but_not_secrets() {
    let world = World::new();
    let script = "cat \"$HOME/notes.txt\" && echo; \
                  cat \"$HOME/.ssh/id_ed25519\" || echo SSH-DENIED; \
                  cat src/main.rs && echo";
    let output = world.run(Profile::Project, script).await;
    let out = stdout(&output);
    assert!(out.contains("readable notes"), "{output:?}");
    assert!(
        out.contains("SSH-DENIED") && !out.contains("SECRET"),
        "{output:?}"
    );
    assert!(out.contains("fn main"), "{output:?}");
}

#[tokio::test]
async fn project_writes_the_project_and_a_private_tmp_only() {
    let world = World::new();
    let tmp = unique_tmp("project");
    let script = format!(
        "echo a > out.txt && echo WROTE-PROJECT; \
         echo b > \"$HOME/x\" || echo HOME-DENIED; \
         echo c > {tmp} && cat {tmp} && echo TMP-PRIVATE",
        tmp = tmp.display()
    );
    let output = world.run(Profile::Project, &script).await;
    let out = stdout(&output);
    assert!(out.contains("WROTE-PROJECT"), "{output:?}");
    assert!(world.project.join("out.txt").exists());
    assert!(
        out.contains("HOME-DENIED") && !world.home.join("x").exists(),
        "{output:?}"
    );
    assert!(out.contains("TMP-PRIVATE"), "{output:?}");
    assert!(!tmp.exists(), "{} reached the real /tmp", tmp.display());
}

#[tokio::test]
async fn strict_cannot_write_the_project() {
    let world = World::new();
    let output = world
        .run(
            Profile::Strict,
            "cat src/main.rs >/dev/null && echo READ; echo a > out.txt || echo DENIED",
        )
        .await;
    let out = stdout(&output);
    assert!(out.contains("READ") && out.contains("DENIED"), "{output:?}");
    assert!(!world.project.join("out.txt").exists());
}

#[tokio::test]
async fn no_network_and_a_grandchild_is_bound_the_same() {
    let world = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().unwrap().port();
    // bash's /dev/tcp makes a plain connect(2); the grandchild is a second sh.
    let script = format!(
        "sh -c 'sh -c \"cat $HOME/.ssh/id_ed25519 || echo GRANDCHILD-SSH-DENIED; \
         echo z > $HOME/y || echo GRANDCHILD-HOME-DENIED\"'; \
         bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED || echo NET-DENIED"
    );
    let output = world.run(Profile::Project, &script).await;
    let out = stdout(&output);
    assert!(out.contains("GRANDCHILD-SSH-DENIED"), "{output:?}");
    assert!(out.contains("GRANDCHILD-HOME-DENIED"), "{output:?}");
    assert!(
        out.contains("NET-DENIED") && !out.contains("CONNECTED"),
        "{output:?}"
    );
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the hook reached the listener");
}

/// Dates `dir` an hour back, as a home untouched for a while is (so the
/// rules resolved from it may be reused).
fn age(dir: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
}

#[tokio::test]
async fn reused_rules_still_hide_the_secrets_even_after_a_rename_onto_one() {
    let world = World::new();
    std::fs::create_dir(world.home.join("code")).unwrap();
    std::fs::write(world.home.join("code/token"), "CODE TOKEN").unwrap();
    age(&world.home);
    let script = "cat \"$HOME/.ssh/id_ed25519\" || echo SSH-DENIED; \
                  cat \"$HOME/.aws/token\" || echo AWS-DENIED; \
                  cat \"$HOME/code/token\" || echo CODE-DENIED";
    for _ in 0..3 {
        let output = world.run(Profile::Project, script).await;
        let out = stdout(&output);
        assert!(
            out.contains("SSH-DENIED") && !out.contains("SECRET"),
            "{output:?}"
        );
        assert!(out.contains("CODE TOKEN"), "{output:?}");
    }
    // `code` becomes a secret store, the home's timestamp put back: only
    // the identity of the reused rule's path shows the change.
    let before = std::fs::metadata(&world.home).unwrap().modified().unwrap();
    std::fs::rename(world.home.join("code"), world.home.join(".aws")).unwrap();
    std::fs::File::open(&world.home)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let output = world.run(Profile::Project, script).await;
    let out = stdout(&output);
    assert!(
        out.contains("AWS-DENIED") && !out.contains("CODE TOKEN"),
        "{output:?}"
    );
    assert!(
        out.contains("SSH-DENIED") && !out.contains("SECRET"),
        "{output:?}"
    );
}

/// Whether this process holds an fd on the namespace `link` names (`mnt:[…]`).
fn holds_namespace(link: &str) -> bool {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.to_str() == Some(link)))
}

#[tokio::test]
async fn a_hooks_mount_namespace_is_released_once_it_has_ended() {
    let world = World::new();
    let output = world
        .run(Profile::Project, "readlink /proc/self/ns/mnt")
        .await;
    let namespace = stdout(&output).trim().to_owned();
    assert!(namespace.starts_with("mnt:["), "{output:?}");
    let ours = std::fs::read_link("/proc/self/ns/mnt").unwrap();
    assert_ne!(
        Some(namespace.as_str()),
        ours.to_str(),
        "not its own namespace"
    );
    // Torn down off the reply's path, but torn down: not held for long.
    let released = (0..250).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        !holds_namespace(&namespace)
    });
    assert!(released, "{namespace} is still held");
}
