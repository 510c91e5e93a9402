//! What a hook's code names, on a project laid out for each case.

use std::path::{Path, PathBuf};

use super::named_files;

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
        "src/app.ts",
        "sub/Makefile",
        "target/debug/x.sh",
        "docs/notes.md",
        "tools/lint.txt",
        "which.txt",
    ] {
        write(&project.join(file), "true\n");
    }
    write(&project.join("tools/sh"), "#!/bin/sh\n");
    write(&project.join(".gitignore"), "/target/\n*.log\n");
    (dir, project)
}

fn relative(project: &Path, files: impl IntoIterator<Item = PathBuf>) -> Vec<String> {
    files
        .into_iter()
        .map(|e| {
            e.strip_prefix(project)
                .expect("inside")
                .display()
                .to_string()
        })
        .collect()
}

/// What `command` names with `.claude/<file>` holding `text`.
fn named_by(project: &Path, command: &str, code: Option<(&str, &str)>) -> Vec<String> {
    let tool = project.join(".claude");
    if let Some((file, text)) = code {
        write(&tool.join(file), text);
    } else {
        std::fs::create_dir_all(&tool).expect("mkdir");
    }
    let found = named_files(
        project,
        project,
        command,
        std::slice::from_ref(&tool),
        std::slice::from_ref(&tool),
    )
    .expect("named");
    std::fs::remove_dir_all(&tool).expect("clean");
    relative(project, found)
}

#[test]
fn files_a_tool_script_runs_or_imports_are_named() {
    let (_dir, p) = project();
    let run = "#!/bin/sh\nsh \"$CLAUDE_PROJECT_DIR/scripts/lint.sh\"\n";
    assert_eq!(
        named_by(&p, "sh x", Some(("hooks/a.sh", run))),
        ["scripts/lint.sh"]
    );
    let import = "import os, sys\nsys.path.insert(0, os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'lib'))\nimport helper\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", import))),
        ["lib/helper.py"]
    );
    // The folder named after the word that is looked up in it.
    let late = "import helper\nsys.path.insert(0, 'lib')\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", late))),
        ["lib/helper.py"]
    );
    let up = "#!/bin/sh\n. \"$(dirname \"$0\")/../../lib/helper.py\"\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.sh", up))),
        ["lib/helper.py"]
    );
    write(&p.join("lib/__pycache__/helper.cpython-311.pyc"), "\0");
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", import))),
        ["lib/__pycache__/helper.cpython-311.pyc", "lib/helper.py"]
    );
}

#[test]
fn a_top_level_file_named_inside_a_string_is_named() {
    let (_dir, p) = project();
    assert_eq!(named_by(&p, "sh -c 'sh check.sh'", None), ["check.sh"]);
    assert_eq!(
        named_by(&p, "python3 -c \"exec(open('check.py').read())\"", None),
        ["check.py"]
    );
    assert_eq!(
        named_by(&p, "python3 -c 'import check'", None),
        ["check.py"]
    );
    assert_eq!(
        named_by(&p, "python3 -c 'import lib.helper'", None),
        ["lib/helper.py"]
    );
    assert_eq!(
        named_by(&p, "for f in t*/sh; do $f; done", None),
        ["tools/sh"]
    );
}

#[test]
fn what_a_shell_runs_or_reads_is_named_whatever_the_file() {
    let (_dir, p) = project();
    assert_eq!(named_by(&p, "sh tools/lint.txt", None), ["tools/lint.txt"]);
    assert_eq!(named_by(&p, "sh \"$(cat which.txt)\"", None), ["which.txt"]);
    // Read as data, it is not code: not bound.
    assert!(named_by(&p, "grep x tools/lint.txt", None).is_empty());
    // Written, not run.
    assert!(named_by(&p, "echo x >> check.sh", None).is_empty());
    // A missing script named by a path: bound as missing.
    assert_eq!(
        named_by(&p, "sh scripts/extra.sh", None),
        ["scripts/extra.sh"]
    );
}

#[test]
fn a_makefile_names_what_it_runs_and_that_is_read_in_turn() {
    let (_dir, p) = project();
    std::fs::set_permissions(
        p.join("tools/sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    write(
        &p.join("Makefile"),
        "SHELL := tools/sh\nX := $(shell sh scripts/lint.sh)\nall:\n\t$(MAKE) -C sub\n",
    );
    write(&p.join("sub/Makefile"), "all:\n\tpython3 ../check.py\n");
    let makefile = p.join("Makefile");
    let found = named_files(&p, &p, "make", std::slice::from_ref(&makefile), &[]).expect("named");
    assert_eq!(
        relative(&p, found),
        ["check.py", "scripts/lint.sh", "sub/Makefile", "tools/sh"]
    );
}

#[test]
fn a_folder_named_binds_its_entry_files_not_its_sources() {
    let (_dir, p) = project();
    let guard =
        "#!/bin/sh\n# keep edits inside src/\ncase \"$1\" in src/*) exit 0;; esac\ncd src\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/g.sh", guard))),
        Vec::<String>::new()
    );
    write(&p.join("src/__init__.py"), "");
    assert_eq!(
        named_by(&p, "x", Some(("hooks/g.sh", guard))),
        ["src/__init__.py"]
    );
}

/// A project whose `src` and `src/pkg` hold entry files.
fn project_with_entries() -> (tempfile::TempDir, PathBuf) {
    let (dir, p) = project();
    for file in [
        "src/index.js",
        "src/__init__.py",
        "src/Makefile",
        "src/pkg/__init__.py",
    ] {
        write(&p.join(file), "x = 1\n");
    }
    (dir, p)
}

/// Red-team R6b-9: a guard that greps `src`, a comment that says `src/`.
#[test]
fn a_folder_shell_code_only_names_quietly_binds_no_entry_file() {
    let (_dir, p) = project_with_entries();
    let guard = "#!/bin/sh\ncat >/dev/null\n# no console.log left in src/\n\
        grep -rq \"console.log\" \"$CLAUDE_PROJECT_DIR/src\" && echo \"found\" >&2\n\
        [ -d \"src\" ] || exit 0\nexit 0\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/g.sh", guard))),
        Vec::<String>::new()
    );
    for command in [
        "grep -rq console.log \"$CLAUDE_PROJECT_DIR/src\"",
        "grep -q -e x src/ || test -d src",
        "# checks src\nexit 0",
        "# the source of truth: src/. Then alias() it.\ngrep -q x src",
        // A word looked up again in a folder named later: quiet too.
        "grep -q x pkg; grep -q y src",
    ] {
        assert!(named_by(&p, command, None).is_empty(), "{command}");
    }
}

/// A folder named where code may load it, in shell code or any other,
/// binds its entry files, even when it is also named quietly.
#[test]
fn a_folder_named_where_code_may_load_it_binds_its_entry_files() {
    let (_dir, p) = project_with_entries();
    let src = ["src/Makefile", "src/__init__.py", "src/index.js"];
    for command in [
        "python -m src",
        "node src",
        "cd src && make",
        "make -C src",
        "python3 -c 'import src'",
        "find src -exec sh {} \\;",
        "python3 - <<EOF\nimport src\nEOF",
        "grep -q x src; cd \"$CLAUDE_PROJECT_DIR\"/src/ && make",
        "grep -q x src; cd s\"\"rc && make",
        "grep -q x src; cd s?c && make",
        "grep -q x src; cd $'\\x73rc' && make",
        "grep -l x src | xargs -n1 make -C",
        // Options grep reads otherwise: `-q` as a pattern, after an operand.
        "grep $X -q src",
        "grep -e -q src",
        "grep --regexp -q src",
        "grep x src -q",
        "ls src",
        "PATH=. grep -q x src",
        "sh -c 'cd \"$0\" && make\n#' src",
        "cat <<EOF | sh\n# src\nEOF",
        "x=$(\ngrep -q y src\n)",
        // What `grep` runs may be changed, or the commands run printed.
        "grep() { make -C \"$3\"; }\ngrep -q x src",
        "alias grep='make -C'\ngrep -q x src",
        "PATH=/tmp/evil:$PATH\ngrep -q x src",
        ". \"$LIB\"\ngrep -q x src",
        "set -eux\ngrep -q x src",
    ] {
        assert_eq!(named_by(&p, command, None), src, "{command}");
    }
    // Quiet in the hook's file, loading in its command, and the other way.
    let quiet = "#!/bin/sh\ngrep -q x src\n";
    assert_eq!(
        named_by(&p, "make -C src", Some(("hooks/g.sh", quiet))),
        src
    );
    let redefines = "grep() { make -C \"$3\"; }\n";
    assert_eq!(
        named_by(&p, "grep -q x src", Some(("hooks/g.sh", redefines))),
        src
    );
    let env = "grep -q x src\nBASH_FUNC_grep%%=() { make -C \"$3\"; }";
    assert_eq!(named_by(&p, env, Some(("hooks/g.sh", quiet))), src);
    let loads = "import src\n";
    assert_eq!(
        named_by(&p, "grep -q x src", Some(("hooks/g.py", loads))),
        src
    );
    // A word read where it may load, looked up in a folder named later;
    // the folder above it may be reached by `..` (R7c-4): loaded too.
    assert_eq!(
        named_by(&p, "python3 -m pkg; grep -q x src", None),
        [
            "src/Makefile",
            "src/__init__.py",
            "src/index.js",
            "src/pkg/__init__.py"
        ]
    );
}

#[test]
fn a_top_level_name_no_word_spells_has_its_code_bound() {
    let (_dir, p) = project();
    write(&p.join("my tools/x.sh"), "true\n");
    write(&p.join("my tools/notes.txt"), "x\n");
    assert_eq!(named_by(&p, "x", None), ["my tools/x.sh"]);
}

#[test]
fn build_output_is_left_out_in_a_checkout_unless_tracked() {
    let (_dir, p) = project();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&p)
            .args(args)
            .output()
            .is_ok_and(|out| out.status.success())
    };
    let build = "#!/bin/sh\nsh target/debug/x.sh\n";
    // No checkout: what `.gitignore` says is the repository's word only.
    assert_eq!(
        named_by(&p, "x", Some(("hooks/b.sh", build))),
        ["target/debug/x.sh"]
    );
    if !git(&["init", "-q"]) {
        eprintln!("skipped: no git");
        return;
    }
    assert!(named_by(&p, "x", Some(("hooks/b.sh", build))).is_empty());
    assert!(git(&["add", "-f", "target/debug/x.sh"]));
    assert_eq!(
        named_by(&p, "x", Some(("hooks/b.sh", build))),
        ["target/debug/x.sh"]
    );
}

#[test]
fn a_glob_in_shell_code_binds_what_a_loop_runs_not_a_formatters_operands() {
    let (_dir, p) = project();
    write(&p.join("scripts/b.sh"), "true\n");
    assert_eq!(
        named_by(&p, "for f in scripts/*.sh; do sh \"$f\"; done", None),
        ["scripts/b.sh", "scripts/lint.sh"]
    );
    assert_eq!(
        named_by(&p, "sh scripts/*.sh", None),
        ["scripts/b.sh", "scripts/lint.sh"]
    );
    assert!(named_by(&p, "sed -i 's/a/b/' src/*.ts", None).is_empty());
    let python = "import glob\nfor f in glob.glob('scripts/*.sh'): exec(f)\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", python))),
        ["scripts/b.sh", "scripts/lint.sh"]
    );
}

#[test]
fn an_extension_module_and_a_name_that_is_not_utf8_are_bound() {
    use std::os::unix::ffi::OsStrExt;
    let (_dir, p) = project();
    write(
        &p.join("lib/fast.cpython-311-x86_64-linux-gnu.so"),
        "\x7fELF",
    );
    let import = "import sys\nsys.path.insert(0, 'lib')\nimport fast\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", import))),
        ["lib/fast.cpython-311-x86_64-linux-gnu.so"]
    );
    let raw = p.join(std::ffi::OsStr::from_bytes(b"t\xffools"));
    write(&raw.join("x.sh"), "true\n");
    let found = named_files(&p, &p, "x", &[], &[]).expect("named");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), [raw.join("x.sh")]);
}

#[test]
fn a_script_is_read_whole_and_a_shipped_node_module_is_bound() {
    let (_dir, p) = project();
    let nul = "#!/bin/sh\n# \0\nsh \"$CLAUDE_PROJECT_DIR/scripts/lint.sh\"\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.sh", nul))),
        ["scripts/lint.sh"]
    );
    let long = format!("{}\nsh scripts/lint.sh\n", "#".repeat(1_200_000));
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.sh", &long))),
        ["scripts/lint.sh"]
    );
    write(
        &p.join("node_modules/helper/index.js"),
        "module.exports = 1;\n",
    );
    let js = "const h = require(\"helper\");\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.js", js))),
        ["node_modules/helper/index.js"]
    );
}

#[test]
fn data_a_shell_or_a_loader_runs_is_bound_however_it_is_fed() {
    let (_dir, p) = project();
    for command in [
        "sh < tools/lint.txt",
        "cat tools/lint.txt | sh",
        ". <(cat tools/lint.txt)",
        "sh -o errexit tools/lint.txt",
        "bash -O extglob tools/lint.txt",
        "xargs -a tools/lint.txt -I{} sh -c {}",
        "while read l; do eval \"$l\"; done < tools/lint.txt",
    ] {
        assert_eq!(named_by(&p, command, None), ["tools/lint.txt"], "{command}");
    }
    let exec = "import os\nROOT = os.environ['CLAUDE_PROJECT_DIR']\nexec(open(ROOT + '/tools/lint.txt').read())\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", exec))),
        ["tools/lint.txt"]
    );
    // A logger names its log; it runs no code it reads: not bound.
    let logger = "open('tools/lint.txt', 'a').write('ran')\n";
    assert!(named_by(&p, "x", Some(("hooks/a.py", logger))).is_empty());
}

#[test]
fn a_computed_module_name_makes_its_folder_a_place() {
    let (_dir, p) = project();
    write(&p.join("plugins/lint.py"), "x = 1\n");
    let fstring = "import importlib\nfor name in ('lint',):\n    importlib.import_module(f\"plugins.{name}\")\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", fstring))),
        ["plugins/lint.py"]
    );
    let joined = "import runpy\nrunpy.run_path('plugins/' + 'lint.py')\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", joined))),
        ["plugins/lint.py"]
    );
    // Many folders named: every one is still looked in.
    let many: String = (0..80).map(|i| format!("pkg{i:02}/\n")).collect();
    for i in 0..80 {
        std::fs::create_dir_all(p.join(format!("pkg{i:02}"))).expect("mkdir");
    }
    let late = format!("{many}import sys\nsys.path.insert(0, 'lib')\nimport helper\n");
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.py", &late))),
        ["lib/helper.py"]
    );
}

#[test]
fn a_fifo_is_never_opened_and_a_workspace_link_is_followed() {
    let (_dir, p) = project();
    let fifo = p.join("notes.txt");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
    );
    // Named as a word, run by a shell, globbed: never opened (it would block).
    let script = "#!/bin/sh\n# see notes.txt\nsh notes.txt\nfor f in note*; do :; done\n";
    assert!(named_by(&p, "x", Some(("hooks/a.sh", script))).is_empty());
    let git = std::process::Command::new("git")
        .arg("-C")
        .arg(&p)
        .args(["init", "-q"])
        .status()
        .is_ok_and(|s| s.success());
    if !git {
        eprintln!("skipped: no git");
        return;
    }
    write(&p.join(".gitignore"), "node_modules/\n");
    write(&p.join("packages/rules/index.js"), "module.exports = 1;\n");
    std::fs::create_dir_all(p.join("node_modules/@acme")).expect("mkdir");
    std::os::unix::fs::symlink("../../packages/rules", p.join("node_modules/@acme/rules"))
        .expect("link");
    let js = "require(\"@acme/rules\");\n";
    assert_eq!(
        named_by(&p, "x", Some(("hooks/a.js", js))),
        ["packages/rules/index.js"]
    );
}

mod lexical;
mod round7;
mod round8;
mod round8_modules;
mod round9;
