//! Red team round 68's holes (round 67's readings attacked), through the
//! real binary: git hooks that any subcommand runs (`git status` writes the
//! index, `git branch` updates a ref), hooks written in Python, a hooks
//! folder given to git by `-c` or a settings file in the environment;
//! Babel names pieced together in a JS settings file, a settings file a
//! package holds, a preset's own plugins; `npx -w` in a workspace; cargo
//! settings given inline or by `CARGO_HOME`. Each ran the edit unasked on
//! the code before; the tests check what the approval binds (or that it
//! is refused), so they hold without the tools.

use crate::round65::{asks_again, refused};

const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");
const PWNED: &str = "require('fs').writeFileSync('PWNED', '');\n";
const PLUGIN: &str = "module.exports = () => ({ visitor: {} });\n";

#[test]
fn git_hooks_every_subcommand_may_run_are_read() {
    let make = "#!/bin/sh\nmake -s lint\n";
    let index = (".git/hooks/post-index-change", make);
    asks_again("git status", &[index, MAKEFILE], EDITED, "Makefile");
    let refs = (".git/hooks/reference-transaction", make);
    asks_again("git branch -f zz", &[refs, MAKEFILE], EDITED, "Makefile");
    let python = (
        ".git/hooks/pre-commit",
        "#!/usr/bin/env python3\nimport subprocess\nsubprocess.run([\"make\", \"-s\", \"lint\"])\n",
    );
    let commit = "git commit -q --allow-empty -m x";
    asks_again(commit, &[python, MAKEFILE], EDITED, "Makefile");
    let folder = ("hk/pre-commit", make);
    let given = "git -c core.hooksPath=hk commit -q --allow-empty -m x";
    asks_again(given, &[folder, MAKEFILE], EDITED, "Makefile");
    let settings = ("gc", "[core]\n\thooksPath = hk\n");
    let by_file = "GIT_CONFIG_GLOBAL=./gc git commit -q --allow-empty -m x";
    asks_again(by_file, &[folder, settings, MAKEFILE], EDITED, "Makefile");
}

#[test]
fn babel_names_pieced_together_cannot_be_approved() {
    let test = ("a.test.js", "test('a', () => {});\n");
    let manifest = ("package.json", "{}\n");
    for config in [
        "module.exports = { plugins: ['./b' + 'p.js'] };\n",
        "module.exports = { plugins: [['./b', 'p.js'].join('')] };\n",
        "module.exports = (api) => { api.cache(true); return { plugins: [`./${'bp'}.js`] }; };\n",
    ] {
        let setup = [
            test,
            manifest,
            ("babel.config.js", config),
            ("bp.js", PLUGIN),
        ];
        refused("jest", &setup, Some(("bp.js", PWNED)), "from pieces");
    }
    // Written whole through `path.join(__dirname, …)`: read, and bound.
    let joined = (
        "babel.config.js",
        "const path = require('path');\nmodule.exports = { plugins: [path.join(__dirname, 'bp.js')] };\n",
    );
    asks_again(
        "jest",
        &[test, manifest, joined, ("bp.js", PLUGIN)],
        ("bp.js", PWNED),
        "bp.js",
    );
}

#[test]
fn babel_settings_a_package_or_preset_holds_are_read() {
    let test = ("a.test.js", "test('a', () => {});\n");
    let manifest = ("package.json", "{}\n");
    let extending = (".babelrc", "{\"extends\": \"cfgpkg/base.json\"}\n");
    let base = (
        "node_modules/cfgpkg/base.json",
        "{\"plugins\": [\"./p.js\"]}\n",
    );
    let plugin = "node_modules/cfgpkg/p.js";
    let setup = [test, manifest, extending, base, (plugin, PLUGIN)];
    asks_again("jest", &setup, (plugin, PWNED), "cfgpkg");
    let preset = (".babelrc", "{\"presets\": [\"./pr\"]}\n");
    let preset_code = (
        "pr/index.js",
        "module.exports = () => ({ plugins: ['q'] });\n",
    );
    let package = "node_modules/babel-plugin-q/index.js";
    let setup = [test, manifest, preset, preset_code, (package, PLUGIN)];
    asks_again("jest", &setup, (package, PWNED), "babel-plugin-q");
}

#[test]
fn a_command_npx_runs_in_a_workspace_is_read() {
    let setup = [
        (
            "package.json",
            "{\"name\": \"r\", \"workspaces\": [\"pk/*\"]}\n",
        ),
        ("pk/b/package.json", "{\"name\": \"b\"}\n"),
        ("pk/b/t.sh", ":\n"),
    ];
    asks_again(
        "npx -w b sh t.sh",
        &setup,
        ("pk/b/t.sh", "touch PWNED\n"),
        "t.sh",
    );
}

#[test]
fn cargo_settings_given_inline_or_by_cargo_home_are_read() {
    let manifest = (
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         [dependencies]\nd = \"0.1\"\n",
    );
    let main = ("src/main.rs", "fn main() {}\n");
    let crate_manifest = "[package]\nname = \"d\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    let build = (
        "d/build.rs",
        "fn main() { std::fs::write(\"PWNED\", \"\").ok(); }\n",
    );
    let setup = [
        manifest,
        main,
        ("d/Cargo.toml", crate_manifest),
        ("d/src/lib.rs", ""),
        ("d/build.rs", "fn main() {}\n"),
    ];
    let inline = "cargo build -q --frozen --config 'patch.crates-io.d.path=\"d\"'";
    asks_again(inline, &setup, build, "d/build.rs");
    // A file in `.cargo` given by `--config`: its paths from the project
    // (this session's reading took them from `.cargo` itself).
    let mut in_cargo = setup.to_vec();
    in_cargo.push((
        ".cargo/ci.toml",
        "[patch.crates-io]\nd = { path = \"d\" }\n",
    ));
    let given = "cargo build -q --frozen --config .cargo/ci.toml";
    asks_again(given, &in_cargo, build, "d/build.rs");
    let home = [
        manifest,
        main,
        ("ch/config.toml", "[build]\nrustc-wrapper = \"ch/w.sh\"\n"),
        ("ch/w.sh", "exec \"$@\"\n"),
    ];
    let wrapper = ("ch/w.sh", "touch PWNED\nexec \"$@\"\n");
    asks_again(
        "CARGO_HOME=ch cargo build -q --frozen",
        &home,
        wrapper,
        "ch/w.sh",
    );
}

/// A star inside a command written in a string (a package script, an
/// `execSync`) is a glob: this session's reading of stars in code that is
/// not shell had dropped it (round 68's regression, R-31, R-21), and a
/// recipe piping the files of a folder it moves to into a shell bound
/// none of them.
#[test]
fn a_glob_of_a_command_in_a_string_or_a_recipe_pipe_is_read() {
    let script = ("c/a.sh", "true\n");
    let edit = ("c/a.sh", "touch ../PWNED\n");
    let manifest = (
        "package.json",
        "{\"scripts\": {\"test\": \"cd c && cat * | sh\"}}\n",
    );
    asks_again("npm test", &[manifest, script], edit, "c/a.sh");
    let code = (
        "run.js",
        "require('child_process').execSync('cat ** | sh', { cwd: 'c' });\n",
    );
    asks_again("node run.js", &[code, script], edit, "c/a.sh");
    let makefile = ("Makefile", "lint:\n\t@cd c && cat * | sh\n");
    asks_again("make -s lint", &[makefile, script], edit, "c/a.sh");
}

/// husky's layout (`core.hooksPath = .husky/_`, shims sourcing husky's
/// `h`) could not be approved once hooks were read; husky's own files are
/// read as what they run: the project's `.husky/<name>`.
#[test]
fn husky_hooks_are_read_as_the_projects_hook_they_run() {
    let shim = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n";
    let runner = crate::round71::fixture(include_str!("fixtures/husky-9.1-h"));
    let runner = runner.as_str();
    let setup = [
        (".git/config", "[core]\n\thooksPath = .husky/_\n"),
        (".husky/_/pre-commit", shim),
        (".husky/_/h", runner),
        (".husky/_/.gitignore", "*\n"),
        (".husky/pre-commit", "make -s lint\n"),
        MAKEFILE,
    ];
    let commit = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
    asks_again(commit, &setup, EDITED, "Makefile");
    asks_again(
        commit,
        &setup,
        (".husky/pre-commit", "touch PWNED\n"),
        "pre-commit",
    );
}
