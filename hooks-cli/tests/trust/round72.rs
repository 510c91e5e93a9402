//! Red team round 70's open row (C-01g) and its siblings, through the real
//! binary: the environment a program is given reaches what it runs. A
//! makefile's `export CARGO_HOME = ch`, `make CARGO_HOME=ch`,
//! `CARGO_HOME=ch npm run b`, `CARGO_HOME=ch sh -c 'cargo build'` and
//! `GIT_CONFIG_GLOBAL=proj.gc make c` each made the cargo or git their
//! recipe or script runs read settings (`ch/config.toml`'s wrapper, a
//! hooks folder) the binding never read: the edit ran unasked on the code
//! before. The tests check what the approval binds, so they hold without
//! the tools.

use crate::round65::{asks_again, refused};

const MANIFEST: (&str, &str) = (
    "Cargo.toml",
    "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
);
const MAIN: (&str, &str) = ("src/main.rs", "fn main() {}\n");
const SETTINGS: (&str, &str) = ("ch/config.toml", "[build]\nrustc-wrapper = \"ch/w.sh\"\n");
const WRAPPER: (&str, &str) = ("ch/w.sh", "exec \"$@\"\n");
const EDITED: (&str, &str) = ("ch/w.sh", "touch PWNED\nexec \"$@\"\n");
const BUILD: &str = "build:\n\tcargo build -q --frozen\n";

/// `command` run with `more` beside a crate whose `ch/` cargo home wraps
/// rustc: the wrapper edited asks again.
pub(crate) fn wrapper_asks_again(command: &str, more: &[(&str, &str)]) {
    let mut setup = vec![MANIFEST, MAIN, SETTINGS, WRAPPER];
    setup.extend_from_slice(more);
    asks_again(command, &setup, EDITED, "ch/w.sh");
}

#[test]
fn a_makefiles_exported_variables_reach_its_recipes() {
    for makefile in [
        format!("export CARGO_HOME = ch\n{BUILD}"),
        format!("CARGO_HOME := ch\nexport CARGO_HOME\n{BUILD}"),
        format!("CARGO_HOME = ch\n.EXPORT_ALL_VARIABLES:\n{BUILD}"),
        format!("CARGO_HOME = ch\nexport\n{BUILD}"),
        format!("build: export CARGO_HOME = ch\n{BUILD}"),
        format!("override export CARGO_HOME = $(CURDIR)/ch\n{BUILD}"),
    ] {
        wrapper_asks_again("make -s build", &[("Makefile", &makefile)]);
    }
    // An included file's export reaches the recipes read before it.
    let including = format!("include env.mk\n{BUILD}");
    let env = ("env.mk", "export CARGO_HOME = ch\n");
    wrapper_asks_again("make -s build", &[("Makefile", &including), env]);
    // `make -f a.mk -f b.mk`: the second's export, the first's recipe.
    let first = ("a.mk", BUILD);
    let second = ("b.mk", "export CARGO_HOME = ch\n");
    wrapper_asks_again("make -s -f a.mk -f b.mk build", &[first, second]);
}

#[test]
fn what_a_program_is_given_reaches_what_it_runs() {
    let makefile = ("Makefile", BUILD);
    wrapper_asks_again("CARGO_HOME=ch make -s build", &[makefile]);
    wrapper_asks_again("make -s build CARGO_HOME=ch", &[makefile]);
    wrapper_asks_again("export CARGO_HOME=ch; make -s build", &[makefile]);
    let scripts = (
        "package.json",
        "{\"scripts\":{\"a\":\"CARGO_HOME=ch npm run b\",\"b\":\"cargo build -q --frozen\"}}",
    );
    wrapper_asks_again("CARGO_HOME=ch npm run b", &[scripts]);
    wrapper_asks_again("npm run a", &[scripts]);
    wrapper_asks_again("CARGO_HOME=ch sh -c 'cargo build -q --frozen'", &[]);
    wrapper_asks_again(
        "export CARGO_HOME=ch; bash -c 'cargo build -q --frozen'",
        &[],
    );
    let recursive = (
        "Makefile",
        "a:\n\tCARGO_HOME=ch $(MAKE) b\nb:\n\tcargo build -q --frozen\n",
    );
    wrapper_asks_again("make -s a", &[recursive]);
    // git's settings given to make reach the `git commit` of its recipe.
    let commit = "c:\n\tgit -c user.email=a@b -c user.name=a commit -q --allow-empty -m x\n";
    let hook = (".githooks/pre-commit", "#!/bin/sh\ntrue\n");
    let edited = (".githooks/pre-commit", "#!/bin/sh\ntouch PWNED\n");
    let settings = ("proj.gc", "[core]\n\thooksPath = .githooks\n");
    asks_again(
        "GIT_CONFIG_GLOBAL=proj.gc make -s c",
        &[("Makefile", commit), hook, settings],
        edited,
        ".githooks/pre-commit",
    );
    let exporting = format!("export GIT_CONFIG_GLOBAL = proj.gc\n{commit}");
    asks_again(
        "make -s c",
        &[("Makefile", &exporting), hook, settings],
        edited,
        ".githooks/pre-commit",
    );
}

/// A file included by a pattern that exports what a reading looks up:
/// what the recipes read before it run with is not read.
#[test]
fn an_export_from_a_file_included_by_a_pattern_cannot_be_approved() {
    let makefile = (
        "Makefile",
        "include *.mk\nbuild:\n\tcargo build -q --frozen\n",
    );
    refused(
        "make -s build",
        &[
            MANIFEST,
            MAIN,
            SETTINGS,
            WRAPPER,
            makefile,
            ("env.mk", "export CARGO_HOME = ch\n"),
        ],
        Some(EDITED),
        "exports CARGO_HOME to every recipe",
    );
}

#[test]
fn a_justfiles_exports_and_a_sourced_files_reach_what_runs_after() {
    let recipe = "b:\n    cargo build -q --frozen\n";
    for justfile in [
        format!("export CARGO_HOME := \"ch\"\n{recipe}"),
        format!("set export\nCARGO_HOME := \"ch\"\n{recipe}"),
        format!("set dotenv-load\n{recipe}"),
    ] {
        wrapper_asks_again(
            "just b",
            &[("justfile", &justfile), (".env", "CARGO_HOME=ch\n")],
        );
    }
    let env = ("env.sh", "export CARGO_HOME=ch\n");
    wrapper_asks_again("sh -c '. ./env.sh; cargo build -q --frozen'", &[env]);
    let script = ("b.sh", ". ./env.sh\ncargo build -q --frozen\n");
    wrapper_asks_again("bash b.sh", &[env, script]);
    let makefile = ("Makefile", "b:\n\tbash b.sh\n");
    wrapper_asks_again("make -s b", &[env, script, makefile]);
}

/// The wrapper (`bash "$(…)/hooks/run.sh" safety-check.sh`, the
/// wrapper `cd`-ing beside itself) in the user's own hook: the folder
/// written as the one it runs in or its checkout's top is read as the path,
/// so the script argument is bound; another computed folder cannot be
/// approved (issue 27 audit: the script ran changed, unasked).
#[test]
fn a_users_wrapper_in_a_computed_folder_binds_the_script_it_runs() {
    let run = ("hooks/run.sh", "cd $(dirname $0); bash $1\n");
    let check = ("hooks/safety-check.sh", "echo {}\n");
    let edited = ("hooks/safety-check.sh", "touch PWNED; echo {}\n");
    for command in [
        "bash \"$(git rev-parse --show-toplevel)/hooks/run.sh\" safety-check.sh",
        "bash \"$(pwd)/hooks/run.sh\" safety-check.sh",
        "bash \"$(git -C \"$CLAUDE_PROJECT_DIR\" rev-parse --show-toplevel)/hooks/run.sh\" safety-check.sh",
    ] {
        asks_again(command, &[run, check], edited, "hooks/safety-check.sh");
    }
    refused(
        "bash \"$(dirname \"$(git rev-parse --git-dir)\")/hooks/run.sh\" safety-check.sh",
        &[run, check],
        Some(edited),
        "a folder named only when it runs",
    );
}

/// A config.yaml guard whose `fail_closed` is spelled another way
/// (`FailClosed`, `fail-closed`, `failclosed`) and never approved blocks,
/// and the warning names the key (issue 27 audit: it was ignored, so the
/// unapproved guard let `rm -rf /` through).
#[test]
fn a_config_guard_spelling_fail_closed_another_way_still_blocks() {
    for key in ["FailClosed", "fail-closed", "failclosed"] {
        let (home, project) = crate::dialects::home_with("[]");
        let guard = crate::dialects::write(&home.user_home, "guard.sh", "echo {}\n");
        home.config(&format!(
            "hooks:\n  pre_tool_call:\n    - command: \"bash {}\"\n      {key}: true\n",
            guard.display()
        ));
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(emitted["outcome"]["action"], "block", "{key}: {emitted:#}");
        let listed = home.hooks(&["list"]);
        let warned = format!("{}{}", listed.stdout(), listed.stderr());
        assert!(
            warned.contains(&format!("{key} read as fail_closed")),
            "{key}: {warned}"
        );
    }
}

/// What a test the runner finds starts (`subprocess.run(["make", …])`,
/// `execSync("make -s lint")`): the definitions it executes are bound, as
/// a hook's own code's are; so are the variables it gives them.
#[test]
fn what_the_tests_a_runner_finds_start_is_bound() {
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edited = ("Makefile", "lint:\n\t@touch PWNED\n");
    let python = (
        "test_a.py",
        "import subprocess\ndef test_a():\n    subprocess.run([\"make\", \"-s\", \"lint\"])\n",
    );
    asks_again(
        "python3 -m pytest -q",
        &[makefile, python],
        edited,
        "Makefile",
    );
    let node = (
        "a.test.js",
        "test(\"a\", () => { require(\"child_process\").execSync(\"make -s lint\"); });\n",
    );
    asks_again(
        "npx jest",
        &[makefile, node, ("package.json", "{}")],
        edited,
        "Makefile",
    );
    let git = (
        "test_g.py",
        "import subprocess\ndef test_g():\n    subprocess.run([\"git\", \"commit\", \"-q\", \"--allow-empty\", \"-m\", \"x\"], env={\"GIT_CONFIG_GLOBAL\": \"gc\"})\n",
    );
    let settings = ("gc", "[core]\n\thooksPath = gh\n");
    let hook = ("gh/pre-commit", "#!/bin/sh\ntrue\n");
    let changed = ("gh/pre-commit", "#!/bin/sh\ntouch PWNED\n");
    asks_again(
        "python3 -m pytest -q",
        &[git, settings, hook],
        changed,
        "gh/pre-commit",
    );
}

/// tox's `setenv` reaches the commands it runs; a recipe's own `export
/// X=v; program` is read (it could not be approved before).
#[test]
fn tox_setenv_and_a_recipes_own_export_reach_the_program() {
    let tox = (
        "tox.ini",
        "[tox]\nskipsdist = true\n[testenv:b]\nskip_install = true\nsetenv =\n    CARGO_HOME = {toxinidir}/ch\nallowlist_externals = cargo\ncommands = cargo build -q --frozen\n",
    );
    wrapper_asks_again("tox -q -e b", &[tox]);
    let recipe = (
        "Makefile",
        "b:\n\texport CARGO_HOME=ch; cargo build -q --frozen\n",
    );
    wrapper_asks_again("make -s b", &[recipe]);
}

/// A repository's compiled modules (`__pycache__/h.cpython-3X.pyc`: an
/// unchecked-hash one, which Python uses whatever the source says, or
/// pytest's rewritten tests) never stand in for the bound sources: the
/// Python a hook starts keeps compiled modules in the Hermes home
/// (`sys.pycache_prefix`; on the code before it was unset, and such a
/// file committed ran unasked under `pytest`).
#[test]
fn a_hooks_python_keeps_compiled_modules_in_the_hermes_home() {
    let command =
        "python3 -c \"import sys; open('prefix.txt', 'w').write(str(sys.pycache_prefix))\"";
    let (home, project) = crate::round65::approved(command, &[("README", "r\n")]);
    let prefix = std::fs::read_to_string(project.join("prefix.txt")).expect("the hook ran");
    let expected = home.hermes.join("cache").join("pycache");
    assert_eq!(prefix, expected.display().to_string());
}

/// A project's own Python hook, in its sandbox, keeps its compiled modules
/// in a folder of that project's that it may write: with the user's folder
/// read-only to it, every run compiled what it imported again (600 ms more
/// per run); the user's folder gets none of them.
#[test]
fn a_project_hooks_python_keeps_compiled_modules_in_its_own_folder() {
    if !crate::linked_tool_folder::sandbox_applies("a project hook's bytecode folder") {
        return;
    }
    let (home, project) = crate::dialects::home_with("[claude]");
    let command = "python3 -c \"import sys, json, argparse; open('prefix.txt', 'w').write(str(sys.pycache_prefix)); print('{}')\"";
    let approved = crate::dialects::approve_project_hook(&home, &project, command);
    assert_eq!(approved["runs"][0]["sandbox"], "project", "{approved:#}");
    let prefix = std::fs::read_to_string(project.join("prefix.txt")).expect("the hook ran");
    let folder = std::path::Path::new(&prefix);
    assert!(
        folder.starts_with(home.hermes.join("cache").join("pycache-projects")),
        "{prefix}"
    );
    let compiled = walkdir_count(folder, "pyc");
    assert!(compiled > 0, "nothing was compiled into {prefix}");
    assert_eq!(
        walkdir_count(&home.hermes.join("cache").join("pycache"), "pyc"),
        0
    );
}

/// How many files ending in `.{ending}` are under `folder`.
fn walkdir_count(folder: &std::path::Path, ending: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => walkdir_count(&entry.path(), ending),
            _ => usize::from(entry.path().extension().is_some_and(|e| e == ending)),
        })
        .sum()
}

/// `env -i python3 -c "import json"`: the user's Python without the
/// `PYTHONSAFEPATH` it was given reads the project's `json.py`, so that is
/// bound (it ran unasked).
#[test]
fn a_python_started_without_the_environment_binds_what_the_folder_stands_in_for() {
    let edited = ("json.py", "open('PWNED', 'w')\ndumps = str\n");
    asks_again(
        "env -i python3 -c 'import json'",
        &[("README", "r\n")],
        edited,
        "json.py",
    );
}

/// pre-commit installed from the project's own `.venv`: a `git commit`
/// guard was refused, quoting the `cd "$(git config …)"` of a `.sample`
/// hook git never runs (round 72, U-1, a regression of round 70's
/// readings); it is approved, and an edit of what its hook runs asks.
#[test]
fn pre_commit_installed_from_the_projects_venv_is_approved() {
    use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    let template = crate::round71::fixture(include_str!("fixtures/pre-commit-4-hook-tmpl"));
    let installed = template.replace(
        "INSTALL_PYTHON=''\nARGS=(hook-impl)\n",
        "INSTALL_PYTHON=.venv/bin/python\nARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)\n",
    );
    write(&project, ".git/hooks/pre-commit", &installed);
    write(
        &project,
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: l\n    name: l\n    entry: make -s lint\n    language: system\n    pass_filenames: false\n",
    );
    write(&project, "Makefile", "lint:\n\t@true\n");
    let venv = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(&project)
        .status()
        .expect("python3");
    assert!(venv.success());
    assert!(
        project
            .join(".git/hooks/sendemail-validate.sample")
            .exists()
    );
    let command = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
    user_fail_closed_command(&home, &crate::round59::guard_running(command));
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(approved["outcome"]["message"], "guarded", "{approved:#}");
    write(&project, "Makefile", "lint:\n\t@touch PWNED\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "{emitted:#}");
    assert!(
        emitted["outcome"]["message"]
            .to_string()
            .contains("Makefile"),
        "{emitted:#}"
    );
}

/// A makefile with a Latin-1 byte in a comment was refused as "cannot be
/// read whole (over 1 MiB…)" (U-3); one outside a comment still is.
#[test]
fn a_makefile_not_utf8_in_a_comment_is_read() {
    let (home, project) = crate::dialects::home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    std::fs::write(
        project.join("Makefile"),
        b"# Autor: M\xfcller\nlint:\n\t@true\n",
    )
    .expect("w");
    let command = "make -s lint";
    crate::dialects::user_fail_closed_command(&home, &crate::round59::guard_running(command));
    let approved = crate::dialects::emit_terminal(&home, &project, "ls", true);
    assert_eq!(approved["outcome"]["message"], "guarded", "{approved:#}");
    std::fs::write(project.join("Makefile"), b"lint:\n\t@sh x\xfc.sh\n").expect("w");
    let refused = crate::dialects::emit_terminal(&home, &project, "ls", true);
    let said = refused["outcome"]["message"].to_string();
    assert!(said.contains("not UTF-8 outside its comments"), "{said}");
}

/// A folder past the system's path limit (`cd -P` into nested folders of
/// 200 characters): the reading failed and bound nothing, so a script
/// there ran edited, unasked (LP-01..03); it cannot be approved.
#[test]
fn a_folder_past_the_path_limit_cannot_be_approved() {
    let part = "0".repeat(200);
    let half: Vec<&str> = std::iter::repeat_n(part.as_str(), 12).collect();
    let half = half.join("/");
    let command = format!("cd -P {half} && cd -P {half} && sh x.sh");
    crate::round65::refused(
        &command,
        &[("README", "r\n")],
        None,
        "longer than the system allows",
    );
}

/// A Rust test's `Command::new("make")`: `cargo test` runs it, so the
/// Makefile it runs is bound (it ran edited, unasked).
#[test]
fn what_a_crates_code_starts_is_bound() {
    let test = (
        "tests/it.rs",
        "#[test]\nfn t() { std::process::Command::new(\"make\").args([\"-s\", \"lint\"]).status().unwrap(); }\n",
    );
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edited = ("Makefile", "lint:\n\t@touch PWNED\n");
    asks_again(
        "cargo test -q --frozen --no-run",
        &[MANIFEST, MAIN, test, makefile],
        edited,
        "Makefile",
    );
}
