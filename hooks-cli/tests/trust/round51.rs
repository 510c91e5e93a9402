//! Round 51, the red team's round 50 rows left open: a folder of the
//! project copied or linked out by the user's hook and a script of the
//! copy run (R50-5: the copy rule was never read for a user's hook naming
//! no project file); a test runner the user's hook starts in the project
//! (`python3 -m unittest`, `node --test`); git run in a repository named
//! when it runs. Each ran the project's edit unasked.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round39::{GUARDS, scripts};
use crate::round40::edit_never_runs;

/// R50-5 (w47, w51, cpr2–cpr8, ln9, ln10): the project's `tools` copied,
/// archived or linked outside it, and the copy's `g.sh` run.
#[test]
fn a_project_folder_copied_or_linked_out_binds_what_the_copy_runs() {
    let mut commands = vec![
        "cp -r tools ../r51d; sh ../r51d/g.sh; rm -rf ../r51d",
        "cp -r tools/. ../r51d; sh ../r51d/g.sh; rm -rf ../r51d",
        "cp -a tools ../r51d; for f in ../r51d/*; do sh \"$f\"; done; rm -rf ../r51d",
        "cp -r . ../r51d; sh ../r51d/tools/g.sh; rm -rf ../r51d",
        "mkdir -p ../r51d; tar cf - tools | tar xf - -C ../r51d; sh ../r51d/tools/g.sh; rm -rf ../r51d",
        "ln -sfn \"$PWD/tools\" ../r51L; sh ../r51L/g.sh; rm -f ../r51L",
        "ln -sfn \"$CLAUDE_PROJECT_DIR\" ../r51P; sh ../r51P/tools/g.sh; rm -f ../r51P",
    ];
    if installed("zip") && installed("unzip") {
        commands.push(
            "zip -qr ../r51.zip tools; unzip -qo ../r51.zip -d ../r51d; sh ../r51d/tools/g.sh; rm -rf ../r51d ../r51.zip",
        );
    }
    for command in commands {
        edit_never_runs(command, &|_| {});
    }
}

/// The user's `command` accepted in a project holding `file` (`text`);
/// `file` then gains `edit`, which leaves `PWNED`: it never runs, the
/// guard blocks.
fn project_file_edit_never_runs(command: &str, file: &str, text: &str, edit: &str) {
    let (home, project) = home_with("[claude]");
    scripts(&home, &project, GUARDS);
    write(&project, file, text);
    user_fail_closed_command(&home, command);
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    write(&project, file, &format!("{text}{edit}"));
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("PWNED").exists(),
        "{command}: the edit ran unasked"
    );
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{command}: {emitted:#}"
    );
}

/// k29, k30: a test runner the user's hook starts in the project finds
/// the project's tests by listing it; an edit of one asks again.
#[test]
fn a_test_runner_started_by_the_users_hook_binds_the_projects_tests() {
    project_file_edit_never_runs(
        "python3 -m unittest -q >/dev/null 2>&1; sh ~/bin/g.sh",
        "test_a.py",
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
        "open('PWNED', 'w')\n",
    );
    if installed("node") {
        project_file_edit_never_runs(
            "node --test >/dev/null 2>&1; sh ~/bin/g.sh",
            "a.test.js",
            "require('node:test')('a', () => {});\n",
            "require('fs').writeFileSync('PWNED', '');\n",
        );
    }
}

/// k25: git run in a repository whose folder is named when it runs; its
/// settings (`core.fsmonitor`) are no reading's to bind.
#[test]
fn git_in_a_repository_named_when_it_runs_is_never_approved() {
    for command in [
        "cd \"$(printf s%s ub)\" && git status >/dev/null 2>&1; cd ..; sh ~/bin/g.sh",
        "git -C \"$(printf s%s ub)\" status >/dev/null 2>&1; sh ~/bin/g.sh",
        "GIT_DIR=\"$(printf s%s ub)/.git\" git status >/dev/null 2>&1; sh ~/bin/g.sh",
    ] {
        let (home, project) = home_with("[claude]");
        scripts(&home, &project, GUARDS);
        user_fail_closed_command(&home, command);
        let refused = emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            refused["outcome"]["action"], "block",
            "{command}: {refused:#}"
        );
        assert!(
            refused
                .to_string()
                .contains("runs git in a repository named when it runs"),
            "{command}: {refused:#}"
        );
    }
}

/// xf2, xf3, y50, y46: a file one part of the hook writes from a name
/// computed when it runs, run by another: the hook's text writing and a
/// helper running it (shell or Python), one helper writing and another
/// running it; and a Python helper copying the project's folder out and
/// running the copy.
#[test]
fn a_file_written_in_one_part_of_the_hook_and_run_in_another_never_runs_edited() {
    let copy = "cp \"$(printf tools/g.%s sh)\" W";
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (
            "COPY; sh ~/.claude/hooks/r.sh; rm -f W",
            &[(".claude/hooks/r.sh", "sh W\n")],
        ),
        (
            "sh ~/.claude/hooks/w.sh; sh ~/.claude/hooks/r.sh; rm -f W",
            &[
                (".claude/hooks/w.sh", "COPY\n"),
                (".claude/hooks/r.sh", "sh W\n"),
            ],
        ),
        (
            "COPY; python3 ~/.claude/hooks/r.py; rm -f W",
            &[(
                ".claude/hooks/r.py",
                "import subprocess, sys\nsys.stdin.read()\nsubprocess.run(['sh', 'W'])\n",
            )],
        ),
        (
            "python3 ~/.claude/hooks/t.py; rm -rf D",
            &[(
                ".claude/hooks/t.py",
                "import shutil, subprocess, sys\nsys.stdin.read()\nshutil.copytree('tools', 'D')\nsubprocess.run(['sh', 'D/g.sh'])\n",
            )],
        ),
    ];
    for (command, files) in cases {
        let (home, project) = home_with("[claude]");
        let folder = project.parent().expect("a temporary home");
        let written = folder.join("r51n.sh").display().to_string();
        let copied = folder.join("r51d").display().to_string();
        let spelled = |text: &str| {
            text.replace("COPY", copy)
                .replace('W', &written)
                .replace('D', &copied)
        };
        for (file, text) in files {
            write(&home.user_home, file, &spelled(text));
        }
        crate::round39::accepted_then_edited(&home, &project, &spelled(command));
    }
}

/// The user's `command` (its `files` in the home folder) is approved and
/// answers "guarded", then runs again unasked and answers the same.
fn approved_once_runs_again(command: &str, files: &[(&str, &str)]) {
    let (home, project) = home_with("[claude]");
    scripts(&home, &project, GUARDS);
    for (file, text) in files {
        write(&home.user_home, file, text);
    }
    user_fail_closed_command(&home, command);
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        accepted["outcome"]["message"], "guarded",
        "{command}: {accepted:#}"
    );
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        again["outcome"]["message"], "guarded",
        "{command}: {again:#}"
    );
}

/// U1, U2, U50-3 (rounds 49 and 50): a file the hook writes as its own
/// data was bound as absent and asked again on every run; a Python hook
/// running a script beside it by its own folder, and a Node hook logging
/// through a helper function, were refused.
#[test]
fn a_hooks_own_data_and_a_script_beside_it_are_approved_once() {
    let (folder, _keep) = {
        let keep = tempfile::tempdir().expect("a folder");
        (keep.path().display().to_string(), keep)
    };
    for command in [
        "cat > F/in.json; wc -c F/in.json >/dev/null; sh tools/g.sh < F/in.json",
        "git diff > F/d.patch 2>/dev/null; grep -q SECRET F/d.patch && exit 2; sh tools/g.sh",
    ] {
        approved_once_runs_again(&command.replace('F', &folder), &[]);
    }
    let beside = "import os, subprocess, sys\ndata = sys.stdin.read()\nhere = os.path.dirname(os.path.abspath(__file__))\nsubprocess.run([sys.executable, os.path.join(here, 'check.py')])\nsubprocess.run(['sh', 'tools/g.sh'], input=data, text=True)\n";
    if installed("node") {
        // U50-3: a Node logging helper's path parameter.
        let logs = "const fs = require('fs'), os = require('os'), path = require('path');\nfunction log(file, msg) { fs.appendFileSync(file, msg + '\\n'); }\nlog(path.join(os.homedir(), '.claude', 'hook.log'), 'pre');\nrequire('child_process').execFileSync('sh', ['tools/g.sh'], { stdio: 'inherit' });\n";
        approved_once_runs_again(
            "node ~/.claude/hooks/x.js </dev/null",
            &[(".claude/hooks/x.js", logs)],
        );
    }
    // Round 52: a child run in the hook input's folder, or its file's.
    let moved = "import json, os, subprocess, sys\nfrom pathlib import Path\ndata = json.load(sys.stdin)\nroot = Path(data.get('cwd', '.'))\npath = data.get('tool_input', {}).get('file_path', '')\nsubprocess.run(['ls'], cwd=root, capture_output=True)\nsubprocess.run(['ls'], cwd=os.path.dirname(path) or '.', capture_output=True)\nsubprocess.run(['sh', 'tools/g.sh'], input='', text=True)\n";
    approved_once_runs_again(
        "python3 ~/.claude/hooks/m.py",
        &[(".claude/hooks/m.py", moved)],
    );
    if installed("node") {
        // Round 52, n02: Node running git in the folder of the input's file.
        let beside = "const { spawnSync } = require('child_process'); const path = require('path');\nconst input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nconst f = (input.tool_input || {}).file_path || path.join(input.cwd, 'tools/g.sh');\nspawnSync('ls', [f], { cwd: path.dirname(f), stdio: 'pipe' });\nspawnSync('sh', ['tools/g.sh'], { stdio: ['pipe', 'inherit', 'inherit'] });\n";
        approved_once_runs_again(
            "node ~/.claude/hooks/n.js",
            &[(".claude/hooks/n.js", beside)],
        );
    }
    approved_once_runs_again(
        "python3 ~/.claude/hooks/x.py",
        &[
            (".claude/hooks/x.py", beside),
            (".claude/hooks/check.py", "import sys\n"),
        ],
    );
}
