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
        env: Vec::new(),
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

#[test]
fn a_settings_env_is_bound_by_name_and_value_hash_never_by_value() {
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("check.sh");
    std::fs::write(&script, "exit 0\n").expect("write");
    let command = script.display().to_string();
    let with = |value: &str| {
        let mut subject = subject(&command, Some(dir.path()), Vec::new());
        subject.env = vec![("API_TOKEN".to_owned(), value.to_owned())];
        subject.binding().expect("binding")
    };
    let approved = with("s3cret-value");
    let json = approved.to_json();
    assert!(!json.to_string().contains("s3cret-value"), "{json}");
    assert_eq!(Binding::from_json(&json), Some(approved.clone()), "{json}");
    assert_eq!(with("s3cret-value"), approved);
    let changed = with("LD_PRELOAD=/tmp/evil.so");
    assert_eq!(
        changed.differences(&approved),
        vec!["the value of env API_TOKEN changed".to_owned()]
    );
    let gone = subject(&command, Some(dir.path()), Vec::new())
        .binding()
        .expect("gone");
    assert_eq!(
        gone.differences(&approved),
        vec!["env API_TOKEN is no longer set".to_owned()]
    );
}
