//! Red team round 72's git holes, through the real binary: hooks a git
//! subcommand runs that the reading left out (`pre-auto-gc` after a fetch,
//! `post-index-change` for `describe --dirty`, the receiving side's hooks
//! of a push to a repository of this machine, a hook's own `git checkout`
//! running `post-checkout`), and submodules (their hooks, and the command
//! `git submodule foreach` runs). Each ran an edited Makefile unasked on
//! the code before; the tests check what the approval binds.

use crate::round65::asks_again;

const MAKEFILE: (&str, &str) = ("Makefile", "lint:\n\t@true\n");
const EDITED: (&str, &str) = ("Makefile", "lint:\n\t@touch PWNED\n");
const LINT: &str = "#!/bin/sh\nmake -s lint\n";

#[test]
fn hooks_a_subcommand_runs_beyond_its_own_are_read() {
    let gc = (".git/hooks/pre-auto-gc", LINT);
    asks_again("git fetch -q .", &[MAKEFILE, gc], EDITED, "Makefile");
    asks_again("git remote update", &[MAKEFILE, gc], EDITED, "Makefile");
    let index = (".git/hooks/post-index-change", LINT);
    asks_again(
        "git describe --always --dirty",
        &[MAKEFILE, index],
        EDITED,
        "Makefile",
    );
    // A hook's own git runs the hooks of its subcommand.
    let commit = (
        ".git/hooks/pre-commit",
        "#!/bin/sh\ngit checkout -q -B tmp\n",
    );
    let checkout = (".git/hooks/post-checkout", LINT);
    let command = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x";
    asks_again(command, &[MAKEFILE, commit, checkout], EDITED, "Makefile");
}

#[test]
fn a_push_to_a_repository_of_this_machine_reads_its_receiving_hooks() {
    let receive = (
        ".git/hooks/pre-receive",
        "#!/bin/sh\ncd .. && make -s lint\n",
    );
    asks_again(
        "git push -q . HEAD:refs/heads/zz",
        &[MAKEFILE, receive],
        EDITED,
        "Makefile",
    );
    let bare = [
        MAKEFILE,
        ("r.git/HEAD", "ref: refs/heads/main\n"),
        ("r.git/objects/.keep", ""),
        ("r.git/config", "[core]\n\tbare = true\n"),
        ("r.git/hooks/update", "#!/bin/sh\ncd .. && make -s lint\n"),
    ];
    asks_again(
        "git push -q r.git HEAD:refs/heads/zz",
        &bare,
        EDITED,
        "Makefile",
    );
    // No target: the remotes' URLs that are this machine's.
    let config = (
        ".git/config",
        "[core]\n\trepositoryformatversion = 0\n[remote \"Up\"]\n\turl = r.git\n",
    );
    let mut remote = bare.to_vec();
    remote.push(config);
    asks_again("git push -q", &remote, EDITED, "Makefile");
}

#[test]
fn submodules_are_read_as_repositories_of_their_own() {
    let setup = [
        (
            ".gitmodules",
            "[submodule \"sub\"]\n\tpath = sub\n\turl = ./x\n",
        ),
        ("sub/.git", "gitdir: ../.git/modules/sub\n"),
        (".git/modules/sub/HEAD", "ref: refs/heads/main\n"),
        (
            ".git/modules/sub/config",
            "[core]\n\tworktree = ../../../sub\n",
        ),
        (".git/modules/sub/hooks/post-index-change", LINT),
        ("sub/Makefile", "lint:\n\t@true\n"),
    ];
    let edited = ("sub/Makefile", "lint:\n\t@touch ../PWNED\n");
    asks_again("git status", &setup, edited, "sub/Makefile");
    asks_again(
        "git submodule foreach -q 'make -s lint'",
        &[setup[0], setup[1], setup[5]],
        edited,
        "sub/Makefile",
    );
}
