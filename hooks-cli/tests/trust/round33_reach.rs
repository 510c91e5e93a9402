//! Red team round 33: what a project hook reaches through its tools. A
//! nested repository's configuration includes (R33-6); a Perl script run
//! sealed that finds its modules by `FindBin` (R33-8).

use serde_json::json;

use crate::dialects::{emit_terminal, home_with, write};
use crate::project_fixtures::approve_project_hook;
use crate::round28::{changed_asks_again, git};
use crate::round30_open::each_holds;

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
    // Run as `/proc/self/fd/N`, `use H` failed (exit 2): every call blocked
    // (R33-8). Run by a string `eval`, a modulino's `main() unless caller`
    // never ran: a guard that blocks there allowed (R34-7).
    let (home, project) = home_with("[claude]");
    write(&project, "lib/H.pm", "package H;\n1;\n");
    let check = "use FindBin;\nuse lib \"$FindBin::Bin/lib\";\nuse H;\n\
        sub main { die \"\\$0 is $0\\n\" unless $0 eq 'check.pl'; open(my $f, '>', 'ran'); }\n\
        main() unless caller;\n__END__\n=pod\n";
    write(&project, "check.pl", check);
    approve_project_hook(&home, &project, "perl check.pl");
    std::fs::remove_file(project.join("ran")).expect("its main ran");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["runs"][0]["status"],
        json!("completed"),
        "{emitted:#}"
    );
    assert!(project.join("ran").exists(), "its main did not run");
}

/// Whether `command`, approved in a checkout `setup` made, asks again
/// after `change`.
pub(crate) fn asks_after(command: &str, setup: &[(&str, &str)], change: &[(&str, &str)]) {
    changed_asks_again(
        command,
        |project| {
            for (relative, text) in setup {
                write(project, relative, text);
            }
            crate::round28::checkout_without_environment(project);
        },
        |project, _| {
            for (relative, text) in change {
                write(project, relative, text);
            }
        },
    );
}

#[test]
fn settings_a_program_loads_code_by_are_bound() {
    let check = ("check.py", "print('{}')\n");
    let boot = ("tools/boot.py", "X = 1\n");
    let poisoned = ("tools/boot.py", "X = 2\n");
    let pyproject =
        "[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\"tools\"]\n";
    let setup_cfg = "[metadata]\nname = p\nversion = attr: tools.boot.V\n";
    let pdbrc = [
        check,
        boot,
        ("tools/__init__.py", ""),
        (".pdbrc", "import tools.boot\n"),
    ];
    let pip = [
        ("pyproject.toml", pyproject),
        ("tools/backend.py", "X = 1\n"),
    ];
    let setup_py = [
        ("setup.py", "print('{}')\n"),
        ("setup.cfg", setup_cfg),
        boot,
    ];
    let flask = [("app.py", "X = 1\n")];
    let dotenv = [check, (".env", "A=1\n")];
    let cfn_lint = [
        ("template.yaml", "Resources: {}\n"),
        (".cfnlintrc", "append_rules:\n  - tools/rules\n"),
        ("tools/rules/a.py", "X = 1\n"),
    ];
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(&'a str, &'a str)]);
    let cases: [Case; 6] = [
        // R33-4: pdb runs `.pdbrc` as Python.
        ("python3 -m pdb -c c check.py", &pdbrc, &[poisoned]),
        // R33-3: pip imports the build backend `pyproject.toml` names;
        // setuptools the module an `attr:` version names.
        (
            "python3 -m pip --version",
            &pip,
            &[("tools/backend.py", "X = 2\n")],
        ),
        ("python3 setup.py --version", &setup_py, &[poisoned]),
        // R33-1, R33-2, R33-5: Flask's app, dotenv's `.env`, cfn-lint's rules.
        ("true || flask routes", &flask, &[("app.py", "X = 2\n")]),
        (
            "true || dotenv run -- python3 check.py",
            &dotenv,
            &[(".env", "PYTHONPATH=lib\n")],
        ),
        (
            "true || cfn-lint template.yaml",
            &cfn_lint,
            &[("tools/rules/zz.py", "X = 2\n")],
        ),
    ];
    each_holds(&cases, |(command, setup, change)| {
        asks_after(command, setup, change)
    });
}

#[test]
fn node_test_binds_the_files_its_patterns_name() {
    // R33-7: every `.js` of the project was bound: a new `src/app.js`
    // asked again. R34-6: Node's runner looks in dot folders too.
    for (added, status) in [
        ("src/app.js", "completed"),
        ("b.test.js", "skipped"),
        (".hidden/test/x.js", "skipped"),
    ] {
        let (home, project) = home_with("[claude]");
        write(&project, "test/a.test.js", "\n");
        write(&project, "src/lib.js", "\n");
        crate::round28::checkout_without_environment(&project);
        approve_project_hook(&home, &project, "true || node --test");
        write(&project, added, "\n");
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert_eq!(
            emitted["runs"][0]["status"],
            json!(status),
            "{added}: {emitted:#}"
        );
    }
}

#[test]
fn a_glob_to_a_tool_folder_binds_the_folders_it_matches() {
    // R34-5: `.v*` was bound by that literal name, which does not exist.
    for command in [
        "PATH=$(echo .v*/bin):$PATH; lint",
        "PATH=$(echo .v*/bin):$PATH lint",
    ] {
        changed_asks_again(
            command,
            |project| {
                let lint = write(project, ".vtools/bin/lint", "#!/bin/sh\necho '{}'\n");
                crate::dialects::executable(&lint);
                crate::round28::checkout_without_environment(project);
            },
            |project, marker| {
                let text = format!("#!/bin/sh\ntouch {}\necho '{{}}'\n", marker.display());
                write(project, ".vtools/bin/lint", &text);
            },
        );
    }
}
