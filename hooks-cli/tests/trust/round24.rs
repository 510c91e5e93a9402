//! Red team round 24, round 23's fixes attacked: a Python path or Perl
//! folder written with `$PWD` (R24-1), Perl's clustered switches and
//! `PERLLIB` (R24-5), a Perl script's `#!` line switches (R24-6), a folder
//! Python code adds by a literal (R24-3) and Perl's other ways of adding
//! one (R24-7) bind what those folders hold.

use crate::round8_modules::installed;
use crate::round21::shadow_asks_again;

#[test]
fn a_python_path_written_with_the_working_folder_binds_what_it_holds() {
    let script = "import subprocess\nprint('{}')\n";
    for command in [
        "PYTHONPATH=$PWD/lib python3 check.py",
        "PYTHONPATH=\"$(pwd)/lib\" python3 check.py",
        "PYTHONPATH=\"${CLAUDE_PROJECT_DIR:-.}/lib\" python3 check.py",
    ] {
        shadow_asks_again(command, "check.py", script, "lib/selectors.py");
    }
    // A folder the code puts on its path by a literal (R24-3).
    let inserts = "import sys\nsys.path.insert(0, \"vendor\")\nimport subprocess\nprint('{}')\n";
    shadow_asks_again(
        "python3 check.py",
        "check.py",
        inserts,
        "vendor/selectors.py",
    );
}

#[test]
fn perl_switches_clustered_or_on_the_hash_bang_line_bind_their_folders() {
    if !installed("perl") {
        return;
    }
    let plain = "use File::Temp;\nprint \"{}\\n\";\n";
    let on_line = "#!/usr/bin/perl -Ilib\nuse File::Temp;\nprint \"{}\\n\";\n";
    for (command, script) in [
        ("perl -wIlib check.pl", plain),
        ("PERLLIB=lib perl check.pl", plain),
        ("perl -I$PWD/lib check.pl", plain),
        ("perl check.pl", on_line),
        // Other ways of putting a folder first (R24-7).
        (
            "perl check.pl",
            "use if 1, lib => \"lib\";\nuse File::Temp;\nprint \"{}\\n\";\n",
        ),
        (
            "perl check.pl",
            "BEGIN { @INC = (\"lib\", @INC); }\nuse File::Temp;\nprint \"{}\\n\";\n",
        ),
    ] {
        crate::round22::perl_module_asks_again(command, script, "lib/Carp.pm");
    }
}
