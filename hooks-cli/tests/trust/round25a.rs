//! Red team round 25, round 24's fixes attacked: every module file a folder
//! Python or Perl searches first holds is bound, not only those named as
//! installed ones (R25a-1, R25a-2, R25a-10); folders set in a wrapper
//! (R25a-3), in `-c` / `-e` code (R25a-4), by any literal of code that
//! changes its search path (R25a-5), with the variable's inherited value
//! (R25a-6), after a `cd` (R25a-7), and `PYTHONUSERBASE` (R25a-8) are bound;
//! a folder known only when the hook runs cannot be approved.

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round21::shadow_asks_again;
use crate::round22::perl_module_asks_again;
use crate::round25::added_asks_again;

const SUBPROCESS: &str = "import subprocess\nprint('{}')\n";

#[test]
fn any_module_file_in_a_folder_searched_first_asks_again() {
    // An optional import (`requests` tries `simplejson`), a name a newer
    // Python imports (`random` → `_sha2` in 3.12).
    shadow_asks_again("python3 check.py", "check.py", SUBPROCESS, "simplejson.py");
    let random = "import random\nprint('{}')\n";
    shadow_asks_again("python3 check.py", "check.py", random, "_sha2.py");
    // `copy` tries `org.python.core` (a namespace portion added later).
    shadow_asks_again(
        "python3 check.py",
        "check.py",
        "import copy\nprint('{}')\n",
        "org/python/core.py",
    );
}

#[test]
fn python_folders_set_elsewhere_or_spelled_otherwise_are_bound() {
    let wrapper = "PYTHONPATH=lib python3 check.py\n";
    added_asks_again(
        "sh run.sh",
        &[
            ("run.sh", wrapper),
            ("check.py", SUBPROCESS),
            ("lib/.keep", ""),
        ],
        |project, marker| {
            let text = format!("open({marker:?}, 'w')\nfrom _selectors_gone import *\n");
            write(project, "lib/selectors.py", &text);
        },
    );
    let slice = "import sys\nsys.path[:0] = [\"vendor\"]\nimport subprocess\nprint('{}')\n";
    shadow_asks_again("python3 check.py", "check.py", slice, "vendor/selectors.py");
    let inline =
        "python3 -c \"import sys; sys.path.insert(0, 'vendor'); import subprocess; print('{}')\"";
    shadow_asks_again(inline, "vendor/.keep", "", "vendor/selectors.py");
    let idiom = "PYTHONPATH=lib${PYTHONPATH:+:$PYTHONPATH} python3 check.py";
    shadow_asks_again(idiom, "check.py", SUBPROCESS, "lib/selectors.py");
}

#[test]
fn a_python_user_base_in_the_project_is_bound_whole() {
    let version = std::process::Command::new("python3")
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .expect("python3");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let site = format!(".u/lib/python{version}/site-packages");
    let keep = format!("{site}/.keep");
    let files = [("check.py", SUBPROCESS), (keep.as_str(), "")];
    added_asks_again(
        "PYTHONUSERBASE=.u python3 check.py",
        &files,
        |project, marker| {
            let line = format!("import os; open({marker:?}, 'w')\n");
            write(project, &format!("{site}/zz.pth"), &line);
        },
    );
}

#[test]
fn a_module_folder_known_only_when_it_runs_cannot_be_approved() {
    let (home, project) = home_with("[claude]");
    write(&project, "check.py", SUBPROCESS);
    let command = "PYTHONPATH=\"$(dirname $HOOK_LIB)/lib\" python3 check.py";
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": command}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let emitted = emit_terminal(&home, &project, "ls", true);
    let run = &emitted["runs"][0];
    assert_ne!(run["status"], json!("completed"), "{emitted:#}");
    let said = run.to_string();
    assert!(
        said.contains("`$(dirname $HOOK_LIB)/lib` for modules"),
        "{emitted:#}"
    );
}

#[test]
fn perl_module_files_and_folders_set_elsewhere_are_bound() {
    if !installed("perl") {
        return;
    }
    let plain = "use File::Temp;\nprint \"{}\\n\";\n";
    // `Carp.pmc` is loaded before `Carp.pm` (R25a-2).
    added_asks_again(
        "perl -Ilib check.pl",
        &[("check.pl", plain), ("lib/.keep", "")],
        |p, m| {
            write(
                p,
                "lib/Carp.pmc",
                &format!("package Carp;\nopen(my $f, '>', {m:?});\n1;\n"),
            );
        },
    );
    for (command, script) in [
        // In `-e` code, quoted with `q()` (R25a-4).
        (
            "perl -e \"use lib q(lib); use File::Temp; print qq({}\\n)\"",
            plain,
        ),
        // After a `cd` (R25a-7).
        ("cd lib && perl -I. ../check.pl", plain),
        // `env -S` on the `#!` line (R25b-6).
        (
            "./check.pl",
            "#!/usr/bin/env -S PERL5LIB=lib perl\nuse File::Temp;\nprint \"{}\\n\";\n",
        ),
    ] {
        if command == "./check.pl" {
            let files = [("check.pl", script), ("lib/.keep", "")];
            added_asks_again(command, &files, |p, m| {
                write(
                    p,
                    "lib/Carp.pm",
                    &format!("package Carp;\nopen(my $f, '>', {m:?});\n1;\n"),
                );
            });
        } else {
            perl_module_asks_again(command, script, "lib/Carp.pm");
        }
    }
}
