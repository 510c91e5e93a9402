use std::path::{Path, PathBuf};

use super::mentioned_entries;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("p");
    for file in [
        "scripts/lint.sh",
        "lib/helper.py",
        "check.py",
        "check.sh",
        "src/main.rs",
        "sub/Makefile",
        "tools/sh",
        "target/debug/x",
        "docs/notes.md",
    ] {
        write(&project.join(file), "true\n");
    }
    write(&project.join(".gitignore"), "/target/\n*.log\n");
    (dir, project)
}

fn names(project: &Path, entries: Vec<PathBuf>) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            e.strip_prefix(project)
                .expect("inside")
                .display()
                .to_string()
        })
        .collect()
}

fn named_by(project: &Path, command: &str, code: Option<(&str, &str)>) -> Vec<String> {
    let tool = project.join(".claude");
    if let Some((file, text)) = code {
        write(&tool.join(file), text);
    } else {
        std::fs::create_dir_all(&tool).expect("mkdir");
    }
    let found = mentioned_entries(
        project,
        project,
        command,
        std::slice::from_ref(&tool),
        std::slice::from_ref(&tool),
    );
    std::fs::remove_dir_all(&tool).expect("clean");
    names(project, found)
}

#[test]
fn scripts_a_tool_script_runs_or_imports_are_named() {
    let (_dir, p) = project();
    let run = "#!/bin/sh\nsh \"$CLAUDE_PROJECT_DIR/scripts/lint.sh\"\n";
    assert_eq!(named_by(&p, "sh x", Some(("hooks/a.sh", run))), ["scripts"]);
    let import = "import os, sys\nsys.path.insert(0, os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'lib'))\nimport helper\n";
    assert_eq!(named_by(&p, "x", Some(("hooks/a.py", import))), ["lib"]);
    let up = "#!/bin/sh\n. \"$(dirname \"$0\")/../../lib/helper.py\"\n";
    assert_eq!(named_by(&p, "x", Some(("hooks/a.sh", up))), ["lib"]);
}

#[test]
fn a_top_level_file_named_inside_a_string_is_named() {
    let (_dir, p) = project();
    assert_eq!(named_by(&p, "sh -c 'sh check.sh'", None), ["check.sh"]);
    assert_eq!(
        named_by(&p, "python3 -c \"exec(open('check.py').read())\"", None),
        ["check.py"]
    );
    // `import check` names check.py; a dotted module its package folder.
    assert_eq!(
        named_by(&p, "python3 -c 'import check'", None),
        ["check.py"]
    );
    assert_eq!(
        named_by(&p, "python3 -c 'import lib.helper'", None),
        ["lib"]
    );
}

#[test]
fn a_makefile_names_what_it_runs_and_that_is_read_in_turn() {
    let (_dir, p) = project();
    write(
        &p.join("Makefile"),
        "SHELL := tools/sh\nX := $(shell sh scripts/lint.sh)\nall:\n\t$(MAKE) -C sub\n",
    );
    write(&p.join("sub/Makefile"), "all:\n\tpython3 ../check.py\n");
    let found = mentioned_entries(&p, &p, "make", &[p.join("Makefile")], &[p.join("Makefile")]);
    assert_eq!(names(&p, found), ["check.py", "scripts", "sub", "tools"]);
}

#[test]
fn prose_binds_paths_only_and_build_output_is_never_bound() {
    let (_dir, p) = project();
    let notes = "Run the lib checks; see src/main.rs.\n";
    assert_eq!(named_by(&p, "x", Some(("notes.md", notes))), ["src"]);
    let build = "#!/bin/sh\ncargo build --target-dir target && ls target/debug\n";
    assert!(named_by(&p, "x", Some(("hooks/b.sh", build))).is_empty());
}

#[test]
fn ignored_but_tracked_code_is_bound() {
    let (_dir, p) = project();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&p)
            .args(args)
            .output()
            .map(|out| out.status.success())
            .unwrap_or(false)
    };
    if !git(&["init", "-q"]) {
        eprintln!("skipped: no git");
        return;
    }
    write(&p.join(".gitignore"), "lib/\n");
    assert!(git(&["add", "-f", "lib/helper.py"]));
    let import = "import sys\nsys.path.insert(0, 'lib')\n";
    assert_eq!(named_by(&p, "x", Some(("hooks/a.py", import))), ["lib"]);
}
