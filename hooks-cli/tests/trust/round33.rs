//! Red team round 33: a shell-form command's script after a `cd` or
//! beside another command (`cd "$CLAUDE_PROJECT_DIR" && sh tools/guard.sh`,
//! `sh g.sh; exit $?`) was neither bound nor run from its checked copy:
//! an edit of it ran unasked, and content renamed over it during the run
//! ran in one emit of six (R33b-1).

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};

/// A guard body that blocks, saying what `$0` it ran as.
const SAYS_ITS_NAME: &str =
    "cat >/dev/null\necho \"{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"ran as $0\\\"}\"\n";

fn message(emitted: &Value) -> &Value {
    &emitted["outcome"]["message"]
}

#[test]
fn a_script_after_a_cd_is_bound_to_its_content() {
    let (home, project) = home_with("[claude]");
    let guard = write(&home.user_home, "bin/guard.sh", SAYS_ITS_NAME);
    let marker = project.join("PWNED");
    for command in [
        format!("cd {} && sh bin/guard.sh", home.user_home.display()),
        format!("sh {}; exit $?", guard.display()),
        // A subshell, `$HOME`, `$(…)` (R34-2, R34-3).
        format!("(sh {})", guard.display()),
        "sh $HOME/bin/guard.sh".to_owned(),
        format!("R=$(sh {}); echo \"$R\"", guard.display()),
        // The strings it runs (R34-1).
        "bash -c \"sh $HOME/bin/guard.sh\"".to_owned(),
        "eval 'sh \"$HOME\"/bin/guard.sh'".to_owned(),
        // A `cd` inside the string (R36-2).
        "bash -c 'cd $HOME && sh bin/guard.sh'".to_owned(),
        "bash -c \"cd ~ && sh bin/guard.sh\"".to_owned(),
        // Spellings the reading misses, bound by the scripts they name
        // (R37-3, R37-4).
        "trap -- \"sh $HOME/bin/guard.sh\" EXIT INT".to_owned(),
        "trap -- \"sh \\\"$HOME\\\"/bin/guard.sh\" EXIT INT".to_owned(),
        "bash -c 'bash <<< \"sh $HOME/bin/guard.sh\"'".to_owned(),
        "cd $HOME && CDPATH=$HOME cd bin >/dev/null && sh guard.sh".to_owned(),
        "bash -c 'pushd $HOME/bin >/dev/null && sh ./guard.sh'".to_owned(),
        // Globs, braces and parameter operators (R38-1, R38-2).
        "sh $HOME/bin/guard.s?".to_owned(),
        "cd ~/b?n && sh guard.sh".to_owned(),
        "sh ${D:-$HOME/bin}/guard.sh".to_owned(),
        "sh \"${HOME%/}\"/bin/guard.sh".to_owned(),
        "bash -c \"sh ~/bin/{guard,guard}.sh\"".to_owned(),
    ] {
        write(&home.user_home, "bin/guard.sh", SAYS_ITS_NAME);
        user_fail_closed_command(&home, &command);
        let approved = emit_terminal(&home, &project, "ls", true);
        assert!(
            message(&approved)
                .as_str()
                .is_some_and(|m| m.starts_with("ran as ")),
            "{command}: {approved:#}"
        );
        write(
            &home.user_home,
            "bin/guard.sh",
            &format!("cat >/dev/null\ntouch {}\n", marker.display()),
        );
        let emitted = emit_terminal(&home, &project, "ls", false);
        assert!(
            !marker.exists(),
            "{command}: the edit ran unasked: {emitted:#}"
        );
        assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    }
}

#[test]
fn a_script_a_compound_command_runs_is_the_checked_copy() {
    // The command itself renames other content over the script after the
    // check, before the shell reaches it: the checked bytes run, `$0` the
    // script's path as written (R33b-1; the forms of R34-1 and R34-11).
    let runs = [
        "sh tools/guard.sh",
        "(sh tools/guard.sh)",
        "if true; then sh tools/guard.sh; fi",
        "env A=1 nice sh -- tools/guard.sh",
        "2>/dev/null sh tools/guard.sh",
        // The strings it runs (R34-1).
        "bash -c \"sh tools/guard.sh\"",
        "eval \"sh tools/guard.sh\"",
        "eval 'sh tools/guard.sh'",
        // Round 36 (R36-1, R36-2).
        "bash -c 'sh \"$CLAUDE_PROJECT_DIR\"/tools/guard.sh'",
        "bash -c 'cd \"$CLAUDE_PROJECT_DIR\" && sh tools/guard.sh'",
        "echo \"$(bash -c 'sh tools/guard.sh')\"",
        "trap 'sh tools/guard.sh' EXIT",
        "command -p sh tools/guard.sh",
        "command eval \"sh tools/guard.sh\"",
    ];
    for run in runs {
        let (home, project) = home_with("[claude]");
        let marker = project.join("PWNED");
        write(&project, "tools/guard.sh", SAYS_ITS_NAME);
        let other = format!("cat >/dev/null\ntouch {}\n", marker.display());
        write(&project, "tools/other.sh", &other);
        user_fail_closed_command(
            &home,
            &format!("cd \"$CLAUDE_PROJECT_DIR\" && cp tools/other.sh tools/guard.sh && {run}"),
        );
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert!(!marker.exists(), "{run}: other content ran: {emitted:#}");
        // `$0` as the command wrote it.
        let written = match run.contains("$CLAUDE_PROJECT_DIR\"/") {
            true => format!("ran as {}/tools/guard.sh", project.display()),
            false => "ran as tools/guard.sh".to_owned(),
        };
        assert_eq!(message(&emitted), &json!(written), "{run}: {emitted:#}");
        let now = std::fs::read_to_string(project.join("tools/guard.sh")).expect("guard");
        assert_eq!(now, other, "the command did rename");
    }
}

#[test]
fn a_sealed_python_guard_never_gets_the_projects_pythonpath_back() {
    // The checked script's folder is put first on `PYTHONPATH`: it was put
    // before the host's whole value, the project's entries withheld from
    // it given back (`src/json.py` shadowed the guard's `json`).
    let guard = "import json, sys\njson.load(sys.stdin)\n\
        print(json.dumps({'decision': 'block', 'reason': 'py guard'}))\n";
    let (home, project) = home_with("[claude]");
    let script = write(&home.user_home, ".claude/hooks/guard.py", guard);
    let folder = script.parent().expect("folder").display().to_string();
    let pwned = project.join("pwned");
    let poison = format!(
        "open({:?}, 'w')\nload = dumps = None\n",
        pwned.display().to_string()
    );
    write(&project, "src/json.py", &poison);
    let src = project.join("src").display().to_string();
    for command in [
        format!("python3 {}", script.display()),
        format!("cd {folder} && python3 guard.py"),
    ] {
        user_fail_closed_command(&home, &command);
        for accept in [true, false] {
            let mut emit = crate::dialects::emit_rm_command(&home, &project, accept);
            emit.env("PYTHONPATH", &src);
            let emitted = crate::support::Run(emit.output().expect("hooks runs")).json();
            assert_eq!(
                message(&emitted),
                &json!("py guard"),
                "{command}: {emitted:#}"
            );
            assert!(!pwned.exists(), "{command}: the project's json.py ran");
        }
    }
}

#[test]
fn a_guard_run_as_a_program_that_may_not_be_executed_does_not_run() {
    // The kernel refuses it; its sealed copy ran anyway, while `doctor`
    // said it could not run (R33b-7). Failing closed, it blocks.
    use std::os::unix::fs::PermissionsExt;
    let (home, project) = home_with("[claude]");
    let body = format!(
        "#!/bin/sh\ncat >/dev/null\ntouch {}\n",
        project.join("ran").display()
    );
    let guard = write(&home.user_home, "bin/guard.sh", &body);
    crate::dialects::executable(&guard);
    user_fail_closed_command(&home, &guard.display().to_string());
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved:#}"
    );
    std::fs::remove_file(project.join("ran")).expect("it ran once");
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("not executable"), "{message}");
    assert!(!project.join("ran").exists(), "it ran");
}

#[test]
fn a_failed_fail_closed_guard_is_said_to_block() {
    // Its warning called the failure "non-blocking" while it blocked (R33b-3).
    let (home, project) = home_with("[claude]");
    user_fail_closed_command(&home, "cat >/dev/null; echo broken >&2; exit 1");
    let mut emit = crate::dialects::emit_rm_command(&home, &project, true);
    let run = crate::support::Run(emit.output().expect("hooks runs"));
    assert_eq!(run.json()["outcome"]["action"], json!("block"));
    assert!(run.stderr().contains("failing closed"), "{}", run.stderr());
    assert!(!run.stderr().contains("non-blocking"), "{}", run.stderr());
}

#[test]
fn a_sealed_zip_application_finds_its_neighbours_by_its_argv0() {
    // Run sealed, its `sys.argv[0]` was `/proc/self/fd/N` (R32-15).
    let (home, project) = home_with("[claude]");
    let source = write(
        &home.user_home,
        "zipped/__main__.py",
        "import json, os, sys\nsys.stdin.read()\n\
         near = open(os.path.join(os.path.dirname(sys.argv[0]), 'rules.txt')).read().strip()\n\
         print(json.dumps({'decision': 'block', 'reason': near}))\n",
    );
    write(
        &home.user_home,
        ".claude/hooks/rules.txt",
        "rules beside the app\n",
    );
    let app = home.user_home.join(".claude/hooks/app.pyz");
    let status = std::process::Command::new("python3")
        .args(["-m", "zipapp"])
        .arg(source.parent().expect("folder"))
        .arg("-o")
        .arg(&app)
        .status()
        .expect("python3 runs");
    assert!(status.success());
    user_fail_closed_command(&home, &format!("python3 {}", app.display()));
    for accept in [true, false] {
        let emitted = emit_terminal(&home, &project, "ls", accept);
        assert_eq!(
            message(&emitted),
            &json!("rules beside the app"),
            "{emitted:#}"
        );
    }
}

#[test]
fn a_compound_command_may_make_its_script_executable_first() {
    // `chmod +x x.sh && ./x.sh`: the script is no sealed program then;
    // it runs by its path once the command made it executable.
    let (home, project) = home_with("[claude]");
    let guard = write(
        &home.user_home,
        "bin/guard.sh",
        &format!("#!/bin/sh\n{SAYS_ITS_NAME}"),
    );
    let shown = guard.display().to_string();
    user_fail_closed_command(&home, &format!("chmod +x {shown} && {shown}"));
    let emitted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        message(&emitted),
        &json!(format!("ran as {shown}")),
        "{emitted:#}"
    );
}

#[test]
fn a_sealed_python_guard_sees_its_arguments_as_written() {
    // `sys.argv[0]` was the absolute path the loader was given, not the
    // word the command wrote; `__file__` is absolute, as Python makes it
    // (R34-12).
    let guard = "import sys, json\nsys.stdin.read()\n\
        print(json.dumps({'decision': 'block', 'reason': sys.argv[0] + ' ' + __file__}))\n";
    let (home, project) = home_with("[claude]");
    let script = write(&project, "tools/g.py", guard);
    let want = json!(format!("tools/g.py {}", script.display()));
    for command in [
        "cd \"$CLAUDE_PROJECT_DIR\" && python3 tools/g.py",
        "cd \"$CLAUDE_PROJECT_DIR\" && bash -c 'python3 -u tools/g.py'",
        // `-c` goes before the end of options (R36-5: `-c` was read as
        // the script's name).
        "cd \"$CLAUDE_PROJECT_DIR\" && python3 -- tools/g.py",
    ] {
        user_fail_closed_command(&home, command);
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_eq!(message(&emitted), &want, "{command}: {emitted:#}");
    }
}

#[test]
fn a_sealed_python_guard_run_with_safe_path_gets_no_script_folder() {
    // `python3 -P`: a direct run cannot import the script's sibling; the
    // sealed run put the folder on `PYTHONPATH` and could (R36-8).
    let guard = "import sys, json\nsys.stdin.read()\ntry:\n    import helper\n    r = 'imported'\n\
        except ImportError:\n    r = 'no helper'\nprint(json.dumps({'decision': 'block', 'reason': r}))\n";
    let (home, project) = home_with("[claude]");
    write(&project, "tools/g.py", guard);
    write(&project, "tools/helper.py", "");
    for (command, want) in [
        (
            "cd \"$CLAUDE_PROJECT_DIR\" && python3 -P tools/g.py",
            "no helper",
        ),
        (
            "cd \"$CLAUDE_PROJECT_DIR\" && python3 tools/g.py",
            "imported",
        ),
    ] {
        user_fail_closed_command(&home, command);
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_eq!(message(&emitted), &json!(want), "{command}: {emitted:#}");
    }
}

#[test]
fn a_script_after_a_cd_to_an_inherited_variable_is_the_checked_copy() {
    // `cd "$REPO"`: the folder the hook inherits. The script was bound to
    // nothing in particular and run by its path, so content renamed over
    // it between the check and the run ran (R34-1).
    let (home, project) = home_with("[claude]");
    let marker = project.join("PWNED");
    write(&project, "tools/guard.sh", SAYS_ITS_NAME);
    let other = format!("cat >/dev/null\ntouch {}\n", marker.display());
    write(&project, "tools/other.sh", &other);
    user_fail_closed_command(
        &home,
        "cd \"$HERMES_TEST_REPO\" && cp tools/other.sh tools/guard.sh && sh tools/guard.sh",
    );
    let mut emit = crate::dialects::emit_rm_command(&home, &project, true);
    emit.env("HERMES_TEST_REPO", &project);
    let emitted = crate::support::Run(emit.output().expect("hooks runs")).json();
    assert!(!marker.exists(), "other content ran: {emitted:#}");
    assert_eq!(
        message(&emitted),
        &json!("ran as tools/guard.sh"),
        "{emitted:#}"
    );
}
