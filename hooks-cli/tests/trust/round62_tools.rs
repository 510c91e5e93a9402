//! Red team round 62, through the real binary: build, lint and hook tools
//! a user's fail-closed guard runs in the project, whose settings are code
//! or run code (cargo's build scripts, proc macros and build dependencies,
//! CMake's `execute_process`, ninja's rules, flake8's local plugins). Each
//! ran the project's edited code unasked on the code before. Each row first
//! checks the approved run reached the code, so a row cannot pass for a
//! tool that never ran.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round59::guard_running;

/// `run` approved in a project holding `files` (each run leaves `RAN` in
/// a folder outside the project, which `MARKS` in a text stands for: a
/// mark the project's code names inside it would itself be bound), then
/// `edit` made: it runs again unasked before the edit, never the edit
/// after, and the guard blocks.
fn tool_never_runs_an_edit(run: &str, files: &[(&str, &str)], edit: (&str, &str)) {
    let (home, project) = home_with("[claude]");
    let marks_folder = tempfile::tempdir().expect("marks");
    let marks = marks_folder.path().to_path_buf();
    let marked = |text: &str| text.replace("MARKS", &marks.display().to_string());
    crate::round28::git(&project, &["init", "-q", "."]);
    for (file, text) in files {
        write(&project, file, &marked(text));
    }
    if project.join("Cargo.toml").exists() {
        // As a checkout has it: the first build writes none then.
        generate_lockfile(&project);
    }
    user_fail_closed_command(&home, &guard_running(run));
    emit_terminal(&home, &project, "ls", true);
    assert!(
        marks.join("RAN").exists(),
        "{run}: the approved run never reached the code"
    );
    // The mark its code names is bound too: approved again once it is
    // there (a recipe's `touch` of it, read while it runs, is a change).
    if !run.starts_with("cargo") && !run.contains(" cargo ") {
        return edited(&home, &project, &marks, run, (edit.0, &marked(edit.1)));
    }
    emit_terminal(&home, &project, "ls", true);
    let again = emit_terminal(&home, &project, "ls", false);
    assert_eq!(again["outcome"]["message"], "guarded", "{run}: {again:#}");
    edited(&home, &project, &marks, run, (edit.0, &marked(edit.1)));
}

/// Makes `edit` in `project` and emits: the edit never runs (no `PWNED`
/// among `marks`), the guard blocks.
fn edited(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    marks: &std::path::Path,
    run: &str,
    edit: (&str, &str),
) {
    write(project, edit.0, edit.1);
    let emitted = emit_terminal(home, project, "ls", false);
    assert!(
        !marks.join("PWNED").exists(),
        "{run} {edit:?}: the edit ran unasked"
    );
    assert_eq!(emitted["outcome"]["action"], "block", "{run}: {emitted:#}");
}

/// Writes `project`'s `Cargo.lock` (offline).
pub(crate) fn generate_lockfile(project: &std::path::Path) {
    let locked = std::process::Command::new("cargo")
        .args(["generate-lockfile", "--offline", "-q"])
        .current_dir(project)
        .status();
    assert!(
        locked.is_ok_and(|status| status.success()),
        "cargo generate-lockfile"
    );
}

/// `cargo SUBCOMMAND` with the toolchain of the user running the tests.
pub(crate) fn cargo(subcommand: &str) -> String {
    let real_home = std::env::var("HOME").unwrap_or_default();
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{real_home}/.cargo"));
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or(format!("{real_home}/.rustup"));
    format!("CARGO_HOME={cargo_home} RUSTUP_HOME={rustup_home} cargo {subcommand} -q --offline")
}

const PACKAGE: &str = "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
const MAIN: &str = "fn main() {}\n";
const WRITES: &str = "pub fn f() { std::fs::write(\"MARKS/RAN\", \"\").ok(); }\n";
const WRITES_EDITED: &str = "pub fn f() { std::fs::write(\"MARKS/PWNED\", \"\").ok(); }\n";

#[test]
fn what_cargo_compiles_and_runs_never_runs_an_edit() {
    if !installed("cargo") {
        return;
    }
    // K-05: a module of the build script.
    let module = [
        ("Cargo.toml", PACKAGE),
        ("src/main.rs", MAIN),
        ("build.rs", "mod x;\nfn main() { x::f() }\n"),
        ("x.rs", WRITES),
    ];
    tool_never_runs_an_edit(&cargo("check"), &module, ("x.rs", WRITES_EDITED));
    // K-07: a build dependency reached by `path`.
    let manifest = format!("{PACKAGE}[build-dependencies]\nh = {{ path = \"h\" }}\n");
    let helper = PACKAGE.replace("\"p\"", "\"h\"");
    let build_dependency = [
        ("Cargo.toml", manifest.as_str()),
        ("src/main.rs", MAIN),
        ("build.rs", "fn main() { h::f() }\n"),
        ("h/Cargo.toml", helper.as_str()),
        ("h/src/lib.rs", WRITES),
    ];
    let edit = ("h/src/lib.rs", WRITES_EDITED);
    tool_never_runs_an_edit(&cargo("check"), &build_dependency, edit);
    // K-18: `cargo test` runs the crate's tests.
    let test = "#[test]\nfn t() { std::fs::write(\"MARKS/RAN\", \"\").ok(); }\n";
    let tested = [
        ("Cargo.toml", PACKAGE),
        ("src/main.rs", MAIN),
        ("tests/t.rs", test),
    ];
    let edit = (
        "tests/t.rs",
        "#[test]\nfn t() { std::fs::write(\"MARKS/PWNED\", \"\").ok(); }\n",
    );
    tool_never_runs_an_edit(&cargo("test"), &tested, edit);
    if installed("make") {
        // K-28: a build script starting `make`.
        let starts = "fn main() { std::process::Command::new(\"make\").args([\"-s\", \"lint\"]).status().ok(); }\n";
        let make = [
            ("Cargo.toml", PACKAGE),
            ("src/main.rs", MAIN),
            ("build.rs", starts),
            ("Makefile", "lint:\n\t@touch MARKS/RAN\n"),
        ];
        let edit = ("Makefile", "lint:\n\t@touch MARKS/PWNED\n");
        tool_never_runs_an_edit(&cargo("check"), &make, edit);
    }
}

#[test]
fn what_cmake_ninja_and_flake8_settings_run_never_runs_an_edit() {
    if installed("cmake") && installed("make") {
        let lists = "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\nexecute_process(COMMAND make -s lint)\n";
        let files = [
            ("CMakeLists.txt", lists),
            ("Makefile", "lint:\n\t@touch MARKS/RAN\n"),
        ];
        let run = "cmake -S . -B \"$(mktemp -d)\"";
        tool_never_runs_an_edit(run, &files, ("Makefile", "lint:\n\t@touch MARKS/PWNED\n"));
    }
    if installed("ninja") {
        let rules = "rule t\n  command = touch MARKS/RAN\nbuild lint: t\n";
        let edit = (
            "build.ninja",
            "rule t\n  command = touch MARKS/PWNED\nbuild lint: t\n",
        );
        tool_never_runs_an_edit("ninja lint", &[("build.ninja", rules)], edit);
    }
    if installed("prettier") {
        // Round 64: the settings of a folder below the one it is given.
        let settings = "require('fs').writeFileSync('MARKS/RAN', '');\nmodule.exports = {};\n";
        let files = [
            ("src/a/x.js", "x = 1\n"),
            ("src/a/.prettierrc.cjs", settings),
        ];
        let edit = (
            "src/a/.prettierrc.cjs",
            settings.replace("MARKS/RAN", "MARKS/PWNED"),
        );
        tool_never_runs_an_edit("prettier --check src", &files, (edit.0, edit.1.as_str()));
    }
    if installed("flake8") {
        let plugin = "open('MARKS/RAN', 'w')\nclass P:\n  name = 'p'\n  version = '1'\n  def __init__(self, tree): pass\n  def run(self): return iter(())\n";
        let settings = "[flake8:local-plugins]\nextension =\n  XYZ = tools.plug:P\npaths = .\n";
        let files = [
            ("tools/__init__.py", ""),
            ("tools/plug.py", plugin),
            (".flake8", settings),
        ];
        let edit = ("tools/plug.py", plugin.replace("MARKS/RAN", "MARKS/PWNED"));
        tool_never_runs_an_edit("flake8 .", &files, (edit.0, edit.1.as_str()));
    }
}

/// Red team round 63: cargo one step past round 62's reading: an alias
/// running the tests, a proc macro's own path dependency, a module a
/// file the build script includes declares.
#[test]
fn what_cargo_reaches_one_step_further_never_runs_an_edit() {
    if !installed("cargo") {
        return;
    }
    let test = "#[test]\nfn t() { std::fs::write(\"MARKS/RAN\", \"\").ok(); }\n";
    let tested = [
        ("Cargo.toml", PACKAGE),
        ("src/main.rs", MAIN),
        ("tests/t.rs", test),
        (
            ".cargo/config.toml",
            "[alias]\nlint = [\"test\", \"-q\", \"--offline\"]\n",
        ),
    ];
    let real_home = std::env::var("HOME").unwrap_or_default();
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{real_home}/.cargo"));
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or(format!("{real_home}/.rustup"));
    let alias = format!("CARGO_HOME={cargo_home} RUSTUP_HOME={rustup_home} cargo lint");
    let edit = (
        "tests/t.rs",
        "#[test]\nfn t() { std::fs::write(\"MARKS/PWNED\", \"\").ok(); }\n",
    );
    tool_never_runs_an_edit(&alias, &tested, edit);
    let included = [
        ("Cargo.toml", PACKAGE),
        ("src/main.rs", MAIN),
        ("build.rs", "include!(\"b/mod.rs\");\n"),
        ("b/mod.rs", "mod inner;\nfn main() { inner::f() }\n"),
        ("b/inner.rs", WRITES),
    ];
    tool_never_runs_an_edit(&cargo("check"), &included, ("b/inner.rs", WRITES_EDITED));
    // Round 64: a module of the crate's code by a path outside its folders.
    let by_path = [
        ("Cargo.toml", PACKAGE),
        (
            "src/main.rs",
            "#[path = \"../lib/x.rs\"]\nmod x;\nfn main() { x::f() }\n",
        ),
        ("lib/x.rs", WRITES),
    ];
    tool_never_runs_an_edit(&cargo("run"), &by_path, ("lib/x.rs", WRITES_EDITED));
}
