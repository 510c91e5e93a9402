//! A hook that may write its project cannot re-point a link of its tree (a
//! tool folder `.claude -> agent`, a root of its checked tree): the folders
//! holding the link keep their entries, what is in them stays writable
//! (red-team round 5, F6). Through the `hooks` binary in hooks-cli
//! (`linked_tool_folder.rs`).
#![cfg(all(target_os = "linux", feature = "sandbox"))]

use hermes_hooks_process::run_sandboxed;
use hermes_hooks_process::sandbox::{Context, Profile, Sandbox};

use crate::sandbox::{World, stdout};
use crate::support::{limits, sh};

/// Each probe prints one word: `<NAME>-WROTE` or `<NAME>-DENIED`.
const PROBES: &str = r#"
try() { name=$1; shift; if ( "$@" ) 2>/dev/null; then echo "$name-WROTE"; else echo "$name-DENIED"; fi; }
try REPOINT ln -sfn evil .claude
try REPLACE sh -c 'rm .claude && ln -s evil .claude'
try MOVE-TARGET mv agent agent-old
try MOVE-LINK mv .claude old-claude
try NESTED ln -sfn ../evil tools/hooks
try TOP-NEW sh -c 'echo new > new-file'
try TOP-EDIT sh -c 'echo edited > README'
try SUB-NEW sh -c 'echo new > src/new.rs'
try SUB-DIR mkdir src/more
try THROUGH sh -c 'echo logged > .claude/hook.log'
try OUTSIDE sh -c 'echo x > outside-link'
"#;

#[tokio::test]
async fn linked_tree_roots_keep_pointing_where_they_point() {
    let world = World::new();
    let project = &world.project;
    for folder in ["agent/hooks", "evil/hooks", "tools", "real-hooks"] {
        std::fs::create_dir_all(project.join(folder)).unwrap();
    }
    std::fs::write(project.join("README"), "readme\n").unwrap();
    std::os::unix::fs::symlink("agent", project.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../real-hooks", project.join("tools/hooks")).unwrap();
    // A link in the project to a file outside it: enumerating the project's
    // entries must not grant what it points to.
    let outside = world.home.join("outside.txt");
    std::fs::write(&outside, "untouched\n").unwrap();
    std::os::unix::fs::symlink(&outside, project.join("outside-link")).unwrap();

    let mut context = Context::new(project);
    context.home = Some(world.home.clone());
    context.tree_roots = vec![project.join(".claude"), project.join("tools/hooks")];
    let sandbox = Sandbox::new(Profile::Project);
    let rules = sandbox.rules(&context).unwrap().unwrap();
    let resolved = project.canonicalize().unwrap();
    assert_eq!(
        rules.pinned,
        [resolved.join(".claude"), resolved.join("tools/hooks")]
    );
    let prepared = sandbox.prepare(&context).expect("prepared");
    let mut command = sh(PROBES);
    command.current_dir(project).env("HOME", &world.home);
    let output = run_sandboxed(command, b"", &limits(20), prepared)
        .await
        .expect("runs");
    let out = stdout(&output);
    for word in [
        "REPOINT-DENIED",
        "REPLACE-DENIED",
        "MOVE-TARGET-DENIED",
        "MOVE-LINK-DENIED",
        "NESTED-DENIED",
        "TOP-NEW-DENIED",
        "TOP-EDIT-WROTE",
        "SUB-NEW-WROTE",
        "SUB-DIR-WROTE",
        "THROUGH-WROTE",
        "OUTSIDE-DENIED",
    ] {
        assert!(out.contains(word), "{word} missing: {output:?}");
    }
    assert_eq!(
        std::fs::read_link(project.join(".claude")).unwrap(),
        std::path::Path::new("agent")
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched\n");
}

#[tokio::test]
async fn a_project_without_linked_roots_keeps_its_top_level_writable() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join(".claude")).unwrap();
    let output = world
        .run(
            Profile::Project,
            "echo new > new-file && echo TOP-NEW-WROTE",
        )
        .await;
    assert!(stdout(&output).contains("TOP-NEW-WROTE"), "{output:?}");
}
