//! Sweep 71's regressions of this session's git hooks reading, through the
//! real binary: a `git status` guard in a repository with a hook the
//! reading cannot follow, hooks that run git themselves (git-lfs's), a
//! workspaces folder gaining a folder that is no workspace, a
//! `CARGO_HOME` under the user's home, and the hooks `pre-commit install`
//! and husky 8 write. Each was refused or asked again on the code before,
//! where the session's starting code approved it; the framework hooks are
//! read, so what they run is bound.

use crate::dialects::{emit_terminal, write};
use crate::round65::{approved, asks_again};

const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");
const COMMIT: &str = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
const README: (&str, &str) = ("README.md", "# p\n");

/// `command` approved with `setup` in a fresh git project; after `edit`
/// it still runs as approved.
fn stays_approved(command: &str, setup: &[(&str, &str)], edit: (&str, &str)) {
    let (home, project) = approved(command, setup);
    write(&project, edit.0, edit.1);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        emitted["outcome"]["message"], "guarded",
        "{command}: {emitted:#}"
    );
}

/// A fixture's text without its `##` lines.
pub(crate) fn fixture(text: &str) -> String {
    let lines = text.lines().filter(|line| !line.starts_with("##"));
    lines.map(|line| format!("{line}\n")).collect()
}

#[test]
fn read_only_git_guards_read_only_the_hooks_they_may_run() {
    let unreadable = (
        ".git/hooks/pre-commit",
        "#!/bin/sh\nexec \"$(git rev-parse --show-toplevel)/scripts/lint.sh\"\n",
    );
    for command in ["git status", "git diff", "git log -1"] {
        stays_approved(command, &[unreadable, README], ("README.md", "# q\n"));
    }
}

#[test]
fn hooks_that_run_git_are_read_once() {
    let lfs = |name: &str| {
        format!("#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 || exit 2\ngit lfs {name} \"$@\"\n")
    };
    let hooks: Vec<(String, String)> = ["pre-push", "post-checkout", "post-commit", "post-merge"]
        .iter()
        .map(|name| (format!(".git/hooks/{name}"), lfs(name)))
        .collect();
    let mut setup: Vec<(&str, &str)> = hooks
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    setup.push(README);
    stays_approved(COMMIT, &setup, ("README.md", "# q\n"));
}

#[test]
fn a_folder_that_is_no_workspace_or_a_home_cargo_changes_nothing() {
    let setup = [
        ("package.json", "{\"workspaces\": [\"packages/*\"]}\n"),
        (
            "packages/core/package.json",
            "{\"name\": \"@m/core\", \"scripts\": {\"lint\": \"node -e 1\"}}\n",
        ),
    ];
    stays_approved(
        "npm run lint -w @m/core",
        &setup,
        ("packages/notes/a.md", "x\n"),
    );
    stays_approved("npm test -ws", &setup, ("packages/notes/a.md", "x\n"));
    let manifest = (
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let main = ("src/main.rs", "fn main() {}\n");
    let command = "export CARGO_HOME=$HOME/.cargo; cargo build -q --frozen";
    stays_approved(command, &[manifest, main], ("README.md", "# q\n"));
}

#[test]
fn the_hooks_pre_commit_and_husky_8_write_are_read() {
    let template = fixture(include_str!("fixtures/pre-commit-4-hook-tmpl"));
    let installed = template.replace(
        "INSTALL_PYTHON=''\nARGS=(hook-impl)\n",
        "INSTALL_PYTHON=''\nARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)\n",
    );
    let settings = (
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: l\n    name: l\n    entry: make -s lint\n    language: system\n    pass_filenames: false\n",
    );
    let hook = (".git/hooks/pre-commit", installed.as_str());
    asks_again(COMMIT, &[hook, settings, MAKEFILE], EDITED, "Makefile");
    let runner = fixture(include_str!("fixtures/husky-8-husky.sh"));
    let setup = [
        (".git/config", "[core]\n\thooksPath = .husky\n"),
        (".husky/_/husky.sh", runner.as_str()),
        (
            ".husky/pre-commit",
            "#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n\nmake -s lint\n",
        ),
        MAKEFILE,
    ];
    asks_again(COMMIT, &setup, EDITED, "Makefile");
}

/// A workspace's `package.json` too large to read whole was read cut
/// short, did not parse, and so was not the workspace `-w web` names:
/// its `server.js` ran unbound. Which workspaces run cannot be known, so
/// the guard cannot be approved.
#[test]
fn a_workspace_manifest_not_read_whole_cannot_be_approved() {
    let web = format!(
        "{{\"description\": \"{}\", \"name\": \"web\"}}\n",
        "x".repeat(1_100_000)
    );
    let setup = [
        ("package.json", "{\"workspaces\": [\"pk/*\"]}\n"),
        ("pk/web/package.json", web.as_str()),
        ("pk/web/server.js", "module.exports = {};\n"),
    ];
    let edit = (
        "pk/web/server.js",
        "require('fs').writeFileSync('../../PWNED', '');\n",
    );
    crate::round65::refused(
        "npm -w web start",
        &setup,
        Some(edit),
        "cannot be read whole",
    );
}
