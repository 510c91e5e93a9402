//! Red team round 8 (issue 27): modules and includes a hook's code reaches
//! through no word of it, through the real `hooks` binary: node's
//! `package.json` `imports` / `exports` (R8-3, also from the user's own
//! hook), Perl's `::` names and `#!` switches (R8-4), Tcl's `auto_path`
//! (R8-5), a C compiler's `-I` (R8-6), Python's development install
//! (R8-7), git's `core.fsmonitor` (R8-8). Approve, change the module, and
//! the next call must not run it unasked.

use std::path::Path;

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::support::TempHome;

const PWN: &str = "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";

/// Whether `tool` is installed (else the case is skipped, said on stderr);
/// with `HERMES_TEST_REQUIRE_<TOOL>` set (CI), a missing tool fails the test.
pub(crate) fn installed(tool: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|out| out.status.success());
    let required = format!("HERMES_TEST_REQUIRE_{}", tool.to_ascii_uppercase());
    assert!(
        found || std::env::var_os(&required).is_none(),
        "{tool} is required ({required})"
    );
    if !found {
        eprintln!("skipped: {tool} is not installed");
    }
    found
}

/// Where the hook is configured: the project's settings, or the user's own.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Project,
    User,
}

/// Writes `files`, runs `prepare`, approves `command` (of `scope`) and
/// checks it runs, then writes `changed` with `payload`: the next call
/// must skip the hook, not run the payload (else what went wrong).
fn changing_asks_again(
    label: &str,
    scope: Scope,
    command: &str,
    files: &[(&str, &str)],
    prepare: impl FnOnce(&TempHome, &Path),
    (changed, payload): (&str, &str),
) -> Result<(), String> {
    let (home, project) = home_with("[claude]");
    for (file, text) in files {
        write(&project, file, text);
    }
    prepare(&home, &project);
    if scope == Scope::Project {
        approve_project_hook(&home, &project, command);
    } else {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
            {"type": "command", "command": command}
        ]}]}});
        write(
            &home.user_home,
            ".claude/settings.json",
            &settings.to_string(),
        );
        let approved = emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            approved["runs"][0]["status"],
            json!("completed"),
            "{label}: {approved}"
        );
    }
    let unchanged = emit_terminal(&home, &project, "ls", false);
    if unchanged["runs"][0]["status"] != json!("completed") {
        return Err(format!(
            "{label}: approved, unchanged, did not run: {unchanged}"
        ));
    }
    write(&project, changed, payload);
    let after = emit_terminal(&home, &project, "ls", false);
    if project.join("pwned").exists() || after["runs"][0]["status"] != json!("skipped") {
        return Err(format!("{label}: ran unasked: {after}"));
    }
    Ok(())
}

const NODE_PWN: &str = "import { writeFileSync } from \"fs\";\n\
    writeFileSync(process.env.CLAUDE_PROJECT_DIR + \"/pwned\", \"x\");\nexport const ok = 1;\n";

#[test]
fn a_module_node_finds_through_package_json_maps_asks_again_when_changed() {
    if !installed("node") {
        return;
    }
    let package = "{\"name\":\"proj\",\"type\":\"module\",\"imports\":{\"#util\":\"./src/u.js\"},\
        \"exports\":{\"./util\":\"./src/u.js\"}}";
    let mut failed = Vec::new();
    for (label, scope, spec) in [
        ("imports", Scope::Project, "#util"),
        ("exports", Scope::Project, "proj/util"),
        ("a user's hook", Scope::User, "#util"),
    ] {
        let script = format!(
            "import {{ ok }} from \"{spec}\";\nprocess.stdin.resume();\n\
             process.stdin.on(\"end\", () => process.exit(0));\n"
        );
        let result = changing_asks_again(
            label,
            scope,
            "node \"$CLAUDE_PROJECT_DIR/tools/check.mjs\"",
            &[
                ("package.json", package),
                ("src/u.js", "export const ok = 1;\n"),
                ("tools/check.mjs", &script),
            ],
            |_, _| {},
            ("src/u.js", NODE_PWN),
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_perl_module_by_its_colon_name_or_a_hash_bang_switch_asks_again_when_changed() {
    if !installed("perl") {
        return;
    }
    let pwn = "open(my $f, '>', \"$ENV{CLAUDE_PROJECT_DIR}/pwned\"); close $f;\n1;\n";
    let mut failed = Vec::new();
    for (label, head, module, package) in [
        (
            "use lib; use Acme::Check",
            "#!/usr/bin/perl\nuse lib \"perl5\";\nuse Acme::Check;\n",
            "perl5/Acme/Check.pm",
            "Acme::Check",
        ),
        (
            "#! -Ivendor",
            "#!/usr/bin/perl -Ivendor\nuse Evil;\n",
            "vendor/Evil.pm",
            "Evil",
        ),
    ] {
        let script = format!("{head}local $/; my $in = <STDIN>;\nexit 0;\n");
        let result = changing_asks_again(
            label,
            Scope::Project,
            "cd \"$CLAUDE_PROJECT_DIR\" && perl tools/check.pl",
            &[
                ("tools/check.pl", &script),
                (module, &format!("package {package};\n1;\n")),
            ],
            |_, _| {},
            (module, &format!("package {package};\n{pwn}")),
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_tcl_package_on_auto_path_asks_again_when_changed() {
    if !installed("tclsh") {
        return;
    }
    changing_asks_again(
        "package require",
        Scope::Project,
        "tclsh \"$CLAUDE_PROJECT_DIR/tools/check.tcl\"",
        &[
            (
                "tools/check.tcl",
                "lappend auto_path [file join $env(CLAUDE_PROJECT_DIR) vendor]\n\
                 package require acme\nread stdin\n",
            ),
            (
                "vendor/acme/pkgIndex.tcl",
                "package ifneeded acme 1.0 [list source [file join $dir acme.tcl]]\n",
            ),
            ("vendor/acme/acme.tcl", "package provide acme 1.0\n"),
        ],
        |_, _| {},
        (
            "vendor/acme/acme.tcl",
            "package provide acme 1.0\n\
             close [open [file join $env(CLAUDE_PROJECT_DIR) pwned] w]\n",
        ),
    )
    .unwrap_or_else(|failed| panic!("{failed}"));
}

#[test]
fn a_header_found_through_a_compilers_include_folder_asks_again_when_changed() {
    if !installed("cc") {
        return;
    }
    let main = "#include \"helper.h\"\nint main(void) { return helper(); }\n";
    let pwn = "#include <stdlib.h>\nint helper(void) { \
        return system(\"echo PWNED > \\\"$CLAUDE_PROJECT_DIR/pwned\\\"\"); }\n";
    let mut failed = Vec::new();
    for (label, option) in [("-Iinclude", "-Iinclude"), ("-I include", "-I include")] {
        let command = format!(
            "cat >/dev/null; cd \"$CLAUDE_PROJECT_DIR\" && cc {option} -o \"$TMPDIR/c\" \
             tools/check.c && \"$TMPDIR/c\""
        );
        let result = changing_asks_again(
            label,
            Scope::Project,
            &command,
            &[
                ("tools/check.c", main),
                ("include/helper.h", "int helper(void) { return 0; }\n"),
            ],
            |_, _| {},
            ("include/helper.h", pwn),
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_module_of_a_development_install_asks_again_when_changed() {
    if !installed("python3") {
        return;
    }
    // `pip install -e .` of a layout whose code is in `python/` (not
    // `src`): a `.pth` in the user's site folder names it.
    let install = |home: &TempHome, project: &Path| {
        let site = std::process::Command::new("python3")
            .args(["-c", "import site; print(site.getusersitepackages())"])
            .env("HOME", &home.user_home)
            .output()
            .expect("python3");
        let site = String::from_utf8_lossy(&site.stdout).trim().to_owned();
        let line = format!("{}\n", project.join("python").display());
        write(Path::new(&site), "__editable__.acme-0.1.pth", &line);
    };
    let pwn = "import os, sys\nsys.stdin.read()\n\
        open(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n";
    changing_asks_again(
        "python3 -m acme.check",
        Scope::Project,
        "PYTHONDONTWRITEBYTECODE=1 python3 -m acme.check",
        &[
            ("python/acme/__init__.py", ""),
            ("python/acme/check.py", "import sys\nsys.stdin.read()\n"),
        ],
        install,
        ("python/acme/check.py", pwn),
    )
    .unwrap_or_else(|failed| panic!("{failed}"));
}

#[test]
fn a_script_gits_configuration_runs_asks_again_when_changed() {
    if !installed("git") {
        return;
    }
    let repository = |_: &TempHome, project: &Path| {
        let git = |args: &[&str]| {
            let done = std::process::Command::new("git")
                .args(args)
                .current_dir(project)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .expect("git");
            assert!(done.status.success(), "git {args:?}: {done:?}");
        };
        git(&["init", "-q", "."]);
        git(&["-c", "user.email=a@b", "-c", "user.name=a", "add", "-A"]);
        git(&[
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=a",
            "commit",
            "-qm",
            "init",
        ]);
        git(&["config", "core.fsmonitor", "scripts/fsmon.sh"]);
        use std::os::unix::fs::PermissionsExt;
        let monitor = project.join("scripts/fsmon.sh");
        std::fs::set_permissions(&monitor, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    changing_asks_again(
        "core.fsmonitor",
        Scope::Project,
        "cat >/dev/null; git -C \"$CLAUDE_PROJECT_DIR\" status --porcelain >/dev/null 2>&1; true",
        &[
            ("scripts/fsmon.sh", "#!/bin/sh\nprintf '\\0'\n"),
            ("README", "hi\n"),
        ],
        repository,
        (
            "scripts/fsmon.sh",
            &format!("#!/bin/sh\n{PWN}printf '\\0'\n"),
        ),
    )
    .unwrap_or_else(|failed| panic!("{failed}"));
}
