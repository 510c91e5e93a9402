//! Round 61's last open rows and the session after it, through the real
//! binary: a project path a vim script runs after its `!` (U-47), created
//! after the approval, and a script vim's own `-c` text sources (U-39).
//! Each ran the project's code unasked on the code before.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round58_red::{MAKEFILE, MAKEFILE_EDITED};
use crate::round59::guard_running;

/// A project program vim's `!` runs, missing when the guard is approved:
/// its appearance asks again, the guard blocks.
#[test]
fn a_path_a_vim_script_runs_after_a_bang_never_runs_unasked() {
    if !installed("vim") {
        return;
    }
    for line in ["silent !tools/lint-helper", "silent !./tools/lint-helper"] {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&home.user_home, ".claude/hooks/g.vim", &format!("{line}\n"));
        let run = "vim -es -S ~/.claude/hooks/g.vim -c 'qa!'";
        user_fail_closed_command(&home, &guard_running(run));
        emit_terminal(&home, &project, "ls", true);
        let helper = write(&project, "tools/lint-helper", "#!/bin/sh\ntouch PWNED\n");
        crate::round30_open::executable(&helper);
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{line}: ran unasked");
        assert_eq!(emitted["outcome"]["action"], "block", "{line}: {emitted:#}");
    }
}

/// A script of the user's vim's `-c` text sources is read as vim's: what
/// it starts is bound, or it cannot be approved.
#[test]
fn a_script_a_vim_option_sources_never_runs_an_edit() {
    if !(installed("vim") && installed("make")) {
        return;
    }
    for script in [
        "call system(\"make -s lint\")\n",
        "call system(\"ma\" . \"ke -s lint\")\n",
    ] {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&project, MAKEFILE.0, MAKEFILE.1);
        // Executable, so a shell could run it too: read as vim's still.
        let sourced = write(&home.user_home, "bin/g.x", script);
        crate::round30_open::executable(&sourced);
        let run = "vim -es -c 'source ~/bin/g.x' -c 'qa!'";
        user_fail_closed_command(&home, &guard_running(run));
        emit_terminal(&home, &project, "ls", true);
        write(&project, MAKEFILE_EDITED.0, MAKEFILE_EDITED.1);
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{script}: ran unasked");
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{script}: {emitted:#}"
        );
    }
}

/// A user's Python reading the project's folder first where the
/// `PYTHONSAFEPATH` it is given may not hold (`-E`, unset, a script of the
/// user's starting it): the project's `json.py` standing in for the
/// standard library's is bound.
#[test]
fn a_project_module_standing_in_for_the_standard_librarys_never_runs_unasked() {
    if !installed("python3") {
        return;
    }
    let setup = [("json.py", "x = 1\n")];
    let edit = ("json.py", "open('PWNED', 'w')\n");
    for run in [
        "python3 -E -c 'import json'",
        "python3 -X frozen_modules=off -E -c 'import json'",
        "env -u PYTHONSAFEPATH python3 -c 'import json'",
        "PYTHONSAFEPATH= python3 -c 'import json'",
    ] {
        crate::round58_red::never_runs_after(&guard_running(run), None, &setup, edit);
    }
    let script = "python3 -c 'import json'\n";
    let run = guard_running("sh ~/.claude/hooks/g.x");
    crate::round58_red::never_runs_after(&run, Some(script), &setup, edit);
}

/// Programs reached through `builtin`, an array, `hash -p` or `read`
/// after the command's own assignments: what they run is bound, or the
/// command cannot be approved.
#[test]
fn builtins_arrays_hashed_names_and_reads_never_run_an_edit() {
    if !(installed("make") && installed("bash")) {
        return;
    }
    let make = std::process::Command::new("sh")
        .args(["-c", "command -v make"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    let hashed = format!("hash -p {make} m; m -s lint");
    for text in [
        "builtin eval make -s lint",
        "builtin exec make -s lint",
        "builtin command make -s lint",
        "x=(ma ke); IFS=; \"${x[*]}\" -s lint",
        hashed.as_str(),
        "IFS=, read a b <<< \"make,lint\"; $a -s $b",
        "IFS=, read -a a <<< \"make,-s,lint\"; \"${a[@]}\"",
    ] {
        let quoted = shlex::try_quote(text).expect("quoted");
        let run = guard_running(&format!("bash -c {quoted}"));
        crate::round58_red::never_runs_after(&run, None, &[MAKEFILE], MAKEFILE_EDITED);
    }
}

/// What the repository's git settings make the user's `git` run (an
/// alias `!make`, `core.fsmonitor`): the Makefile or script it runs is
/// bound, so an edit asks again.
#[test]
fn what_the_repositorys_git_settings_run_never_runs_an_edit() {
    if !(installed("make") && installed("git")) {
        return;
    }
    let helper = ("tools/fs.sh", "#!/bin/sh\ntrue\n");
    let helper_edited = ("tools/fs.sh", "#!/bin/sh\ntouch PWNED\n");
    for (run, setting, value, files, edit) in [
        (
            "git lint",
            "alias.lint",
            "!make -s lint",
            MAKEFILE,
            MAKEFILE_EDITED,
        ),
        (
            "git status --short",
            "core.fsmonitor",
            "make -s lint; false",
            MAKEFILE,
            MAKEFILE_EDITED,
        ),
        (
            "git status --short",
            "core.fsmonitor",
            "tools/fs.sh",
            helper,
            helper_edited,
        ),
    ] {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        let written = write(&project, files.0, files.1);
        crate::round30_open::executable(&written);
        crate::round28::git(&project, &["config", setting, value]);
        user_fail_closed_command(&home, &guard_running(run));
        emit_terminal(&home, &project, "ls", true);
        write(&project, edit.0, edit.1);
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(
            !project.join("PWNED").exists(),
            "{setting}={value}: ran unasked"
        );
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{setting}: {emitted:#}"
        );
    }
}

/// `run-parts DIR` runs every program in it: one added there, or one
/// changed, asks again (a recipe's `@run-parts tools` too).
#[test]
fn a_program_run_parts_finds_never_runs_unasked() {
    if !installed("run-parts") {
        return;
    }
    let mut rows = vec![("run-parts tools", None)];
    if installed("make") {
        rows.push(("make -s lint", Some("lint:\n\t@run-parts tools\n")));
    }
    for (run, makefile) in rows {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        if let Some(text) = makefile {
            write(&project, "Makefile", text);
        }
        let first = write(&project, "tools/a", "#!/bin/sh\ntrue\n");
        crate::round30_open::executable(&first);
        user_fail_closed_command(&home, &guard_running(run));
        emit_terminal(&home, &project, "ls", true);
        let added = write(&project, "tools/b", "#!/bin/sh\ntouch PWNED\n");
        crate::round30_open::executable(&added);
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{run}: ran unasked");
        assert_eq!(emitted["outcome"]["action"], "block", "{run}: {emitted:#}");
    }
}

/// An ordinary Makefile whose recipe runs its prerequisite by `$<` is
/// approved (it could not be: round 62, U-2), and an edit of that
/// prerequisite asks again.
#[test]
fn a_recipe_running_its_written_prerequisite_is_approved_and_bound() {
    if !installed("make") {
        return;
    }
    for makefile in [
        "lint: tools/a.sh\n\t@sh $<\n",
        "lint: tools/a.sh\n\t@sh $(<)\n",
        "lint: tools/a.sh tools/b.sh\n\t@sh $^\n",
    ] {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&project, "Makefile", makefile);
        write(&project, "tools/a.sh", "true\n");
        write(&project, "tools/b.sh", "true\n");
        user_fail_closed_command(&home, &guard_running("make -s lint"));
        let approved = emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            approved["outcome"]["message"], "guarded",
            "{makefile}: {approved:#}"
        );
        write(&project, "tools/a.sh", "touch PWNED\n");
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{makefile}: ran unasked");
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{makefile}: {emitted:#}"
        );
    }
}

/// A git settings file too large to read whole: what it runs cannot be
/// read, so the guard cannot be approved and blocks (it ran the alias's
/// edited Makefile unread before).
#[test]
fn a_git_settings_file_too_large_to_read_blocks_the_guard() {
    if !(installed("make") && installed("git")) {
        return;
    }
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    write(&project, MAKEFILE.0, MAKEFILE.1);
    crate::round28::git(&project, &["config", "alias.lint", "!make -s lint"]);
    let config = project.join(".git/config");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!("# {}\n", "x".repeat(1100 * 1024)));
    std::fs::write(&config, text).expect("padded");
    user_fail_closed_command(&home, &guard_running("git lint"));
    emit_terminal(&home, &project, "ls", true);
    write(&project, MAKEFILE_EDITED.0, MAKEFILE_EDITED.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "the edit ran unasked");
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}
