//! Red team round 69's holes (round 68's readings attacked), through the
//! real binary: husky's runner changed by a byte a trimmed comparison
//! missed, the user's `husky/init.sh`, `git hook run` of any name, a
//! hooks folder the user's global git settings name, a Node hook
//! renaming `child_process`'s calls, a Babel settings file built from
//! another that pieces a name, cargo settings from an exported
//! `CARGO_HOME` or a config's `include`. Each ran the edit unasked on the
//! code before; the tests check what the approval binds (or that it is
//! refused), so they hold without the tools.

use crate::round65::{asks_again, refused};

const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");
const COMMIT: &str = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";

/// husky's runner as the fixture holds it, with `change` applied.
fn husky_runner(change: impl Fn(&str) -> String) -> String {
    let runner = crate::round71::fixture(include_str!("fixtures/husky-9.1-h"));
    change(&runner)
}

#[test]
fn husky_s_runner_is_husky_s_byte_for_byte_and_its_init_file_is_read() {
    let shim = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n";
    let changed = husky_runner(|text| text.replacen("/$n\n", "/$n\u{b}\n", 1));
    let setup = [
        (".git/config", "[core]\n\thooksPath = .husky/_\n"),
        (".husky/_/pre-commit", shim),
        (".husky/_/h", changed.as_str()),
        (".husky/pre-commit", "make -s lint\n"),
        MAKEFILE,
    ];
    refused(COMMIT, &setup, Some(EDITED), "cannot be approved");
    let runner = husky_runner(str::to_owned);
    let setup = [
        (".git/config", "[core]\n\thooksPath = .husky/_\n"),
        (".husky/_/pre-commit", shim),
        (".husky/_/h", runner.as_str()),
        (".husky/pre-commit", "true\n"),
        ("../.config/husky/init.sh", ". ./scripts/env.sh\n"),
        ("scripts/env.sh", "true\n"),
    ];
    asks_again(
        COMMIT,
        &setup,
        ("scripts/env.sh", "touch PWNED\n"),
        "env.sh",
    );
}

#[test]
fn hooks_by_any_name_and_from_the_users_own_git_settings_are_read() {
    let lint = (".git/hooks/lint", "#!/bin/sh\nmake -s lint\n");
    asks_again("git hook run lint", &[lint, MAKEFILE], EDITED, "Makefile");
    let global = ("../.gitconfig", "[core]\n\thooksPath = .githooks\n");
    let hook = (".githooks/pre-commit", "#!/bin/sh\nmake -s lint\n");
    asks_again(COMMIT, &[global, hook, MAKEFILE], EDITED, "Makefile");
    let node = (
        ".git/hooks/pre-commit",
        "#!/usr/bin/env node\nconst { spawnSync: s } = require('child_process');\n\
         s('make', ['-s', 'lint']);\n",
    );
    asks_again(COMMIT, &[node, MAKEFILE], EDITED, "Makefile");
}

#[test]
fn a_babel_settings_file_built_from_one_that_pieces_a_name_cannot_be_approved() {
    let setup = [
        ("a.test.js", "test('a', () => {});\n"),
        ("package.json", "{}\n"),
        (
            "babel.config.js",
            "module.exports = require('./other-config');\n",
        ),
        (
            "other-config.js",
            "module.exports = { plugins: ['./b' + 'p.js'] };\n",
        ),
        ("bp.js", "module.exports = () => ({ visitor: {} });\n"),
    ];
    let edit = ("bp.js", "require('fs').writeFileSync('PWNED', '');\n");
    refused("jest", &setup, Some(edit), "from pieces");
}

#[test]
fn cargo_settings_an_export_or_an_include_gives_are_read() {
    let manifest = (
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let main = ("src/main.rs", "fn main() {}\n");
    let settings = ("ch/config.toml", "[build]\nrustc-wrapper = \"ch/w.sh\"\n");
    let wrapper = ("ch/w.sh", "exec \"$@\"\n");
    let edit = ("ch/w.sh", "touch PWNED\nexec \"$@\"\n");
    let setup = [manifest, main, settings, wrapper];
    let exported = "export CARGO_HOME=ch; cargo build -q --frozen";
    asks_again(exported, &setup, edit, "ch/w.sh");
    let include = (".cargo/config.toml", "include = [\"../ch/config.toml\"]\n");
    let setup = [manifest, main, settings, wrapper, include];
    asks_again("cargo build -q --frozen", &setup, edit, "ch/w.sh");
}
