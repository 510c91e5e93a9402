//! Red team round 59, through the real binary: text a pipe feeds a program
//! that runs its input (`echo 'make -s lint' | sh`, `| tclsh`, `| perl`,
//! `| python3`, `| xargs -I{} sh -c {}`), a statement of a program's own
//! that starts one (`gdb -ex 'shell make'`, `sqlite3 db '.shell make'`),
//! and `… | cat | sh`. Each ran the project's edited Makefile unasked on
//! the code before.

use crate::round8_modules::installed;
use crate::round58_red::{BLOCKS, MAKEFILE, MAKEFILE_EDITED, never_runs_after};

/// The user's guard running `run` in the project, then blocking.
pub(crate) fn guard_running(run: &str) -> String {
    format!("cat >/dev/null; ({run}) >/dev/null 2>&1; {BLOCKS}")
}

/// Text piped into a program that runs it is read as what it starts: the
/// Makefile it runs is bound (or the hook cannot be approved).
#[test]
fn text_piped_into_a_program_that_runs_it_never_runs_an_edit() {
    if !installed("make") {
        return;
    }
    let mut runs = vec![
        "echo 'make -s lint' | sh",
        "echo 'make -s lint' | bash -s",
        "echo 'make -s lint' | xargs -I{} sh -c {}",
        "echo 'make -s lint' | cat | sh",
        "echo -s lint | xargs make",
    ];
    for (program, run) in [
        ("tclsh", "echo 'exec make -s lint' | tclsh"),
        ("tclsh", "printf 'exec make -s lint\\n' | tclsh"),
        ("perl", "echo 'system(\"make -s lint\")' | perl"),
        (
            "python3",
            "echo 'import os; os.system(\"make -s lint\")' | python3",
        ),
        (
            "node",
            "echo 'require(\"child_process\").execSync(\"make -s lint\")' | node",
        ),
        ("ed", "echo '!make -s lint' | ed"),
        ("sqlite3", "echo '.shell make -s lint' | sqlite3"),
        ("sqlite3", "sqlite3 :memory: '.shell make -s lint'"),
        ("gdb", "gdb -batch -ex 'shell make -s lint'"),
    ] {
        if installed(program) {
            runs.push(run);
        }
    }
    for run in runs {
        never_runs_after(&guard_running(run), None, &[MAKEFILE], MAKEFILE_EDITED);
    }
}

/// U58-5: a project's hook running the user's command (another matcher)
/// shared the user's approval slot: `list` and `doctor` called the
/// never-approved copy "changed since it was approved", and approving it
/// took the user's own approval away. Each file's hook is approved apart.
#[test]
fn a_projects_copy_of_the_users_command_is_approved_apart() {
    use crate::dialects::{home_with, in_project, write};
    use serde_json::json;
    let (home, project) = home_with("[claude]");
    write(&home.user_home, "bin/g.sh", "cat >/dev/null\necho '{}'\n");
    let hook = |matcher: &str| {
        json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
            {"type": "command", "command": "sh ~/bin/g.sh"}]}]}})
        .to_string()
    };
    write(&home.user_home, ".claude/settings.json", &hook("Bash"));
    crate::dialects::emit_terminal(&home, &project, "ls", true);
    write(&project, ".claude/settings.json", &hook("Edit"));
    let standing = || {
        let listed = in_project(&home, &project, &["list", "--json"]).json();
        let hooks = listed["imported_hooks"].as_array().expect("hooks").clone();
        let of = |scope: &str| {
            hooks
                .iter()
                .find(|h| h["scope"] == scope)
                .map(|h| (h["consent"].clone(), h["changed_since_approval"].clone()))
                .expect(scope)
        };
        (of("user"), of("project"))
    };
    let (user, copy) = standing();
    assert_eq!(user.0, "approved");
    assert_ne!(copy.0, "approved", "{copy:?}");
    assert_eq!(copy.1, false, "the copy was never approved: {copy:?}");
    let doctor = in_project(&home, &project, &["doctor"]);
    assert!(
        !doctor.stdout().contains("changed since it was approved"),
        "{}",
        doctor.stdout()
    );
    in_project(
        &home,
        &project,
        &["approve", "sh ~/bin/g.sh", "--event", "pre_tool_call"],
    );
    let (user, copy) = standing();
    assert_eq!(
        (user.0.as_str(), copy.0.as_str()),
        (Some("approved"), Some("approved")),
        "{user:?} {copy:?}"
    );
    // The project's tool folder, not a folder named `~` in the project.
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    assert!(!listed.to_string().contains("project/~"), "{listed:#}");
}

/// Red team round 59, families 1 and 2: a runner carried in a string
/// another program runs (`git -c alias.l='!make …'`, `sed '1e make …'`,
/// `GIT_SSH_COMMAND`), or held in a variable or an alias the text gives
/// it (`x=make; $x`, `o='-f tools/x.mk'; make $o`), never runs an edit.
#[test]
fn a_runner_carried_in_text_or_held_in_a_name_never_runs_an_edit() {
    if !installed("make") || !installed("git") {
        return;
    }
    for run in [
        "git -c alias.l='!make -s lint' l",
        "git -c core.fsmonitor='make -s lint' status",
        "GIT_SSH_COMMAND='make -s lint' git ls-remote ssh://x/y",
        "sed -n '1e make -s lint' /etc/hostname",
        "tar cf /dev/null --checkpoint=1 --checkpoint-action=exec='make -s lint' /etc/hostname",
        "x=make; $x -s lint",
        "x='make -s lint'; $x",
        "M=make; \"$M\" -s lint",
        "shopt -s expand_aliases; alias l='make -s lint'; l",
        // What echo prints in place of its substitution (found after the round).
        "$(echo make) -s lint",
        "x=$(echo make); $x -s lint",
    ] {
        never_runs_after(&guard_running(run), None, &[MAKEFILE], MAKEFILE_EDITED);
    }
    let other = ("tools/x.mk", "lint:\n\t@true\n");
    let edited = ("tools/x.mk", "lint:\n\t@touch PWNED\n");
    never_runs_after(
        &guard_running("o='-f tools/x.mk'; make -s $o lint"),
        None,
        &[other],
        edited,
    );
}

/// Family 3: the user's guard script in a language no reading models
/// (Tcl, awk, gdb, a `#!/usr/bin/make -sf` file): the runners it names
/// are read as started in the folder it runs in.
#[test]
fn a_guard_script_in_an_unmodelled_language_never_runs_an_edit() {
    if !installed("make") {
        return;
    }
    let mut rows = vec![
        (
            "awk -f ~/.claude/hooks/g.x",
            "BEGIN { system(\"make -s lint\") }\n",
        ),
        (
            "~/.claude/hooks/g.x",
            "#!/usr/bin/make -sf\nall:\n\t@$(MAKE) -s lint\n",
        ),
    ];
    if installed("tclsh") {
        rows.push(("tclsh ~/.claude/hooks/g.x", "exec make -s lint\n"));
        rows.push(("tclsh <~/.claude/hooks/g.x", "exec make -s lint\n"));
    }
    if installed("gdb") {
        rows.push(("gdb -batch -x ~/.claude/hooks/g.x", "shell make -s lint\n"));
    }
    for (run, script) in rows {
        let hook = Some(script);
        let command = guard_running(run);
        if run.starts_with('~') {
            // Made executable by its name below.
            never_runs_executable(&command, script);
            continue;
        }
        never_runs_after(&command, hook, &[MAKEFILE], MAKEFILE_EDITED);
    }
}

/// [`never_runs_after`] with the hook file executable.
fn never_runs_executable(command: &str, script: &str) {
    use crate::dialects::{emit_terminal, executable, home_with, user_fail_closed_command, write};
    let (home, project) = home_with("[claude]");
    write(&project, MAKEFILE.0, MAKEFILE.1);
    executable(&write(&home.user_home, ".claude/hooks/g.x", script));
    user_fail_closed_command(&home, command);
    emit_terminal(&home, &project, "ls", true);
    write(&project, MAKEFILE_EDITED.0, MAKEFILE_EDITED.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command}: the edit ran unasked"
    );
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// Family 4: a makefile putting a project folder on `PATH` for its
/// recipes; family 5: Python's `partial` over a renamed starting function.
#[test]
fn a_makefiles_path_and_a_renamed_partial_never_run_an_edit() {
    if !installed("make") || !installed("python3") {
        return;
    }
    let checker = ("tools/lint-helper", "#!/bin/sh\ntrue\n");
    let edited = ("tools/lint-helper", "#!/bin/sh\ntouch PWNED\n");
    for makefile in [
        "export PATH := $(CURDIR)/tools:$(PATH)\nlint:\n\t@lint-helper\n",
        "PATH := tools:$(PATH)\nlint:\n\t@lint-helper\n",
        "export PATH := $(shell pwd)/tools:$(PATH)\nlint:\n\t@lint-helper\n",
    ] {
        never_runs_after(
            &guard_running("make -s lint"),
            None,
            &[("Makefile", makefile), checker],
            edited,
        );
    }
    for head in [
        "import subprocess as sp\nfrom functools import partial\nr = partial(sp.run, check=False)\n",
        "from subprocess import run\nfrom functools import partial\nr = partial(run, check=False)\n",
        "from subprocess import run as go\nfrom functools import partial\nr = partial(go)\n",
    ] {
        let hook = format!("{head}r([\"make\", \"-s\", \"lint\"])\n");
        never_runs_after(
            &guard_running("python3 ~/.claude/hooks/g.x"),
            Some(&hook),
            &[MAKEFILE],
            MAKEFILE_EDITED,
        );
    }
}

/// B-12, B-13: benign guards naming their commands as a literal split
/// into words or a loop over a literal list are approved, and run again
/// unasked after an unrelated edit.
#[test]
fn a_guard_splitting_a_literal_or_looping_over_a_list_is_approved() {
    use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
    if !installed("python3") || !installed("git") {
        return;
    }
    for body in [
        "subprocess.run(shlex.split('git status --porcelain'), capture_output=True)\n",
        "CHECKS = [['git', 'diff', '--check'], ['git', 'status', '--porcelain']]\n\
         for c in CHECKS: subprocess.run(c, capture_output=True)\n",
    ] {
        let (home, project) = home_with("[claude]");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&project, "README.md", "a\n");
        let hook = format!(
            "import json, shlex, subprocess, sys\njson.load(sys.stdin)\n{body}print('{{}}')\n"
        );
        write(&home.user_home, ".claude/hooks/g.py", &hook);
        user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
        let approved = emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            approved["outcome"],
            serde_json::Value::Null,
            "{body}: {approved:#}"
        );
        write(&project, "README.md", "b\n");
        let again = emit_terminal(&home, &project, "ls", false);
        assert_eq!(
            again["outcome"],
            serde_json::Value::Null,
            "{body}: {again:#}"
        );
    }
}
