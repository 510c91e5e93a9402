//! A readable root cut around the secret stores (the home under `project`)
//! grants no secret store through a link: neither a link among its entries
//! that leads into one (`~/x -> .ssh`, a link to a file of one, to the home
//! itself, a chain of links), nor a secret store that is itself a link
//! (`~/.aws -> dotfiles/aws`: where it leads is hidden too) or holds one
//! (`~/.kube/config -> ../dotfiles/kube/config`). A link among the entries
//! grants nothing of its own: what it leads to is readable only where a
//! rule grants it by its real path, as beneath an uncut root.

#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::os::unix::fs::symlink;

use hermes_hooks_process::run_sandboxed;
use hermes_hooks_process::sandbox::{Context, Profile, Sandbox};

use crate::sandbox::{World, stdout};
use crate::support::{limits, sh};

/// `cat`s each named file: prints `<NAME>-READ <contents>` or `<NAME>-DENIED`.
fn probes(files: &[(&str, &str)]) -> String {
    files
        .iter()
        .map(|(name, file)| {
            format!(
                "if out=$(cat \"{file}\" 2>/dev/null); then echo \"{name}-READ $out\"; \
                 else echo \"{name}-DENIED\"; fi\n"
            )
        })
        .collect()
}

#[tokio::test]
async fn links_among_the_homes_entries_never_reach_a_secret_store() {
    let world = World::new();
    let home = &world.home;
    std::fs::create_dir(home.join("code")).unwrap();
    std::fs::write(home.join("code/file"), "code file").unwrap();
    let outside = home.parent().unwrap().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("file"), "outside file").unwrap();
    symlink(".ssh", home.join("x")).unwrap();
    symlink(".ssh/id_ed25519", home.join("key")).unwrap();
    symlink(home.join(".ssh"), home.join("absolute")).unwrap();
    symlink("c2", home.join("c1")).unwrap();
    symlink(".ssh", home.join("c2")).unwrap();
    symlink(".", home.join("itself")).unwrap();
    symlink("..", home.join("up")).unwrap();
    symlink(&outside, home.join("out")).unwrap();
    symlink("code", home.join("code-link")).unwrap();
    symlink("notes.txt", home.join("notes-link")).unwrap();
    let script = probes(&[
        ("DIR", "$HOME/x/id_ed25519"),
        ("FILE", "$HOME/key"),
        ("ABSOLUTE", "$HOME/absolute/id_ed25519"),
        ("CHAIN", "$HOME/c1/id_ed25519"),
        ("ITSELF", "$HOME/itself/.ssh/id_ed25519"),
        ("UP", "$HOME/up/home/.ssh/id_ed25519"),
        ("OUT", "$HOME/out/file"),
        ("CODE", "$HOME/code-link/file"),
        ("NOTES", "$HOME/notes-link"),
        ("REAL", "$HOME/.ssh/id_ed25519"),
    ]);
    let output = world.run(Profile::Project, &script).await;
    let out = stdout(&output);
    assert!(!out.contains("SECRET"), "{out}");
    for word in [
        "DIR-DENIED",
        "FILE-DENIED",
        "ABSOLUTE-DENIED",
        "CHAIN-DENIED",
        "ITSELF-DENIED",
        "UP-DENIED",
        // Outside the home: not what the profile lets the hook read.
        "OUT-DENIED",
        // Within it: readable by its real path, as ever.
        "CODE-READ code file",
        "NOTES-READ readable notes",
        "REAL-DENIED",
    ] {
        assert!(out.contains(word), "{word} missing: {out}");
    }
}

#[tokio::test]
async fn a_secret_store_that_is_a_link_hides_where_it_leads() {
    let world = World::new();
    let home = &world.home;
    for dir in [
        "dotfiles/aws",
        "dotfiles/config/gh",
        "dotfiles/config/git",
        "dotfiles/kube",
        ".kube",
    ] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    std::fs::write(home.join("dotfiles/aws/credentials"), "SECRET aws").unwrap();
    std::fs::write(home.join("dotfiles/config/gh/hosts.yml"), "SECRET gh").unwrap();
    std::fs::write(home.join("dotfiles/config/git/config"), "git config").unwrap();
    symlink("dotfiles/aws", home.join(".aws")).unwrap();
    // Stow's way: a real secret folder whose files are links.
    std::fs::write(home.join("dotfiles/kube/config"), "SECRET kube").unwrap();
    symlink("../dotfiles/kube/config", home.join(".kube/config")).unwrap();
    // A folder on the way to a secret store is a link.
    symlink("dotfiles/config", home.join(".config")).unwrap();
    // A secret store kept in the project (readable and writable there).
    std::fs::write(world.project.join("netrc"), "SECRET netrc").unwrap();
    symlink(world.project.join("netrc"), home.join(".netrc")).unwrap();
    let script = probes(&[
        ("AWS", "$HOME/.aws/credentials"),
        ("AWS-TARGET", "$HOME/dotfiles/aws/credentials"),
        ("GH", "$HOME/.config/gh/hosts.yml"),
        ("GH-TARGET", "$HOME/dotfiles/config/gh/hosts.yml"),
        ("NETRC-TARGET", "netrc"),
        ("KUBE-TARGET", "$HOME/dotfiles/kube/config"),
        ("GIT", "$HOME/.config/git/config"),
        ("GIT-TARGET", "$HOME/dotfiles/config/git/config"),
        ("SRC", "src/main.rs"),
    ]);
    let output = world.run(Profile::Project, &script).await;
    let out = stdout(&output);
    assert!(!out.contains("SECRET"), "{out}");
    for word in [
        "AWS-DENIED",
        "AWS-TARGET-DENIED",
        "GH-DENIED",
        "GH-TARGET-DENIED",
        "NETRC-TARGET-DENIED",
        "KUBE-TARGET-DENIED",
        "GIT-READ git config",
        "GIT-TARGET-READ git config",
        "SRC-READ fn main",
    ] {
        assert!(out.contains(word), "{word} missing: {out}");
    }
}

#[tokio::test]
async fn a_link_on_the_way_to_a_secret_store_cannot_be_re_pointed_by_the_hook() {
    let world = World::new();
    let home = &world.home;
    std::fs::create_dir_all(home.join("vault/gnupg")).unwrap();
    std::fs::write(home.join("vault/gnupg/key"), "SECRET gpg").unwrap();
    // ~/.gnupg -> <project>/gpg -> ~/vault/gnupg: the middle link is in the
    // writable project; re-pointed, the next run would hide where it then
    // leads, and the store itself would be readable.
    symlink(home.join("vault/gnupg"), world.project.join("gpg")).unwrap();
    symlink(world.project.join("gpg"), home.join(".gnupg")).unwrap();
    let first = world
        .run(
            Profile::Project,
            "ln -sfn /nowhere gpg 2>/dev/null && echo REPOINTED; \
             rm -f gpg 2>/dev/null && echo REMOVED; \
             echo new > src/new.rs && echo SUB-WROTE",
        )
        .await;
    let out = stdout(&first);
    assert!(!out.contains("REPOINTED"), "{first:?}");
    assert!(!out.contains("REMOVED"), "{first:?}");
    assert!(out.contains("SUB-WROTE"), "{first:?}");
    let script = probes(&[("KEY", "$HOME/vault/gnupg/key")]);
    let second = world.run(Profile::Project, &script).await;
    let out = stdout(&second);
    assert!(
        out.contains("KEY-DENIED") && !out.contains("SECRET"),
        "{second:?}"
    );
}

#[tokio::test]
async fn a_tool_folder_on_the_path_that_is_a_link_out_of_the_home_still_runs() {
    let world = World::new();
    let home = &world.home;
    // `~/.local` is cut (it holds a secret store); its `bin` leads out.
    std::fs::create_dir_all(home.join(".local/share/keyrings")).unwrap();
    let tools = home.parent().unwrap().join("tools/bin");
    std::fs::create_dir_all(&tools).unwrap();
    let tool = tools.join("probe-tool");
    std::fs::write(&tool, "#!/bin/sh\necho TOOL-RAN\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    symlink(&tools, home.join(".local/bin")).unwrap();
    let mut context = Context::new(&world.project);
    context.home = Some(home.clone());
    context.path.insert(0, home.join(".local/bin"));
    let prepared = Sandbox::new(Profile::Project)
        .prepare(&context)
        .expect("prepared");
    let path = std::env::join_paths(&context.path).unwrap();
    let mut command = sh("probe-tool; ls \"$HOME/.local/share/keyrings\" || echo KEYRINGS-DENIED");
    command
        .current_dir(&world.project)
        .env("HOME", home)
        .env("PATH", path);
    let output = run_sandboxed(command, b"", &limits(20), prepared)
        .await
        .expect("runs");
    let out = stdout(&output);
    assert!(out.contains("TOOL-RAN"), "{output:?}");
    assert!(out.contains("KEYRINGS-DENIED"), "{output:?}");
}
