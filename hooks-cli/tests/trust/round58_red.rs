//! Red team round 58 (`FINDINGS-round58.md`), through the real binary: a
//! program no reading models given a runner (`taskset -c 0 make`,
//! `${MAKE:-make}`, `trap 'make' EXIT`), the folder it runs in spelled
//! through `/proc` or `/dev/fd` (H58-3), a steering variable's name
//! written so no reading sees it (H58-1), python-dotenv given a file
//! (H58-2), and the hook input's `cwd` rewritten by `dict.__setitem__`
//! (H58-4). Each ran a project file's edit unasked on the code before.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;
use crate::round55::the_files_folder_never_runs_by;
use crate::round57::python_guard;

/// What the guard runs last: a block.
pub(crate) const BLOCKS: &str = "echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'";

/// The project's `make -s lint` target: harmless, then leaving a mark.
pub(crate) const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
pub(crate) const MAKEFILE_EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");

/// `command` approved with `setup` done, then `edit` made: the edit never
/// runs, the guard blocks. `tools/lint-helper` is made executable.
pub(crate) fn never_runs_after(
    command: &str,
    hook: Option<&str>,
    setup: &[(&str, &str)],
    edit: (&str, &str),
) {
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    for (file, text) in setup {
        let path = write(&project, file, text);
        if file.ends_with("lint-helper") {
            crate::round30_open::executable(&path);
        }
    }
    if let Some(hook) = hook {
        write(&home.user_home, ".claude/hooks/g.x", hook);
    }
    user_fail_closed_command(&home, command);
    // Approved where it can be (on the code before, each was).
    emit_terminal(&home, &project, "ls", true);
    write(&project, edit.0, edit.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command} {hook:?}: the edit ran unasked"
    );
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{command}: {emitted:#}"
    );
}

/// A program no reading models, given a runner's name, is read as
/// starting it: the Makefile it runs is bound.
#[test]
fn a_runner_an_unknown_program_starts_is_bound() {
    if !installed("make") {
        return;
    }
    let mut runs = vec![
        "${MAKE:-make} -s lint",
        "trap 'make -s lint' EXIT",
        // rs12: `$PWD` given make's `-C` was read as a folder named `$PWD`.
        "make -s -C \"$PWD\" lint",
    ];
    for (program, run) in [
        ("taskset", "taskset -c 0 make -s lint"),
        ("prlimit", "prlimit --nofile=256 make -s lint"),
        ("setarch", "setarch x86_64 make -s lint"),
    ] {
        if installed(program) {
            runs.push(run);
        }
    }
    for run in runs {
        let command = format!("cat >/dev/null; ({run}) >/dev/null 2>&1; {BLOCKS}");
        never_runs_after(&command, None, &[MAKEFILE], MAKEFILE_EDITED);
    }
    // The user's own launcher, which no reading knows.
    let command = format!("cat >/dev/null; sh ~/bin/run-it make -s lint >/dev/null 2>&1; {BLOCKS}");
    let (home, project) = home_with("[claude]");
    write(&home.user_home, "bin/run-it", "exec \"$@\"\n");
    write(&project, MAKEFILE.0, MAKEFILE.1);
    user_fail_closed_command(&home, &command);
    emit_terminal(&home, &project, "ls", true);
    write(&project, MAKEFILE_EDITED.0, MAKEFILE_EDITED.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "run-it: the edit ran unasked"
    );
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// H58-3: the folder it runs in spelled through `/proc` or `/dev/fd` in
/// ways round 57's reading missed cannot be approved.
#[test]
fn the_run_folder_spelled_through_proc_cannot_be_approved() {
    if !installed("python3") || !installed("bash") {
        return;
    }
    for command in [
        "BASH_ENV=/proc/./self/cwd/tools/x.sh bash -c true; sh ~/bin/g.sh </dev/null",
        "p=/proc/self; BASH_ENV=$p/cwd/tools/x.sh bash -c true; sh ~/bin/g.sh </dev/null",
        "exec 3<.; BASH_ENV=/dev/fd/3/tools/x.sh bash -c true; sh ~/bin/g.sh </dev/null",
    ] {
        edited_never_runs(
            command,
            &[("tools/x.sh", "true\n")],
            &[("tools/x.sh", "touch PWNED\n")],
        );
    }
    let hook = "import json, sys\nsys.path.insert(0, \"/proc/self/\" \"cwd/tools\")\nimport m\n\
                print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    edited_never_runs(
        "python3 ~/.claude/hooks/p.py",
        &[("~/.claude/hooks/p.py", hook), ("tools/m.py", "x = 1\n")],
        &[("tools/m.py", "open('PWNED', 'w')\n")],
    );
}

/// H58-1 and H58-2: a steering variable named so no reading sees it, or
/// read from a file python-dotenv is given, never runs what it leads to.
#[test]
fn variables_named_out_of_sight_never_run_the_projects_code() {
    if !installed("python3") || !installed("node") || !installed("git") {
        return;
    }
    let helper = ("tools/lint-helper", "#!/bin/sh\nexit 0\n");
    let edited = ("tools/lint-helper", "#!/bin/sh\ntouch PWNED\n");
    let tail = "subprocess.run([\"lint-helper\"], capture_output=True)\n\
                print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    for store in [
        "os.environ[\"PA\" \"TH\"] = \"tools:\" + os.environ[\"PATH\"]",
        "os.environ[\"PATH\".strip()] = \"tools:\" + os.environ[\"PATH\"]",
        "os.environ.update({\"PA\" \"TH\": \"tools:\" + os.environ[\"PATH\"]})",
    ] {
        let hook = format!("import json, os, subprocess\n{store}\n{tail}");
        never_runs_after(
            "python3 ~/.claude/hooks/g.x",
            Some(&hook),
            &[helper],
            edited,
        );
    }
    let node = "const cp = require(\"child_process\");\n\
                process.env[\"PA\" + \"TH\"] = \"tools:\" + process.env.PATH;\n\
                try { cp.execSync(\"lint-helper\", {stdio: \"ignore\"}); } catch (e) {}\n\
                console.log(JSON.stringify({ decision: \"block\", reason: \"guarded\" }));\n";
    never_runs_after("node ~/.claude/hooks/g.x", Some(node), &[helper], edited);
    let shell =
        format!("cat >/dev/null; for PATH in \"tools:$PATH\"; do lint-helper; done; {BLOCKS}");
    never_runs_after(&shell, None, &[helper], edited);
    // python-dotenv given its file: the variables it names are not read.
    let has_dotenv = std::process::Command::new("python3")
        .args(["-c", "import dotenv"])
        .status()
        .is_ok_and(|status| status.success());
    if !has_dotenv {
        return;
    }
    let dotenv = "import json, os, subprocess\nfrom dotenv import load_dotenv\n\
                  load_dotenv(\".env\", override=True)\n"
        .to_owned()
        + tail;
    let env = (".env", "PATH=tools:/usr/local/bin:/usr/bin:/bin\n");
    never_runs_after(
        "python3 ~/.claude/hooks/g.x",
        Some(&dotenv),
        &[helper, env],
        edited,
    );
}

/// H58-4: `dict.__setitem__(data, "cwd", d)` makes the input's `cwd` any
/// folder: what runs there is never run unasked.
#[test]
fn the_inputs_cwd_set_through_dict_runs_nothing_of_the_files_folder() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let hook = python_guard(
        "dict.__setitem__(data, \"cwd\", d)\n\
         subprocess.run([\"make\", \"-s\", \"lint\"], cwd=data[\"cwd\"], capture_output=True)",
    );
    the_files_folder_never_runs_by("python3 ~/.claude/hooks/g.py", &hook);
}
