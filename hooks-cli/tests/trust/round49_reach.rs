//! Round 49, the rest of the red team's holes closed in the shell's
//! reading: a glob with no script's ending (`tools/*`, `tools/g*`) bound
//! nothing; a written file named another way (`$T`, `//`) or handed to a
//! shell other than as its script (`-o errexit F`, `< F`, `cat F | sh`);
//! the user's hook running `git` in the project (its `.git/config` names
//! code git runs) or putting a project folder on `PATH` through `$PWD`.

use crate::dialects::{emit_terminal, executable, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round39::{GUARDS, scripts};
use crate::round40::edit_never_runs;

#[test]
fn a_glob_with_no_scripts_ending_binds_what_it_matches() {
    for command in [
        "for f in tools/*; do sh \"$f\"; done",
        "cat tools/g* | sh",
        "echo tools/g* | xargs sh",
        "bash -c 'sh \"$1\"' x tools/g.*",
        "cat tools/*.s? | sh",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

#[test]
fn a_written_file_named_or_handed_over_another_way_is_never_approved() {
    let copy = "cat \"$(printf tools/g.%s sh)\"";
    for run in [
        "T=../r49y.sh; COPY > $T; sh ../r49y.sh",
        "T=../r49y.sh; COPY > ../r49y.sh; sh $T",
        "COPY > ../r49y.sh; sh ..//r49y.sh",
        "COPY > ../r49y.sh; bash -o errexit ../r49y.sh",
        "COPY > ../r49y.sh; sh < ../r49y.sh",
        "COPY > ../r49y.sh; cat ../r49y.sh | sh",
        "COPY > ../r49y.sh; echo ../r49y.sh | xargs sh",
        "COPY > ../r49y.sh; BASH_ENV=../r49y.sh bash -c :",
        "COPY > ../r49y.sh; cat ../r49y.sh | . /dev/stdin",
    ] {
        let command = format!("{}; rm -f ../r49y.sh", run.replace("COPY", copy));
        edit_never_runs(&command, &|_| {});
    }
}

/// The user's hook runs `git status` in the project, then its own guard:
/// a `core.fsmonitor` the repository adds to `.git/config` after the
/// approval would run inside it.
#[test]
fn the_users_hook_running_git_binds_the_projects_git_settings() {
    git_settings_bound("git status --short >/dev/null 2>&1; sh ~/bin/g.sh", &[]);
}

/// The user's fail-closed `command` (its `files` written in the home
/// folder) run in a git checkout, accepted; a `core.fsmonitor` added to
/// the project's `.git/config` then never runs, and the guard blocks.
pub(crate) fn git_settings_bound(command: &str, files: &[(&str, &str)]) {
    if !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    scripts(&home, &project, GUARDS);
    for (file, text) in files {
        write(&home.user_home, file, text);
    }
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(&project)
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["commit", "-q", "--allow-empty", "-m", "i"]);
    user_fail_closed_command(&home, command);
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    git(&["config", "core.fsmonitor", "touch PWNED; false"]);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command}: the edit ran unasked"
    );
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{command}: {emitted:#}"
    );
}

/// The user's hook puts the project's `bin` on `PATH` through `$PWD` and
/// then runs `sh`: a `bin/sh` the repository adds after the approval
/// would run in its place.
#[test]
fn a_project_folder_put_on_path_through_pwd_is_bound() {
    for setting in [
        "export PATH=\"$PWD/bin:$PATH\"",
        "PATH=\"$(pwd)/bin:$PATH\"",
    ] {
        let (home, project) = home_with("[claude]");
        scripts(&home, &project, GUARDS);
        user_fail_closed_command(&home, &format!("{setting}; sh ~/bin/g.sh"));
        let accepted = emit_terminal(&home, &project, "ls", true);
        assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
        executable(&write(
            &project,
            "bin/sh",
            "#!/bin/sh\ncat >/dev/null\ntouch PWNED\n",
        ));
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(
            !project.join("PWNED").exists(),
            "{setting}: the edit ran unasked"
        );
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{setting}: {emitted:#}"
        );
    }
}

/// H4: a helper script of the user's, bound by its content, copies what a
/// computed name names; the hook's own text then runs the copy.
#[test]
fn a_file_a_bound_helper_writes_and_the_hook_runs_is_never_approved() {
    let python = "import shutil\nname = bytes([116, 111, 111, 108, 115, 47, 103, 46, 115, 104]).decode()\nshutil.copyfile(name, '../r49y.sh')\n";
    for (helper, runs, text) in [
        (
            "bin/w.sh",
            "sh",
            "cat \"$(printf tools/g.%s sh)\" > ../r49y.sh\n",
        ),
        ("bin/w.py", "python3", python),
    ] {
        let (home, project) = home_with("[claude]");
        write(&home.user_home, helper, text);
        let command = format!("{runs} ~/{helper}; sh ../r49y.sh; rm -f ../r49y.sh");
        crate::round39::accepted_then_edited(&home, &project, &command);
    }
}
