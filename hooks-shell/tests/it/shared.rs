//! One allowlist shared by two homes through symlinks, written by many
//! processes at once: every approval lands and every revoke holds, because each
//! change locks the file actually written, not each home's own `<link>.lock`.

use std::path::Path;
use std::process::{Child, Command};

use hermes_hooks_shell::Allowlist;

use crate::support::Home;

/// Set in a re-executed copy of this test binary: the home to write through.
const CHILD_HOME: &str = "HOOKS_TEST_SHARED_ALLOWLIST_HOME";
/// `approve:<prefix>:<count>` or `revoke:<prefix>:<first>:<count>`.
const CHILD_JOB: &str = "HOOKS_TEST_SHARED_ALLOWLIST_JOB";
/// A file to wait for before writing, when set.
const CHILD_GO: &str = "HOOKS_TEST_SHARED_ALLOWLIST_GO";

/// The child side: does nothing unless started by [`spawn`].
#[test]
fn shared_allowlist_child() {
    let (Some(home), Some(job)) = (std::env::var_os(CHILD_HOME), std::env::var(CHILD_JOB).ok())
    else {
        return;
    };
    let allowlist = Allowlist::in_home(Path::new(&home));
    // Started together with another writer: wait until it is ready too.
    if let Some(go) = std::env::var_os(CHILD_GO) {
        let start = std::time::Instant::now();
        while !Path::new(&go).exists() && start.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    let parts: Vec<&str> = job.split(':').collect();
    match parts.as_slice() {
        ["approve", prefix, count] => {
            for index in 0..count.parse::<usize>().expect("count") {
                allowlist
                    .record("pre_tool_call", &format!("/{prefix}/{index}.sh"))
                    .expect("record");
            }
        }
        ["revoke", prefix, first, count] => {
            let first = first.parse::<usize>().expect("first");
            for index in first..first + count.parse::<usize>().expect("count") {
                let removed = allowlist
                    .revoke(&format!("/{prefix}/{index}.sh"))
                    .expect("revoke");
                assert_eq!(removed, 1, "/{prefix}/{index}.sh");
            }
        }
        _ => panic!("unknown job {job}"),
    }
}

fn writer_command(home: &Path, job: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    command
        .args([
            "--exact",
            "shared::shared_allowlist_child",
            "--test-threads=1",
        ])
        .env(CHILD_HOME, home)
        .env(CHILD_JOB, job)
        .env_remove(CHILD_GO)
        .stdout(std::process::Stdio::null());
    command
}

fn spawn(home: &Path, job: &str) -> Child {
    writer_command(home, job).spawn().expect("spawn a writer")
}

fn wait_all(children: Vec<Child>) {
    for mut child in children {
        assert!(child.wait().expect("wait").success(), "a writer failed");
    }
}

fn commands(allowlist: &Allowlist) -> Vec<String> {
    let mut commands: Vec<String> = allowlist
        .approvals()
        .into_iter()
        .map(|approval| approval.command)
        .collect();
    commands.sort();
    commands
}

#[test]
fn homes_sharing_an_allowlist_through_links_lose_nothing() {
    let store = Home::new();
    let shared = store.path().join("allowlist.json");
    std::fs::write(&shared, "{\"approvals\": []}").expect("write the shared file");
    let homes = [Home::new(), Home::new()];
    for home in &homes {
        std::os::unix::fs::symlink(&shared, Allowlist::in_home(home.path()).path())
            .expect("symlink");
    }
    // 2 homes x 4 processes x 15 approvals, all at once.
    let writers: Vec<Child> = (0..8)
        .map(|writer| spawn(homes[writer % 2].path(), &format!("approve:w{writer}:15")))
        .collect();
    wait_all(writers);
    let expected: Vec<String> = {
        let mut all: Vec<String> = (0..8)
            .flat_map(|writer| (0..15).map(move |index| format!("/w{writer}/{index}.sh")))
            .collect();
        all.sort();
        all
    };
    for home in &homes {
        assert_eq!(commands(&Allowlist::in_home(home.path())), expected);
    }

    // Revokes from both homes, while both homes keep approving.
    let mut jobs: Vec<Child> = (0..4)
        .map(|writer| {
            spawn(
                homes[(writer + 1) % 2].path(),
                &format!("revoke:w{writer}:0:10"),
            )
        })
        .collect();
    jobs.extend(
        (8..10).map(|writer| spawn(homes[writer % 2].path(), &format!("approve:w{writer}:10"))),
    );
    wait_all(jobs);
    let after = commands(&Allowlist::in_home(homes[0].path()));
    for writer in 0..10 {
        for index in 0..15 {
            let command = format!("/w{writer}/{index}.sh");
            let revoked = writer < 4 && index < 10;
            let approved = if writer < 8 { true } else { index < 10 };
            assert_eq!(
                after.contains(&command),
                approved && !revoked,
                "{command}: revoked {revoked}, approved {approved}"
            );
        }
    }
    assert!(
        std::fs::symlink_metadata(Allowlist::in_home(homes[1].path()).path())
            .is_ok_and(|meta| meta.file_type().is_symlink())
    );
}

#[test]
fn a_linked_allowlist_takes_hermes_lock_and_the_targets() {
    let store = Home::new();
    let home = Home::new();
    let shared = store.path().join("allowlist.json");
    let allowlist = Allowlist::in_home(home.path());
    std::os::unix::fs::symlink(&shared, allowlist.path()).expect("symlink");
    let mut target_lock = shared.clone().into_os_string();
    target_lock.push(".lock");
    assert_eq!(
        allowlist.lock_paths(),
        vec![allowlist.lock_path(), target_lock.clone().into()]
    );
    assert!(allowlist.lock_path().starts_with(home.path()));
    allowlist.record("pre_tool_call", "/x").expect("record");
    assert!(Path::new(&target_lock).is_file() && allowlist.lock_path().is_file());

    let plain = Home::new();
    let allowlist = Allowlist::in_home(plain.path());
    assert_eq!(allowlist.lock_paths(), vec![allowlist.lock_path()]);
}

/// hermes-agent writing through the same link at the same time: it locks
/// `<link>.lock`, which we take too, so neither loses the other's approvals.
#[test]
fn hermes_writing_through_the_same_link_loses_nothing() {
    let Some(python) = test_support::reference::python() else {
        return;
    };
    let store = Home::new();
    let shared = store.path().join("allowlist.json");
    std::fs::write(&shared, "{\"approvals\": []}").expect("write the shared file");
    let home = Home::new();
    std::os::unix::fs::symlink(&shared, Allowlist::in_home(home.path()).path()).expect("symlink");
    // hermes-agent imports first (slow), then says go, and all write at once.
    let go = store.path().join("go");
    let script = "import sys, pathlib\nfrom agent.shell_hooks import _record_approval\n\
                  pathlib.Path(sys.argv[1]).touch()\n\
                  for i in range(60):\n    _record_approval('pre_tool_call', f'/hermes/{i}.sh')\n";
    let hermes = Command::new(&python)
        .args(["-c", script])
        .arg(&go)
        .env("HERMES_HOME", home.path())
        .env("HOME", home.path())
        .spawn()
        .expect("run hermes-agent");
    let ours: Vec<Child> = (0..2)
        .map(|writer| {
            let mut child = writer_command(home.path(), &format!("approve:w{writer}:60"));
            child.env(CHILD_GO, &go).spawn().expect("spawn a writer")
        })
        .collect();
    wait_all(ours);
    let status = { hermes }.wait().expect("wait hermes");
    assert!(status.success(), "hermes-agent failed");
    let commands = commands(&Allowlist::in_home(home.path()));
    for prefix in ["hermes", "w0", "w1"] {
        for index in 0..60 {
            let command = format!("/{prefix}/{index}.sh");
            assert!(commands.contains(&command), "{command} lost");
        }
    }
    assert!(
        std::fs::symlink_metadata(Allowlist::in_home(home.path()).path())
            .is_ok_and(|meta| meta.file_type().is_symlink())
    );
}
