//! Sweep 58 (`FINDINGS-sweep58.md`), S58-2: a file the user's fail-closed
//! guard sources from the project is read by its shell, by path, after the
//! check; renamed over while the guard ran, the other content's answer was
//! used (the call allowed 4–12 times in 60). A run during which a file it
//! reads changed is now a failure: the guard blocks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};

/// The guard: sources the project's `tools/lib.sh`, which answers.
const GUARD: &str = "cat >/dev/null\n. \"$CLAUDE_PROJECT_DIR\"/tools/lib.sh\n";
const BLOCKS: &str = "echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n";

/// Deterministic: the approved helper renames a copy of itself over
/// itself while it runs (the same bytes), then allows. The run is not
/// trusted, so the guard blocks.
#[test]
fn a_run_during_which_a_file_it_sources_changed_blocks() {
    let (home, project) = home_with("[claude]");
    write(&home.user_home, "bin/g.sh", GUARD);
    let helper = "t=\"$CLAUDE_PROJECT_DIR\"/tools\ncp \"$t/lib.sh\" \"$t/copy.sh\"\n\
                  mv \"$t/copy.sh\" \"$t/lib.sh\"\necho '{}'\n";
    write(&project, "tools/lib.sh", helper);
    user_fail_closed_command(&home, "sh ~/bin/g.sh");
    emit_terminal(&home, &project, "ls", true);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    let said = emitted.to_string();
    assert!(said.contains("changed while the hook ran"), "{said}");
}

/// The sweep's race: another process renames a file over the sourced
/// helper and back every few milliseconds; no emit is ever allowed.
#[test]
fn a_helper_swapped_while_the_guard_runs_never_lets_a_call_through() {
    let (home, project) = home_with("[claude]");
    write(&home.user_home, "bin/g.sh", GUARD);
    write(&project, "tools/lib.sh", BLOCKS);
    user_fail_closed_command(&home, "sh ~/bin/g.sh");
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (stop, tools) = (Arc::clone(&stop), project.join("tools"));
        std::thread::spawn(move || {
            let lib = tools.join("lib.sh");
            while !stop.load(Ordering::Relaxed) {
                for (text, temp) in [("echo '{}'\n", "t1"), (BLOCKS, "t2")] {
                    let _ = std::fs::write(tools.join(temp), text);
                    let _ = std::fs::rename(tools.join(temp), &lib);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        })
    };
    let outcomes: Vec<serde_json::Value> = (0..30)
        .map(|_| emit_terminal(&home, &project, "ls", false)["outcome"].clone())
        .collect();
    stop.store(true, Ordering::Relaxed);
    racer.join().expect("racer");
    let allowed = outcomes.iter().filter(|outcome| outcome.is_null()).count();
    assert_eq!(
        allowed, 0,
        "a swapped helper let calls through: {outcomes:?}"
    );
}

/// U58-1: `cat >/dev/null`, the usual first line of a Claude Code guard,
/// is no missing script to `doctor`.
#[test]
fn doctor_reads_no_redirection_as_a_missing_script() {
    let (home, project) = home_with("[claude]");
    user_fail_closed_command(&home, &format!("cat >/dev/null; {BLOCKS_INLINE}"));
    let doctor = crate::dialects::in_project(&home, &project, &["doctor"]);
    let text = format!("{}{}", doctor.stdout(), doctor.stderr());
    assert!(!text.contains("script missing"), "{text}");
    assert!(text.contains("command found"), "{text}");
}

/// U58-4: a project's `disableAllHooks` that turns nothing off (a string,
/// another case) is said, not ignored in silence.
#[test]
fn a_disable_switch_that_turns_nothing_off_is_said() {
    let (home, project) = home_with("[claude]");
    user_fail_closed_command(&home, &format!("cat >/dev/null; {BLOCKS_INLINE}"));
    for (text, said) in [
        ("{\"disableAllHooks\": \"true\"}", "must be true or false"),
        ("{\"DisableAllHooks\": true}", "its case differs"),
    ] {
        write(&project, ".claude/settings.json", text);
        let listed = crate::dialects::in_project(&home, &project, &["list"]);
        let shown = format!("{}{}", listed.stdout(), listed.stderr());
        assert!(shown.contains(said), "{text}: {shown}");
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_eq!(emitted["outcome"]["message"], "guarded", "{emitted:#}");
    }
}

/// A guard's answer written inline.
const BLOCKS_INLINE: &str = "echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'";
