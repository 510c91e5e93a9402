//! Round 45's open rows: a user's script giving a second script an
//! argument computed when it runs, which that script runs (`~/bin/y
//! "$(…)"`, y = `sh "$1" a`: R45-1), or a default it runs
//! (`${1:-tools/g.sh}`); the user's home scripts a *project* script runs
//! (R45-4); a Python script's list of words (`["sh","tools/g.sh"]`), also
//! when a shell could run it (no `#!`, executable).

use serde_json::json;

use crate::dialects::{emit_terminal, executable, home_with, write};
use crate::project_fixtures::approve_project_hook;
use crate::round39::{accepted_then_edited, assert_guarded, runs_guarded};

/// The user's fail-closed hook `bash ~/.claude/hooks/x.sh` holding `text`,
/// with `~/bin/y` holding `y`: accepted, then the project's guard edited;
/// the edit never runs. Returns what the accepting emit said.
fn second_script(text: &str, y: &str) -> serde_json::Value {
    let (home, project) = home_with("[claude]");
    executable(&write(&home.user_home, "bin/y", y));
    write(&home.user_home, "lib/y.sh", y);
    write(&home.user_home, ".claude/hooks/x.sh", text);
    accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh")
}

#[test]
fn a_computed_argument_a_second_script_runs_is_never_run() {
    let computed = "\"$(printf tools/g.%s sh)\"";
    let runs_first = "#!/bin/sh\nsh \"$1\" a\n";
    let cases = [
        (format!("~/bin/y {computed}"), runs_first.to_owned()),
        (
            format!("~/bin/y {computed}"),
            "#!/bin/sh\nsh \"$@\"\n".into(),
        ),
        (
            format!("~/bin/y {computed}"),
            "#!/bin/sh\nexec sh \"$1\" a\n".into(),
        ),
        (
            format!("~/bin/y {computed}"),
            "#!/bin/sh\n. \"$1\"\n".into(),
        ),
        (
            format!("~/bin/y x {computed}"),
            "#!/bin/sh\nshift; sh \"$1\" a\n".into(),
        ),
        (
            format!("~/bin/y x {computed}"),
            "#!/bin/sh\nsh \"$2\" a\n".into(),
        ),
        (format!("bash ~/lib/y.sh {computed}"), runs_first.into()),
        (format!("g={computed}; ~/bin/y \"$g\""), runs_first.into()),
        (
            format!("f() {{ ~/bin/y \"$1\"; }}; f {computed}"),
            runs_first.into(),
        ),
        (
            "printf 'tools/g.%s\\n' sh | xargs ~/bin/y".to_owned(),
            runs_first.into(),
        ),
        (
            format!("~/bin/y tools/h.sh; ~/bin/y {computed}"),
            runs_first.into(),
        ),
        (
            format!("~/bin/y {computed}"),
            "#!/bin/sh\nsh \"${1:-tools/h.sh}\" a\n".into(),
        ),
    ];
    for (x, y) in &cases {
        let accepted = second_script(&format!("#!/bin/bash\n{x}\n"), y);
        let message = accepted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("computed only when it runs")
                || message.contains("named only when it runs"),
            "{x} / {y}: {message}"
        );
    }
}

#[test]
fn a_default_a_second_script_runs_is_bound() {
    for y in [
        "#!/bin/sh\nsh \"${1:-tools/g.sh}\" a\n",
        "#!/usr/bin/env bash\nscript=${1:-tools/g.sh}\ncd \"$CLAUDE_PROJECT_DIR\" && sh \"$script\" a\n",
    ] {
        let accepted = second_script("#!/bin/bash\n~/bin/y\n", y);
        assert_guarded(y, &accepted);
    }
}

#[test]
fn an_argument_a_second_script_only_reads_keeps_it_approvable() {
    // `$1` is data there: the hook is approved and reaches the guard.
    let accepted = second_script(
        "#!/bin/bash\n~/bin/y \"$(cat)\"\n",
        "#!/bin/sh\nprintf '%s' \"$1\" | sh tools/g.sh a\n",
    );
    assert_guarded("~/bin/y \"$(cat)\"", &accepted);
    // A runner of its arguments: the caller's words are what it runs, the
    // computed one only data there (round 45's `with-timeout`).
    let accepted = second_script(
        "#!/bin/bash\n~/bin/y 5 sh tools/g.sh \"$(cat)\"\n",
        "#!/usr/bin/env bash\nt=$1; shift\nexec timeout \"$t\" \"$@\"\n",
    );
    assert_guarded("~/bin/y 5 sh tools/g.sh \"$(cat)\"", &accepted);
}

#[test]
fn a_python_script_naming_a_project_script_in_a_list_binds_it() {
    for (command, y) in [("python3 ~/lib/y.py", "lib/y.py"), ("~/bin/y a", "bin/y")] {
        let text = "import subprocess; subprocess.run([\"sh\",\"tools/g.sh\",\"a\"])\n";
        let text = match y {
            "bin/y" => format!("#!/usr/bin/env python3\n{text}"),
            _ => text.to_owned(),
        };
        let (home, project) = home_with("[claude]");
        // Executable with no `#!`: a shell could run it too.
        executable(&write(&home.user_home, y, &text));
        write(
            &home.user_home,
            ".claude/hooks/x.sh",
            &format!("#!/bin/bash\n{command}\n"),
        );
        let accepted = accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
        assert_guarded(command, &accepted);
    }
}

/// The project hook `bash run.sh` (run.sh holding `run`), with the user's
/// `~/bin/y` and `~/lib/y.sh` running the project's `tools/g.sh`: approved,
/// then `tools/g.sh` edited. The edit never runs unasked.
fn project_script_runs_users(run: &str) {
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let y = "#!/bin/sh\nsh tools/g.sh a\n";
    executable(&write(&home.user_home, "bin/y", y));
    write(&home.user_home, "lib/y.sh", y);
    write(&project, "tools/g.sh", "cat > /dev/null\n");
    write(&project, "run.sh", &format!("#!/bin/bash\n{run}\n"));
    approve_project_hook(&home, &project, "bash run.sh");
    write(&project, "tools/g.sh", "cat > /dev/null\ntouch PWNED\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{run}: the edit ran unasked"
    );
    assert_ne!(emitted["runs"][0]["status"], json!("completed"), "{run}");
}

#[test]
fn a_users_script_a_project_script_runs_binds_what_it_runs() {
    // Found on `PATH` by a bare name too (R47-5).
    for run in [
        "~/bin/y a",
        "bash ~/lib/y.sh",
        "\"$HOME\"/bin/y a",
        "PATH=\"$HOME/bin:$PATH\"; y a",
    ] {
        project_script_runs_users(run);
    }
}

/// A script a hook's own text sources (`bash -c '. x.sh'`) reading
/// `BASH_SOURCE`: bash named its sealed copy (`/proc/self/fd/N`) there, so
/// `${BASH_SOURCE%/*}/../cwd/tools/g.sh` ran the project's `tools/g.sh`
/// while the reading bound the script's own folder (red team round 46).
#[test]
fn a_script_the_command_sources_sees_its_own_path() {
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\nsh \"${BASH_SOURCE%/*}/../cwd/tools/g.sh\" a\n",
    );
    accepted_then_edited(&home, &project, "bash -c '. ~/.claude/hooks/x.sh'");
    // A guard finding its library beside it now finds it.
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\n. \"${BASH_SOURCE%/*}/lib.sh\"\n",
    );
    write(
        &home.user_home,
        ".claude/hooks/lib.sh",
        "cat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n",
    );
    runs_guarded(&home, &project, "bash -c '. ~/.claude/hooks/x.sh'");
}

/// A function passing on what is left after a `shift` in a loop: any
/// number of words may go (the reading tried the first four, so a sixth
/// word computed when it runs was never read as the program).
#[test]
fn a_shift_in_a_loop_takes_off_any_number_of_words() {
    crate::round40::edit_never_runs(
        "run() { while [ $# -gt 2 ]; do shift; done; \"$@\" a; }; run a b c d sh \"$(printf tools/g.%s sh)\"",
        &|_| {},
    );
}

/// A Python hook script starting a command built when it runs
/// (`subprocess.run(["sh", "tools/" + name])`): read as inline Python is,
/// it cannot be approved; one whose command is written out, or held by a
/// name given only written lists, runs.
#[test]
fn a_python_script_building_the_command_it_starts_is_never_run() {
    for body in [
        "subprocess.run(['sh', 'tools/' + 'g.sh', 'a'])",
        "cmd = ['sh', os.path.join('tools', 'g.sh')]\nsubprocess.run(cmd)",
        "def run(cmd):\n    subprocess.run(cmd)\nrun(['sh', 'tools/g.' + 'sh'])",
    ] {
        crate::round40::edit_never_runs("python3 x.py", &|project| {
            write(
                project,
                "x.py",
                &format!("import os, subprocess, sys\nsys.stdin.read()\n{body}\n"),
            );
        });
    }
    let (home, project) = home_with("[claude]");
    write(
        &project,
        "x.py",
        "import subprocess, sys\nsys.stdin.read()\ncmd = ['sh', 'tools/g.sh']\nsubprocess.run(cmd, check=False)\n",
    );
    crate::round39::scripts(&home, &project, crate::round39::GUARDS);
    runs_guarded(&home, &project, "python3 x.py");
}

/// A user's Python hook that puts the folder it runs in on its module path
/// and imports from it: the project's module is its code, bound (red team
/// R46-2), there now or added later.
#[test]
fn a_users_python_importing_from_the_project_binds_the_module() {
    for (path, present) in [
        ("os.getcwd()", true),
        ("os.environ['CLAUDE_PROJECT_DIR']", true),
        ("os.getcwd()", false),
    ] {
        let (home, project) = home_with("[claude]");
        write(
            &home.user_home,
            ".claude/hooks/g.py",
            &format!(
                "import os, sys\nsys.stdin.read()\nsys.path.insert(0, {path})\ntry:\n    import hookconf\nexcept ImportError:\n    pass\nprint('{{\"decision\": \"block\", \"reason\": \"guarded\"}}')\n"
            ),
        );
        if present {
            write(&project, "hookconf.py", "x = 1\n");
        }
        crate::dialects::user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
        let accepted = emit_terminal(&home, &project, "ls", true);
        assert_guarded(path, &accepted);
        let emitted = module_edit_never_runs(&home, &project, "hookconf.py");
        assert_eq!(emitted["outcome"]["action"], json!("block"), "{emitted:#}");
    }
}

/// A project's Python hook that puts a folder computed when it runs on its
/// module path (`sys.path.insert(0, 'l' + 'ib')`): the module it imports
/// there was never bound, and an edit of it ran unasked (red team R46-3).
/// It cannot be approved; a folder written out still binds its modules.
#[test]
fn a_module_folder_computed_when_it_runs_is_never_approved() {
    for (folder, approvable) in [
        ("'l' + 'ib'", false),
        ("''.join(['l', 'ib'])", false),
        ("'lib'", true),
    ] {
        let (home, project) = home_with("[claude]");
        home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
        write(
            &project,
            "g.py",
            &format!("import sys\nsys.stdin.read()\nsys.path.insert(0, {folder})\nimport helper\n"),
        );
        write(&project, "lib/helper.py", "x = 1\n");
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
            {"type": "command", "command": "python3 g.py"}
        ]}]}});
        write(&project, ".claude/settings.json", &settings.to_string());
        let accepted = emit_terminal(&home, &project, "ls", true);
        let completed = accepted["runs"][0]["status"] == json!("completed");
        assert_eq!(completed, approvable, "{folder}: {accepted:#}");
        let emitted = module_edit_never_runs(&home, &project, "lib/helper.py");
        assert_ne!(emitted["runs"][0]["status"], json!("completed"), "{folder}");
    }
}

/// The project's Python module `module` edited to leave a mark, then the
/// next emit (without `--accept-hooks`): the edit never runs. Returns what
/// the emit said.
pub(crate) fn module_edit_never_runs(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    module: &str,
) -> serde_json::Value {
    let marker = project.join("PWNED");
    write(project, module, &format!("open({marker:?}, 'w')\n"));
    let emitted = emit_terminal(home, project, "ls", false);
    assert!(!marker.exists(), "{module}: the module ran unasked");
    emitted
}
