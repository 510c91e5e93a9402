//! Red team round 7, pass C: `..` read by name where the kernel takes it
//! from a folder named before (R7c-4), and a file read by how it runs, not
//! by its name (R7c-7).

use super::{named_by, project, write};
use crate::binding::mentions::{language, read};
use std::path::{Path, PathBuf};

/// A project with `scripts/lib/x` (what `..` from `scripts/ci` reaches), a
/// decoy `lib/x` at the top, and `ci -> scripts/ci`.
fn project_with_dot_dots() -> (tempfile::TempDir, PathBuf) {
    let (dir, p) = project();
    for file in [
        "scripts/ci/run.sh",
        "scripts/ci/deep/run.sh",
        "scripts/lib/x",
        "scripts/lib/y.sh",
        "lib/x",
        "lib/y.sh",
    ] {
        write(&p.join(file), "true\n");
    }
    std::os::unix::fs::symlink("scripts/ci", p.join("ci")).expect("link");
    (dir, p)
}

fn assert_names(p: &Path, command: &str, code: Option<(&str, &str)>, file: &str) {
    assert_eq!(missed(p, command, code, file), None);
}

/// What `command` names when that misses `file`.
fn missed(p: &Path, command: &str, code: Option<(&str, &str)>, file: &str) -> Option<String> {
    let named = named_by(p, command, code);
    (!named.contains(&file.to_owned())).then(|| format!("{command} {code:?}: {named:?}"))
}

#[test]
fn a_folder_left_with_dot_dot_still_names_what_its_parent_holds() {
    // Red team round 7c, R7c-4.
    let (_dir, p) = project_with_dot_dots();
    let mut missing = Vec::new();
    for command in [
        "cd scripts/ci && cd .. && . lib/x",
        "cd scripts/ci/deep && cd ../.. && . lib/x",
        "cd scripts/ci/..; . lib/x",
        "cd -P ci && cd .. && . lib/x",
        ". \"$CLAUDE_PROJECT_DIR/ci/..\"/lib/x",
        "for f in ci/../lib/*.sh; do . \"$f\"; done",
    ] {
        let file = if command.contains("*.sh") {
            "scripts/lib/y.sh"
        } else {
            "scripts/lib/x"
        };
        missing.extend(missed(&p, command, None, file));
    }
    assert!(missing.is_empty(), "{missing:#?}");
    // The same in a script the hook runs.
    let script = "#!/bin/sh\ncd \"$CLAUDE_PROJECT_DIR/scripts/ci\" && cd .. && . lib/x\n";
    assert_names(&p, "x", Some(("hooks/a.sh", script)), "scripts/lib/x");
}

#[test]
fn a_trailing_dot_dot_is_kept_in_a_word() {
    let words = read::words("cd scripts/ci/..; cd ./tools/.");
    assert!(words.contains(&"scripts/ci/..".to_owned()), "{words:?}");
}

#[test]
fn python_joining_dot_dot_names_what_the_kernel_opens() {
    let (_dir, p) = project_with_dot_dots();
    write(&p.join("scripts/lib/xmod.py"), "x = 1\n");
    let join = "import os, sys\nROOT = os.environ['CLAUDE_PROJECT_DIR']\n\
        sys.path.insert(0, os.path.join(ROOT, 'ci', '..', 'lib'))\nimport xmod\n";
    assert_names(&p, "x", Some(("c.py", join)), "scripts/lib/xmod.py");
    // A real folder: the top-level `lib`.
    write(&p.join("lib/ymod.py"), "y = 1\n");
    let top = join.replace("'ci'", "'tools'").replace("xmod", "ymod");
    assert_names(&p, "x", Some(("c.py", &top)), "lib/ymod.py");
}

#[test]
fn a_file_a_shell_runs_is_read_as_shell_whatever_its_name() {
    // Red team round 7c, R7c-7: what the file run names is bound in turn.
    let (_dir, p) = project();
    write(&p.join("tools/stage2.dat"), "true\n");
    write(&p.join("lib/helpers.dat"), "true\n");
    let mut missing = Vec::new();
    for (command, file, text, second) in [
        (
            "sh tools/run.txt",
            "tools/run.txt",
            "/bin/sh tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            "bash tools/run.txt",
            "tools/run.txt",
            "\"sh\" tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            "/bin/sh tools/run.txt",
            "tools/run.txt",
            "$SHELL tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            ". env.conf",
            "env.conf",
            ". ./lib/helpers.dat\n",
            "lib/helpers.dat",
        ),
        (
            "source env.conf",
            "env.conf",
            "/bin/sh lib/helpers.dat\n",
            "lib/helpers.dat",
        ),
        (
            "make -f build.txt",
            "build.txt",
            "all:\n\t/bin/sh tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            "make --file=build.txt",
            "build.txt",
            "all:\n\t/bin/sh tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        // Code by its name, run by a shell spelled otherwise.
        (
            "\"sh\" tools/run.py",
            "tools/run.py",
            "/bin/sh tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            "$SHELL tools/run.py",
            "tools/run.py",
            "/bin/sh tools/stage2.dat\n",
            "tools/stage2.dat",
        ),
        (
            "python3 tools/x.txt",
            "tools/x.txt",
            "import subprocess\nsubprocess.run(['/bin/sh', 'tools/stage2.dat'])\n",
            "tools/stage2.dat",
        ),
        (
            "node tools/x.dat",
            "tools/x.dat",
            "require('child_process').execFileSync('sh', ['tools/stage2.dat'])\n",
            "tools/stage2.dat",
        ),
    ] {
        write(&p.join(file), text);
        missing.extend(missed(&p, command, None, second));
        std::fs::remove_file(p.join(file)).expect("clean");
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn an_executable_file_without_a_hash_bang_line_is_read_as_shell() {
    // Run by a shell, a file with no `#!` line is a shell script (ENOEXEC).
    let (_dir, p) = project();
    write(&p.join("tools/stage2.dat"), "true\n");
    let run = write_executable(&p, "tools/run.txt", "/bin/sh tools/stage2.dat\n");
    assert!(run.is_file());
    let named = named_by(&p, "\"$CLAUDE_PROJECT_DIR\"/tools/run.txt", None);
    assert!(named.contains(&"tools/stage2.dat".to_owned()), "{named:?}");
}

#[test]
fn the_hash_bang_line_says_what_a_script_is_not_its_name() {
    // R7c-1's remainder: a Python script named `*.sh`.
    let python = "#!/usr/bin/env python3\nimport os\n";
    assert!(!language::is_shell(Path::new("check.sh"), python));
    assert!(language::is_shell(
        Path::new("check.py"),
        "#!/bin/sh\ntrue\n"
    ));
    assert!(language::is_shell(Path::new("check.sh"), "true\n"));
}

fn write_executable(p: &Path, file: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.join(file);
    write(&path, text);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}
