//! Red team round 42's open rows, against the refusal of names computed
//! when a hook runs: a name joined from pieces no reading resolves
//! (`tools/g${NOPE}.sh`, `g$#.sh`, `${X:+…}`, a variable set twice:
//! R42-1), a folder `CDPATH` chose (R42-2), a runner's or a `-c` string's
//! functions passing computed text on, `exec -a` (R42-4), a `mapfile -C`
//! callback (R42-5), `command_not_found_handle`, and a library sourced
//! beside the script or a script named by a glob, which the scan missed
//! (R42-7). Accepted while innocent, then edited: the edit never runs and
//! the guard blocks.

use crate::dialects::{home_with, write};
use crate::round39::runs_guarded;
use crate::round40::edit_never_runs;

/// Text that runs the edited `tools/g.sh` by a name computed when it runs.
const COMPUTES: &str = "sh \"$(printf tools/g.%s sh)\" a\n";

#[test]
fn names_joined_from_pieces_are_never_run() {
    for command in [
        "sh \"tools/g${NOPE}.sh\" a",
        "sh tools/g$NOPE.sh a",
        "for X in tools/g.XX; do sh \"${X%XX}sh\" a; done",
        "X=1; sh \"${X:+tools/g.sh}\" a",
        "X=tools/g; X=\"$X.sh\"; sh \"$X\" a",
    ] {
        edit_never_runs(command, &|_| {});
    }
    // `$#` is 0 and `${#X}` 2 when the hook runs: `tools/g0.sh`, `tools/g2.sh`.
    for (command, file) in [
        ("sh tools/g$#.sh a", "tools/g0.sh"),
        ("X=ab; sh \"tools/g${#X}.sh\" a", "tools/g2.sh"),
    ] {
        let (home, project) = home_with("[claude]");
        write(&project, file, crate::round39::GUARDS);
        crate::dialects::user_fail_closed_command(&home, command);
        crate::dialects::emit_terminal(&home, &project, "ls", true);
        write(&project, file, crate::round39::LEAVES_A_MARK);
        let emitted = crate::dialects::emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{command}: the edit ran");
        assert_eq!(emitted["outcome"]["action"], "block", "{command}");
    }
}

#[test]
fn folders_runners_strings_and_callbacks_are_never_run() {
    for command in [
        "CDPATH=\"$(printf tools)\"; cd sub >/dev/null; sh ../g.sh a",
        "CDPATH=tools; cd sub >/dev/null; sh ../g.sh a",
        "run() { flock /tmp/round43.lock \"$@\"; }; run sh \"$(printf tools/g.%s sh)\" a",
        "sh -c 'g() { sh \"$1\" a; }; g \"$(printf tools/g.%s sh)\"'",
        "bash -c 'exec -a \"$(printf tools/g.%s sh)\" bash -c '\\''sh \"$0\" a'\\'''",
        "bash -c 'mapfile -t -C \"sh $(printf tools/g.%s sh) a #\" -c 1 arr <<< x'",
    ] {
        edit_never_runs(command, &|project| {
            std::fs::create_dir_all(project.join("sub")).expect("sub");
            std::fs::create_dir_all(project.join("tools/sub")).expect("tools/sub");
        });
    }
}

#[test]
fn a_library_beside_the_script_and_a_script_named_by_a_glob_are_read() {
    let cases = [
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            "#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\n",
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            "#!/bin/bash\nD=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n. \"$D/lib.sh\"\n",
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            "#!/bin/bash\ncommand_not_found_handle() { sh \"tools/$1.sh\" a; }\ng\n",
        ),
        ("bash \"$CLAUDE_PROJECT_DIR\"/ru?.py", "run.py", COMPUTES),
    ];
    for (command, file, text) in cases {
        edit_never_runs(command, &|project| {
            write(project, file, text);
            write(project, "lib.sh", COMPUTES);
        });
    }
}

/// Red team round 43: a case attribute (`declare -l`: R43-1), `for a do`
/// over the arguments (R43-2), `exec -a` spellings (R43-3), a bundled
/// `mapfile -tC` (R43-4), `coproc` (R43-5), an alias naming the program
/// (R43-6), extglob (R43-7), a library reached through a variable or a
/// real path (R43-8), `CLAUDE_PROJECT_DIR` set by the text (R43-9), a
/// search path led by `$PWD` (R43-10).
#[test]
fn round_43s_spellings_are_never_run() {
    for command in [
        "bash -c 'declare -l X=TOOLS/G.SH; sh \"$X\" a'",
        "set -- \"$(printf tools/g.%s sh)\"; for a do sh \"$a\" x; done",
        "bash -c 'exec -ca \"$(printf tools/g.%s sh)\" bash -c '\\''sh \"$0\" a'\\'''",
        "bash -c 'mapfile -tC \"sh $(printf tools/g.%s sh) a #\" -c1 arr <<< x'",
        "bash -c 'coproc sh \"$(printf tools/g.%s sh)\" a </dev/null; wait'",
        "PATH=\"$PWD/tools:$PATH\"; g.sh a",
        "for CLAUDE_PROJECT_DIR in \"$PWD/$(printf tools)\"; do :; done; sh \"$CLAUDE_PROJECT_DIR\"/g.sh a",
    ] {
        edit_never_runs(command, &|project| {
            crate::dialects::write(project, "tools/.keep", "");
        });
    }
    let cases = [
        "#!/bin/bash\nshopt -s expand_aliases\nalias r=sh\nr \"$(printf tools/g.%s sh)\" a\n",
        "#!/bin/bash\nshopt -s extglob\nsh tools/@(g).sh a\n",
        "#!/bin/bash\nD=$(dirname \"$0\"); L=$D/lib.sh; . \"$L\"\n",
        "#!/bin/bash\nD=$(dirname \"$(realpath \"$0\")\"); . \"$D/lib.sh\"\n",
        "#!/bin/bash\n. \"$(dirname \"$0\")/$(basename lib.sh)\"\n",
    ];
    for text in cases {
        edit_never_runs("bash \"$CLAUDE_PROJECT_DIR\"/run.sh", &|project| {
            write(project, "run.sh", text);
            write(project, "lib.sh", COMPUTES);
        });
    }
}

/// What the reading of pieces must keep running: a folder a variable
/// holds, a loop over written names, a program the environment chooses,
/// a name set once.
#[test]
fn common_hooks_the_reading_of_pieces_keeps_running() {
    let (home, project) = home_with("[claude]");
    write(&project, "tools/answer.sh", crate::round39::GUARDS);
    for command in [
        "DIR=\"$CLAUDE_PROJECT_DIR\"; cd \"$DIR\" && sh tools/answer.sh",
        "for f in tools/answer.sh; do sh \"$f\"; done",
        "SH=${HOOK_SHELL:-sh}; \"$SH\" tools/answer.sh",
        "S=tools/answer.sh; sh \"$S\"",
        "cd \"${CLAUDE_PROJECT_DIR:-$(pwd)}\" && sh tools/answer.sh",
        "bash -c 'declare -l tool=TERMINAL; echo \"$tool\" >/dev/null; sh tools/answer.sh'",
        "bash -c 'exec -a hook sh tools/answer.sh'",
    ] {
        runs_guarded(&home, &project, command);
    }
}
