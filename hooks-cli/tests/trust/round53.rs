//! This session's own attack (round 53): the user's guard running a
//! program in the folder of the file the tool call names
//! (`cwd=os.path.dirname(file_path)`, approved since round 52). That folder
//! is any folder of the project, chosen when the hook runs: git there ran
//! the `core.fsmonitor` of a bare repository the project commits in it,
//! and make ran its Makefile. Git never uses a repository it only finds
//! (`safe.bareRepository=explicit` for every hook), and a program that
//! runs a folder's definitions, or git, cannot be approved there (round
//! 55: a repository nested in the project has settings of its own). Then the tester's
//! round 53 rows (H53-1..6, U53-1, U53-2).

use serde_json::json;

use crate::dialects::{emit_json, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;

/// A Python guard: runs `argv` in the folder of the tool input's file,
/// then blocks.
fn in_the_files_folder(argv: &str) -> String {
    format!(
        "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n\
         fp = data.get(\"tool_input\", {{}}).get(\"file_path\", \"\")\n\
         if fp:\n    subprocess.run({argv}, cwd=os.path.dirname(fp), capture_output=True)\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

/// The guard's outcome for a `terminal` call naming `file`.
pub(crate) fn emit_naming(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    file: &std::path::Path,
    accept: bool,
) -> serde_json::Value {
    let payload = json!({"tool_name": "terminal", "task_id": "t",
        "args": {"command": "ls", "file_path": file.to_str().expect("UTF-8")}});
    let extra: &[&str] = if accept { &["--accept-hooks"] } else { &[] };
    emit_json(home, project, extra, "pre_tool_call", &payload)
}

/// A folder shaped as a bare repository, with a `core.fsmonitor` that
/// touches `mark`, as a repository may commit it (no `.git` in it).
fn bare_repository_at(folder: &std::path::Path, mark: &std::path::Path) {
    for (file, text) in [
        ("HEAD", "ref: refs/heads/main\n".to_owned()),
        (
            "config",
            format!(
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\
                 \tfsmonitor = \"touch {}; false\"\n",
                mark.display()
            ),
        ),
        ("objects/.keep", String::new()),
        ("refs/heads/.keep", String::new()),
        ("notes.py", "x = 1\n".to_owned()),
    ] {
        write(folder, file, &text);
    }
}

#[test]
fn git_never_uses_a_bare_repository_it_finds() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    let mark = project.join("PWNED");
    // The project itself, downloaded without `.git`, shaped as a bare
    // repository: the guard's git in the folder the hook input names.
    bare_repository_at(&project, &mark);
    write(&project, "src/app.py", "print(1)\n");
    let hook = python_guard(
        "subprocess.run([\"git\", \"status\", \"--short\"], cwd=data[\"cwd\"], capture_output=True)",
    );
    write(&home.user_home, ".claude/hooks/g.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    for accept in [true, false] {
        let emitted = emit_naming(&home, &project, &project.join("src/app.py"), accept);
        assert!(!mark.exists(), "the found repository's fsmonitor ran");
        assert_eq!(emitted["outcome"]["message"], "guarded", "{emitted:#}");
    }
}

#[test]
fn git_in_a_folder_the_tool_call_names_cannot_be_approved() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    let mark = project.join("PWNED");
    write(&project, "src/app.py", "print(1)\n");
    // Round 55: a repository nested in the project (from an archive; git
    // never clones a `.git` folder), and one shaped as a bare repository.
    let nested = project.join("vendor/lib");
    write(&nested, "notes.py", "x = 1\n");
    crate::round28::git(&nested, &["init", "-q", "."]);
    let fsmonitor = format!("touch {}; false", mark.display());
    crate::round28::git(&nested, &["config", "core.fsmonitor", &fsmonitor]);
    bare_repository_at(&project.join("vendor/bare"), &mark);
    for argv in [
        "[\"git\", \"status\", \"--short\"]",
        "[\"git\", \"-C\", os.path.dirname(fp), \"status\"]",
    ] {
        let hook = in_the_files_folder(argv);
        write(&home.user_home, ".claude/hooks/g.py", &hook);
        user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
        for (file, accept) in [
            ("src/app.py", true),
            ("vendor/lib/notes.py", false),
            ("vendor/bare/notes.py", false),
        ] {
            let emitted = emit_naming(&home, &project, &project.join(file), accept);
            assert!(!mark.exists(), "{argv}: a found repository's fsmonitor ran");
            assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
            let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("cannot be approved") || message.contains("not approved"),
                "{message}"
            );
            assert!(message.contains("git"), "{message}");
        }
    }
}

#[test]
fn make_in_a_folder_the_tool_call_names_cannot_be_approved() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(&project, "src/app.py", "print(1)\n");
    write(
        &project,
        "vendor/lib/Makefile",
        "lint:\n\t@touch ../../PWNED\n",
    );
    write(&project, "vendor/lib/notes.py", "x = 1\n");
    let hook = in_the_files_folder("[\"make\", \"-s\", \"lint\"]");
    write(&home.user_home, ".claude/hooks/m.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/m.py");
    for (file, accept) in [("src/app.py", true), ("vendor/lib/notes.py", false)] {
        let emitted = emit_naming(&home, &project, &project.join(file), accept);
        assert!(!project.join("PWNED").exists(), "the folder's Makefile ran");
        assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("runs make in the folder of a path the tool call names"),
            "{message}"
        );
    }
}

/// A Python guard: `body`, then blocks.
fn python_guard(body: &str) -> String {
    format!(
        "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n{body}\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

const MAKEFILE: &str = "lint:\n\t@true\n";
const MAKEFILE_EDITED: &str = "lint:\n\t@touch PWNED\n";
const JS_MARK: &str = "require(\"fs\").writeFileSync(\"PWNED\", \"\");\n";

/// The tester's round 53 (H53-1..6): make behind launchers, in Perl's
/// backquotes, steered by a variable the code gives it; Node paths built
/// from the folder it runs in; a child Python reading its program from
/// its input. Each ran the project's edit unasked.
#[test]
fn launchers_backquotes_steering_variables_and_built_paths_bind_or_refuse() {
    if !installed("make") || !installed("python3") {
        return;
    }
    let makefile = [("Makefile", MAKEFILE)];
    let edited = [("Makefile", MAKEFILE_EDITED)];
    for command in [
        "echo lint | xargs make -s >/dev/null 2>&1; sh ~/bin/g.sh </dev/null",
        "find . -maxdepth 0 -exec make -s lint \\; >/dev/null 2>&1; sh ~/bin/g.sh </dev/null",
    ] {
        edited_never_runs(command, &makefile, &edited);
    }
    if installed("perl") {
        edited_never_runs(
            "perl -e '`make -s lint 2>&1`'; sh ~/bin/g.sh </dev/null",
            &makefile,
            &edited,
        );
    }
    let steered = python_guard(
        "subprocess.run([\"make\", \"-s\", \"lint\"], env={**os.environ, \"MAKEFILES\": \"common.mk\"}, capture_output=True)",
    );
    edited_never_runs(
        "python3 ~/.claude/hooks/d.py",
        &[
            ("~/.claude/hooks/d.py", &steered),
            ("Makefile", MAKEFILE),
            ("common.mk", "X = 1\n"),
        ],
        &[("common.mk", "$(shell touch PWNED)\n")],
    );
    // H53-3: what a Python reading its program from its input imports
    // cannot be named: refused, the guard blocks, nothing of it runs.
    let stdin_python = python_guard(
        "subprocess.run([\"python3\"], input=\"import m\\n\", text=True, capture_output=True)",
    );
    edited_never_runs(
        "python3 ~/.claude/hooks/s.py",
        &[("~/.claude/hooks/s.py", &stdin_python), ("m.py", "x = 1\n")],
        &[("m.py", "open(\"PWNED\", \"w\")\n")],
    );
    if !installed("node") {
        return;
    }
    for body in [
        "require(path.join(input.cwd, \"m\"));",
        "require(input.cwd + \"/m\");",
        "const root = process.cwd(); require(root + \"/m\");",
        "require(\"module\").createRequire(process.cwd() + \"/\")(\"./m\");",
        // e22: out of its own folder into the project (`~/project`).
        "require(path.join(__dirname, \"..\", \"..\", \"project\", \"m\"));",
    ] {
        let hook = format!(
            "const path = require(\"path\");\n\
             const input = JSON.parse(require(\"fs\").readFileSync(0, \"utf8\"));\n\
             try {{ {body} }} catch (e) {{}}\n\
             console.log(JSON.stringify({{ decision: \"block\", reason: \"guarded\" }}));\n"
        );
        edited_never_runs(
            "node ~/.claude/hooks/e.js",
            &[("~/.claude/hooks/e.js", &hook), ("m.js", "1;\n")],
            &[("m.js", JS_MARK)],
        );
    }
    edited_never_runs(
        "node -e 'const p=\"./m\"; require(p)'; sh ~/bin/g.sh </dev/null",
        &[("m.js", "1;\n")],
        &[("m.js", JS_MARK)],
    );
    edited_never_runs(
        "node -e 'require(\"m\")'; sh ~/bin/g.sh </dev/null",
        &[("node_modules/m.js", "1;\n")],
        &[("node_modules/m.js", JS_MARK)],
    );
}

/// U53-1, U53-2: a guard compiling the changed files with a child Python
/// asked again after every edit of them; `["npm", "run", "lint"]` was read
/// as a call of `run` and refused. Both are approved once.
#[test]
fn a_child_python_over_changed_files_and_npm_run_are_approved_once() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let compiles = python_guard(
        "out = subprocess.check_output([\"git\", \"diff\", \"--name-only\"], text=True)\n\
         for f in out.split():\n    if f.endswith(\".py\"):\n        \
         subprocess.run([\"python3\", \"-m\", \"py_compile\", f], capture_output=True)",
    );
    let npm_run =
        python_guard("r = subprocess.run([\"npm\", \"run\", \"lint\"], capture_output=True)");
    for hook in [compiles, npm_run] {
        let (home, project) = home_with("[claude]");
        write(&project, "src/app.py", "x = 1\n");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&home.user_home, ".claude/hooks/c.py", &hook);
        user_fail_closed_command(&home, "python3 ~/.claude/hooks/c.py");
        let accepted = crate::dialects::emit_terminal(&home, &project, "ls", true);
        assert_eq!(
            accepted["outcome"]["message"], "guarded",
            "{hook}: {accepted:#}"
        );
        write(&project, "src/app.py", "x = 2\n");
        let again = crate::dialects::emit_terminal(&home, &project, "ls", false);
        assert_eq!(again["outcome"]["message"], "guarded", "{hook}: {again:#}");
    }
}
