//! A hook that may write its project cannot plant code that runs later
//! outside the sandbox: the project's `.git` (hooks, config, the `.git`
//! file of a worktree and the gitdir it names) and the agents' settings
//! files stay read-only, the rest of the project writable. The same holds
//! as `nobody` and without a mount namespace, through the `hooks` binary,
//! in hooks-cli (`sandbox_git.rs`).
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use std::path::Path;

use hermes_hooks_process::run_sandboxed;
use hermes_hooks_process::sandbox::{Context, CustomRules, Profile, Sandbox};

use crate::sandbox::{World, stdout};
use crate::support::{limits, sh};

/// A `.git` folder as `git init` leaves it (the parts that matter here).
fn git_folder(root: &Path) {
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
}

/// Each probe prints one word: `<NAME>-WROTE` or `<NAME>-DENIED`.
const PLANT: &str = r#"
try() { name=$1; shift; if ( "$@" ) 2>/dev/null; then echo "$name-WROTE"; else echo "$name-DENIED"; fi; }
try HOOK sh -c 'echo "touch /tmp/pwned" > .git/hooks/pre-commit'
try CONFIG sh -c 'printf "[core]\n\tfsmonitor = /tmp/pwn\n" >> .git/config'
try RENAME mv .git old-git
try REMOVE rm -rf .git/hooks
try SETTINGS sh -c 'echo "{}" > .claude/settings.local.json'
try LOG sh -c 'echo logged > .claude/hook.log'
try SOURCE sh -c 'echo "// changed" >> src/main.rs'
try NEWFILE sh -c 'echo new > new-file'
cat .git/config >/dev/null && echo CONFIG-READ
"#;

#[tokio::test]
async fn project_keeps_git_and_agent_settings_read_only() {
    let world = World::new();
    git_folder(&world.project);
    std::fs::create_dir_all(world.project.join(".claude")).unwrap();
    std::fs::write(
        world.project.join(".claude/settings.local.json"),
        "{\"hooks\":{}}",
    )
    .unwrap();
    let output = world.run(Profile::Project, PLANT).await;
    let out = stdout(&output);
    for word in [
        "HOOK-DENIED",
        "CONFIG-DENIED",
        "RENAME-DENIED",
        "REMOVE-DENIED",
        "SETTINGS-DENIED",
        "LOG-WROTE",
        "SOURCE-WROTE",
        "NEWFILE-WROTE",
        "CONFIG-READ",
    ] {
        assert!(out.contains(word), "{word} missing: {output:?}");
    }
    assert!(!world.project.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(world.project.join(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    assert_eq!(
        std::fs::read_to_string(world.project.join(".claude/settings.local.json")).unwrap(),
        "{\"hooks\":{}}"
    );
}

#[tokio::test]
async fn a_worktree_keeps_its_git_file_gitdir_and_the_shared_hooks_and_config_read_only() {
    let world = World::new();
    // The main checkout beside the project, its `.git` holding the
    // worktree's gitdir; both writable by the profile, as a hook given
    // the whole workspace would be.
    let main = world.project.parent().unwrap().join("main");
    git_folder(&main);
    let gitdir = main.join(".git/worktrees/project");
    std::fs::create_dir_all(&gitdir).unwrap();
    std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
    std::fs::write(gitdir.join("HEAD"), "ref: refs/heads/wt\n").unwrap();
    let dot_git = format!("gitdir: {}\n", gitdir.display());
    std::fs::write(world.project.join(".git"), &dot_git).unwrap();
    let custom = CustomRules::new(
        vec![],
        vec![
            world.project.display().to_string(),
            main.display().to_string(),
        ],
        false,
    );
    let mut context = Context::new(&world.project);
    context.home = Some(world.home.clone());
    let prepared = Sandbox::new(Profile::Custom(custom))
        .prepare(&context)
        .expect("prepared");
    let script = format!(
        r#"try() {{ name=$1; shift; if ( "$@" ) 2>/dev/null; then echo "$name-WROTE"; else echo "$name-DENIED"; fi; }}
try DOTGIT sh -c 'echo "gitdir: /tmp/evil" > .git'
try GITDIR sh -c 'echo x > {gitdir}/config.worktree'
try SHARED-HOOK sh -c 'echo x > {main}/.git/hooks/post-checkout'
try SHARED-CONFIG sh -c 'echo x >> {main}/.git/config'
try OBJECTS sh -c 'echo x > {main}/.git/objects/blob'
"#,
        gitdir = gitdir.display(),
        main = main.display()
    );
    let mut command = sh(&script);
    command.current_dir(&world.project);
    let output = run_sandboxed(command, b"", &limits(20), prepared)
        .await
        .expect("runs");
    let out = stdout(&output);
    for word in [
        "DOTGIT-DENIED",
        "GITDIR-DENIED",
        "SHARED-HOOK-DENIED",
        "SHARED-CONFIG-DENIED",
        // Only the shared hooks and config: a worktree's commits still work.
        "OBJECTS-WROTE",
    ] {
        assert!(out.contains(word), "{word} missing: {output:?}");
    }
    assert_eq!(
        std::fs::read_to_string(world.project.join(".git")).unwrap(),
        dot_git
    );
}
