//! Red team round 70's holes (round 69's readings attacked), through the
//! real binary: variables a guard exports before its program in other
//! forms, git settings given by `GIT_CONFIG_PARAMETERS` or a config home,
//! an alias giving its own `-c core.hooksPath`, a global `core.fsmonitor`,
//! Node's `child_process` calls reached another way, a Babel settings file
//! built from another by `import` or by a value. Each ran the edit unasked
//! on the code before; the tests check what the approval binds (or that
//! it is refused), so they hold without the tools.

use crate::round65::{asks_again, refused};

const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");
const COMMIT: &str = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
const HOOK: (&str, &str) = (".githooks/pre-commit", "#!/bin/sh\nmake -s lint\n");

#[test]
fn variables_set_before_the_program_in_any_form_are_read() {
    let manifest = (
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let setup = [
        manifest,
        ("src/main.rs", "fn main() {}\n"),
        ("ch/config.toml", "[build]\nrustc-wrapper = \"ch/w.sh\"\n"),
        ("ch/w.sh", "exec \"$@\"\n"),
    ];
    let edit = ("ch/w.sh", "touch PWNED\nexec \"$@\"\n");
    for command in [
        "CARGO_HOME=ch; export CARGO_HOME; cargo build -q --frozen",
        "CARGO_HOME=ch export CARGO_HOME; cargo build -q --frozen",
    ] {
        asks_again(command, &setup, edit, "ch/w.sh");
    }
    let parameters = format!("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='.githooks'\" {COMMIT}");
    asks_again(&parameters, &[HOOK, MAKEFILE], EDITED, "Makefile");
    let exported = format!("export GIT_CONFIG_GLOBAL=proj.gc; {COMMIT}");
    let settings = ("proj.gc", "[core]\n\thooksPath = .githooks\n");
    asks_again(&exported, &[HOOK, settings, MAKEFILE], EDITED, "Makefile");
    let config_home = format!("XDG_CONFIG_HOME=$PWD/.cfg {COMMIT}");
    let settings = (".cfg/git/config", "[core]\n\thooksPath = .githooks\n");
    asks_again(
        &config_home,
        &[HOOK, settings, MAKEFILE],
        EDITED,
        "Makefile",
    );
}

#[test]
fn git_settings_an_alias_or_the_users_own_settings_give_are_read() {
    let alias = (
        ".git/config",
        "[alias]\n\tci = -c core.hooksPath=.githooks commit\n",
    );
    let ci = "git -c user.email=a@b -c user.name=a ci -q --allow-empty -m x";
    asks_again(ci, &[alias, HOOK, MAKEFILE], EDITED, "Makefile");
    let global = ("../.gitconfig", "[core]\n\tfsmonitor = ./fsm.sh\n");
    let monitor = ("fsm.sh", "#!/bin/sh\nmake -s lint\n");
    asks_again(
        "git status",
        &[global, monitor, MAKEFILE],
        EDITED,
        "Makefile",
    );
}

#[test]
fn node_calls_reached_another_way_are_read() {
    for code in [
        "#!/usr/bin/env node\nconst s = require('child_process').spawnSync;\ns('make', ['-s', 'lint']);\n",
        "#!/usr/bin/env node\nimport { spawnSync as s } from 'child_process';\ns('make', ['-s', 'lint']);\n",
    ] {
        let hook = (".git/hooks/pre-commit", code);
        asks_again(COMMIT, &[hook, MAKEFILE], EDITED, "Makefile");
    }
}

#[test]
fn babel_settings_built_by_import_or_by_a_value_are_read_or_refused() {
    let test = ("a.test.js", "test('a', () => {});\n");
    let manifest = ("package.json", "{}\n");
    let pieced = ("x.js", "module.exports = { plugins: ['./b' + 'p.js'] };\n");
    let plugin = ("bp.js", "module.exports = () => ({ visitor: {} });\n");
    let edit = ("bp.js", "require('fs').writeFileSync('PWNED', '');\n");
    for config in [
        "const path = require('path');\nmodule.exports = require(path.join(__dirname, 'x'));\n",
        "const f = './x';\nmodule.exports = require(f);\n",
    ] {
        let setup = [test, manifest, ("babel.config.js", config), pieced, plugin];
        refused("jest", &setup, Some(edit), "from pieces");
    }
    let module = (
        "babel.config.mjs",
        "import x from './x.mjs';\nexport default x;\n",
    );
    let pieced = ("x.mjs", "export default { plugins: ['./b' + 'p.js'] };\n");
    refused(
        "jest",
        &[test, manifest, module, pieced, plugin],
        Some(edit),
        "from pieces",
    );
}

/// A git hook in Python or Perl starting a program in a way the reading of
/// what code starts does not follow (`getattr`, `__dict__`, `os.spawnlp`,
/// `system @array`) cannot be approved: its `make` ran unbound before.
#[test]
fn hooks_starting_programs_in_ways_not_followed_cannot_be_approved() {
    for code in [
        "#!/usr/bin/env python3\nimport subprocess as sp\nf = getattr(sp, 'run')\nf(['make', '-s', 'lint'])\n",
        "#!/usr/bin/env python3\nimport subprocess\nsubprocess.__dict__['run'](['make', '-s', 'lint'])\n",
        "#!/usr/bin/env python3\nimport os\nos.spawnlp(os.P_WAIT, 'make', 'make', '-s', 'lint')\n",
        "#!/usr/bin/perl\nmy @c = ('make', '-s', 'lint');\nsystem @c;\n",
    ] {
        let hook = (".git/hooks/pre-commit", code);
        refused(COMMIT, &[hook, MAKEFILE], Some(EDITED), "does not follow");
    }
}
