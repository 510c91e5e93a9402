//! A project hook's approval binds the project files its code names, not
//! only those its command line names (red-team round 5, F2, F3, F5): an
//! approved `.claude/hooks/check.sh` running `scripts/lint.sh`, a
//! `check.py` importing from `lib/`, an npm script requiring a neighbour,
//! a top-level script named only inside a `-c` string, what a Makefile runs
//! beyond its includes. Each changed afterwards never runs unasked.

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

const PWN_SH: &str = "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";
const PWN_PY: &str =
    "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n";

/// Writes `files` (path, text), approves the project's hook `command`, then
/// writes `evil` to `changed`: it must not run until approved again.
fn changed_named_file_never_runs(command: &str, files: &[(&str, &str)], changed: (&str, &str)) {
    let (home, project) = home_with("[claude]");
    for (path, text) in files {
        let written = write(&project, path, text);
        // Executable, as a program a makefile names as its SHELL must be.
        std::fs::set_permissions(
            &written,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("chmod");
    }
    approve_project_hook(&home, &project, command);
    assert!(!project.join("pwned").exists(), "set-up ran the payload");
    write(&project, changed.0, changed.1);
    let after = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "{command}: the changed {} ran without a new approval: {after}",
        changed.0
    );
    assert_eq!(after["runs"][0]["status"], json!("skipped"), "{after}");
}

#[test]
fn a_script_the_tool_script_runs_is_bound() {
    changed_named_file_never_runs(
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
        &[
            (
                ".claude/hooks/check.sh",
                "cat >/dev/null\nsh \"$CLAUDE_PROJECT_DIR/scripts/lint.sh\"\n",
            ),
            ("scripts/lint.sh", "true\n"),
        ],
        ("scripts/lint.sh", PWN_SH),
    );
}

#[test]
fn a_module_the_tool_script_imports_from_the_project_is_bound() {
    changed_named_file_never_runs(
        "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.py",
        &[
            (
                ".claude/hooks/check.py",
                "import os, sys\nsys.stdin.read()\n\
                 sys.path.insert(0, os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'lib'))\n\
                 import helper\n",
            ),
            ("lib/helper.py", "X = 1\n"),
        ],
        ("lib/helper.py", PWN_PY),
    );
}

#[test]
fn a_top_level_script_named_inside_a_string_is_bound() {
    for command in [
        "cat >/dev/null; cd \"$CLAUDE_PROJECT_DIR\" && sh -c 'sh check.sh'",
        "cat >/dev/null; cd \"$CLAUDE_PROJECT_DIR\" && env -S 'sh check.sh'",
    ] {
        changed_named_file_never_runs(command, &[("check.sh", "true\n")], ("check.sh", PWN_SH));
    }
    changed_named_file_never_runs(
        "cd \"$CLAUDE_PROJECT_DIR\" && python3 -c \"exec(open('check.py').read())\"",
        &[("check.py", "import sys\nsys.stdin.read()\n")],
        ("check.py", PWN_PY),
    );
}

#[test]
fn what_a_makefile_runs_beyond_its_includes_is_bound() {
    let make = "cat >/dev/null; make -s -C \"$CLAUDE_PROJECT_DIR\" check";
    let cases: [(&str, &str, &str); 4] = [
        (
            "SHELL := tools/sh\ncheck:\n\t@:\n",
            "tools/sh",
            "#!/bin/sh\ntrue\n",
        ),
        (
            "X := $(shell sh gen/x.sh)\ncheck:\n\t@:\n",
            "gen/x.sh",
            "true\n",
        ),
        ("check:\n\t@sh tools/x.sh\n", "tools/y.sh", "true\n"),
        (
            "check:\n\t@$(MAKE) -s -C sub\n",
            "sub/Makefile",
            "all:\n\t@:\n",
        ),
    ];
    for (makefile, file, good) in cases {
        let mut files = vec![("Makefile", makefile), (file, good)];
        if file == "tools/y.sh" {
            files.push(("tools/x.sh", "sh tools/y.sh\n"));
        }
        let evil = match file {
            "sub/Makefile" => "all:\n\t@echo PWNED > \"$$CLAUDE_PROJECT_DIR/pwned\"\n",
            "tools/sh" => "#!/bin/sh\necho PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n",
            _ => PWN_SH,
        };
        changed_named_file_never_runs(make, &files, (file, evil));
    }
}

#[test]
fn a_file_an_npm_script_requires_is_bound() {
    if !crate::round8_modules::installed("npm") {
        return;
    }
    changed_named_file_never_runs(
        "cat >/dev/null; cd \"$CLAUDE_PROJECT_DIR\" && npm run -s lint",
        &[
            (
                "package.json",
                r#"{"name":"p","version":"1.0.0","scripts":{"lint":"node scripts/lint.js"}}"#,
            ),
            ("scripts/lint.js", "require('./helpers.js');\n"),
            ("scripts/helpers.js", "module.exports = 1;\n"),
        ],
        (
            "scripts/helpers.js",
            "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/pwned', 'x');\n",
        ),
    );
}

#[test]
fn list_shows_what_the_code_names() {
    let (home, project) = home_with("[claude]");
    write(
        &project,
        ".claude/hooks/check.sh",
        "cat >/dev/null\nsh \"$CLAUDE_PROJECT_DIR/scripts/lint.sh\"\n",
    );
    write(&project, "scripts/lint.sh", "true\n");
    approve_project_hook(
        &home,
        &project,
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
    );
    let listed = crate::dialects::in_project(&home, &project, &["list", "--json"]).json();
    let text = listed.to_string();
    assert!(text.contains("\"mentioned\""), "{listed}");
    assert!(
        text.contains(&project.join("scripts").display().to_string()),
        "{listed}"
    );
}

/// What a hook writes beside its code (a log at the top, its build output
/// in an ignored folder) is not code: the next run does not ask again.
#[test]
fn a_hook_writing_its_log_and_build_output_is_not_asked_again() {
    let (home, project) = home_with("[claude]");
    write(&project, ".gitignore", "target/\n");
    std::fs::create_dir_all(project.join("target")).expect("mkdir");
    write(
        &project,
        ".claude/hooks/build.sh",
        "cat >/dev/null\ncd \"$CLAUDE_PROJECT_DIR\"\necho run >> hook.log\n\
         date +%N > target/stamp.sh\n",
    );
    approve_project_hook(
        &home,
        &project,
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/build.sh",
    );
    for _ in 0..2 {
        let again = emit_terminal(&home, &project, "ls", false);
        assert_eq!(again["runs"][0]["status"], json!("completed"), "{again}");
    }
    let log = std::fs::read_to_string(project.join("hook.log")).expect("log");
    assert_eq!(log.lines().count(), 3, "{log}");
}

/// Telling build output from tracked code reads git's index; it never runs
/// git, whose repository configuration may name a program to run.
#[test]
fn binding_never_runs_the_repositorys_git_configuration() {
    let (home, project) = home_with("[claude]");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&project)
            .args(args)
            .output()
            .is_ok_and(|out| out.status.success())
    };
    if !git(&["init", "-q"]) {
        eprintln!("skipped: git is not installed");
        return;
    }
    let pwned = project.join("pwned");
    let fsmonitor = format!("[core]\n\tfsmonitor = \"touch {}\"\n", pwned.display());
    let config = std::fs::read_to_string(project.join(".git/config")).expect("config");
    std::fs::write(project.join(".git/config"), config + &fsmonitor).expect("config");
    write(&project, ".gitignore", "target/\n");
    write(&project, "target/x.sh", "true\n");
    write(
        &project,
        ".claude/hooks/a.sh",
        "cat >/dev/null\nls target >/dev/null\n",
    );
    approve_project_hook(
        &home,
        &project,
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/a.sh",
    );
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again}");
    assert!(
        !pwned.exists(),
        "the repository's git configuration ran a program"
    );
}

/// The user's own hook that runs a script of the repository binds what that
/// script sources too (red-team R6-16): the user's hook is not sandboxed.
#[test]
fn a_users_hook_running_a_project_script_binds_what_it_sources() {
    let (home, project) = home_with("[claude]");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/tools/guard.sh\""}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    write(
        &project,
        "tools/guard.sh",
        "cat >/dev/null\n. \"$CLAUDE_PROJECT_DIR/tools/common.sh\"\n",
    );
    write(&project, "tools/common.sh", "true\n");
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved}"
    );
    write(&project, "tools/common.sh", PWN_SH);
    let after = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "the changed tools/common.sh ran: {after}"
    );
    assert_eq!(after["runs"][0]["status"], json!("skipped"), "{after}");
}

/// Red-team R6b-9: a guard that only greps `src` (and says so in a comment)
/// does not ask again after the agent edits `src/index.js` or
/// `src/__init__.py`; a hook that runs the folder (`python3 -m src`) does.
#[test]
fn a_folder_a_guard_only_reads_does_not_bind_its_entry_files() {
    let (home, project) = home_with("[claude]");
    write(&project, "src/index.js", "x = 1\n");
    write(&project, "src/__init__.py", "x = 1\n");
    write(
        &project,
        ".claude/hooks/check.sh",
        "#!/bin/sh\ncat >/dev/null\n# no console.log left in src/\n\
         grep -rq \"console.log\" \"$CLAUDE_PROJECT_DIR/src\" && echo \"found console.log\" >&2\n\
         exit 0\n",
    );
    approve_project_hook(
        &home,
        &project,
        "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
    );
    write(&project, "src/index.js", "x = 2\n");
    write(&project, "src/__init__.py", "x = 2\n");
    let after = emit_terminal(&home, &project, "ls", false);
    assert_eq!(after["runs"][0]["status"], json!("completed"), "{after}");

    changed_named_file_never_runs(
        "cat >/dev/null; cd \"$CLAUDE_PROJECT_DIR\" && grep -rq x src; python3 -m src",
        &[
            ("src/__init__.py", "x = 1\n"),
            ("src/__main__.py", "x = 1\n"),
        ],
        ("src/__init__.py", PWN_PY),
    );
}
