//! The kernel's record of a sandboxed hook's network attempts (red team
//! round 7, R7c-3): a fail-closed guard whose rules are behind loopback
//! (`curl -s http://127.0.0.1:8181/... 2>/dev/null || exit 0`) silences
//! what the sandbox told it; asked for (`Context::record_denials`), each
//! inet `socket()` of the tree is counted by the kernel anyway, and the
//! call goes on unchanged (the empty network namespace still denies).
//! Root and an unprivileged user alike (CI is root).
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use hermes_hooks_process::sandbox::{Context, CustomRules, Profile, Sandbox};
use hermes_hooks_process::{RunOutput, run_sandboxed};

use crate::sandbox::{World, stdout};
use crate::support::{limits, sh};

/// A loopback guard that says nothing of what happened to it.
const SILENCED_GUARD: &str = "curl -s --max-time 5 http://127.0.0.1:1/ 2>/dev/null || exit 0";

impl World {
    /// Runs `script` under `profile`, its network attempts recorded or not.
    pub(crate) async fn run_recorded(
        &self,
        profile: Profile,
        record: bool,
        script: &str,
    ) -> RunOutput {
        let mut context = Context::new(&self.project);
        context.home = Some(self.home.clone());
        context.record_denials = record;
        let prepared = Sandbox::new(profile).prepare(&context).expect("prepared");
        let mut command = sh(script);
        command.current_dir(&self.project).env("HOME", &self.home);
        run_sandboxed(command, b"", &limits(20), prepared)
            .await
            .expect("runs")
    }
}

#[tokio::test]
async fn a_silenced_loopback_guard_is_recorded_when_asked() {
    let world = World::new();
    let output = world
        .run_recorded(Profile::Project, true, SILENCED_GUARD)
        .await;
    assert_eq!(output.exit_code, Some(0), "{output:?}");
    assert!(output.stderr.is_empty(), "{output:?}");
    assert!(output.network_attempts >= 1, "{output:?}");
    // A grandchild, IPv6, and a process that never touches stderr at all.
    let script = "sh -c 'perl -MSocket -e \"socket(my \\$s, PF_INET6, SOCK_STREAM, 0)\"' \
                  >/dev/null 2>&1; echo done";
    let output = world.run_recorded(Profile::Strict, true, script).await;
    assert_eq!(stdout(&output), "done\n", "{output:?}");
    assert_eq!(output.network_attempts, 1, "{output:?}");
}

#[tokio::test]
async fn nothing_is_recorded_unasked_without_an_inet_socket_or_with_the_network() {
    let world = World::new();
    let unasked = world
        .run_recorded(Profile::Project, false, SILENCED_GUARD)
        .await;
    assert_eq!(unasked.network_attempts, 0, "{unasked:?}");
    // A unix socket and a socketpair are no network.
    let local = "perl -MSocket -e 'socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die; \
                 socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die; print \"local\\n\"'";
    let output = world.run_recorded(Profile::Project, true, local).await;
    assert_eq!(stdout(&output), "local\n", "{output:?}");
    assert_eq!(output.network_attempts, 0, "{output:?}");
    // A map that keeps the network is not cut off: nothing to record.
    let networked = Profile::Custom(CustomRules::new(Vec::new(), Vec::new(), true));
    let output = world.run_recorded(networked, true, SILENCED_GUARD).await;
    assert_eq!(output.network_attempts, 0, "{output:?}");
}

#[tokio::test]
async fn a_recorded_spawn_that_fails_or_leaves_a_socket_user_behind_does_not_hang() {
    let world = World::new();
    let mut context = Context::new(&world.project);
    context.home = Some(world.home.clone());
    context.record_denials = true;
    let prepared = Sandbox::new(Profile::Project)
        .prepare(&context)
        .expect("prepared");
    let missing = tokio::process::Command::new("/nonexistent/hermes-guard");
    let error = run_sandboxed(missing, b"", &limits(20), prepared)
        .await
        .expect_err("no such program");
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{error}");
    // A detached descendant that goes on making sockets for a second: the
    // run still ends at its child's exit, and counts what it saw.
    let script = "(exec >/dev/null 2>&1 </dev/null; for i in 1 2 3 4 5 6 7 8 9 10; do \
                  perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0)'; sleep 0.1; done) & \
                  perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0)'; echo out";
    let started = std::time::Instant::now();
    let output = world.run_recorded(Profile::Project, true, script).await;
    assert_eq!(stdout(&output), "out\n", "{output:?}");
    assert!(output.network_attempts >= 1, "{output:?}");
    assert!(
        started.elapsed() < crate::support::MARGIN,
        "{:?}",
        started.elapsed()
    );
}

/// A file of the host's `/tmp`, removed when dropped.
pub(crate) struct HostTmpFile(pub(crate) std::path::PathBuf);

impl HostTmpFile {
    pub(crate) fn new(name: &str) -> HostTmpFile {
        let path =
            std::path::PathBuf::from(format!("/tmp/hermes-record-{}-{name}", std::process::id()));
        std::fs::write(&path, "rm -rf\n").expect("host /tmp file");
        HostTmpFile(path)
    }
}

impl Drop for HostTmpFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test]
async fn a_host_tmp_file_the_private_tmp_hides_is_recorded_when_asked() {
    let world = World::new();
    let rules = HostTmpFile::new("rules.txt");
    let path = rules.0.display();
    for script in [
        format!("cat {path} 2>/dev/null || exit 0"),
        format!("[ -f {path} ] || exit 0"),
        format!("python3 -c 'open(\"{path}\")' 2>/dev/null || exit 0"),
    ] {
        let output = world.run_recorded(Profile::Project, true, &script).await;
        assert_eq!(output.exit_code, Some(0), "{script}: {output:?}");
        assert!(output.stderr.is_empty(), "{script}: {output:?}");
        assert_eq!(
            output.hidden_tmp.as_ref(),
            Some(&rules.0),
            "{script}: {output:?}"
        );
        assert_eq!(output.network_attempts, 0, "{script}: {output:?}");
        let unasked = world.run_recorded(Profile::Strict, false, &script).await;
        assert_eq!(unasked.hidden_tmp, None, "{script}: {unasked:?}");
    }
}

#[tokio::test]
async fn the_hooks_own_tmp_files_and_paths_the_host_lacks_are_not_recorded() {
    let world = World::new();
    let same = HostTmpFile::new("same-name");
    let absent = format!("/tmp/hermes-record-{}-absent", std::process::id());
    let script = format!(
        "echo mine > {same}; cat {same}; cat {absent} 2>/dev/null; t=$(mktemp); cat $t; \
         ls /tmp >/dev/null; echo done",
        same = same.0.display()
    );
    let output = world.run_recorded(Profile::Project, true, &script).await;
    assert_eq!(stdout(&output), "mine\ndone\n", "{output:?}");
    assert_eq!(output.hidden_tmp, None, "{output:?}");
    assert_eq!(
        std::fs::read_to_string(&same.0).unwrap(),
        "rm -rf\n",
        "the host's file was written"
    );
}
