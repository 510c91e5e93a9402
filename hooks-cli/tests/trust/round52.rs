//! Round 52's tester (its holes were holes before that round too): the
//! user's Python or Node hook starting `make`, `npm test` or `npx` (the
//! project's Makefile, package.json and `node_modules/.bin` ran unbound,
//! H52-5); Node loading a file of the folder it runs in by a relative name
//! (`node tools/m`, `node -e 'require("./m")'`, a here-document,
//! `require(path.resolve("m"))`: H52-4, H52-6); a Python the hook's code
//! starts importing the project's module (H52-7). Each ran the project's
//! edit unasked. And a backup the guard makes asked again after every run
//! (R52-5).

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round39::{GUARDS, scripts};
use crate::round40::edit_never_runs;
use crate::round51_red::edited_never_runs;

/// A Python hook: reads its input, runs `call`, then blocks.
fn python_hook(call: &str) -> String {
    format!(
        "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n{call}\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

/// A Node hook: reads its input, runs `call`, then blocks.
fn node_hook(call: &str) -> String {
    format!(
        "const cp = require(\"child_process\");\nconst path = require(\"path\");\n\
         const input = JSON.parse(require(\"fs\").readFileSync(0, \"utf8\"));\n\
         try {{ {call} }} catch (e) {{}}\n\
         console.log(JSON.stringify({{ decision: \"block\", reason: \"guarded\" }}));\n"
    )
}

const MAKEFILE: &str = "lint:\n\t@true\n";
const MAKEFILE_EDITED: &str = "lint:\n\t@touch PWNED\n";
const PACKAGE: &str = "{\"name\":\"x\",\"private\":true,\"scripts\":{\"test\":\"true\"}}\n";
const PACKAGE_EDITED: &str =
    "{\"name\":\"x\",\"private\":true,\"scripts\":{\"test\":\"touch PWNED\"}}\n";
const JS_MARK: &str = "require(\"fs\").writeFileSync(\"PWNED\", \"\");\n";
const PY_MARK: &str = "open(\"PWNED\", \"w\")\n";

/// H52-5: make, npm and npx started from the user's Python and Node code
/// bind what they run of the folder they run in.
#[test]
fn make_npm_and_npx_started_from_code_bind_the_projects_definitions() {
    if !installed("python3") || !installed("make") {
        return;
    }
    for call in [
        "subprocess.run([\"make\", \"-s\", \"lint\"], capture_output=True)",
        "subprocess.run([\"make\", \"-s\", \"lint\"], cwd=data[\"cwd\"], capture_output=True)",
        "os.chdir(data[\"cwd\"]); os.system(\"make -s lint\")",
    ] {
        edited_never_runs(
            "python3 ~/.claude/hooks/h.py",
            &[
                ("~/.claude/hooks/h.py", &python_hook(call)),
                ("Makefile", MAKEFILE),
            ],
            &[("Makefile", MAKEFILE_EDITED)],
        );
    }
    if !installed("node") || !installed("npm") || !installed("npx") {
        return;
    }
    edited_never_runs(
        "node ~/.claude/hooks/h.js",
        &[
            (
                "~/.claude/hooks/h.js",
                &node_hook(
                    "cp.execSync(\"make -s lint\", { cwd: process.env.CLAUDE_PROJECT_DIR });",
                ),
            ),
            ("Makefile", MAKEFILE),
        ],
        &[("Makefile", MAKEFILE_EDITED)],
    );
    edited_never_runs(
        "python3 ~/.claude/hooks/h.py",
        &[
            (
                "~/.claude/hooks/h.py",
                &python_hook(
                    "subprocess.run([\"npm\", \"test\", \"--silent\"], cwd=data.get(\"cwd\"), capture_output=True)",
                ),
            ),
            ("package.json", PACKAGE),
        ],
        &[("package.json", PACKAGE_EDITED)],
    );
    edited_never_runs(
        "node ~/.claude/hooks/h.js",
        &[
            (
                "~/.claude/hooks/h.js",
                &node_hook(
                    "cp.execSync(\"npm test --silent\", { cwd: input.cwd, stdio: \"pipe\" });",
                ),
            ),
            ("package.json", PACKAGE),
        ],
        &[("package.json", PACKAGE_EDITED)],
    );
    let eslint = "#!/bin/sh\ncat >/dev/null\n";
    edited_never_runs(
        "python3 ~/.claude/hooks/h.py",
        &[
            (
                "~/.claude/hooks/h.py",
                &python_hook(
                    "subprocess.run([\"npx\", \"--no-install\", \"eslint\", \".\"], capture_output=True)",
                ),
            ),
            ("node_modules/.bin/eslint", eslint),
        ],
        &[("node_modules/.bin/eslint", "#!/bin/sh\ntouch PWNED\n")],
    );
    edited_never_runs(
        "node -e \"try{require('child_process').execSync('npx --no-install eslint .',{stdio:'pipe'})}catch(e){}\"; sh ~/bin/g.sh </dev/null",
        &[("~/bin/g.sh", GUARDS), ("node_modules/.bin/eslint", eslint)],
        &[("node_modules/.bin/eslint", "#!/bin/sh\ntouch PWNED\n")],
    );
}

/// H52-4, H52-6 and their siblings: Node loading a file of the folder it
/// runs in by a name without its ending, present at the approval or added
/// after it.
#[test]
fn node_loading_the_projects_file_by_a_relative_name_binds_it() {
    if !installed("node") {
        return;
    }
    let guard = ("~/bin/g.sh", GUARDS);
    for (command, file) in [
        ("node tools/m; sh ~/bin/g.sh </dev/null", "tools/m.js"),
        (
            "node -e \"require('./m')\"; sh ~/bin/g.sh </dev/null",
            "m.js",
        ),
        (
            "node -e \"require('./tools/m')\"; sh ~/bin/g.sh </dev/null",
            "tools/m.js",
        ),
        (
            "node <<J\nrequire(\"./m\")\nJ\nsh ~/bin/g.sh </dev/null",
            "m.js",
        ),
    ] {
        // Present at the approval, then edited.
        edited_never_runs(command, &[guard, (file, "1;\n")], &[(file, JS_MARK)]);
    }
    for (command, file) in [
        (
            "node tools/m 2>/dev/null; sh ~/bin/g.sh </dev/null",
            "tools/m.js",
        ),
        (
            "node -e \"try{require('./m')}catch(e){}\"; sh ~/bin/g.sh </dev/null",
            "m.js",
        ),
        (
            "node -e \"try{require('./m')}catch(e){}\"; sh ~/bin/g.sh </dev/null",
            "m/index.js",
        ),
    ] {
        // Absent at the approval, then added.
        edited_never_runs(command, &[guard, ("tools/.keep", "")], &[(file, JS_MARK)]);
    }
    edited_never_runs(
        "node ~/.claude/hooks/h.js",
        &[
            (
                "~/.claude/hooks/h.js",
                &node_hook("process.chdir(input.cwd); require(path.resolve(\"m\"));"),
            ),
            ("m.js", "1;\n"),
        ],
        &[("m.js", JS_MARK)],
    );
    if installed("python3") {
        edited_never_runs(
            "python3 ~/.claude/hooks/h.py",
            &[
                (
                    "~/.claude/hooks/h.py",
                    &python_hook(
                        "subprocess.run([\"node\", \"-e\", \"require(\\\"./m\\\")\"], cwd=data[\"cwd\"], capture_output=True)",
                    ),
                ),
                ("m.js", "1;\n"),
            ],
            &[("m.js", JS_MARK)],
        );
    }
}

/// H52-7: a Python the user's code starts in the project (`python3 -c
/// "import m"`) imports the project's module: bound, present or added.
#[test]
fn a_python_the_hooks_code_starts_binds_what_it_imports_of_the_project() {
    if !installed("python3") {
        return;
    }
    for (call, file) in [
        (
            "os.chdir(data.get(\"cwd\", \".\")); subprocess.run([\"python3\", \"-c\", \"import m\"], capture_output=True)",
            "m.py",
        ),
        (
            "subprocess.run([\"python3\", \"-c\", \"import tools.m\"], cwd=os.getcwd(), capture_output=True)",
            "tools/m.py",
        ),
    ] {
        let hook = python_hook(call);
        edited_never_runs(
            "python3 ~/.claude/hooks/h.py",
            &[("~/.claude/hooks/h.py", &hook), (file, "x = 1\n")],
            &[(file, PY_MARK)],
        );
        // Absent at the approval, then added.
        edited_never_runs(
            "python3 ~/.claude/hooks/h.py",
            &[("~/.claude/hooks/h.py", &hook), ("tools/.keep", "")],
            &[(file, PY_MARK)],
        );
    }
}

/// R52-5: a backup the user's guard makes of a project file (a copy's or
/// an archive's target, named once by a full path) was bound as absent:
/// the guard asked again after every run. It runs again unasked; a copy
/// the text runs stays bound.
#[test]
fn a_backup_the_guard_makes_is_no_code_of_it() {
    for command in [
        "mkdir -p ~/.cache; tar czf ~/.cache/bk.tgz src 2>/dev/null; sh ~/bin/g.sh",
        "mkdir -p ~/.cache; cp README.md ~/.cache/readme.bak 2>/dev/null; sh ~/bin/g.sh",
    ] {
        let (home, project) = home_with("[claude]");
        scripts(&home, &project, GUARDS);
        write(&project, "README.md", "# readme\n");
        write(&project, "src/app.py", "print(1)\n");
        user_fail_closed_command(&home, command);
        let runs = [
            ("approval", true),
            ("second run", false),
            ("third run", false),
        ];
        for (round, accept) in runs {
            let emitted = emit_terminal(&home, &project, "ls", accept);
            assert_eq!(
                emitted["outcome"]["message"], "guarded",
                "{command}, {round}: {emitted:#}"
            );
        }
    }
    for command in [
        "mkdir -p ~/.cache; cp tools/g.sh ~/.cache/g.sh; sh ~/.cache/g.sh",
        "mkdir -p ~/.cache; cp -r tools ~/.cache/t; sh ~/.cache/t/g.sh",
        "cp tools/g.sh ~/.cache/g.sh 2>/dev/null; cd ~/.cache && sh g.sh",
    ] {
        edit_never_runs(command, &|_| {});
    }
}
