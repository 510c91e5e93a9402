//! The open cases after round 24: a Python or Perl program without a file
//! ending run by another script (R24-2), Python code that moves into a
//! folder before it imports (`os.chdir("sub")`: R23-3b), and compiled
//! copies read from a `pycache_prefix` folder (R22b-7), and a package Node
//! finds first on its `node_modules` chain (R22b-10): what those folders
//! hold is bound, and a file added there asks again.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round21::shadow_asks_again;

/// A project hook running `command` over `files` (name, text; executable)
/// asks again, and runs nothing, once `added` is written after the approval
/// by `add` (given the project and the marker path the added code writes).
pub(crate) fn added_asks_again(
    command: &str,
    files: &[(&str, &str)],
    add: impl FnOnce(&std::path::Path, &std::path::Path),
) {
    let (home, project) = home_with("[claude]");
    for (name, text) in files {
        write(&project, name, text);
        let path = project.join(name);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    approve_project_hook(&home, &project, command);
    let marker = project.join("PWNED");
    add(&project, &marker);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{command}: {emitted:#}");
    let status = &emitted["runs"][0]["status"];
    assert_ne!(status, &json!("completed"), "{command}: {emitted:#}");
}

#[test]
fn a_program_without_an_ending_run_by_a_script_binds_its_folders() {
    let python = "#!/usr/bin/env python3\nimport subprocess\nprint('{}')\n";
    for (tool, shadow) in [("tool", "selectors.py"), ("bin/tool", "bin/selectors.py")] {
        let run = format!("exec ./{tool}\n");
        added_asks_again(
            "sh run.sh",
            &[("run.sh", &run), (tool, python)],
            |p, marker| {
                let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
                write(p, shadow, &text);
            },
        );
    }
    if !installed("perl") {
        return;
    }
    let perl = "#!/usr/bin/perl -Ilib\nuse File::Temp;\nprint \"{}\\n\";\n";
    // A file without an ending Perl loads may put a folder first too.
    let conf = "use lib \"lib\";\n1;\n";
    let required = "BEGIN { require \"./conf\"; }\nuse File::Temp;\nprint \"{}\\n\";\n";
    // With any ending (`conf.inc`).
    let required_inc = "BEGIN { require \"./conf.inc\"; }\nuse File::Temp;\nprint \"{}\\n\";\n";
    let cases: [(&str, &[(&str, &str)]); 3] = [
        ("sh run.sh", &[("run.sh", "exec ./tool\n"), ("tool", perl)]),
        (
            "perl check.pl",
            &[("check.pl", required), ("conf", conf), ("lib/.keep", "")],
        ),
        (
            "perl check.pl",
            &[
                ("check.pl", required_inc),
                ("conf.inc", conf),
                ("lib/.keep", ""),
            ],
        ),
    ];
    for (command, files) in cases {
        added_asks_again(command, files, |p, marker| {
            let text = format!("package Carp;\nopen(my $f, '>', {marker:?});\n1;\n");
            write(p, "lib/Carp.pm", &text);
        });
    }
}

#[test]
fn a_folder_python_code_moves_into_before_it_imports_is_bound() {
    let command = "python3 -c \"import os; os.chdir(\\\"sub\\\"); import subprocess; print('{}')\"";
    shadow_asks_again(command, "sub/keep.txt", "", "sub/selectors.py");
}

#[test]
fn compiled_copies_read_from_a_project_prefix_folder_are_bound() {
    let script = "import selectors\nprint('{}')\n";
    let command = "python3 -X pycache_prefix=.pyc check.py";
    added_asks_again(command, &[("check.py", script)], |project, marker| {
        // A compiled `selectors` that Python takes for the standard one: it
        // carries the source's time and size.
        let forge = format!(
            "import importlib._bootstrap_external as b, os, selectors, sys\n\
             src = selectors.__file__; st = os.stat(src)\n\
             code = compile(\"\"\"open({marker:?}, 'w')\"\"\", src, 'exec')\n\
             data = b._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size)\n\
             dest = {prefix:?} + os.path.dirname(os.path.realpath(src)) + \
             '/selectors.' + sys.implementation.cache_tag + '.pyc'\n\
             os.makedirs(os.path.dirname(dest), exist_ok=True)\n\
             open(dest, 'wb').write(data)\n",
            prefix = project.join(".pyc").display().to_string(),
        );
        let made = std::process::Command::new("python3")
            .args(["-c", &forge])
            .status()
            .expect("python3");
        assert!(made.success());
    });
}

#[test]
fn a_package_node_would_find_first_asks_again_when_added() {
    if !installed("node") {
        return;
    }
    let files: [(&str, &str); 4] = [
        (
            "check.js",
            "require('a');\ntry { require('c') } catch (e) {}\nconsole.log('{}')\n",
        ),
        ("node_modules/a/index.js", "require('b')\n"),
        ("node_modules/b/index.js", "\n"),
        ("node_modules/.keep", ""),
    ];
    // Nested where `a` looks first (R22b-10), and where none was found.
    for added in [
        "node_modules/a/node_modules/b/index.js",
        "node_modules/c/index.js",
    ] {
        added_asks_again("node check.js", &files, |project, marker| {
            let code = format!("require('fs').writeFileSync({marker:?}, '')\n");
            write(project, added, &code);
        });
    }
}
