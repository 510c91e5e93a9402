//! Round 66's open rows and what round 67 found beside them, through the
//! real binary: Babel's settings Jest's transform loads and the plugins
//! they name, Jest `projects` reading their own settings, npm workspaces
//! picked by name or all at once (and one added later), a doctest glob
//! with a character class, `pre-commit try-repo` of a `file://` URL and
//! the git settings of that repository; and round 67's: what a git hook
//! runs, the settings an `.npmrc` names, cargo's `[patch]` and vendored
//! crates. Each ran the edit unasked on the code before; the tests check what the approval binds, so they hold
//! without the tools. And code that is not shell: its stars are operators
//! and comment borders, not globs naming every file beside it.

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round59::guard_running;
use crate::round65::asks_again;

const JEST_TEST: (&str, &str) = ("a.test.js", "test('a', () => {});\n");
const MANIFEST: (&str, &str) = ("package.json", "{}\n");
const PLUGIN: &str = "module.exports = () => ({ visitor: {} });\n";
const PWNED: &str = "require('fs').writeFileSync('PWNED', '');\n";

#[test]
fn jest_binds_the_babel_settings_its_transform_loads() {
    let config = (
        "babel.config.js",
        "module.exports = { plugins: ['./p'] };\n",
    );
    let plugin = ("p.js", PLUGIN);
    let setup = [JEST_TEST, MANIFEST, config, plugin];
    asks_again("jest", &setup, ("p.js", PWNED), "p.js");
    let edit = ("babel.config.js", PWNED);
    asks_again("jest", &setup, edit, "settings test runners read");
    let by_name = ("babel.config.json", "{\"plugins\": [\"x\"]}\n");
    let package = "node_modules/babel-plugin-x/index.js";
    let setup = [JEST_TEST, MANIFEST, by_name, (package, PLUGIN)];
    asks_again("jest", &setup, (package, PWNED), "babel-plugin-x");
    let rc = (".babelrc", "{\"plugins\": [\"./q.js\"]}\n");
    asks_again("jest", &[JEST_TEST, MANIFEST, rc], ("q.js", PWNED), "q.js");
    // What a settings file it extends names, in turn.
    let extending = (".babelrc", "{\"extends\": \"./b2.json\"}\n");
    let extended = ("b2.json", "{\"plugins\": [\"./bp.js\"]}\n");
    let setup = [JEST_TEST, MANIFEST, extending, extended, ("bp.js", PLUGIN)];
    asks_again("jest", &setup, ("bp.js", PWNED), "bp.js");
}

#[test]
fn jest_projects_read_their_own_settings() {
    let setup = [
        JEST_TEST,
        ("jest.config.js", "module.exports = { projects: ['p1'] };\n"),
        ("p1/a.test.js", "test('a', () => {});\n"),
        (
            "p1/jest.config.js",
            "module.exports = { setupFiles: ['./s.js'] };\n",
        ),
        ("p1/s.js", "module.exports = {};\n"),
    ];
    asks_again("jest", &setup, ("p1/s.js", PWNED), "s.js");
    let outside = (
        "p1/jest.config.js",
        "module.exports = { setupFiles: ['<rootDir>/../s.js'] };\n",
    );
    let mut setup = setup.to_vec();
    setup[3] = outside;
    setup.push(("s.js", "module.exports = {};\n"));
    asks_again("jest", &setup, ("s.js", PWNED), "s.js");
}

#[test]
fn npm_workspaces_picked_by_name_or_all_are_read() {
    let root = ("package.json", "{\"workspaces\": [\"pk/*\"]}\n");
    let web = ("pk/web/package.json", "{\"name\": \"web\"}\n");
    let server = ("pk/web/server.js", "module.exports = {};\n");
    let edit = ("pk/web/server.js", PWNED);
    for command in [
        "npm -w web start",
        "npm start -ws",
        "npm start --workspaces",
    ] {
        asks_again(command, &[root, web, server], edit, "server.js");
    }
    // A workspace added where the glob looks runs too.
    let added = ("pk/z/package.json", "{\"name\": \"z\"}\n");
    asks_again("npm start -ws", &[root, web, server], added, "pk");
}

#[test]
fn a_doctest_glob_with_a_character_class_is_read() {
    let setup = [
        ("tests/test_a.py", "def test_a():\n    pass\n"),
        ("x.md", "# x\n"),
        ("pytest.ini", "[pytest]\naddopts = --doctest-glob=[x].md\n"),
    ];
    let edit = ("x.md", ">>> open('PWNED', 'w') and None\n");
    asks_again("pytest -q", &setup, edit, "doctest");
}

#[test]
fn pre_commit_try_repo_binds_a_file_url_and_the_repositorys_git_settings() {
    let hooks = (
        "hk/.pre-commit-hooks.yaml",
        "- id: x\n  name: x\n  entry: ./x.sh\n  language: script\n",
    );
    let script = ("hk/x.sh", "#!/bin/sh\ntrue\n");
    let config = ("hk/.git/config", "[core]\n\tbare = false\n");
    let setup = [hooks, script, config];
    let command = "pre-commit try-repo file://$PWD/hk x --all-files";
    asks_again(command, &setup, ("hk/x.sh", "touch PWNED\n"), "hk");
    let monitor = ("hk/.git/config", "[core]\n\tfsmonitor = touch ../PWNED\n");
    let command = "pre-commit try-repo ./hk x --all-files";
    asks_again(command, &setup, monitor, "hk/.git/config");
}

/// A Node script's doc comment (`/** … */`, ` * line`) and a product
/// (`2 * 3`) named every file beside it: the guard running it could not
/// be approved (`/**` as a glob over the whole system), or asked again
/// when any file was added.
#[test]
fn stars_of_code_that_is_not_shell_are_no_globs() {
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    let script = "/**\n * Checks.\n */\nconst x = 2 * 3;\nmodule.exports = x;\n";
    write(&project, "tools/t.js", script);
    user_fail_closed_command(&home, &guard_running("node tools/t.js"));
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(approved["outcome"]["message"], "guarded", "{approved:#}");
    write(&project, "README.md", "# p\n");
    write(&project, "tools/notes.txt", "n\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["message"], "guarded", "{emitted:#}");
}

#[test]
fn what_a_git_hook_runs_is_read() {
    let hook = (".git/hooks/pre-commit", "#!/bin/sh\nmake -s lint\n");
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edit = ("Makefile", "lint:\n\t@touch PWNED\n");
    let command = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
    asks_again(command, &[hook, makefile], edit, "Makefile");
    let husky = (".husky/pre-commit", "#!/bin/sh\nmake -s lint\n");
    let config = (".git/config", "[core]\n\thooksPath = .husky\n");
    asks_again(command, &[husky, config, makefile], edit, "Makefile");
}

#[test]
fn the_settings_an_npmrc_names_are_read() {
    let manifest = ("package.json", "{\"scripts\": {\"test\": \"node -e 0\"}}\n");
    let npmrc = (".npmrc", "userconfig=./u.rc\n");
    let named = ("u.rc", "node-options=--require ./s.js\n");
    let setup = [manifest, npmrc, named, ("s.js", "module.exports = {};\n")];
    asks_again("npm test", &setup, ("s.js", PWNED), "s.js");
    let edit = ("u.rc", "script-shell=./sh.sh\n");
    asks_again("npm test", &setup, edit, "u.rc");
}

#[test]
fn crates_cargo_settings_put_in_place_are_read() {
    let manifest = (
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         [dependencies]\nd = \"0.1\"\n",
    );
    let main = ("src/main.rs", "fn main() {}\n");
    let crate_manifest = "[package]\nname = \"d\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    let build = "fn main() { std::fs::write(\"PWNED\", \"\").ok(); }\n";
    let patch = (
        ".cargo/config.toml",
        "[patch.crates-io]\nd = { path = \"d\" }\n",
    );
    let setup = [
        manifest,
        main,
        patch,
        ("d/Cargo.toml", crate_manifest),
        ("d/src/lib.rs", ""),
        ("d/build.rs", "fn main() {}\n"),
    ];
    asks_again(
        "cargo build -q --frozen",
        &setup,
        ("d/build.rs", build),
        "d/build.rs",
    );
    let given = ("ci.toml", "[patch.crates-io]\nd = { path = \"d\" }\n");
    let mut by_option = setup.to_vec();
    by_option[2] = given;
    let command = "cargo build -q --frozen --config ci.toml";
    asks_again(command, &by_option, ("d/build.rs", build), "d/build.rs");
    let vendored = (
        ".cargo/config.toml",
        "[source.crates-io]\nreplace-with = \"v\"\n[source.v]\ndirectory = \"vendor\"\n",
    );
    let setup = [
        manifest,
        main,
        vendored,
        ("vendor/d/Cargo.toml", crate_manifest),
        ("vendor/d/src/lib.rs", ""),
    ];
    let edit = ("vendor/d/build.rs", build);
    asks_again("cargo build -q --frozen", &setup, edit, "vendor/d/build.rs");
    let added = ("vendor/e/Cargo.toml", crate_manifest);
    asks_again("cargo build -q --frozen", &setup, added, "vendor");
}

/// A recursive Makefile's loop (`for d in $(SUBDIRS); do $(MAKE) -C $$d;
/// done`) and a folder written as `$(pwd -P)` or `$(realpath .)` could
/// not be approved; each is now read with its values and bound.
#[test]
fn loops_in_recipes_and_the_resolved_folder_here_are_read() {
    let makefile = (
        "Makefile",
        "SUBDIRS = a b\nlint:\n\t@for d in $(SUBDIRS); do $(MAKE) -s -C $$d; done\n",
    );
    let a = ("a/Makefile", "all:\n\t@true\n");
    let b = ("b/Makefile", "all:\n\t@true\n");
    let edit = ("b/Makefile", "all:\n\t@touch ../PWNED\n");
    asks_again("make -s lint", &[makefile, a, b], edit, "b/Makefile");
    for command in [
        "make -s -C \"$(pwd -P)/b\"",
        "make -s -C \"$(realpath .)/b\"",
    ] {
        asks_again(command, &[a, b], edit, "b/Makefile");
    }
}
