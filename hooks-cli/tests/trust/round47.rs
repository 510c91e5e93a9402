//! Red team round 47 against round 46's fixes: a second script named
//! through a variable (`Y=$HOME/bin/y; "$Y" "$(…)"`, `D=$HOME/bin;
//! "$D/y"`: R47-1); a script the hook writes and then runs (R47-11);
//! Python's other ways to a program (aliases, `getattr`, `exec`, list
//! changes, `args=`: R47-2); and the realistic Python hooks round 46's
//! reading refused (R47-12), which run again.

use crate::dialects::{executable, home_with, write};
use crate::round39::{accepted_then_edited, runs_guarded};
use crate::round40::edit_never_runs;

/// The user's hook `bash ~/.claude/hooks/x.sh` holding `text`, with
/// `~/bin/y` holding `y`: accepted, then the project's guard edited; the
/// edit never runs.
fn through_second_script(text: &str, y: &str) {
    let (home, project) = home_with("[claude]");
    executable(&write(&home.user_home, "bin/y", y));
    write(&home.user_home, "lib/y.sh", y);
    write(&home.user_home, ".claude/hooks/x.sh", text);
    accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
}

#[test]
fn a_second_script_named_through_a_variable_is_read_with_its_callers_words() {
    let computed = "\"$(printf tools/g.%s sh)\"";
    let runs_first = "#!/bin/sh\nsh \"$1\" a\n";
    for x in [
        format!("Y=\"$HOME/bin/y\"; \"$Y\" {computed}"),
        format!("Y=$HOME/bin/y; $Y {computed}"),
        format!("D=$HOME/bin; \"$D/y\" {computed}"),
        format!("L=\"$HOME/lib/y.sh\"; bash \"$L\" {computed}"),
    ] {
        through_second_script(&format!("#!/bin/bash\n{x}\n"), runs_first);
    }
    // Named through a folder variable, y itself is read and bound.
    through_second_script(
        "#!/bin/bash\nD=$HOME/bin; \"$D/y\" a\n",
        "#!/bin/sh\nsh tools/g.sh a\n",
    );
}

#[test]
fn a_script_the_hook_writes_and_then_runs_is_never_approved() {
    for command in [
        "mkdir -p ~/.cache; printf 'sh tools/g.%s a\\n' sh > ~/.cache/r47y.sh; sh ~/.cache/r47y.sh; rm -f ~/.cache/r47y.sh",
        "printf 'sh tools/g.sh a\\n' | tee /tmp/r47y.sh >/dev/null; . /tmp/r47y.sh",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

#[test]
fn python_reaching_a_program_another_way_is_never_approved() {
    for body in [
        "from subprocess import run as r\nr(['sh', 'tools/g.' + 'sh', 'a'])",
        "f = subprocess.run\nf(['sh', 'tools/g.' + 'sh', 'a'])",
        "getattr(subprocess, 'r' + 'un')(['sh', 'tools/g.sh', 'a'])",
        "cmd = ['sh', 'tools/h.sh', 'a']\ncmd[1] = 'tools/g.' + 'sh'\nsubprocess.run(cmd)",
        "cmd = ['sh']\ncmd.append('tools/g.' + 'sh')\nsubprocess.run(cmd)",
        "subprocess.run(args=['sh', 'tools/g.' + 'sh', 'a'])",
        "os.execv('/bin/sh', ['sh', 'tools/g.' + 'sh', 'a'])",
    ] {
        edit_never_runs("python3 x.py", &|project| {
            write(
                project,
                "x.py",
                &format!("import os, subprocess, sys\nsys.stdin.read()\n{body}\n"),
            );
        });
    }
}

#[test]
fn realistic_python_hooks_run() {
    // Round 47's R47-12: each ran on the baseline, refused by round 46's
    // reading; the guard (`tools/g.sh`) must answer.
    for body in [
        "import shutil\nexe = shutil.which('sh')\nif exe:\n    subprocess.run([exe, 'tools/g.sh'])",
        "SH = ['sh', 'tools/g.sh']\nsubprocess.run(SH + [path])",
        "def run(*args):\n    return subprocess.run(list(args), check=False)\nrun('sh', 'tools/g.sh', path)",
        "RUNNERS = {'.sh': ['sh', 'tools/g.sh'], '.py': ['sh', 'tools/g.sh']}\nsubprocess.run(RUNNERS['.sh'] + [path])",
        "import shlex\nsubprocess.run(f'sh tools/g.sh {shlex.quote(path)}', shell=True)",
    ] {
        let (home, project) = home_with("[claude]");
        crate::round39::scripts(&home, &project, crate::round39::GUARDS);
        write(
            &project,
            "x.py",
            &format!("import os, subprocess, sys\nsys.stdin.read()\npath = 'x'\n{body}\n"),
        );
        runs_guarded(&home, &project, "python3 x.py");
    }
}

/// R47-6: the project folder reaching a user's Python module path through
/// a name (`root = os.environ["CLAUDE_PROJECT_DIR"]`) binds the project
/// module it imports.
#[test]
fn a_users_python_importing_from_the_project_through_a_name_binds_the_module() {
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/g.py",
        "import os, sys\nsys.stdin.read()\nroot = os.environ['CLAUDE_PROJECT_DIR']\nsys.path.insert(0, root)\nimport hookconf\nprint('{\"decision\": \"block\", \"reason\": \"guarded\"}')\n",
    );
    write(&project, "hookconf.py", "x = 1\n");
    crate::dialects::user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let accepted = crate::dialects::emit_terminal(&home, &project, "ls", true);
    crate::round39::assert_guarded("root", &accepted);
    crate::round46::module_edit_never_runs(&home, &project, "hookconf.py");
}

/// R47-8: `hooks_from: []`, the way out the block names, lifts an imported
/// guard's block though the managed folder is missing (its warning is no
/// sign that the list was lost).
#[test]
fn taking_a_format_out_lifts_its_block_with_no_managed_folder() {
    let (home, project) = home_with("[claude]");
    let guard = home.script("guard.sh", "#!/bin/sh\ncat >/dev/null\nexit 2\n");
    crate::dialects::user_fail_closed_command(&home, &guard.display().to_string());
    let emit = |home: &crate::support::TempHome| {
        let out = crate::dialects::emit_terminal_command(home, &project, None, "ls", true)
            .env("HERMES_MANAGED_DIR", "/nonexistent-r47-managed")
            .output()
            .expect("emit");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON")
    };
    assert_eq!(emit(&home)["outcome"]["action"], serde_json::json!("block"));
    home.config("hooks_from: []\n");
    let emitted = emit(&home);
    assert_ne!(
        emitted["outcome"]["action"],
        serde_json::json!("block"),
        "{emitted:#}"
    );
}

/// A `shift` before a loop takes off its written count: a retry wrapper's
/// caller words stay data (round 43's `u-shift-wrap`, refused while any
/// loop in the text made every shift unbounded, and while the second
/// reading counted the shifts again).
#[test]
fn a_shift_before_a_loop_takes_off_its_count() {
    let (home, project) = home_with("[claude]");
    crate::round39::scripts(&home, &project, crate::round39::GUARDS);
    runs_guarded(
        &home,
        &project,
        "log() { local l=$1; shift; echo \"$l $*\" >&2; }; retry() { local n=$1; shift; for i in $(seq \"$n\"); do \"$@\" && return 0; done; return 1; }; retry 3 sh tools/g.sh \"$(cat)\"; log info done",
    );
}

/// A Python script is read whole for the commands it starts: padding past
/// the first MiB hid a command built when it runs.
#[test]
fn a_python_script_is_read_whole_for_what_it_starts() {
    let padding = format!("# {}\n", "x".repeat(3 << 19));
    edit_never_runs("python3 x.py", &|project| {
        write(
            project,
            "x.py",
            &format!(
                "import subprocess, sys\nsys.stdin.read()\n{padding}subprocess.run(['sh', 'tools/g.' + 'sh', 'a'])\n"
            ),
        );
    });
}
