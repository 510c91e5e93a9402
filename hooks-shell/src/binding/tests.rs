//! Tests of what an approval is bound to.

use std::path::PathBuf;

use super::*;

fn subject(command: &str, project: Option<&Path>, tree: Vec<PathBuf>) -> Subject {
    Subject {
        event: "pre_tool_call".to_owned(),
        command: command.to_owned(),
        project: project.map(Path::to_path_buf),
        words: shlex::split(command),
        cwd: project.map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
        tree,
        request: None,
        source: None,
    }
}

#[test]
fn an_opaque_command_binds_its_tree_and_its_project() {
    let a = tempfile::tempdir().expect("a");
    let hooks = a.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    std::fs::write(hooks.join("check.sh"), "exit 0\n").expect("write");
    let command = "$(git rev-parse --show-toplevel)/.claude/hooks/check.sh";
    let bound = subject(command, Some(a.path()), vec![hooks.clone()])
        .binding()
        .expect("binding");
    assert!(bound.tree.is_some() && bound.project.as_deref() == Some(a.path()));
    let json = bound.to_json();
    assert_eq!(Binding::from_json(&json), Some(bound.clone()), "{json}");
    std::fs::write(hooks.join("check.sh"), "exit 2\n").expect("edit");
    let now = subject(command, Some(a.path()), vec![hooks])
        .binding()
        .expect("now");
    assert_ne!(now, bound);
    assert!(!now.differences(&bound).is_empty());
    let b = tempfile::tempdir().expect("b");
    let other = subject(
        command,
        Some(b.path()),
        vec![b.path().join(".claude/hooks")],
    )
    .binding()
    .expect("b");
    assert_ne!(other.project, bound.project);
}

#[test]
fn nothing_to_bind_is_an_error() {
    let none = subject("/nonexistent/x.sh", None, Vec::new()).binding();
    assert_eq!(none, Err(BindError::Nothing));
}
