//! Red team round 55: the user's guard working in the folder of a path
//! the tool call names, by spellings the reading missed (H55-3..H55-7:
//! a nested repository's settings, a second program after the first, a
//! move through a dictionary, `fchdir`, `cwd=d or None`, `make -C`, `npm
//! --prefix`, `env -C`, an f-string's `cd`, a loader after a `chdir`);
//! commands started from code in the project (H55-8); rustup's proxies
//! running a toolchain the project names by a path (H55-1).

use crate::dialects::{home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;
use crate::round53::emit_naming;

/// A Python guard reading the tool call's path (`fp`, its folder `d`),
/// running `body`, then blocking.
fn file_guard(body: &str) -> String {
    format!(
        "import importlib.machinery, json, os, shlex, subprocess, sys\n\
         data = json.load(sys.stdin)\n\
         fp = data.get(\"tool_input\", {{}}).get(\"file_path\", \"\")\n\
         d = os.path.dirname(fp)\n\
         if fp:\n    {body}\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

/// The user's guard `hook` (Python) approved on a call naming
/// `src/app.py`, then run on one naming a file of `vendor/lib`, whose
/// `Makefile`, `package.json` and `m.py` touch `PWNED`: nothing of that
/// folder runs, and the guard blocks.
pub(crate) fn the_files_folder_never_runs(hook: &str) {
    the_files_folder_never_runs_by("python3 ~/.claude/hooks/g.py", hook);
}

/// [`the_files_folder_never_runs`] with the user's guard `command` (which
/// may run `hook`, written as `~/.claude/hooks/g.py`).
pub(crate) fn the_files_folder_never_runs_by(command: &str, hook: &str) {
    let (home, project) = home_with("[claude]");
    write(&project, "src/app.py", "print(1)\n");
    let lib = project.join("vendor/lib");
    write(&lib, "notes.py", "x = 1\n");
    write(&lib, "Makefile", "lint:\n\t@touch ../../PWNED\n");
    write(
        &lib,
        "package.json",
        "{\"name\": \"x\", \"scripts\": {\"test\": \"touch ../../PWNED\"}}\n",
    );
    write(&lib, "m.py", "open(\"../../PWNED\", \"w\")\n");
    write(&home.user_home, ".claude/hooks/g.py", hook);
    user_fail_closed_command(&home, command);
    for (file, accept) in [("src/app.py", true), ("vendor/lib/notes.py", false)] {
        let emitted = emit_naming(&home, &project, &project.join(file), accept);
        assert!(
            !project.join("PWNED").exists(),
            "{command} {hook}: the folder's code ran"
        );
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{command} {hook}: {emitted:#}"
        );
    }
}

#[test]
fn the_files_folder_by_every_spelling_runs_nothing_of_it() {
    if !installed("python3") || !installed("make") {
        return;
    }
    for body in [
        // H55-4: a second program after the first.
        "subprocess.run(\"true; make -s lint\", shell=True, cwd=d, capture_output=True)",
        "subprocess.run(\"echo ok && make -s lint\", shell=True, cwd=d, capture_output=True)",
        // H55-5: moves the reading missed.
        "os.fchdir(os.open(d, os.O_RDONLY)); subprocess.run([\"make\", \"-s\", \"lint\"], capture_output=True)",
        "kw = {\"cwd\": d, \"capture_output\": True}; subprocess.run([\"make\", \"-s\", \"lint\"], **kw)",
        "subprocess.run([\"make\", \"-s\", \"lint\"], cwd=d or None, capture_output=True)",
        "subprocess.run(f\"cd {shlex.quote(d)} && make -s lint\", shell=True, capture_output=True)",
        // H55-6: folder options.
        "subprocess.run([\"make\", \"-s\", \"-C\", d, \"lint\"], capture_output=True)",
        "subprocess.run([\"env\", \"-C\", d, \"make\", \"-s\", \"lint\"], capture_output=True)",
        // H55-7: a loader after a move.
        "os.chdir(d); importlib.machinery.SourceFileLoader(\"m\", \"m.py\").load_module()",
    ] {
        the_files_folder_never_runs(&file_guard(body));
    }
    if installed("npm") {
        the_files_folder_never_runs(&file_guard(
            "subprocess.run([\"npm\", \"test\", \"--silent\", \"--prefix\", d], capture_output=True)",
        ));
    }
}

#[test]
fn a_shell_guard_running_a_folders_definitions_where_it_moves_cannot_be_approved() {
    if !installed("jq") || !installed("make") {
        return;
    }
    let mut commands = vec!["env -C \"$(dirname \"$f\")\" make -s lint"];
    if installed("rustfmt") {
        commands.push("cd \"$(dirname \"$f\")\" && rustfmt --check \"$f\"");
    }
    for command in commands {
        let (home, project) = home_with("[claude]");
        write(&project, "src/app.py", "print(1)\n");
        write(&project, "vendor/lib/notes.py", "x = 1\n");
        write(
            &project,
            "vendor/lib/Makefile",
            "lint:\n\t@touch ../../PWNED\n",
        );
        user_fail_closed_command(
            &home,
            &format!(
                "f=$(jq -r .tool_input.file_path); {command} >/dev/null 2>&1; \
                 echo '{{\"decision\":\"block\",\"reason\":\"guarded\"}}'"
            ),
        );
        for (file, accept) in [("src/app.py", true), ("vendor/lib/notes.py", false)] {
            let emitted = emit_naming(&home, &project, &project.join(file), accept);
            assert!(
                !project.join("PWNED").exists(),
                "{command}: the folder's code ran"
            );
            let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("not approved"), "{command}: {emitted:#}");
        }
    }
}

/// H55-8: what the guard's code starts in the project binds what it runs
/// there, by every spelling.
#[test]
fn commands_code_starts_bind_what_they_run() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let guard = |body: &str| {
        format!(
            "import json, os, subprocess, sys\n{body}\n\
             print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
        )
    };
    let makefile = "lint:\n\t@true\n";
    for body in [
        "subprocess.run([\"true\", \"-s\", \"lint\"], executable=\"make\", capture_output=True)",
        "os.environ[\"MAKEFILES\"] = \"common.mk\"\nsubprocess.run([\"make\", \"-s\", \"lint\"], capture_output=True)",
        "os.putenv(\"MAKEFILES\", \"common.mk\")\nsubprocess.run([\"make\", \"-s\", \"lint\"], capture_output=True)",
    ] {
        let hook = guard(body);
        edited_never_runs(
            "python3 ~/.claude/hooks/c.py",
            &[
                ("~/.claude/hooks/c.py", &hook),
                ("Makefile", makefile),
                ("common.mk", "X = 1\n"),
            ],
            &[
                ("common.mk", "$(shell touch PWNED)\n"),
                ("Makefile", "lint:\n\t@touch PWNED\n"),
            ],
        );
    }
    if installed("perl") {
        edited_never_runs(
            "python3 ~/.claude/hooks/c.py",
            &[
                (
                    "~/.claude/hooks/c.py",
                    &guard("subprocess.run([\"perl\", \"-Itools\", \"-MX\", \"-e\", \"1\"])"),
                ),
                ("tools/X.pm", "package X; 1;\n"),
            ],
            &[(
                "tools/X.pm",
                "package X; open(my $f, \">\", \"PWNED\"); 1;\n",
            )],
        );
    }
    for (body, file, text) in [
        (
            "subprocess.run([\"python3\", \"tools\"], capture_output=True)",
            "tools/__main__.py",
            "x = 1\n",
        ),
        (
            "subprocess.run([\"bash\", \"-c\", \"true\"], env={**os.environ, \"BASH_ENV\": \"tools/env.sh\"})",
            "tools/env.sh",
            "true\n",
        ),
    ] {
        let hook = guard(body);
        let edit = match file.ends_with(".py") {
            true => "open(\"PWNED\", \"w\")\n",
            false => "touch PWNED\n",
        };
        edited_never_runs(
            "python3 ~/.claude/hooks/c.py",
            &[("~/.claude/hooks/c.py", &hook), (file, text)],
            &[(file, edit)],
        );
    }
}

/// `emit pre_tool_call` of a terminal call, without the
/// `RUSTUP_TOOLCHAIN` that `cargo test` puts in the environment: it
/// overrides every toolchain file, so rustfmt would never reach the
/// project's (a user's shell has none).
pub(crate) fn emit_as_users_shell(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    accept: bool,
) -> serde_json::Value {
    let mut emit = crate::dialects::emit_terminal_command(home, project, None, "ls", accept);
    emit.env_remove("RUSTUP_TOOLCHAIN");
    let output = emit.output().expect("run hooks");
    serde_json::from_slice(&output.stdout).expect("emit --json prints JSON")
}

/// H55-1: rustup's proxy runs the toolchain a `rust-toolchain.toml` names
/// by a path: a guard running `rustfmt` there cannot be approved.
#[test]
fn a_toolchain_named_by_a_path_is_never_run() {
    if !installed("rustfmt") {
        return;
    }
    let toolchain = "[toolchain]\npath = \"/proc/self/cwd/tc\"\n";
    let benign = "#!/bin/sh\nexit 0\n";
    let marks = "#!/bin/sh\ntouch PWNED\n";
    let (home, project) = home_with("[claude]");
    write(&project, "src/main.rs", "fn main() {}\n");
    write(&project, "rust-toolchain.toml", toolchain);
    for tool in ["tc/bin/rustfmt", "tc/bin/rustc"] {
        write(&project, tool, benign);
        crate::round30_open::executable(&project.join(tool));
    }
    user_fail_closed_command(
        &home,
        "rustfmt --check src/main.rs >/dev/null 2>&1; echo '{\"decision\":\"block\",\"reason\":\"guarded\"}'",
    );
    let accepted = emit_as_users_shell(&home, &project, true);
    let message = accepted["outcome"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("names its toolchain by a path"),
        "{accepted:#}"
    );
    for tool in ["tc/bin/rustfmt", "tc/bin/rustc"] {
        write(&project, tool, marks);
    }
    let emitted = emit_as_users_shell(&home, &project, false);
    assert!(!project.join("PWNED").exists(), "the project's rustfmt ran");
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// What round 55's rules must still approve once: git and make given the
/// project folder (the hook input's `cwd`, `$CLAUDE_PROJECT_DIR`), an
/// f-string quoting the tool call's path for a formatter or git.
#[test]
fn the_project_folder_and_quoted_paths_are_approved_once() {
    if !installed("python3") || !installed("git") || !installed("make") {
        return;
    }
    for body in [
        "subprocess.run([\"git\", \"-C\", data[\"cwd\"], \"diff\", \"--\", fp], capture_output=True)",
        "subprocess.run([\"git\", \"-C\", os.environ[\"CLAUDE_PROJECT_DIR\"], \"status\"], capture_output=True)",
        "subprocess.run([\"make\", \"-s\", \"-C\", data[\"cwd\"], \"lint\"], capture_output=True)",
        "subprocess.run(f\"git diff -- {shlex.quote(fp)}\", shell=True, capture_output=True)",
    ] {
        let hook = file_guard(body);
        let (home, project) = home_with("[claude]");
        write(&project, "src/app.py", "x = 1\n");
        write(&project, "Makefile", "lint:\n\t@true\n");
        crate::round28::git(&project, &["init", "-q", "."]);
        write(&home.user_home, ".claude/hooks/g.py", &hook);
        user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
        let file = project.join("src/app.py");
        let accepted = emit_naming(&home, &project, &file, true);
        assert_eq!(
            accepted["outcome"]["message"], "guarded",
            "{body}: {accepted:#}"
        );
        write(&project, "src/app.py", "x = 2\n");
        let again = emit_naming(&home, &project, &file, false);
        assert_eq!(again["outcome"]["message"], "guarded", "{body}: {again:#}");
    }
}
