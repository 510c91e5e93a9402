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
        bind_tree: false,
        line: None,
    }
}

#[test]
fn an_opaque_command_binds_its_tree_and_its_project() {
    let a = tempfile::tempdir().expect("a");
    let hooks = a.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    std::fs::write(hooks.join("check.sh"), "exit 0\n").expect("write");
    let command = "$(git rev-parse --show-toplevel)/.claude/hooks/check.sh";
    // A project's hook (a user's running a program so named cannot be
    // approved: round 65).
    let project_hook = |command, project, tree| Subject {
        bind_tree: true,
        ..subject(command, project, tree)
    };
    let bound = project_hook(command, Some(a.path()), vec![hooks.clone()])
        .binding()
        .expect("binding");
    assert!(bound.tree.is_some() && bound.project.as_deref() == Some(a.path()));
    let json = bound.to_json();
    assert_eq!(Binding::from_json(&json), Some(bound.clone()), "{json}");
    std::fs::write(hooks.join("check.sh"), "exit 2\n").expect("edit");
    let now = project_hook(command, Some(a.path()), vec![hooks])
        .binding()
        .expect("now");
    assert_ne!(now, bound);
    assert!(!now.differences(&bound).is_empty());
    let b = tempfile::tempdir().expect("b");
    let other = project_hook(
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

/// Red-team F7: a file the user may run but not read (`0111`) is bound by its
/// metadata, so swapping it for another program is a change. (CI runs as
/// root, who reads such a file: the refusal is faked as an unprivileged
/// user meets it.)
#[test]
fn an_unreadable_file_is_bound_by_its_metadata() {
    let a = tempfile::tempdir().expect("a");
    let hooks = a.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    std::fs::write(hooks.join("check.sh"), "exit 0\n").expect("write");
    let helper = hooks.join("helper");
    std::fs::write(&helper, "true\n").expect("helper");
    crate::fingerprint::tests::deny(&helper);
    let mut hook = subject(
        "sh .claude/hooks/check.sh",
        Some(a.path()),
        vec![hooks.clone()],
    );
    hook.bind_tree = true;
    let bound = hook.binding().expect("binding");
    let tree = bound.tree.clone().expect("a tree");
    assert_eq!(tree.by_metadata, vec![helper.clone()]);
    let json = bound.to_json();
    assert_eq!(
        json["tree"]["bound_by_metadata"][0],
        helper.display().to_string()
    );
    assert_eq!(Binding::from_json(&json), Some(bound.clone()), "{json}");
    let copy = tempfile::tempdir().expect("copy");
    let (copied, _) = tree_sha256_copied(&[&hooks], copy.path()).expect("copy");
    assert_eq!(
        copied, tree.sha256,
        "the checked copy binds it the same way"
    );
    assert!(
        !copy.path().join("0/helper").exists(),
        "what cannot be read is not copied"
    );
    // Swapped for another program of the same size, its mtime put back.
    let mtime = std::fs::metadata(&helper)
        .and_then(|m| m.modified())
        .expect("mtime");
    std::fs::remove_file(&helper).expect("rm");
    std::fs::write(&helper, "echo\n").expect("swap");
    let file = std::fs::File::options()
        .write(true)
        .open(&helper)
        .expect("open");
    file.set_modified(mtime).expect("touch");
    let now = hook.binding().expect("now");
    assert_ne!(now, bound, "a swapped unreadable file is a change");
    // The program a command names, unreadable: bound by metadata too.
    let named = subject(&helper.display().to_string(), Some(a.path()), Vec::new());
    let files = named.binding().expect("named").files;
    let stamp = files.get(&helper).expect("the named file");
    assert!(stamp.starts_with("metadata dev="), "{stamp}");
}

/// Red-team F7: a folder that can be searched but not listed (`0311`) holds
/// files that run by name and cannot be known: the tree cannot be bound.
#[test]
fn a_folder_that_cannot_be_listed_cannot_be_bound() {
    let a = tempfile::tempdir().expect("a");
    let lib = a.path().join(".claude/hooks/lib");
    std::fs::create_dir_all(&lib).expect("mkdir");
    std::fs::write(lib.join("run.sh"), ": ok\n").expect("write");
    crate::fingerprint::tests::deny(&lib);
    let hooks = a.path().join(".claude/hooks");
    let mut hook = subject("sh .claude/hooks/check.sh", Some(a.path()), vec![hooks]);
    hook.bind_tree = true;
    assert_eq!(hook.binding(), Err(BindError::Unlistable(lib)));
}

/// The same as an unprivileged user meets it (skipped as root, who reads all).
#[test]
fn an_exec_only_file_is_bound_by_its_metadata_for_a_user() {
    use std::os::unix::fs::PermissionsExt;
    if nix::unistd::geteuid().is_root() {
        return;
    }
    let a = tempfile::tempdir().expect("a");
    let helper = a.path().join("helper");
    std::fs::write(&helper, "true\n").expect("helper");
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o111)).expect("chmod");
    let sum = tree_sum(&[a.path()]).expect("sum");
    assert_eq!(sum.by_metadata, vec![helper]);
}
