//! Tests of which files a command reaches.

use std::path::Path;

use super::identify;

fn words(text: &str) -> Vec<String> {
    shlex::split(text).expect("split")
}

#[test]
fn interpreter_scripts_wrapper_arguments_and_sourced_files_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hooks = dir.path().join("hooks");
    std::fs::create_dir(&hooks).expect("mkdir");
    std::fs::write(
        hooks.join("run.sh"),
        "#!/bin/bash\nsource ./lib.sh\n. \"common.sh\"\nexec \"$1\"\n",
    )
    .expect("run.sh");
    std::fs::write(hooks.join("lib.sh"), "x=1\n").expect("lib");
    std::fs::write(hooks.join("common.sh"), "y=1\n").expect("common");
    std::fs::write(hooks.join("safety-check.sh"), "exit 0\n").expect("check");
    let run = hooks.join("run.sh");
    let command = format!("bash {} safety-check.sh", run.display());
    let found = identify(&command, Some(&words(&command)), &hooks);
    assert_eq!(found.opaque, None, "{found:?}");
    let names: Vec<_> = found
        .files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for name in ["run.sh", "safety-check.sh", "lib.sh", "common.sh"] {
        assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
    }
    let code = found.code.expect("the script");
    assert_eq!(code.path, run);
    assert!(code.fd_safe && !code.is_program);
}

#[test]
fn substitutions_modules_and_missing_scripts_are_opaque() {
    let cwd = Path::new("/");
    for command in [
        "$(git rev-parse --show-toplevel)/.claude/hooks/check.sh",
        "python3 -m pkg.check",
        "bash /nonexistent/hook.sh",
        "/nonexistent/hook",
    ] {
        let found = identify(command, shlex::split(command).as_deref(), cwd);
        assert!(found.opaque.is_some(), "{command}: {found:?}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("dyn.sh");
    std::fs::write(&script, "source \"$HOME/x.sh\"\n").expect("write");
    let command = format!("sh {}", script.display());
    let found = identify(&command, Some(&words(&command)), dir.path());
    assert!(found.opaque.is_some(), "a dynamic source: {found:?}");
}

#[test]
fn python_siblings_are_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("guard.py"),
        "import helper, os\nfrom rules import X\n",
    )
    .expect("guard");
    std::fs::write(dir.path().join("helper.py"), "X = 1\n").expect("helper");
    std::fs::write(dir.path().join("rules.py"), "X = 2\n").expect("rules");
    let command = format!("python3 {}/guard.py", dir.path().display());
    let found = identify(&command, Some(&words(&command)), Path::new("/"));
    assert_eq!(found.files.len(), 3, "{found:?}");
    assert_eq!(found.opaque, None);
}

#[test]
fn env_runs_its_program_in_the_folder_it_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).expect("mkdir");
    std::fs::write(tools.join("x.sh"), "exit 0\n").expect("tools/x.sh");
    std::fs::write(dir.path().join("x.sh"), "exit 0\n").expect("decoy");
    for command in [
        "env -C tools bash x.sh",
        "env --chdir=tools bash x.sh",
        "env -u HOME -Ctools A=1 bash x.sh",
        "env -S'-C tools bash' x.sh",
        "timeout -s KILL 5 nice -n 3 env -C tools bash x.sh",
    ] {
        let found = identify(command, Some(&words(command)), dir.path());
        assert_eq!(
            found.code.as_ref().map(|c| c.path.clone()),
            Some(tools.join("x.sh")),
            "{command}: {found:?}"
        );
        assert!(!found.files.contains(&dir.path().join("x.sh")), "{command}");
    }
    let found = identify("env tools/x.sh", Some(&words("env tools/x.sh")), dir.path());
    assert!(found.files.contains(&tools.join("x.sh")), "{found:?}");
    let found = identify(
        "env --frob x.sh",
        Some(&words("env --frob x.sh")),
        dir.path(),
    );
    assert!(found.opaque.is_some(), "{found:?}");
}

#[test]
fn a_file_a_shell_string_runs_is_named_inside_the_project_or_out() {
    // Red team round 8, R8-11: `F` outside the project (a repository's
    // installer writes `~/.local/share/acme/x.sh`).
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = dir.path().join("share/acme/x.sh");
    std::fs::create_dir_all(outside.parent().expect("parent")).expect("mkdir");
    std::fs::write(&outside, "true\n").expect("x.sh");
    let project = dir.path().join("project");
    std::fs::create_dir(&project).expect("project");
    let f = outside.display().to_string();
    for form in [
        "cat >/dev/null; sh -c '. F'",
        "cat >/dev/null; sh -c 'sh F'",
        "cat >/dev/null; bash -c \". F\"",
        "cat >/dev/null; bash -c 'source F'",
        "bash -o pipefail -ec 'true && . F'",
        "env FOO=1 sh -c 'exec sh F'",
        "sh -c \"sh -c '. F'\"",
    ] {
        let command = form.replace('F', &f);
        let found = identify(&command, Some(&words(&command)), &project);
        assert!(found.files.contains(&outside), "{command}: {found:?}");
    }
    // What a string cannot name makes the command opaque.
    for form in [
        "sh -c '. \"$x\"'",
        "sh -c 'sh missing.sh'",
        "sh -c 'sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c true\\\\\\\"\\\"\"'",
    ] {
        let found = identify(form, Some(&words(form)), &project);
        assert!(found.opaque.is_some(), "{form}: {found:?}");
    }
}

#[test]
fn the_project_scripts_a_bound_script_runs_are_bound_and_nothing_outside() {
    // Red team R42-8: a user's hook script outside the project running the
    // project's `tools/g.sh` by a static name.
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("project");
    let hooks = dir.path().join("hooks");
    for folder in [project.join("tools/lib"), hooks.clone()] {
        std::fs::create_dir_all(folder).expect("mkdir");
    }
    let g = project.join("tools/g.sh");
    std::fs::write(&g, "sh tools/lib/h.sh\n").expect("g.sh");
    let h = project.join("tools/lib/h.sh");
    std::fs::write(&h, "exit 0\n").expect("h.sh");
    let outside = dir.path().join("other.sh");
    std::fs::write(&outside, "exit 0\n").expect("other.sh");
    std::os::unix::fs::symlink(&outside, project.join("tools/out.sh")).expect("link");
    let program = project.join("tools/prog");
    std::fs::write(&program, b"\x7fELF\x02\x01").expect("prog");
    std::fs::write(hooks.join("side.sh"), "exit 0\n").expect("side.sh");
    std::fs::write(project.join("tools/stamp.sh"), "1\n").expect("stamp.sh");
    let x = hooks.join("x.sh");
    for body in [
        "#!/bin/bash\nsh tools/g.sh a\n",
        "#!/bin/bash\ncd \"$CLAUDE_PROJECT_DIR\"\n./tools/g.sh a\n",
        "sh \"${PWD}/tools/g.sh\"\n",
    ] {
        let body = format!(
            "{body}sh tools/out.sh\nsh ../other.sh\n./tools/prog\nsh {}\nsh \"$(dirname \"$0\")/side.sh\"\ndate > tools/stamp.sh\n",
            outside.display()
        );
        std::fs::write(&x, body).expect("x.sh");
        for command in [
            format!("bash {}", x.display()),
            format!(". {}", x.display()),
        ] {
            let found = identify(&command, Some(&words(&command)), &project);
            assert_eq!(found.computed, None, "{command}: {found:?}");
            // Followed in turn: what g.sh runs is bound too.
            for file in [&g, &h] {
                assert!(found.files.contains(file), "{command}: {found:?}");
            }
            let stamp = project.join("tools/stamp.sh");
            for file in [&program, &stamp] {
                assert!(!found.files.contains(file), "{command}: {found:?}");
            }
            // A user's script elsewhere, by its name or a link, is read and
            // bound too (R45-3).
            for file in [&outside, &project.join("tools/out.sh")] {
                assert!(found.files.contains(file), "{command}: {found:?}");
            }
            // A script beside the user's script is read and bound (R44-11).
            assert!(found.files.contains(&hooks.join("side.sh")), "{found:?}");
        }
    }
    // A script of the project names one beside it.
    for body in [
        "sh \"$(dirname \"$0\")/lib/h.sh\"\n",
        "D=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"; sh \"$D/lib/h.sh\"\n",
        "bash \"${BASH_SOURCE%/*}\"/lib/h.sh\n",
    ] {
        std::fs::write(&g, body).expect("g.sh");
        let found = identify("sh tools/g.sh", Some(&words("sh tools/g.sh")), &project);
        assert!(found.files.contains(&h), "{body}: {found:?}");
    }
}

/// A file a command writes (a redirection's target, `tee`'s file) is no
/// code it runs: bound, it asked again after every run (red team R44-15).
#[test]
fn files_a_command_writes_are_not_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("tool-log.jsonl");
    std::fs::write(&log, "").expect("log");
    std::fs::write(dir.path().join("check.sh"), "exit 0\n").expect("check");
    for command in [
        "jq -c . >> tool-log.jsonl",
        "jq -c . >>tool-log.jsonl",
        "jq -c . > tool-log.jsonl 2>&1",
        "jq -c . &> tool-log.jsonl",
        "jq -c . | tee -a tool-log.jsonl",
        "date | tee tool-log.jsonl >/dev/null",
    ] {
        let found = identify(command, Some(&words(command)), dir.path());
        assert!(!found.files.contains(&log), "{command}: {found:?}");
    }
    // What it runs is still bound.
    let command = "sh check.sh >> tool-log.jsonl";
    let found = identify(command, Some(&words(command)), dir.path());
    assert!(
        found.files.contains(&dir.path().join("check.sh")),
        "{found:?}"
    );
    assert!(!found.files.contains(&log), "{found:?}");
}

/// Text no splitter reads (quotes nested in `${…}`) still binds the
/// scripts it names (red team R44-1).
#[test]
fn text_that_cannot_be_split_still_binds_what_it_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
    let script = dir.path().join("tools/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    let command = r#"x=a; echo "${x#"'"}" >/dev/null; sh tools/g.sh a"#;
    let found = identify(command, shlex::split(command).as_deref(), dir.path());
    assert!(found.files.contains(&script), "{found:?}");
}

/// What a sourced library defines (a function passing `"$@"` on, an
/// alias) holds in the script that sources it (red team R44-3).
#[test]
fn what_a_library_defines_holds_in_its_script() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (lib, main) in [
        (
            "run() { \"$@\"; }\n",
            "run sh \"$(printf tools/g.%s sh)\" a\n",
        ),
        (
            "shopt -s expand_aliases\nalias r=sh\n",
            "r \"$(printf tools/g.%s sh)\" a\n",
        ),
        ("declare -l X=TOOLS/G.SH\n", "sh \"$X\" a\n"),
    ] {
        std::fs::write(dir.path().join("lib.sh"), lib).expect("lib");
        let run = dir.path().join("run.sh");
        std::fs::write(&run, format!("#!/bin/bash\n. ./lib.sh\n{main}")).expect("run");
        let command = format!("bash {}", run.display());
        let found = identify(&command, Some(&words(&command)), dir.path());
        assert!(found.computed.is_some(), "{lib}{main}: {found:?}");
    }
}

/// A user's script running another beside it, which runs the project's
/// script: both are read, the project's script bound (red team R44-11).
#[test]
fn a_script_beside_a_users_script_is_read_too() {
    let user = tempfile::tempdir().expect("user");
    let project = tempfile::tempdir().expect("project");
    std::fs::create_dir_all(project.path().join("tools")).expect("tools");
    let guard = project.path().join("tools/g.sh");
    std::fs::write(&guard, "exit 0\n").expect("g");
    let x = user.path().join("x.sh");
    std::fs::write(&x, "#!/bin/bash\nbash \"$(dirname \"$0\")/y.sh\"\n").expect("x");
    std::fs::write(user.path().join("y.sh"), "#!/bin/bash\nsh tools/g.sh a\n").expect("y");
    let command = format!("bash {}", x.display());
    let found = identify(&command, Some(&words(&command)), project.path());
    let real = guard.canonicalize().expect("real");
    assert!(
        found
            .files
            .iter()
            .any(|f| f.canonicalize().ok().as_ref() == Some(&real)),
        "{found:?}"
    );
}

#[test]
fn an_awk_program_file_is_read_as_the_same_program_inline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path();
    let runs = "BEGIN { while ((getline l < \"tools/x.txt\") > 0) system(l) }\n";
    let prints = "# fields: a | b\n{ print $1 }\nEND { print NR }\n";
    for (name, text) in [
        ("x.awk", runs),
        ("prog.txt", runs),
        ("p.awk", prints),
        ("run.sh", "#!/bin/sh\nawk -F: -f prog.txt data.txt\n"),
    ] {
        std::fs::write(project.join(name), text).expect("write");
    }
    for command in [
        "awk -f x.awk",
        "gawk -F: -f prog.txt in.txt",
        "cd . && awk --file=prog.txt in.txt",
        "sh run.sh",
        "awk -f \"$(printf p.%s awk)\" in.txt",
    ] {
        let found = identify(command, Some(&words(command)), project);
        assert!(found.computed.is_some(), "{command}: {found:?}");
    }
    for command in ["awk -f p.awk data.txt", "awk '{ print $1 }' data.txt"] {
        let found = identify(command, Some(&words(command)), project);
        assert_eq!(found.computed, None, "{command}: {found:?}");
    }
}

#[test]
fn a_file_a_foreign_programs_own_text_names_is_read_in_its_language() {
    // Red team round 61, U-39: `vim -c 'source g.x'` bound nothing of g.x.
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("g.x");
    std::fs::write(&script, "call system(\"make -s lint\")\n").expect("script");
    let command = format!("vim -es -c 'source {}' -c 'qa!'", script.display());
    let found = identify(&command, Some(&words(&command)), dir.path());
    assert!(found.files.contains(&script), "{found:?}");
    assert!(found.foreign.contains(&script), "{found:?}");
}
