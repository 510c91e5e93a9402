//! Red team round 40, against round 39's refusal of names computed when a
//! hook runs: the name reached the shell through a redirection (R40-1), a
//! carrier the reading did not follow (`set --`, a function's arguments,
//! `$?`, `BASH_REMATCH`, arrays: R40-2), code kept to run later (`trap`,
//! `find -exec`, `flock`: R40-3), or a script the scan skipped for its
//! name or shape (R40-4): an edit then ran unasked. Common hooks it refused
//! run again (R40-5, R40-6).

use crate::dialects::{home_with, write};
use crate::round39::{accepted_then_edited, runs_guarded};

/// Accepted while innocent, then edited: the edit never runs, the guard blocks.
pub(crate) fn edit_never_runs(command: &str, setup: &dyn Fn(&std::path::Path)) {
    let (home, project) = home_with("[claude]");
    setup(&project);
    accepted_then_edited(&home, &project, command);
}

#[test]
fn computed_names_through_redirections_and_carriers_are_never_run() {
    for command in [
        "sh 0< \"$(printf tools/g.%s sh)\"",
        "< \"$(printf tools/g.%s sh)\" sh",
        "bash -c 'exec 3< \"$(printf tools/g.%s sh)\"; sh /dev/fd/3 a'",
        "set -- \"$(printf tools/g.%s sh)\"; sh \"$1\" a",
        "f() { sh \"$1\" a; }; f \"$(printf tools/g.%s sh)\"",
        "sh -c 'sh \"$1\" a' _ \"$(printf tools/g.%s sh)\"",
        "trap \"sh $(printf tools/g.%s sh) a\" EXIT",
        "find tools -name \"g*\" -exec sh {} a \\;",
        "flock /tmp/round40.lock sh \"$(printf tools/g.%s sh)\" a",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

#[test]
fn a_script_the_scan_skipped_for_its_shape_is_read() {
    let computes = "sh \"$(printf tools/g.%s sh)\" a\n";
    let cases: [(&str, &str, String); 5] = [
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run",
            "run",
            computes.to_owned(),
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.py",
            "run.py",
            computes.to_owned(),
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            format!("\u{feff}#!/bin/sh\n# a port of the python helper\n{computes}"),
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            format!("#!/bin/sh\n{}{computes}", "#\n".repeat(600_000)),
        ),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            "#!/bin/sh\nif true; then . \"$CLAUDE_PROJECT_DIR\"/lib.sh; fi\n".to_owned(),
        ),
    ];
    for (command, file, text) in cases {
        edit_never_runs(command, &|project| {
            write(project, file, &text);
            write(project, "lib.sh", computes);
        });
    }
}

#[test]
fn common_hooks_round_39_refused_run() {
    let (home, project) = home_with("[claude]");
    let script = "PROJECT_DIR=\"${CLAUDE_PROJECT_DIR:-$(pwd)}\"\ncd \"$PROJECT_DIR\" || exit 1\n\
                  . \"$PROJECT_DIR/tools/lib.sh\"\ncat >/dev/null\necho \"$ANSWER\"\n";
    write(
        &project,
        "tools/lib.sh",
        "ANSWER='{\"decision\":\"block\",\"reason\":\"guarded\"}'\n",
    );
    let run = write(&home.user_home, "bin/run.sh", script);
    for command in [
        format!("bash {}", run.display()),
        format!(
            "bash -c 'cd \"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\" && bash {}'",
            run.display()
        ),
    ] {
        runs_guarded(&home, &project, &command);
    }
}

/// Red team round 41, against round 40's fixes: redirections beside
/// arguments (R41-1), `$0` and `-ec` strings (R41-2), a sourced file's
/// arguments (R41-3), a prompt run as code (R41-4), names joined from
/// static pieces (R41-5), and scripts a shell runs however it is written
/// or shaped (R41-6).
#[test]
fn round_41s_spellings_are_never_run() {
    for command in [
        "sh -s a < \"$(printf tools/g.%s sh)\"",
        "sh -c 'sh \"$0\" a' \"$(printf tools/g.%s sh)\"",
        "sh -ec 'sh \"$1\" a' _ \"$(printf tools/g.%s sh)\"",
        "bash -c \"PS4='\\$(sh \\$(printf tools/g.%s sh) a >&2)'; set -x; :\"",
        "set -- tools g sh; sh \"$1/$2.$3\" a",
        "HOME=$PWD/tools; sh ~/g.sh a",
    ] {
        edit_never_runs(command, &|_| {});
    }
    let computes = "sh \"$(printf tools/g.%s sh)\" a\n";
    let cases: [(&str, &str, &str); 3] = [
        (
            "/bin/bash \"$CLAUDE_PROJECT_DIR\"/run.py",
            "run.py",
            computes,
        ),
        ("\"$CLAUDE_PROJECT_DIR\"/run.txt", "run.txt", computes),
        (
            "bash \"$CLAUDE_PROJECT_DIR\"/run.sh",
            "run.sh",
            "#!/bin/sh\n#\0x\nsh \"$(printf tools/g.%s sh)\" a\n",
        ),
    ];
    for (command, file, text) in cases {
        edit_never_runs(command, &|project| {
            let path = write(project, file, text);
            crate::dialects::executable(&path);
        });
    }
}

#[test]
fn common_hooks_round_40_refused_run() {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        "tools/answer.sh",
        "cat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n",
    );
    for command in [
        "run() { echo \"+ $*\" >&2; \"$@\"; }; run sh tools/answer.sh \"$(date +%s)\"",
        "IFS= read -r input; sh \"$CLAUDE_PROJECT_DIR/tools/answer.sh\"",
        "bash -lc 'cd \"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\" && sh tools/answer.sh'",
    ] {
        runs_guarded(&home, &project, command);
    }
}

/// Red team round 42: a program named by a variable (R42-3), a place of a
/// literal path (R42-6), a start-up file named statically (R42-2): the
/// edit never runs.
#[test]
fn round_42s_spellings_are_never_run() {
    for command in [
        "X=sh; $X \"$(printf tools/g.%s sh)\" a",
        "sh \"$(dirname tools/g.sh/x)\" a",
        "BASH_ENV=tools/g.sh bash -c :",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

/// Round 42's false refusals: a binary read as a shell script (R42-9), a
/// function passing `"$@"` on (R42-10: a stack overflow), strict mode's
/// `IFS` (R42-11), an array as the command (R42-12).
#[test]
fn common_hooks_round_41_refused_run() {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        "tools/answer.sh",
        "cat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n",
    );
    for command in [
        "cat >/dev/null; bash -c 'sh tools/answer.sh </dev/null'",
        "a() { \"$@\"; }; b() { a \"$@\"; }; b sh tools/answer.sh",
        "set -eu; IFS=$'\\n\\t'; sh \"$CLAUDE_PROJECT_DIR/tools/answer.sh\"",
        "bash -c 'cmd=(sh tools/answer.sh); \"${cmd[@]}\"'",
    ] {
        runs_guarded(&home, &project, command);
    }
}
