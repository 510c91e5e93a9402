//! Red team round 60 (`FINDINGS-round60.md`), through the real binary:
//! round 59's readings attacked. Piped text past redirections, groups and
//! programs handing it on; runners in another program's text spelled with
//! quotes or escapes, or after a `cd`; names reaching a word other ways; a
//! script in a language no reading models building what it starts; `find
//! -exec {}`, `>(sh)`, `coproc sh`; a user script run after a `cd`. Each
//! ran the project's edited Makefile unasked on the code before.

use crate::round8_modules::installed;
use crate::round58_red::{MAKEFILE, MAKEFILE_EDITED, never_runs_after};
use crate::round59::guard_running;

/// The Makefile of `tools/`, and its edit.
const TOOLS_MAKEFILE: (&str, &str) = ("tools/Makefile", "lint:\n\t@true\n");
const TOOLS_EDITED: (&str, &str) = ("tools/Makefile", "lint:\n\t@touch ../PWNED\n");

#[test]
fn piped_text_past_redirections_groups_and_handing_on_never_runs_an_edit() {
    if !installed("make") || !installed("bash") {
        return;
    }
    let mut runs = vec![
        "echo 'make -s lint' | sh >/dev/null",
        "echo 'make -s lint' | sh 2>&1",
        "echo 'make -s lint' 2>&1 | sh",
        "echo 'make -s lint' | bash --rcfile /dev/null -s",
        "{ echo 'make -s lint'; } | sh",
        "(echo 'make -s lint') | sh",
        "echo 'make -s lint' | sh -c 'exec sh'",
        "echo 'make -s lint' | bash -c '. /dev/stdin'",
        "echo 'make -s lint' | timeout 5 sh",
        "bash -c 'coproc sh; echo make -s lint >&${COPROC[1]}; exec {COPROC[1]}>&-; wait'",
        "echo 'make -s lint' > >(sh); sleep 1",
    ];
    for (program, run) in [
        (
            "python3",
            "echo 'import os; os.system(\"make -s lint\")' | python3 -X utf8",
        ),
        (
            "flock",
            "echo 'make -s lint' | flock /tmp/hooks-r60.lock sh",
        ),
        ("sed", "echo 'make -s lint' | sed -n e"),
        ("sqlite3", "echo '.shell m\"\"ake -s lint' | sqlite3"),
        ("tclsh", "echo 'exec [string cat ma ke] -s lint' | tclsh"),
    ] {
        if installed(program) {
            runs.push(run);
        }
    }
    for run in runs {
        never_runs_after(&guard_running(run), None, &[MAKEFILE], MAKEFILE_EDITED);
    }
}

#[test]
fn runners_spelled_out_of_sight_or_held_in_names_never_run_an_edit() {
    if !installed("make") || !installed("git") {
        return;
    }
    for run in [
        "git -c alias.l='!m\"\"ake -s lint' l",
        "git -c alias.l='!m\\ake -s lint' l",
        "git -c alias.x='!f() { \"$@\"; }; f' x make -s lint",
        "a=make; b=$a; $b -s lint",
        "x=make; sh -c \"$x -s lint\"",
        "${x:+make} -s lint",
        ": ${x:=make}; $x -s lint",
        "x=ma; x+=ke; $x -s lint",
        "IFS=_; x=make_-s_lint; $x",
        "$'make' -s lint",
    ] {
        never_runs_after(&guard_running(run), None, &[MAKEFILE], MAKEFILE_EDITED);
    }
    for run in [
        "sed -n '1e cd tools && make -s lint' /etc/hostname",
        "x='cd tools'; $x; make -s lint",
    ] {
        never_runs_after(&guard_running(run), None, &[TOOLS_MAKEFILE], TOOLS_EDITED);
    }
}

#[test]
fn scripts_that_build_what_they_start_or_run_after_a_cd_never_run_an_edit() {
    if !installed("make") {
        return;
    }
    let mut rows = vec![
        (
            "awk -f ~/.claude/hooks/g.x",
            "BEGIN { system(\"\\155ake -s lint\") }\n",
            false,
        ),
        ("cd tools && sh ~/.claude/hooks/g.x", "make -s lint\n", true),
    ];
    if installed("tclsh") {
        rows.push((
            "tclsh ~/.claude/hooks/g.x",
            "exec [string cat ma ke] -s lint\n",
            false,
        ));
        rows.push((
            "tclsh ~/.claude/hooks/g.x",
            "set m ma; append m ke; exec $m -s lint\n",
            false,
        ));
        rows.push((
            "cd tools && tclsh ~/.claude/hooks/g.x",
            "exec make -s lint\n",
            true,
        ));
    }
    for (run, script, in_tools) in rows {
        let (setup, edit) = match in_tools {
            true => (TOOLS_MAKEFILE, TOOLS_EDITED),
            false => (MAKEFILE, MAKEFILE_EDITED),
        };
        never_runs_after(&guard_running(run), Some(script), &[setup], edit);
    }
    // `find … -exec {}` runs each file it finds.
    let helper = ("tools/lint-helper", "#!/bin/sh\ntrue\n");
    let edited = ("tools/lint-helper", "#!/bin/sh\ntouch PWNED\n");
    never_runs_after(
        &guard_running("find tools -name lint-helper -exec {} \\;"),
        None,
        &[helper],
        edited,
    );
}
