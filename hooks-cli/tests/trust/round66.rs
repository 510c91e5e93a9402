//! Red team round 66's holes (this session's readings attacked), through
//! the real binary: folders a glob, braces or `~+` name, tox's section
//! references and continued lines, pytest's doctest globs given quoted,
//! by `PYTEST_ADDOPTS` or in a `-c` file, `CTestCustom.cmake`, a makefile
//! including a glob of folders, ESLint's formatter, a package's
//! `directories.bin`, mocha's flow lists and Jest presets. Each ran the
//! edit unasked on the code before; the tests check what the approval
//! binds, so they hold without the tools.

use crate::round65::{asks_again, refused};

const MAKEFILE: (&str, &str) = ("b/Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("b/Makefile", "lint:\n\t@touch ../PWNED\n");

#[test]
fn folders_the_shell_picks_or_writes_from_here_are_read_or_refused() {
    asks_again("make -s -C ~+/b lint", &[MAKEFILE], EDITED, "b/Makefile");
    for command in [
        "cd ? && make -s lint",
        "for d in {a,b}; do make -s -C $d lint; done",
        "git -C ? status",
    ] {
        refused(command, &[MAKEFILE], Some(EDITED), "cannot be approved");
    }
}

#[test]
fn tox_references_and_continued_lines_are_read() {
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edit = ("Makefile", "lint:\n\t@touch PWNED\n");
    for ini in [
        "[tox]\nskipsdist=true\n[base]\ncmd=make -s lint\n[testenv:t]\nskip_install=true\nallowlist_externals=make\ncommands={[base]cmd}\n",
        "[tox]\nskipsdist=true\n[testenv:t]\nskip_install=true\nallowlist_externals=make\ncommands=make -s \\\n  lint\n",
    ] {
        asks_again(
            "tox -qq -e t",
            &[("tox.ini", ini), makefile],
            edit,
            "Makefile",
        );
    }
}

#[test]
fn pytest_doctest_globs_however_given_are_bound() {
    let test = ("tests/test_a.py", "def test_a():\n    pass\n");
    let readme = ("README.md", "# p\n");
    let doctest = ("README.md", ">>> open('PWNED', 'w') and None\n");
    let quoted = (
        "pytest.ini",
        "[pytest]\naddopts = --doctest-glob=\"*.md\"\n",
    );
    asks_again("pytest -q", &[test, readme, quoted], doctest, "doctest");
    let command = "PYTEST_ADDOPTS=--doctest-glob=*.md pytest -q";
    asks_again(command, &[test, readme], doctest, "doctest");
    let given = ("ci.ini", "[pytest]\naddopts = --doctest-glob=*.md\n");
    asks_again(
        "pytest -q -c ci.ini",
        &[test, readme, given],
        doctest,
        "doctest",
    );
}

#[test]
fn build_and_lint_files_round_66_found_are_bound() {
    let recorded = ("build/CTestTestfile.cmake", "add_test(t \"true\")\n");
    let custom = (
        "build/CTestCustom.cmake",
        "set(CTEST_CUSTOM_PRE_TEST \"touch PWNED\")\n",
    );
    asks_again(
        "ctest --test-dir build",
        &[recorded],
        custom,
        "CTestCustom.cmake",
    );
    let makefile = ("Makefile", "include */*.mk\nlint: x\n");
    let rule = ("m/a.mk", "x:\n\t@true\n");
    let added = ("n/b.mk", "lint: y\ny:\n\t@touch PWNED\n");
    asks_again("make -s lint", &[makefile, rule], added, "n/b.mk");
    let formatter = "node_modules/eslint-formatter-fmt/index.js";
    let setup = [
        ("x.js", "x = 1\n"),
        ("eslint.config.cjs", "module.exports = [];\n"),
        (formatter, "module.exports = () => '';\n"),
    ];
    let edit = (formatter, "require('fs').writeFileSync('PWNED', '');\n");
    asks_again("eslint -f fmt x.js", &setup, edit, "eslint-formatter-fmt");
}

#[test]
fn node_code_round_66_found_is_bound() {
    let manifest = (
        "package.json",
        "{\"name\": \"p\", \"directories\": {\"bin\": \"bin\"}}\n",
    );
    let bin = ("bin/lintx", "#!/usr/bin/env node\n");
    let edit = (
        "bin/lintx",
        "#!/usr/bin/env node\nrequire('fs').writeFileSync('PWNED', '');\n",
    );
    asks_again("npx lintx", &[manifest, bin], edit, "bin/lintx");
    let test = ("test/a.js", "it('a', () => {});\n");
    let setup = ("r.js", "module.exports = {};\n");
    let changed = ("r.js", "require('fs').writeFileSync('PWNED', '');\n");
    let flow = (".mocharc.yaml", "require: [./r.js]\n");
    asks_again("mocha", &[test, setup, flow], changed, "r.js");
    let preset = (
        "node_modules/jest-preset-x/jest-preset.json",
        "{\"setupFiles\": [\"<rootDir>/r.js\"]}\n",
    );
    let config = ("jest.config.json", "{\"preset\": \"jest-preset-x\"}\n");
    let jest_test = ("a.test.js", "test('a', () => {});\n");
    asks_again("jest", &[jest_test, setup, preset, config], changed, "r.js");
}

/// A Jest settings file too large to read whole: what it names from its
/// root cannot be known, so the guard cannot be approved (the reference
/// past its first MiB was not read, and `r.js` ran unasked).
#[test]
fn a_runner_settings_file_too_large_to_read_cannot_be_approved() {
    let config = format!(
        "{}{{\"setupFiles\": [\"<rootDir>/r.js\"]}}\n",
        " ".repeat(1_100_000)
    );
    let setup = [
        ("a.test.js", "test('a', () => {});\n"),
        ("r.js", "module.exports = {};\n"),
        ("jest.config.json", config.as_str()),
    ];
    let edit = ("r.js", "require('fs').writeFileSync('PWNED', '');\n");
    refused("jest", &setup, Some(edit), "cannot be read whole");
}
