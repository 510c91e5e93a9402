//! Red team round 59, through the real binary: text a pipe feeds a program
//! that runs its input (`echo 'make -s lint' | sh`, `| tclsh`, `| perl`,
//! `| python3`, `| xargs -I{} sh -c {}`), a statement of a program's own
//! that starts one (`gdb -ex 'shell make'`, `sqlite3 db '.shell make'`),
//! and `… | cat | sh`. Each ran the project's edited Makefile unasked on
//! the code before.

use crate::round8_modules::installed;
use crate::round58_red::{BLOCKS, MAKEFILE, MAKEFILE_EDITED, never_runs_after};

/// The user's guard running `run` in the project, then blocking.
fn guard_running(run: &str) -> String {
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
