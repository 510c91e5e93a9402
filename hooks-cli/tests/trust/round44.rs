//! Red team round 44: a line continuation before a blank (R44-2) and
//! quotes nested in `${…}` (R44-1) stopped the reading of the rest of the
//! text, so a computed name after them, and in a user hook even a written
//! one, ran an edit unasked; so did an alias ending in a blank (R44-5),
//! `command -p exec -a` (R44-7), a bracket class (R44-8), a quoted
//! `extglob` (R44-9), `/proc/self/cwd` (R44-10) and `"$(pwd)"` (R44-13).
//! A file a logging hook appends to was bound, so the hook was asked again
//! after every run (R44-15).

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round40::edit_never_runs;

/// Text that runs the edited `tools/g.sh` by a name computed when it runs.
const COMPUTES: &str = "sh \"$(printf tools/g.%s sh)\" a\n";

#[test]
fn round_44s_spellings_are_never_run() {
    for command in [
        "sh \\\n \"$(printf tools/g.%s sh)\" a",
        "x=a; echo \"${x#\"'\"}\" >/dev/null; sh tools/g.sh a",
        "x=a; echo \"${x#\"'\"}\" >/dev/null; sh \"$(printf tools/g.%s sh)\" a",
        "sh \"$(pwd)\"/tools/g.sh a",
        "sh /proc/self/cwd/tools/g.sh a",
    ] {
        edit_never_runs(command, &|_| {});
    }
    for text in [
        "#!/bin/bash\nshopt -s expand_aliases\nalias r='nice ' s=sh\nr s \"$(printf tools/g.%s sh)\" a\n",
        "#!/bin/bash\ncommand -p exec -a \"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'\n",
        "#!/bin/bash\nfor f in tools/[[:lower:]].sh; do sh \"$f\" a; done\n",
        "#!/bin/bash\nshopt -s \"ext\"glob\nsh tools/@(g).sh a\n",
        "#!/bin/bash\necho \"a\" $'d\\'e'\nsh \"$(printf tools/g.%s sh)\" a\n",
        "#!/bin/bash\nsh \\\n\t\"$(printf tools/g.%s sh)\" a\n",
    ] {
        edit_never_runs("bash \"$CLAUDE_PROJECT_DIR\"/run.sh", &|project| {
            write(project, "run.sh", text);
            write(project, "lib.sh", COMPUTES);
        });
    }
}

/// What a sourced library defines holds in its script (R44-3); code in a
/// name's subscript (R44-6); a user's script running another beside it,
/// which runs the project's script (R44-11).
#[test]
fn libraries_subscripts_and_scripts_beside_are_read() {
    for (run, lib) in [
        (
            "#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nrun sh \"$(printf tools/g.%s sh)\" a\n",
            "run() { \"$@\"; }\n",
        ),
        (
            "#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nsh \"$X\" a\n",
            "declare -l X=TOOLS/G.SH\n",
        ),
        (
            "#!/bin/bash\nread 'a[$(sh \"$(printf tools/g.%s sh)\" a)]' <<< 1\n",
            "",
        ),
        (
            "#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nsh tools/G.s? a\n",
            "shopt -s nocaseglob\n",
        ),
    ] {
        edit_never_runs("bash \"$CLAUDE_PROJECT_DIR\"/run.sh", &|project| {
            write(project, "run.sh", run);
            write(project, "lib.sh", lib);
        });
    }
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\nbash \"$(dirname \"$0\")/y.sh\"\n",
    );
    write(
        &home.user_home,
        ".claude/hooks/y.sh",
        "#!/bin/bash\nsh tools/g.sh a\n",
    );
    crate::round39::accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
}

/// The logging hook of Claude Code's documentation, as a guard: it runs on
/// every call, not only the first.
#[test]
fn a_hook_appending_to_its_log_runs_every_time() {
    let (home, project) = home_with("[claude]");
    write(&project, "tool-log.jsonl", "");
    for command in [
        "cat >> tool-log.jsonl; echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'",
        "cat | tee -a tool-log.jsonl >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'",
    ] {
        user_fail_closed_command(&home, command);
        for accept in [true, false, false] {
            let emitted = emit_terminal(&home, &project, "ls", accept);
            assert_eq!(
                emitted["outcome"]["message"],
                json!("guarded"),
                "{command}: {emitted:#}"
            );
        }
    }
}
