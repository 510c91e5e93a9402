//! Round 51's tester, against this session's first fixes (hooks-r51a):
//! shell expansions that name a folder when they run (`${PWD:+tools}`,
//! `${X#x}`, `set --`, `~+`), a glob's match with no script's ending run by
//! a name, a function writing through its parameter, a script a program
//! reads by a computed name, code moving where it runs, test runners and
//! git started from code, a code list's item, another program's script
//! writing or running a written file, a copy's `.git` folder. Each ran the
//! project's edit unasked; and a guard naming project files it only reads
//! asked again after every edit.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round39::{GUARDS, LEAVES_A_MARK, scripts};
use crate::round40::edit_never_runs;

/// The user's `command` accepted in a project holding `files` (and the two
/// guard scripts); `edits` then written: the edit never runs, the guard
/// blocks. Files under `~/` go to the home folder.
pub(crate) fn edited_never_runs(command: &str, files: &[(&str, &str)], edits: &[(&str, &str)]) {
    let (home, project) = home_with("[claude]");
    scripts(&home, &project, GUARDS);
    let place = |file: &str, text: &str| match file.strip_prefix("~/") {
        Some(file) => write(&home.user_home, file, text),
        None => write(&project, file, text),
    };
    for (file, text) in files {
        place(file, text);
    }
    user_fail_closed_command(&home, command);
    emit_terminal(&home, &project, "ls", true);
    for (file, text) in edits {
        place(file, text);
    }
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

/// H7: a folder an expansion makes when it runs.
#[test]
fn a_folder_an_expansion_makes_when_it_runs_binds_what_it_runs() {
    for command in [
        "sh ${PWD:+tools}/g.sh",
        "X=xtools; sh ${X#x}/g.sh",
        "X=toolsx; sh ${X%x}/g.sh",
        "set -- tools; sh $1/g.sh",
        "bash -c \"sh ~+/tools/g.sh\"",
        "bash -c \"sh \\$\\\"tools\\\"/g.sh\"",
        "sh tools$((0))/g.sh",
        // Round 52: every parameter leading a folder.
        "set -- x tools; shift; sh \"$@/g.sh\"",
        "f() { sh \"$*/g.sh\"; }; f tools",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

/// H5 and H4: a glob's match with no script's ending, or hidden, run by a
/// name; a loop over names after a `cd` to a computed folder; a function
/// writing through its parameter the file the text then runs.
#[test]
fn globbed_files_run_by_a_name_and_files_a_function_writes_are_bound() {
    let loop_over = "for f in tools/* tools/.*; do [ -f \"$f\" ] && sh \"$f\"; done";
    for file in ["tools/run", "tools/.a"] {
        edited_never_runs(loop_over, &[(file, GUARDS)], &[(file, LEAVES_A_MARK)]);
    }
    let copy = "\"$(printf tools/g.%s sh)\"";
    for command in [
        "cd \"$(printf to%s ols)\" && for f in *; do sh \"$f\"; done".to_owned(),
        format!(
            "save() {{ cat {copy} > \"$1\"; }}; save ../r51n.sh; sh ../r51n.sh; rm -f ../r51n.sh"
        ),
        format!("run() {{ sh \"$1\"; }}; cp {copy} ../r51n.sh; run ../r51n.sh; rm -f ../r51n.sh"),
    ] {
        edit_never_runs(&command, &|_| {});
    }
}

/// H6, H1, e34: a script a program reads by a computed name, tar running
/// its members, a copy's `.git` folder, a code list's item.
#[test]
fn scripts_programs_read_and_code_lists_bind_or_refuse() {
    edited_never_runs(
        "echo | sed -f \"$(printf tools/s.%s sed)\" >/dev/null; sh ~/bin/g.sh",
        &[("tools/s.sed", "s/a/b/\n")],
        &[("tools/s.sed", "1e touch PWNED\n")],
    );
    edited_never_runs(
        "make -s -C \"$(printf to%s ols)\" >/dev/null 2>&1; sh ~/bin/g.sh",
        &[("tools/Makefile", "all:\n\t@true\n")],
        &[("tools/Makefile", "all:\n\t@touch ../PWNED\n")],
    );
    edit_never_runs("tar cf - tools | tar xf - --to-command=sh", &|_| {});
    edited_never_runs(
        "cp -r . ../r51d; sh ../r51d/.git/x.sh; rm -rf ../r51d",
        &[(".git/x.sh", GUARDS)],
        &[(".git/x.sh", LEAVES_A_MARK)],
    );
    edit_never_runs(
        "python3 -c \"import subprocess; subprocess.run([\\\"sh\\\", \\\"tools/g.sh\\\"])\"",
        &|_| {},
    );
}

/// H2, H3, H9: code moving where it runs to a computed folder, a test
/// runner started from code, a Python module named when it runs, a
/// makefile the hook runs naming a file its text writes.
#[test]
fn code_moving_or_starting_runners_and_helper_scripts_bind_or_refuse() {
    let moves = "import os, subprocess, sys\nsys.stdin.read()\nos.chdir('to' + 'ols')\nsubprocess.run(['sh', 'g.sh'])\n";
    edited_never_runs(
        "python3 ~/.claude/hooks/m.py",
        &[("~/.claude/hooks/m.py", moves)],
        &[("tools/g.sh", LEAVES_A_MARK)],
    );
    let test =
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n";
    let edit = format!("{test}open('PWNED', 'w')\n");
    let runner = "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'unittest', '-q'], capture_output=True)\nsubprocess.run(['sh', 'tools/g.sh'])\n";
    edited_never_runs(
        "python3 ~/.claude/hooks/ut.py",
        &[("~/.claude/hooks/ut.py", runner), ("test_a.py", test)],
        &[("test_a.py", &edit)],
    );
    edited_never_runs(
        "python3 -m \"$(printf unit%s test)\" -q >/dev/null 2>&1; sh ~/bin/g.sh",
        &[("test_a.py", test)],
        &[("test_a.py", &edit)],
    );
    // x-xpfn4: a Python lambda writing by its parameter what the hook runs.
    let lambda = "import sys\nsys.stdin.read()\nsave = lambda d: open(d, 'w').write(open('tools/' + chr(103) + '.sh').read())\nsave('../r51n.sh')\n";
    edited_never_runs(
        "rm -f ../r51n.sh; python3 ~/.claude/hooks/l.py; sh ../r51n.sh; rm -f ../r51n.sh",
        &[("~/.claude/hooks/l.py", lambda)],
        &[("tools/g.sh", LEAVES_A_MARK)],
    );
    // f11: a folder a here-document's code adds as a site folder.
    edited_never_runs(
        "python3 - <<E\nimport site\nsite.addsitedir(\"tools\")\nE\nsh ~/bin/g.sh",
        &[("tools/a.pth", "\n")],
        &[("tools/a.pth", "import os; open('PWNED', 'w')\n")],
    );
    if installed("make") {
        edited_never_runs(
            "cp \"$(printf tools/g.%s sh)\" ../r51n.sh; make -s -f ~/.claude/hooks/mk; rm -f ../r51n.sh",
            &[("~/.claude/hooks/mk", "all:\n\t@sh ../r51n.sh\n")],
            &[("tools/g.sh", LEAVES_A_MARK)],
        );
    }
}

/// U51-1..7: a guard naming project files it only reads or compares
/// (`PROTECTED = [...]`, `open("README.md")`) runs again unasked after
/// they change.
#[test]
fn a_guard_naming_files_it_only_reads_is_not_asked_again_after_their_edits() {
    let guard = "import json, os, sys\njson.load(sys.stdin)\nPROTECTED = ['README.md', 'package-lock.json', '.env']\nreadme = open('README.md').read()\nif os.path.exists('package-lock.json') and 'x' in readme:\n    pass\nprint(json.dumps({'decision': 'block', 'reason': 'guarded'}))\n";
    let (home, project) = home_with("[claude]");
    write(&home.user_home, ".claude/hooks/p.py", guard);
    for (file, text) in [("README.md", "x\n"), ("package-lock.json", "{}\n")] {
        write(&project, file, text);
    }
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/p.py");
    let accepted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    write(&project, "README.md", "x changed\n");
    write(&project, "package-lock.json", "{\"a\": 1}\n");
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["outcome"]["message"], "guarded", "{again:#}");
}
