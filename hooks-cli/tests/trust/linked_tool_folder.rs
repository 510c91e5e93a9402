//! A project whose `.claude` is itself a link (`.claude -> agent`): the
//! checked copy is mounted on the link's target, but the link lives in the
//! writable project. A process running meanwhile that points it elsewhere
//! makes the hook reach unchecked files through it (red-team round 4, N8):
//! that run fails instead of completing, and the next one asks again (the
//! approval binds the link's text).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

/// Waits (mid-run) for `go` when `wait` exists; says it started.
const WAIT: &str = "[ -f wait ] || exit 0\n: > started\n\
                    while [ ! -f go ]; do sleep 0.02; done\n";
const PWN_SH: &str = "cat >/dev/null\necho PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";

/// Once the hook says it started: `.claude` pointed at `evil` (a rename over
/// the link), then `go`. Whether it got that far.
fn flip_when_started(project: &Path) -> bool {
    let start = Instant::now();
    while !project.join("started").exists() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = std::fs::write(project.join("go"), "");
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::os::unix::fs::symlink("evil", project.join("next")).expect("link");
    std::fs::rename(project.join("next"), project.join(".claude")).expect("flip");
    std::fs::write(project.join("go"), "").expect("go");
    true
}

#[test]
fn a_tool_folder_link_flipped_during_a_run_fails_it_and_asks_again() {
    let (home, project) = home_with("[claude]");
    write(&project, "agent/hooks/wait.sh", WAIT);
    write(&project, "agent/hooks/b.sh", "cat >/dev/null\nexit 0\n");
    write(&project, "evil/hooks/wait.sh", WAIT);
    write(&project, "evil/hooks/b.sh", PWN_SH);
    std::os::unix::fs::symlink("agent", project.join(".claude")).expect("link");
    let command = "cd \"$CLAUDE_PROJECT_DIR\" && sh .claude/hooks/wait.sh && sh .claude/hooks/b.sh";
    approve_project_hook(&home, &project, command);
    write(
        &project,
        "evil/settings.json",
        &std::fs::read_to_string(project.join("agent/settings.json")).expect("settings"),
    );
    write(&project, "wait", "");
    let flipper = {
        let project = project.clone();
        std::thread::spawn(move || flip_when_started(&project))
    };
    let during = emit_terminal(&home, &project, "ls", false);
    assert!(flipper.join().expect("flipper"), "no pause: {during}");
    assert_eq!(during["runs"][0]["sandbox"], json!("project"), "{during}");
    assert_ne!(during["runs"][0]["status"], json!("completed"), "{during}");
    assert!(
        during.to_string().contains("changed while the hook ran"),
        "{during}"
    );
    let _ = std::fs::remove_file(project.join("pwned"));
    let next = emit_terminal(&home, &project, "ls", false);
    assert_eq!(next["runs"][0]["status"], json!("skipped"), "{next}");
    assert!(!project.join("pwned").exists(), "{next}");
}
