//! Round 56's open rows (round 57): a program in backquotes or a
//! substitution run after a move to the tool call's folder (H56-7: a20,
//! a41), a git settings file given by code's `GIT_CONFIG_GLOBAL` (part of
//! H56-5: c10), and git given the project's own repository by code as
//! `--git-dir os.path.join(repo, ".git")`, approved and bound (U56-1).

use crate::dialects::{home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round53::emit_naming;
use crate::round55::the_files_folder_never_runs_by;

/// Python code run by the guard: reads the tool call (`data`, its path
/// `fp`, that path's folder `d`), runs `body`, then blocks.
pub(crate) fn python_guard(body: &str) -> String {
    format!(
        "import json, os, subprocess, sys\n\
         data = json.load(sys.stdin)\n\
         fp = data.get(\"tool_input\", {{}}).get(\"file_path\", \"\")\n\
         d = os.path.dirname(fp) or \".\"\n\
         {body}\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

/// The shell text that reads the tool call's path into `$f`.
pub(crate) const READ_PATH: &str =
    "f=$(python3 -c \"import json,sys; print(json.load(sys.stdin)['tool_input']['file_path'])\")";

#[test]
fn a_program_in_a_substitution_after_a_move_runs_nothing_of_the_files_folder() {
    if !installed("python3") || !installed("make") {
        return;
    }
    // a20: backquotes inside a shell string run where the code moved it.
    let hook = python_guard(
        "subprocess.run(\"ls `make -s lint`\", shell=True, cwd=d, capture_output=True)",
    );
    the_files_folder_never_runs_by("python3 ~/.claude/hooks/g.py", &hook);
    // a41: the shell's own substitution after its `cd` there.
    let blocks = "echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'";
    for run in [
        "echo \"$(make -s lint)\"",
        "echo `make -s lint`",
        "x=$(make -s lint)",
    ] {
        let command =
            format!("{READ_PATH}; cd \"$(dirname \"$f\")\" && {run} >/dev/null 2>&1; {blocks}");
        the_files_folder_never_runs_by(&command, "");
    }
}

/// A project that is a git repository, with the user's fail-closed guard
/// `hook` (Python, `~/.claude/hooks/g.py`), approved on a call naming
/// `src/app.py`; then `edit` changes the project, and the next call must
/// neither run the edit's code nor allow.
fn git_settings_edit_never_runs(
    hook: &str,
    files: &[(&str, &str)],
    edit: &dyn Fn(&std::path::Path),
) {
    git_settings_edit_never_runs_after(hook, files, &|_| {}, edit);
}

/// [`git_settings_edit_never_runs`], with `setup` run in the repository
/// before the approval (`git config include.path …`).
pub(crate) fn git_settings_edit_never_runs_after(
    hook: &str,
    files: &[(&str, &str)],
    setup: &dyn Fn(&std::path::Path),
    edit: &dyn Fn(&std::path::Path),
) {
    let (home, project) = home_with("[claude]");
    write(&project, "src/app.py", "print(1)\n");
    for (file, text) in files {
        write(&project, file, text);
    }
    crate::round28::git(&project, &["init", "-q", "."]);
    setup(&project);
    write(&home.user_home, ".claude/hooks/g.py", hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let file = project.join("src/app.py");
    let accepted = emit_naming(&home, &project, &file, true);
    assert_eq!(
        accepted["outcome"]["message"], "guarded",
        "{hook}: {accepted:#}"
    );
    edit(&project);
    let emitted = emit_naming(&home, &project, &file, false);
    assert!(!project.join("PWNED").exists(), "{hook}: git ran the edit");
    assert_eq!(emitted["outcome"]["action"], "block", "{hook}: {emitted:#}");
}

/// c10: `env={**os.environ, "GIT_CONFIG_GLOBAL": "tools/gc"}` given to
/// git by code binds that file, as the shell's own
/// `GIT_CONFIG_GLOBAL=tools/gc git status` does.
#[test]
fn a_git_settings_file_code_gives_git_binds_it() {
    if !installed("python3") || !installed("git") {
        return;
    }
    // Nothing else of the project named (a `"."` would bind the folder's
    // code by the copy rule: the hole needs none).
    let hook = "import json, os, subprocess, sys\n\
         subprocess.run([\"git\", \"status\", \"--short\"], capture_output=True, \
         env={**os.environ, \"GIT_CONFIG_GLOBAL\": \"tools/gc\"})\n\
         print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    git_settings_edit_never_runs(hook, &[("tools/gc", "[user]\n\tname = x\n")], &|project| {
        let fsmonitor = format!(
            "[core]\n\tfsmonitor = \"touch {}; false\"\n",
            project.join("PWNED").display()
        );
        write(project, "tools/gc", &fsmonitor);
    });
}

/// U56-1: git given the project's own repository by code
/// (`"--git-dir", os.path.join(repo, ".git"), "--work-tree", repo` with
/// `repo = data["cwd"]`) is approved, and its settings are bound.
#[test]
fn git_given_the_projects_own_repository_by_code_is_approved_and_bound() {
    if !installed("python3") || !installed("git") {
        return;
    }
    for git_dir in ["os.path.join(repo, \".git\")", "repo + \"/.git\""] {
        let hook = python_guard(&format!(
            "repo = data[\"cwd\"]\n\
             subprocess.run([\"git\", \"--git-dir\", {git_dir}, \"--work-tree\", repo, \
             \"status\"], capture_output=True)"
        ));
        git_settings_edit_never_runs(&hook, &[], &|project| {
            let fsmonitor = format!("touch {}; false", project.join("PWNED").display());
            crate::round28::git(project, &["config", "core.fsmonitor", &fsmonitor]);
        });
    }
}

/// Round 57, g02: the hook input's `cwd` is the project folder only while
/// the code cannot have written into what it parsed; written by
/// `__setitem__`, `operator.setitem` or a computed key, it names the tool
/// call's folder, and nothing of that folder runs.
#[test]
fn the_inputs_cwd_written_over_by_code_runs_nothing_of_the_files_folder() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let run =
        "subprocess.run([\"make\", \"-s\", \"-C\", data[\"cwd\"], \"lint\"], capture_output=True)";
    for write_over in [
        "data.__setitem__(\"cwd\", d)",
        "import operator; operator.setitem(data, \"cwd\", d)",
        "k = \"c\" + \"wd\"; data[k] = d",
    ] {
        let hook = python_guard(&format!("{write_over}\n{run}"));
        the_files_folder_never_runs_by("python3 ~/.claude/hooks/g.py", &hook);
    }
}

/// Round 57 (found attacking c10's fix): a search path code gives what it
/// starts (`env={**os.environ, "PATH": "tools:" + os.environ["PATH"]}`,
/// `os.environ["PATH"] = …`) binds the programs found there, as the
/// shell's own `PATH=tools:$PATH git status` does.
#[test]
fn a_search_path_code_gives_what_it_starts_binds_what_is_found_there() {
    if !installed("python3") || !installed("git") {
        return;
    }
    for give in [
        "subprocess.run([\"git\", \"status\"], capture_output=True, \
         env={**os.environ, \"PATH\": \"tools:\" + os.environ[\"PATH\"]})",
        "os.environ[\"PATH\"] = \"tools\" + os.pathsep + os.environ[\"PATH\"]\n\
         subprocess.run([\"git\", \"status\"], capture_output=True)",
        // `env` given the search path as a word.
        "subprocess.run([\"env\", \"PATH=tools:/usr/bin:/bin\", \"git\", \"status\"], \
         capture_output=True)",
    ] {
        let hook = format!(
            "import json, os, subprocess, sys\n{give}\n\
             print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
        );
        let benign = "#!/bin/sh\nexit 0\n";
        git_settings_edit_never_runs(&hook, &[("tools/git", benign)], &|project| {
            let marks = format!("#!/bin/sh\ntouch '{}'\n", project.join("PWNED").display());
            write(project, "tools/git", &marks);
            crate::round30_open::executable(&project.join("tools/git"));
        });
    }
    // `shutil.which` given a search path of its own: no reading binds it,
    // so the guard cannot be approved, and blocks.
    let (home, project) = home_with("[claude]");
    write(&project, "tools/git", "#!/bin/sh\nexit 0\n");
    crate::round30_open::executable(&project.join("tools/git"));
    let hook = "import json, shutil, subprocess, sys\n\
         subprocess.run([shutil.which(\"git\", path=\"tools:/usr/bin\"), \"status\"])\n\
         print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    write(&home.user_home, ".claude/hooks/g.py", hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let file = project.join("tools/git");
    emit_naming(&home, &project, &file, true);
    let marks = format!("#!/bin/sh\ntouch '{}'\n", project.join("PWNED").display());
    write(&project, "tools/git", &marks);
    let emitted = emit_naming(&home, &project, &file, false);
    assert!(!project.join("PWNED").exists(), "which's search path ran");
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// Round 57: code that loads variables named when it runs (a `.env` file
/// read line by line into `os.environ`) before starting a program cannot
/// be approved: the project's `BASH_ENV` never runs.
#[test]
fn variables_code_loads_from_a_file_never_run_the_projects_code() {
    if !installed("python3") || !installed("bash") {
        return;
    }
    let hook = "import json, os, subprocess, sys\n\
         if os.path.exists(\".env\"):\n    for line in open(\".env\"):\n        \
         k, _, v = line.strip().partition(\"=\")\n        if k:\n            os.environ[k] = v\n\
         subprocess.run([\"bash\", \"-c\", \"true\"])\n\
         print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n";
    crate::round51_red::edited_never_runs(
        "python3 ~/.claude/hooks/e.py",
        &[
            ("~/.claude/hooks/e.py", hook),
            (".env", "BASH_ENV=tools/e.sh\n"),
            ("tools/e.sh", "true\n"),
        ],
        &[("tools/e.sh", "touch PWNED\n")],
    );
}
