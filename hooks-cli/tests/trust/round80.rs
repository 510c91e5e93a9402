//! Red team round 80 (round 79's fixes attacked), through the real binary:
//! a record kept under a folder's device and inode outlived its folder,
//! and a later folder given the same inode (the user's `~/.claude`
//! recreated) read a dead project's record in place of its own, so its
//! fail-closed guard, its file gone, allowed (R80-1).

use std::os::unix::fs::MetadataExt;

#[test]
fn a_folder_given_a_dead_folders_inode_never_reads_its_records() {
    let (home, project) = crate::dialects::home_with("[claude]");
    crate::round79::user_claude_crash_guard(&home);
    assert_eq!(crate::round75::action(&home, &project, None, true), "block");
    // Later, another project's `.claude` (no guards) is read, then deleted.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let other = home.user_home.join("other");
    crate::dialects::write(&other, ".claude/settings.json", r#"{"permissions": {}}"#);
    let read = crate::dialects::emit_terminal_command(&home, &other, None, "ls", false)
        .output()
        .expect("hooks runs");
    assert!(read.status.success());
    let freed = std::fs::metadata(other.join(".claude"))
        .expect("folder")
        .ino();
    std::fs::remove_dir_all(other.join(".claude")).expect("delete");
    // The user's `~/.claude` recreated (a restore), given the freed inode.
    let claude = home.user_home.join(".claude");
    std::fs::rename(&claude, home.user_home.join("claude.old")).expect("move away");
    let mut spares = 0;
    loop {
        std::fs::create_dir(&claude).expect("recreate");
        if std::fs::metadata(&claude).expect("folder").ino() == freed || spares == 200 {
            break;
        }
        spares += 1;
        std::fs::rename(&claude, home.user_home.join(format!("spare{spares}"))).expect("spare");
    }
    if std::fs::metadata(&claude).expect("folder").ino() != freed {
        eprintln!("skipped: the file system gave the freed inode to no new folder");
        return;
    }
    std::fs::remove_dir_all(home.user_home.join("claude.old")).expect("old folder");
    // Its settings.json is not there (yet): the guard it held keeps blocking.
    let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
    assert_eq!(action, "block", "{warnings}");
}
