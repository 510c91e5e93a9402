//! Red team round 57 (`FINDINGS-round57.md`): the files a project's
//! `.git/config` names, for git started by the hook's code (H57-2, a hole
//! the approved `--git-dir os.path.join(repo, ".git")` form opened); the
//! project folder spelled `/proc/self/cwd/…` (H57-5); the shell's
//! functions and launchers run in the tool call's folder (H57-4); and a
//! guard updating its own environment mapping keeps the input's `cwd` the
//! project's (U57-1).

use crate::dialects::{home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;
use crate::round53::emit_naming;
use crate::round55::the_files_folder_never_runs_by;
use crate::round57::{READ_PATH, git_settings_edit_never_runs_after, python_guard};

/// H57-2: git started by code binds the files the project's settings
/// include (`include.path`), as the shell's `git status` does.
#[test]
fn files_the_projects_git_settings_include_are_bound_for_git_code_starts() {
    if !installed("python3") || !installed("git") {
        return;
    }
    for run in [
        "repo = data[\"cwd\"]\nsubprocess.run([\"git\", \"--git-dir\", os.path.join(repo, \".git\"), \
         \"--work-tree\", repo, \"status\"], capture_output=True)",
        "subprocess.run([\"git\", \"-C\", data[\"cwd\"], \"status\"], capture_output=True)",
    ] {
        let hook = python_guard(run);
        git_settings_edit_never_runs_after(
            &hook,
            &[("tools/gc", "[user]\n\tname = x\n")],
            &|project| crate::round28::git(project, &["config", "include.path", "../tools/gc"]),
            &|project| {
                let fsmonitor = format!(
                    "[core]\n\tfsmonitor = \"touch {}; false\"\n",
                    project.join("PWNED").display()
                );
                write(project, "tools/gc", &fsmonitor);
            },
        );
    }
}

/// H57-5: the folder the hook runs in named through `/proc` leads nowhere
/// a reading binds: such a hook cannot be approved, and blocks.
#[test]
fn a_folder_named_through_proc_cannot_be_approved() {
    if !installed("python3") || !installed("make") || !installed("bash") {
        return;
    }
    let makefile = [("tools/Makefile", "lint:\n\t@true\n")];
    let edited = [("tools/Makefile", "lint:\n\t@touch ../PWNED\n")];
    let hook = "import json, subprocess\n\
         subprocess.run([\"make\", \"-s\", \"lint\"], cwd=\"/proc/self/cwd/tools\")\n\
         print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    edited_never_runs(
        "python3 ~/.claude/hooks/p.py",
        &[("~/.claude/hooks/p.py", hook), makefile[0]],
        &edited,
    );
    edited_never_runs(
        "BASH_ENV=/proc/self/cwd/tools/x.sh bash -c true; sh ~/bin/g.sh </dev/null",
        &[("tools/x.sh", "true\n")],
        &[("tools/x.sh", "touch PWNED\n")],
    );
}

/// H57-4: in the tool call's folder, a function of the text, a launcher's
/// program or a program found when it runs runs nothing of that folder.
#[test]
fn functions_and_launchers_run_nothing_of_the_files_folder() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let blocks = "echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'";
    for run in [
        "lint(){ make -s lint; }; cd \"$(dirname \"$f\")\" && lint",
        "cd \"$(dirname \"$f\")\" && echo lint | xargs make -s",
        "dirname \"$f\" | xargs -I{} make -s -C {} lint",
        "cd \"$(dirname \"$f\")\" && find . -maxdepth 0 -exec make -s lint \\;",
        "cd \"$(dirname \"$f\")\" && \"$(command -v make)\" -s lint",
        "lint(){ cd \"$1\" && make -s lint; }; lint \"$(dirname \"$f\")\"",
    ] {
        let command = format!("{READ_PATH}; {run} >/dev/null 2>&1; {blocks}");
        the_files_folder_never_runs_by(&command, "");
    }
}

/// U57-1: a guard that updates a mapping of its own (`env.update(…)`,
/// `counts.setdefault(…)`) still runs git in the hook input's `cwd`:
/// approved once, an edit of the project's README asks nothing.
#[test]
fn a_guard_updating_its_own_mappings_keeps_the_inputs_cwd() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let hook = python_guard(
        "env = os.environ.copy()\nenv.update({\"NO_COLOR\": \"1\"})\n\
         counts = {}\ncounts.setdefault(\"x\", 0)\n\
         subprocess.run([\"git\", \"-C\", data[\"cwd\"], \"status\"], capture_output=True, env=env)",
    );
    let (home, project) = home_with("[claude]");
    write(&project, "README.md", "# x\n");
    crate::round28::git(&project, &["init", "-q", "."]);
    write(&home.user_home, ".claude/hooks/g.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let file = project.join("README.md");
    let accepted = emit_naming(&home, &project, &file, true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    write(&project, "README.md", "# x\nmore\n");
    let emitted = emit_naming(&home, &project, &file, false);
    assert_eq!(emitted["outcome"]["message"], "guarded", "{emitted:#}");
}
