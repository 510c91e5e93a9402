//! The profiles' rules for a hook, checked on made-up contexts.

use super::*;
use crate::sandbox::CustomRules;

fn context() -> Context {
    Context {
        project: PathBuf::from("/work/p"),
        own_files: vec![PathBuf::from("/opt/hook")],
        own_writable: vec![PathBuf::from(
            "/home/u/.hermes/plugin-data/claude-env/session-s1-0a1b2c3d4e5f",
        )],
        home: Some(PathBuf::from("/home/u")),
        secrets: vec![PathBuf::from("/home/u/.vault")],
        runtime_dir: None,
        path: vec![
            PathBuf::from("/home/u/.pyenv/shims"),
            PathBuf::from("/usr/bin"),
        ],
        tree_roots: Vec::new(),
        record_denials: false,
    }
}

#[test]
fn tools_on_the_path_stay_runnable_under_strict() {
    let rules = Sandbox::new(Profile::Strict)
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(
        rules.read.contains(&PathBuf::from("/home/u/.pyenv")),
        "{rules:?}"
    );
}

#[test]
fn a_path_directory_a_link_leads_out_of_its_folder_is_readable_itself() {
    let dir = tempfile::Builder::new().prefix("rules-").tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(home.join(".local/share")).unwrap();
    std::fs::create_dir_all(home.join(".pyenv/shims")).unwrap();
    std::fs::create_dir_all(root.join("tools/bin")).unwrap();
    std::os::unix::fs::symlink(root.join("tools/bin"), home.join(".local/bin")).unwrap();
    let mut context = context();
    context.home = Some(home.clone());
    context.path = vec![home.join(".local/bin"), home.join(".pyenv/shims")];
    let rules = Sandbox::new(Profile::Strict)
        .rules(&context)
        .unwrap()
        .unwrap();
    let tools = &rules.read[SYSTEM_READ.len()..SYSTEM_READ.len() + 3];
    assert_eq!(
        tools,
        [
            home.join(".local"),
            home.join(".local/bin"),
            home.join(".pyenv")
        ]
    );
}

#[test]
fn project_reads_the_home_but_not_its_secrets() {
    let rules = Sandbox::new(Profile::Project)
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(rules.read.contains(&PathBuf::from("/home/u")));
    assert!(rules.write.contains(&PathBuf::from("/work/p")));
    assert!(rules.hidden.contains(&PathBuf::from("/home/u/.ssh")));
    assert!(rules.hidden.contains(&PathBuf::from("/home/u/.vault")));
    assert!(!rules.network && rules.private_tmp);
}

#[test]
fn the_git_folder_is_read_only_where_the_project_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(project.join(".git")).unwrap();
    let mut context = context();
    context.project = project.clone();
    let rules = |profile| Sandbox::new(profile).rules(&context).unwrap().unwrap();
    assert_eq!(rules(Profile::Project).read_only, [project.join(".git")]);
    assert!(rules(Profile::Strict).read_only.is_empty());
}

#[test]
fn strict_writes_nothing_of_the_project() {
    let rules = Sandbox::new(Profile::Strict)
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(rules.read.contains(&PathBuf::from("/work/p")));
    assert!(!rules.write.contains(&PathBuf::from("/work/p")));
    assert!(!rules.read.contains(&PathBuf::from("/home/u")));
}

#[test]
fn custom_paths_are_expanded() {
    // SAFETY-free: a variable only this test reads.
    let custom = CustomRules::new(
        vec!["~/data".into(), "${CLAUDE_PROJECT_DIR}/x".into()],
        vec!["out".into()],
        true,
    );
    let rules = Sandbox::new(Profile::Custom(custom))
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(rules.read.contains(&PathBuf::from("/home/u/data")));
    assert!(rules.read.contains(&PathBuf::from("/work/p/x")));
    assert!(rules.write.contains(&PathBuf::from("/work/p/out")));
    assert!(rules.network);
    let unset = CustomRules::new(vec!["${HERMES_SURELY_UNSET_VAR_X}".into()], vec![], false);
    let error = Sandbox::new(Profile::Custom(unset))
        .rules(&context())
        .unwrap_err();
    assert!(error.contains("is not set"), "{error}");
}

#[test]
fn the_tools_own_folders_are_writable_under_project_only() {
    let env = PathBuf::from("/home/u/.hermes/plugin-data/claude-env/session-s1-0a1b2c3d4e5f");
    let project = Sandbox::new(Profile::Project)
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(project.write.contains(&env), "{:?}", project.write);
    let strict = Sandbox::new(Profile::Strict)
        .rules(&context())
        .unwrap()
        .unwrap();
    assert!(!strict.write.contains(&env), "{:?}", strict.write);
}

#[test]
fn every_profile_hides_the_stores_but_one_a_map_lists() {
    let hidden = |profile| {
        Sandbox::new(profile)
            .rules(&context())
            .unwrap()
            .unwrap()
            .hidden
    };
    let ssh = PathBuf::from("/home/u/.ssh");
    let aws = PathBuf::from("/home/u/.aws");
    assert!(hidden(Profile::Strict).contains(&ssh));
    let home = CustomRules::new(vec!["~".into()], vec![], false);
    assert!(hidden(Profile::Custom(home)).contains(&ssh));
    let listed = CustomRules::new(vec!["~/.aws/config".into()], vec![], false);
    let listed = hidden(Profile::Custom(listed));
    assert!(
        listed.contains(&ssh) && !listed.contains(&aws),
        "{listed:?}"
    );
}

#[test]
fn a_commands_word_in_another_home_hides_that_homes_stores() {
    let mut context = context();
    context.own_files = vec![PathBuf::from("/home/alice"), PathBuf::from("/home")];
    let rules = Sandbox::new(Profile::Project)
        .rules(&context)
        .unwrap()
        .unwrap();
    assert!(rules.hidden.contains(&PathBuf::from("/home/alice/.ssh")));
    assert!(rules.read.contains(&PathBuf::from("/home/alice")));
    assert!(!rules.read.contains(&PathBuf::from("/home")), "{rules:?}");
}
