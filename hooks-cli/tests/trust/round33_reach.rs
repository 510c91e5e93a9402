//! Red team round 33: what a project hook reaches through its tools. A
//! nested repository's configuration includes (R33-6); a Perl script run
//! sealed that finds its modules by `FindBin` (R33-8).

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, write};
use crate::project_fixtures::approve_project_hook;
use crate::round28::{changed_asks_again, git};

#[test]
fn a_nested_repositorys_included_configuration_is_bound() {
    for command in ["git -C sub status --short", "cd sub && git status --short"] {
        changed_asks_again(
            command,
            |project| {
                write(project, "sub/f", "x\n");
                write(project, "tools/sub.cfg", "[core]\n\tautocrlf = false\n");
                let sub = project.join("sub");
                git(&sub, &["init", "-q"]);
                git(&sub, &["config", "include.path", "../../tools/sub.cfg"]);
            },
            |project, marker| {
                let fsm = write(
                    project,
                    "tools/fsm",
                    &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
                );
                crate::dialects::executable(&fsm);
                write(
                    project,
                    "tools/sub.cfg",
                    "[core]\n\tfsmonitor = ../tools/fsm\n",
                );
            },
        );
    }
}

#[test]
fn a_sealed_perl_script_finds_its_modules_by_findbin() {
    // Run as `/proc/self/fd/N`, `use H` failed (exit 2): every call blocked.
    let (home, project) = home_with("[claude]");
    write(&project, "lib/H.pm", "package H;\n1;\n");
    let check = "use FindBin;\nuse lib \"$FindBin::Bin/lib\";\nuse H;\n\
        die \"\\$0 is $0\\n\" unless $0 eq 'check.pl' && __FILE__ eq 'check.pl';\n";
    write(&project, "check.pl", check);
    approve_project_hook(&home, &project, "perl check.pl");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
}
