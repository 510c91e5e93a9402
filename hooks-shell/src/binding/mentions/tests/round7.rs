//! Red team round 7: files a shell or a program-running script is given
//! by any spelling (R7b-4), and `..` after a linked folder (R7a-4).

use super::{named_by, project, write};

#[test]
fn a_file_any_program_is_given_is_bound_but_a_reader_of_data_is_not() {
    // Red team round 7, R7b-4: spellings of "a shell runs this file" no
    // list of runners holds.
    let (_dir, p) = project();
    for command in [
        "/bin/sh tools/lint.txt",
        "/usr/bin/bash tools/lint.txt",
        "\"sh\" tools/lint.txt",
        "\\sh tools/lint.txt",
        "$SHELL tools/lint.txt",
        "run=sh; $run tools/lint.txt",
        "env -S \"sh tools/lint.txt\"",
        "/tmp/mksh tools/lint.txt",
        "echo x | sed -nf tools/lint.txt",
        "make -s --file=tools/lint.txt",
    ] {
        assert_eq!(named_by(&p, command, None), ["tools/lint.txt"], "{command}");
    }
    for command in [
        "grep x tools/lint.txt",
        "cat tools/lint.txt",
        "wc -l tools/lint.txt",
    ] {
        assert!(named_by(&p, command, None).is_empty(), "{command}");
    }
    // Code that runs programs: any file it names.
    for code in [
        "import os\nos.system('sh ' + ROOT + '/tools/lint.txt')\n",
        "import subprocess\nsubprocess.run(['sh', 'tools/lint.txt'])\n",
        "import sys, subprocess as s\ns.call([sys.executable, 'tools/lint.txt'])\n",
    ] {
        let named = named_by(&p, "python3 .claude/c.py", Some(("c.py", code)));
        assert!(
            named.contains(&"tools/lint.txt".to_owned()),
            "{code}: {named:?}"
        );
    }
    let js = "import { execFileSync } from 'node:child_process';\nexecFileSync('sh', ['tools/lint.txt']);\n";
    let named = named_by(&p, "node .claude/c.mjs", Some(("c.mjs", js)));
    assert!(named.contains(&"tools/lint.txt".to_owned()), "{named:?}");
    // Code that only reads data does not bind it.
    let reads = "import json\nprint(open('tools/lint.txt').read())\n";
    let named = named_by(&p, "python3 .claude/r.py", Some(("r.py", reads)));
    assert!(!named.contains(&"tools/lint.txt".to_owned()), "{named:?}");
}

#[test]
fn a_missing_file_a_shell_runs_by_a_path_is_bound_as_missing() {
    let (_dir, p) = project();
    let named = named_by(&p, "sh tools/later.txt", None);
    assert!(named.contains(&"tools/later.txt".to_owned()), "{named:?}");
}

#[test]
fn dot_dot_after_a_linked_folder_is_taken_from_where_the_link_leads() {
    // Red team round 7, R7a-4: `tools -> scripts/ci`, `tools/../lib` is
    // `scripts/lib` to the kernel, `lib` by name.
    let (_dir, p) = project();
    write(&p.join("scripts/ci/run.sh"), "true\n");
    write(&p.join("scripts/lib/common.sh"), "true\n");
    write(&p.join("lib/common.sh"), "true\n");
    std::os::unix::fs::symlink("scripts/ci", p.join("tools2")).expect("link");
    for command in [
        "cd \"$CLAUDE_PROJECT_DIR/tools2\" && . ../lib/common.sh",
        ". \"$CLAUDE_PROJECT_DIR/tools2/../lib/common.sh\"",
    ] {
        let named = named_by(&p, command, None);
        assert!(
            named.contains(&"scripts/lib/common.sh".to_owned()),
            "{command}: {named:?}"
        );
    }
}

#[test]
fn what_a_reader_prints_into_a_pipe_may_run_so_its_file_is_bound() {
    // Red team round 7, pass C (R7c-1).
    let (_dir, p) = project();
    for command in [
        "cat tools/lint.txt | /bin/sh",
        "grep -v '^#' tools/lint.txt | \"sh\"",
        "cat tools/lint.txt | while read -r l; do $l; done",
        ": tools/lint.txt; sh \"$_\"",
    ] {
        assert_eq!(named_by(&p, command, None), ["tools/lint.txt"], "{command}");
    }
    // Still only read: not bound; a log `tee` appends to is written.
    assert!(named_by(&p, "cat tools/lint.txt || true", None).is_empty());
    assert!(named_by(&p, "echo x | tee -a tools/lint.txt", None).is_empty());
}

#[test]
fn code_that_spawns_by_names_with_underscores_binds_what_it_names() {
    let (_dir, p) = project();
    for code in [
        "import os\nos.posix_spawn('/bin/sh', ['sh', 'tools/lint.txt'], {})\n",
        "import asyncio\nasyncio.create_subprocess_exec('sh', 'tools/lint.txt')\n",
    ] {
        let named = named_by(&p, "python3 .claude/c.py", Some(("c.py", code)));
        assert!(
            named.contains(&"tools/lint.txt".to_owned()),
            "{code}: {named:?}"
        );
    }
}
