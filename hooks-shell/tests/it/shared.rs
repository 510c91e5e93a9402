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

/// The child side: does nothing unless started by [`spawn`].
#[test]
fn shared_allowlist_child() {
    let (Some(home), Some(job)) = (std::env::var_os(CHILD_HOME), std::env::var(CHILD_JOB).ok())
    else {
        return;
    };
    let allowlist = Allowlist::in_home(Path::new(&home));
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

fn spawn(home: &Path, job: &str) -> Child {
    Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "shared::shared_allowlist_child",
            "--test-threads=1",
        ])
        .env(CHILD_HOME, home)
        .env(CHILD_JOB, job)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn a writer")
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
