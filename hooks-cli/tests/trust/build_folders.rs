//! Red team round 72's open rows R72-3b, through the real binary: cargo's
//! `target/` and tox's `.tox` in the project held a test binary or an
//! environment an approved guard ran without any binding naming it. A
//! hook's cargo and tox now build in a folder of the Hermes home; nox
//! reusing its `.nox` environments, and an option or setting putting those
//! folders back in the project, cannot be approved.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round59::guard_running;
use crate::round62_tools::{cargo, generate_lockfile};
use crate::support::TempHome;

/// `emit_terminal` of `ls` with this process's `CARGO_TARGET_DIR` (a test
/// run's own may be set) set to `inherited`, or unset.
fn emit(
    home: &TempHome,
    project: &std::path::Path,
    accept: bool,
    inherited: Option<&std::path::Path>,
) -> serde_json::Value {
    let mut emit = crate::dialects::emit_terminal_command(home, project, None, "ls", accept);
    emit.env_remove("TOX_WORK_DIR");
    match inherited {
        Some(folder) => emit.env("CARGO_TARGET_DIR", folder),
        None => emit.env_remove("CARGO_TARGET_DIR"),
    };
    let output = emit.output().expect("hooks runs");
    serde_json::from_slice(&output.stdout).expect("emit --json")
}

/// CT-03: a test binary replaced in the project's `target/` after the
/// approved run was taken for fresh and run by the next `cargo test`.
#[test]
fn a_guards_cargo_builds_in_the_hermes_home_and_runs_no_binary_left_in_the_project() {
    if !installed("cargo") {
        return;
    }
    let (home, project) = home_with("[claude]");
    let marks_folder = tempfile::tempdir().expect("marks");
    let marks = marks_folder.path();
    write(
        &project,
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let test = format!(
        "fn main() {{}}\n#[test]\nfn t() {{ std::fs::write({:?}, \"\").ok(); }}\n",
        marks.join("RAN")
    );
    write(&project, "src/main.rs", &test);
    generate_lockfile(&project);
    user_fail_closed_command(&home, &guard_running(&cargo("test")));
    let approved = emit(&home, &project, true, None);
    assert!(
        marks.join("RAN").exists(),
        "the approved run never ran the test: {approved:#}"
    );
    assert!(
        !project.join("target").exists(),
        "cargo built in the project"
    );
    let builds = home.hermes.join("cache").join("builds");
    let built: Vec<_> = std::fs::read_dir(&builds)
        .expect("builds folder")
        .flatten()
        .collect();
    assert!(
        built
            .iter()
            .any(|folder| folder.path().join("cargo-target").is_dir()),
        "no cargo target folder under {}",
        builds.display()
    );
    // What a repository (or a tool call) leaves where cargo used to look.
    let planted = project.join("target/debug/deps");
    std::fs::create_dir_all(&planted).expect("deps");
    for name in ["p-0000000000000000", "p"] {
        let binary = planted.join(name);
        let pwned = marks.join("PWNED");
        std::fs::write(&binary, format!("#!/bin/sh\ntouch {}\n", pwned.display())).expect("plant");
        crate::dialects::executable(&binary);
    }
    let again = emit(&home, &project, false, None);
    assert!(!marks.join("PWNED").exists(), "a planted binary ran");
    assert_eq!(again["outcome"]["message"], "guarded", "{again:#}");
}

/// The folders a hook's cargo and tox are given are the home's, and the
/// same for every run in one project, also where this process's own
/// `CARGO_TARGET_DIR` names the project's `target`.
#[test]
fn a_hooks_cargo_and_tox_folders_are_the_homes() {
    let (home, project) = home_with("[claude]");
    let seen = home.user_home.join("seen");
    let shows = format!(
        "cat >/dev/null; echo \"$CARGO_TARGET_DIR $TOX_WORK_DIR\" >> {}",
        seen.display()
    );
    user_fail_closed_command(&home, &shows);
    emit(&home, &project, true, None);
    emit(&home, &project, false, Some(&project.join("target")));
    let text = std::fs::read_to_string(&seen).expect("the hook ran");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0], lines[1]);
    let builds = home.hermes.join("cache").join("builds");
    for folder in lines[0].split(' ') {
        assert!(
            folder.starts_with(builds.to_str().expect("UTF-8")),
            "{text}"
        );
    }
}

/// nox reusing the environments it keeps in `.nox`, tox keeping one in a
/// folder of its own, and cargo or tox told to use a folder of the project
/// cannot be approved: a fail-closed guard running them blocks.
#[test]
fn tools_reusing_what_they_keep_in_the_project_cannot_be_approved() {
    let noxfile =
        "import nox\n\n@nox.session\ndef t(s):\n    s.run(\"python3\", \"-c\", \"print(1)\")\n";
    let reusing = "import nox\nnox.options.reuse_existing_virtualenvs = True\n\n@nox.session\ndef t(s):\n    s.run(\"python3\", \"-c\", \"print(1)\")\n";
    let tox = "[tox]\nskipsdist = true\n[testenv:t]\nskip_install = true\nenvdir = .venv\ncommands = python3 -c \"print(1)\"\n";
    for (run, file, text) in [
        ("nox -R -s t", "noxfile.py", noxfile),
        ("nox -s t", "noxfile.py", reusing),
        ("tox -qq -e t", "tox.ini", tox),
        (
            "cargo test -q --target-dir target",
            "Cargo.toml",
            "[package]\nname = \"p\"\n",
        ),
        (
            "tox -qq --workdir .t -e t",
            "tox.ini",
            "[tox]\nskipsdist = true\n",
        ),
    ] {
        let (home, project) = home_with("[claude]");
        write(&project, file, text);
        user_fail_closed_command(&home, &format!("cat >/dev/null; {run}; echo '{{}}'"));
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_eq!(emitted["outcome"]["action"], "block", "{run}: {emitted:#}");
        let said = emitted.to_string();
        assert!(said.contains("cannot be approved"), "{run}: {emitted:#}");
    }
}
