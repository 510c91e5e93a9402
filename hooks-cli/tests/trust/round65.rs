//! Red team round 65's holes, through the real binary: files a tool runs
//! that its binding missed (a makefile's `include *.mk`, tox 4's
//! `tox.toml` and `toxfile.py`, ESLint's `--rulesdir` and `--plugin`).
//! Each test checks what the approval binds, so it holds whether or not
//! the tool is installed: the edit asks again, naming the file, and the
//! guard blocks; on the code before, the edit ran unasked.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round59::guard_running;

/// `command` approved with `setup` written in a fresh git project; then
/// `edit` written: the guard asks again, naming `changed`, and blocks.
pub(crate) fn asks_again(command: &str, setup: &[(&str, &str)], edit: (&str, &str), changed: &str) {
    let (home, project) = approved(command, setup);
    write(&project, edit.0, edit.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "{command}: ran unasked");
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{command}: {emitted:#}"
    );
    let said = emitted["outcome"]["message"].to_string();
    assert!(said.contains(changed), "{command}: {said}");
}

/// The user's fail-closed guard running `command`, approved in a fresh git
/// project holding `setup` (it must be), and that project.
pub(crate) fn approved(
    command: &str,
    setup: &[(&str, &str)],
) -> (crate::support::TempHome, std::path::PathBuf) {
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    for (file, text) in setup {
        write(&project, file, text);
    }
    user_fail_closed_command(&home, &guard_running(command));
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["outcome"]["message"], "guarded",
        "{command}: not approved: {approved:#}"
    );
    (home, project)
}

/// `command` in a fresh git project with `setup` cannot be approved: the
/// guard blocks, saying `said`; then `edit` written never runs.
pub(crate) fn refused(
    command: &str,
    setup: &[(&str, &str)],
    edit: Option<(&str, &str)>,
    said: &str,
) {
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    for (file, text) in setup {
        write(&project, file, text);
    }
    user_fail_closed_command(&home, &guard_running(command));
    let refused = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        refused["outcome"]["action"], "block",
        "{command}: {refused:#}"
    );
    let message = refused["outcome"]["message"].to_string();
    assert!(message.contains(said), "{command}: {message}");
    if let Some((file, text)) = edit {
        write(&project, file, text);
        emit_terminal(&home, &project, "ls", false);
        assert!(!project.join("PWNED").exists(), "{command}: ran unasked");
    }
}

/// `include *.mk` / `-include *.d` in the makefile's own folder: each file
/// the pattern matches is bound, and one made later asks again.
#[test]
fn a_makefile_including_a_pattern_of_its_folder_binds_what_it_matches() {
    let makefile = ("Makefile", "include *.mk\nlint: x\n");
    let rule = ("a.mk", "x:\n\t@true\n");
    asks_again(
        "make -s lint",
        &[makefile, rule],
        ("a.mk", "x:\n\t@touch PWNED\n"),
        "a.mk",
    );
    asks_again(
        "make -s lint",
        &[makefile, rule],
        ("b.mk", "y:\n\t@touch PWNED\n"),
        "b.mk",
    );
    let deps = ("Makefile", "-include ./*.d\nlint:\n\t@true\n");
    asks_again(
        "make -s lint",
        &[deps],
        ("main.d", "lint: x\nx:\n\t@touch PWNED\n"),
        "main.d",
    );
}

/// tox 4 reads `tox.toml` and imports `toxfile.py` (with what it imports)
/// on every run.
#[test]
fn tox_settings_and_its_plugin_file_are_bound() {
    let toml = (
        "tox.toml",
        "env_list = [\"lint\"]\n[env.lint]\nskip_install = true\ncommands = [[\"true\"]]\n",
    );
    let edited = "env_list = [\"lint\"]\n[env.lint]\nskip_install = true\ncommands = [[\"touch\", \"PWNED\"]]\n";
    asks_again("tox -qq -e lint", &[toml], ("tox.toml", edited), "tox.toml");
    let plugin = ("toxfile.py", "import helper\n");
    let helper = ("helper.py", "x = 1\n");
    asks_again(
        "tox -qq -e lint",
        &[toml, plugin, helper],
        ("helper.py", "open('PWNED', 'w')\n"),
        "helper.py",
    );
    asks_again(
        "tox -qq -e lint",
        &[toml],
        ("toxfile.py", "open('PWNED', 'w')\n"),
        "toxfile.py",
    );
}

/// ESLint's `--rulesdir rules` loads every file there, `--plugin x` the
/// project's `node_modules/eslint-plugin-x`.
#[test]
fn eslint_rule_folders_and_plugins_given_on_its_command_line_are_bound() {
    let setup = [
        ("x.js", "x = 1\n"),
        (".eslintrc.json", "{\"root\": true}\n"),
        (
            "rules/a.js",
            "module.exports = {create() { return {}; }};\n",
        ),
        (
            "node_modules/eslint-plugin-evil/index.js",
            "module.exports = {rules: {}};\n",
        ),
    ];
    let pwned = "require('fs').writeFileSync('PWNED', '');\n";
    asks_again(
        "ESLINT_USE_FLAT_CONFIG=false eslint --rulesdir rules x.js",
        &setup,
        ("rules/b.js", pwned),
        "rules",
    );
    asks_again(
        "ESLINT_USE_FLAT_CONFIG=false eslint --plugin evil x.js",
        &setup,
        ("node_modules/eslint-plugin-evil/index.js", pwned),
        "eslint-plugin-evil",
    );
}

/// What a Node test runner's settings load: mocha's `require:`, Jest's
/// `setupFiles` by `<rootDir>`, a JS config's own `require`.
#[test]
fn what_node_test_runner_settings_load_is_bound() {
    let test = ("test/a.js", "it('a', () => {});\n");
    let setup = ("r.js", "module.exports = {};\n");
    let edit = ("r.js", "require('fs').writeFileSync('PWNED', '');\n");
    asks_again(
        "mocha",
        &[test, setup, (".mocharc.yml", "require: ./r.js\n")],
        edit,
        "r.js",
    );
    let jest = (
        "jest.config.json",
        "{\"setupFilesAfterEnv\": [\"<rootDir>/r.js\"]}\n",
    );
    asks_again(
        "jest",
        &[("a.test.js", "test('a', () => {});\n"), setup, jest],
        edit,
        "r.js",
    );
    let config = (
        "jest.config.js",
        "require('./r.js');\nmodule.exports = {};\n",
    );
    asks_again(
        "jest",
        &[("a.test.js", "test('a', () => {});\n"), setup, config],
        edit,
        "r.js",
    );
}

/// npm's implicit targets: `npm start` without a script runs `node
/// server.js`, `npx lintx` the project's own `bin`.
#[test]
fn what_npm_runs_without_a_script_is_bound() {
    let server = ("server.js", "require('./lib/h');\n");
    let helper = ("lib/h.js", "module.exports = 1;\n");
    let edit = ("lib/h.js", "require('fs').writeFileSync('PWNED', '');\n");
    asks_again(
        "npm start",
        &[("package.json", "{}\n"), server, helper],
        edit,
        "lib/h.js",
    );
    let bin = (
        "package.json",
        "{\"name\": \"p\", \"bin\": {\"lintx\": \"b.js\"}}\n",
    );
    let b = ("b.js", "#!/usr/bin/env node\nrequire('./lib/h');\n");
    asks_again("npx lintx", &[bin, b, helper], edit, "lib/h.js");
}

/// pytest runs `test*.txt` files, and what `--doctest-glob` matches, as
/// doctests.
#[test]
fn pytest_doctest_files_are_bound() {
    let test = ("tests/test_a.py", "def test_a():\n    pass\n");
    let doctest = ">>> open('PWNED', 'w') and None\n";
    asks_again(
        "pytest -q",
        &[test],
        ("tests/test_b.txt", doctest),
        "doctest",
    );
    let ini = ("pytest.ini", "[pytest]\naddopts = --doctest-glob=*.md\n");
    let readme = ("README.md", "# p\n");
    asks_again(
        "pytest -q",
        &[test, ini, readme],
        ("README.md", doctest),
        "doctest",
    );
}

/// ctest runs the commands a build folder's `CTestTestfile.cmake` records.
#[test]
fn the_tests_ctest_runs_from_a_build_folder_are_bound() {
    let recorded = "add_test(t \"sh\" \"../tools/x.sh\")\nsubdirs(\"sub\")\n";
    let sub = "add_test(u \"sh\" \"../../tools/y.sh\")\n";
    let setup = [
        ("build/CTestTestfile.cmake", recorded),
        ("build/sub/CTestTestfile.cmake", sub),
        ("tools/x.sh", "true\n"),
        ("tools/y.sh", "true\n"),
    ];
    let edit = |file| (file, "touch PWNED\n");
    asks_again(
        "ctest --test-dir build",
        &setup,
        edit("tools/x.sh"),
        "tools/x.sh",
    );
    asks_again(
        "ctest --test-dir build",
        &setup,
        edit("tools/y.sh"),
        "tools/y.sh",
    );
}

/// A loop's variable naming the folder a program reads (`make -C $d`,
/// `cd $d`, `env -C $d`) or the program (`$c`) is read with each value
/// the loop gives: read literally, it bound nothing and the folder's
/// Makefile ran unbound. The folder it runs in or its checkout's top,
/// written out (`$(pwd)`, `$(git rev-parse --show-toplevel)`), is read as
/// that folder. A folder a glob picks (`for d in */`) cannot be approved.
#[test]
fn a_folder_named_by_a_loop_or_written_from_here_is_read_as_that_folder() {
    let makefile = ("a/Makefile", "lint:\n\t@true\n");
    let edit = ("a/Makefile", "lint:\n\t@touch ../PWNED\n");
    for command in [
        "for d in a; do make -s -C $d lint; done",
        "for d in a; do (cd $d && make -s lint); done",
        "for d in a; do env -C $d make -s lint; done",
        "for c in make; do $c -s -C a lint; done",
        "cd \"$(pwd)/a\" && make -s lint",
        "make -s -C \"$(git rev-parse --show-toplevel)/a\" lint",
    ] {
        asks_again(command, &[makefile], edit, "a/Makefile");
    }
    refused(
        "for d in */; do make -s -C $d lint; done",
        &[makefile],
        Some(edit),
        "named only when it runs",
    );
}

/// What tox's environments run (`commands = make -s lint`), the
/// repository `pre-commit try-repo` is given, and the plugins ESLint
/// resolves from `--resolve-plugins-relative-to`.
#[test]
fn what_tox_commands_try_repo_and_resolved_plugins_run_is_bound() {
    let ini = (
        "tox.ini",
        "[tox]\nskipsdist = true\n[testenv:t]\nskip_install = true\nallowlist_externals = make\ncommands =\n    make -s lint\n",
    );
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edit = ("Makefile", "lint:\n\t@touch PWNED\n");
    asks_again("tox -qq -e t", &[ini, makefile], edit, "Makefile");
    let hooks = (
        "hk/.pre-commit-hooks.yaml",
        "- id: x\n  name: x\n  entry: ./x.sh\n  language: script\n",
    );
    let script = ("hk/x.sh", "true\n");
    asks_again(
        "pre-commit try-repo ./hk x --all-files",
        &[hooks, script],
        ("hk/x.sh", "touch ../PWNED\n"),
        "hk",
    );
    let plugin = "tools/node_modules/eslint-plugin-z/index.js";
    let setup = [
        ("x.js", "x = 1\n"),
        (".eslintrc.json", "{\"root\": true, \"plugins\": [\"z\"]}\n"),
        (plugin, "module.exports = {rules: {}};\n"),
    ];
    asks_again(
        "ESLINT_USE_FLAT_CONFIG=false eslint --resolve-plugins-relative-to tools x.js",
        &setup,
        (plugin, "require('fs').writeFileSync('PWNED', '');\n"),
        "eslint-plugin-z",
    );
}
