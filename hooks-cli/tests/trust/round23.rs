//! Red team round 23, round 22's fixes attacked: a package Python loads
//! from a compiled `__init__` (R23-1), `PYTHONPATH` exported before the
//! command (R23-2), Perl's folders given by `-Mlib=`, `PERL5OPT` or
//! `unshift @INC` and a module `-M` loads (R23-4, R23-5): each added or
//! changed file asks again before anything runs.

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round21::shadow_asks_again;

#[test]
fn a_path_exported_before_the_command_binds_what_it_holds() {
    let command = "export PYTHONPATH=\"$CLAUDE_PROJECT_DIR/lib\"; python3 check.py";
    let script = "import subprocess\nprint('{}')\n";
    shadow_asks_again(command, "check.py", script, "lib/selectors.py");
}

#[test]
fn a_package_python_loads_from_its_compiled_init_asks_again() {
    let (home, project) = home_with("[claude]");
    write(&project, "check.py", "import subprocess\nprint('{}')\n");
    approve_project_hook(&home, &project, "python3 check.py");
    let marker = project.join("PWNED");
    let source = write(&project, "src.txt", &format!("open({marker:?}, 'w')\n"));
    std::fs::create_dir_all(project.join("selectors")).expect("package folder");
    let compiled = project.join("selectors/__init__.pyc");
    let compile = format!(
        "import py_compile; py_compile.compile({source:?}, cfile={compiled:?}, doraise=True)"
    );
    let made = std::process::Command::new("python3")
        .args(["-c", &compile])
        .status();
    assert!(made.is_ok_and(|status| status.success()), "py_compile");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{emitted:#}");
    assert_ne!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}

#[test]
fn perl_folders_and_modules_given_other_ways_ask_again_when_changed() {
    if !installed("perl") {
        return;
    }
    let use_file_temp = "use File::Temp;\nprint \"{}\\n\";\n";
    for (command, script, changed) in [
        ("perl -Mlib=lib check.pl", use_file_temp, "lib/Carp.pm"),
        ("PERL5OPT=-Ilib perl check.pl", use_file_temp, "lib/Carp.pm"),
        (
            "perl check.pl",
            "BEGIN { unshift @INC, \"lib\"; }\nuse File::Temp;\nprint \"{}\\n\";\n",
            "lib/Carp.pm",
        ),
        ("perl -I. -MDbg check.pl", "print \"{}\\n\";\n", "Dbg.pm"),
    ] {
        crate::round22::perl_module_asks_again(command, script, changed);
    }
}
