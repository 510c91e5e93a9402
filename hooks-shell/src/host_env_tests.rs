//! Tests of `host_env.rs`: which host variables and search-path entries a hook is not given.

use super::*;

fn project(folder: &str, home: Option<&str>) -> Project {
    Project {
        folder: PathBuf::from(folder),
        real: None,
        home: home
            .map(PathBuf::from)
            .filter(|home| home.starts_with(folder))
            .into_iter()
            .collect(),
    }
}

#[test]
fn a_path_through_a_process_is_the_projects_and_a_system_folder_project_owns_itself() {
    let project = Project::new(Path::new("/work/repo"));
    for word in [
        "/proc/self/cwd/tools/env.sh",
        "/proc/thread-self/cwd/x",
        "//proc/self/cwd/x",
        "/proc/1/root/work/repo/x",
        "/proc/self/fd/3",
        "/proc/thread-self/../../cwd/tools/env.sh",
        "/dev/fd/../cwd/tools/env.sh",
    ] {
        assert!(project.owns(Path::new(word)), "{word}");
    }
    assert!(!project.owns(Path::new("/proc/cpuinfo")));
    for folder in ["/opt", "/opt/app", "/srv/app", "/usr/local/src/app"] {
        let project = Project::new(Path::new(folder));
        assert!(
            project.owns(&Path::new(folder).join("tools/env.sh")),
            "{folder}"
        );
    }
}

#[test]
fn a_word_a_shell_expands_or_unquotes_is_the_projects() {
    let (_folder, repo) = repo_with(&[]);
    for word in [
        "$PWD/tools/env.sh",
        "`pwd`/x",
        "~+/x",
        "t\"\"ools/x",
        "tool\\s/x",
    ] {
        assert!(repo.has(word), "{word}");
    }
    assert!(!repo.has("git/2.43.0"));
}

#[test]
fn globs_a_climb_from_the_project_and_the_home_spelled_tilde_are_read_as_a_shell_reads_them() {
    let (folder, repo) = repo_with(&["a/b/"]);
    for word in ["t*ols/x.sh", "t?ols/x", "[t]ools/x", "{tools,x}/env.sh"] {
        assert!(repo.has(word), "{word}");
    }
    let climb = folder.path().join("a/b/../../tools/env.sh");
    assert!(repo.owns(&climb));
    assert_eq!(with_home("~/p/x.sh", Path::new("/h")), "/h/p/x.sh");
    assert_eq!(with_home("sh ~/p/x.sh", Path::new("/h")), "sh /h/p/x.sh");
    assert_eq!(
        with_home("a~/b ~no-such-user/x", Path::new("/h")),
        "a~/b ~no-such-user/x"
    );
    assert_eq!(with_home("~root/x", Path::new("/h")), "/root/x");
    assert_eq!(
        with_home("true;~/x|(~/y)", Path::new("/h")),
        "true;/h/x|(/h/y)"
    );
    // A link outside the project into it, then `..` (R19-3).
    let outside = tempfile::tempdir().expect("outside");
    std::os::unix::fs::symlink(folder.path().join("a"), outside.path().join("in")).expect("link");
    assert!(repo.owns(&outside.path().join("in/../tools/env.sh")));
    let (_folder, repo) = repo_with(&["node_modules/"]);
    assert!(loaded_word("NODE_OPTIONS", "--require  evilpkg", &repo).is_some());
}

#[test]
fn a_project_folder_that_holds_the_system_does_not_own_it() {
    let root = Project::new(Path::new("/"));
    for system in [
        "/usr/bin",
        "/bin",
        "/usr/local/bin",
        "/etc/ssl",
        "/opt/tool/bin",
    ] {
        assert!(!root.owns(Path::new(system)), "{system}");
    }
    assert!(root.owns(Path::new("./.pnp.cjs")));
    assert!(root.owns(Path::new("/srv/app/.venv/bin")));
}

/// A project folder holding `entries` (folders when they end in `/`).
fn repo_with(entries: &[&str]) -> (tempfile::TempDir, Project) {
    let folder = tempfile::tempdir().expect("repo");
    for entry in entries {
        let path = folder.path().join(entry);
        if entry.ends_with('/') {
            std::fs::create_dir_all(&path).expect("folder");
        } else {
            std::fs::write(&path, "").expect("file");
        }
    }
    let project = project(folder.path().to_str().expect("UTF-8"), None);
    (folder, project)
}

#[test]
fn loaders_naming_the_project_are_found_and_others_are_not() {
    let vars = [
        ("BASH_ENV", "/work/repo/.bash_env"),
        ("NODE_OPTIONS", "--require ./.pnp.cjs"),
        ("PERL5OPT", "-I/work/repo/perl5 -MEvil"),
        ("PYTHONUSERBASE", "/work/repo/.pyuser"),
        ("LD_PRELOAD", "build/lib/libevil.so"),
        ("NODE_OPTIONS_OTHER", "--max-old-space-size=4096"),
        ("LD_LIBRARY_PATH", "/usr/local/lib"),
        ("PATH", "/work/repo/.venv/bin:/usr/bin"),
        ("PYTHONPATH", "/work/repo/src"),
        ("GREETING", "/work/repo/hello"),
    ];
    let (folder, repo) = repo_with(&["build/"]);
    let at = folder.path().to_str().expect("UTF-8");
    let vars = vars.map(|(name, value)| (name.into(), value.replace("/work/repo", at).into()));
    let found: Vec<String> = loaders_in(vars.into_iter(), &repo, false)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        found,
        [
            "BASH_ENV",
            "NODE_OPTIONS",
            "PERL5OPT",
            "PYTHONUSERBASE",
            "LD_PRELOAD"
        ]
    );
}

#[test]
fn relative_words_empty_entries_and_loader_modules_are_the_projects() {
    let (folder, repo) = repo_with(&["lib/", "openssl.cnf", "local/", "gitcfg", "hookenv"]);
    let at = folder.path().to_str().expect("UTF-8");
    for (name, value) in [
        ("PERL5LIB", "lib"),
        ("OPENSSL_CONF", "openssl.cnf"),
        ("LD_LIBRARY_PATH", ":/usr/local/cuda/lib64"),
        ("LD_LIBRARY_PATH", "/usr/local/lib::/opt/x"),
        ("NODE_OPTIONS", "--import tsx"),
        ("NODE_OPTIONS", "--require=dotenvy"),
        ("NODE_OPTIONS", "--import=file:///work/repo/loader.mjs"),
        ("PERL5OPT", "-Ilocal/lib -MEvil"),
        ("PERL5LIB", "/usr/lib/perl5:lib"),
        ("PERL5LIB", "/x://work/repo/lib"),
        ("PERL5OPT", "-Ilib"),
        (
            "NODE_OPTIONS",
            "--require //work/repo/evil.js --title=http://x",
        ),
        ("GIT_CONFIG_GLOBAL", "gitcfg"),
        ("BASH_ENV", "hookenv"),
    ] {
        let value = value.replace("/work/repo", at);
        assert!(loaded_word(name, &value, &repo).is_some(), "{name}={value}");
    }
    for (name, value) in [
        ("NODE_OPTIONS", "--max-old-space-size=4096"),
        ("PYTHONIOENCODING", "utf-8"),
        ("LD_LIBRARY_PATH", "/usr/local/lib:/opt/x"),
        ("PERL5OPT", "-Mstrict"),
        ("PYTHONOPTIMIZE", "1"),
        ("NODE_ENV", "production"),
        ("CONDA_DEFAULT_ENV", "base"),
        // Relative words naming nothing in the project (R16-8).
        ("LESSOPEN", "| /usr/bin/lesspipe %s"),
        (
            "NIX_PATH",
            "nixpkgs=/nix/var/nix/profiles/per-user/root/channels/nixpkgs",
        ),
        ("PIP_NO_CACHE_DIR", "off"),
        ("CI_PROJECT_PATH", "group/project"),
    ] {
        assert_eq!(loaded_word(name, value, &repo), None, "{name}={value}");
    }
}

#[test]
fn a_users_hook_loses_any_variable_naming_the_project() {
    let vars = [
        ("CONFIG_DIR", "/work/repo/etc"),
        ("PWD", "/work/repo"),
        ("LANG", "C.UTF-8"),
        ("TZ", "Europe/Berlin"),
        ("HTTPS_PROXY", "http://proxy:3128/"),
        ("NO_PROXY", "localhost,.corp.example.com"),
    ]
    .map(|(name, value)| (name.into(), value.into()));
    let repo = project("/work/repo", None);
    let found: Vec<String> = loaders_in(vars.clone().into_iter(), &repo, true)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(found, ["CONFIG_DIR"]);
    assert!(loaders_in(vars.into_iter(), &repo, false).is_empty());
}

#[test]
fn a_project_that_holds_the_home_leaves_the_home_the_users() {
    let at_home = project("/home/u", Some("/home/u"));
    assert!(!at_home.owns(Path::new("/home/u/.bash_env")));
    assert!(!at_home.owns(Path::new(".pyenv/shims")));
    let above = project("/home", Some("/home/u"));
    assert!(above.owns(Path::new("/home/other/x")));
    assert!(!above.owns(Path::new("/home/u/.local/bin")));
}

#[test]
fn a_users_search_path_loses_its_project_entries() {
    let repo = tempfile::tempdir().expect("repo");
    let bin = repo.path().join(".venv/bin");
    let value = std::env::join_paths([bin.as_path(), Path::new("/usr/bin"), Path::new("")])
        .expect("joined");
    let kept = user_search_path("PATH", &value, repo.path());
    assert_eq!(kept, OsString::from("/usr/bin"));
    assert_eq!(user_search_path("OTHER", &value, repo.path()), value);
}

/// The names `loaders_in` finds among `vars` for a user's hook in `repo`,
/// `/work/repo` in each value read as the repo's folder.
fn withheld(vars: &[(&str, &str)], folder: &Path, repo: &Project) -> Vec<String> {
    let at = folder.to_str().expect("UTF-8");
    let vars = vars
        .iter()
        .map(|(name, value)| ((*name).into(), value.replace("/work/repo", at).into()));
    let found = loaders_in(vars.collect::<Vec<_>>().into_iter(), repo, true);
    found.into_iter().map(|(name, _)| name).collect()
}

/// The folder holding `folder`, as text.
fn parent_of(folder: &Path) -> &str {
    folder
        .parent()
        .and_then(Path::to_str)
        .expect("a UTF-8 parent")
}

#[test]
fn words_a_shell_expands_or_unquotes_into_the_project_are_the_projects() {
    let (folder, repo) = repo_with(&["tools/"]);
    let parent = parent_of(folder.path());
    let name = folder
        .path()
        .file_name()
        .expect("name")
        .to_str()
        .expect("UTF-8");
    let (head, tail) = name.split_at(2);
    let spellings = [
        "/work/repo${X}/tools/env.sh".to_owned(),
        "/work/repo$(:)/tools/env.sh".to_owned(),
        "/${HOME#/}/project/tools/env.sh".to_owned(),
        format!("sh {parent}/{head}''{tail}/tools/ssh.sh"),
        format!("sh {parent}/{head}\"\"{tail}/tools/ssh.sh"),
        format!("sh {parent}/{head}\\{tail}/tools/ssh.sh"),
        format!("sh '{parent}/{name}'/tools/ssh.sh"),
        format!("sh {parent}/{head}*/tools/ssh.sh"),
        format!("sh {parent}/[{head}]{tail}/tools/ssh.sh"),
        "2.7.18/../../../../work/repo/.py".to_owned(),
    ];
    for value in &spellings {
        for var in [
            "BASH_ENV",
            "EDITOR",
            "GIT_SSH_COMMAND",
            "MY_TOOL",
            "PYENV_VERSION",
        ] {
            let found = withheld(&[(var, value)], folder.path(), &repo);
            assert_eq!(found, [var], "{var}={value}");
        }
    }
}

#[test]
fn ordinary_values_stay_with_a_users_hook() {
    let (folder, repo) = repo_with(&["tools/", "target/"]);
    let ordinary = [
        (
            "BASH_FUNC_module%%",
            "() {  eval $(/usr/bin/modulecmd bash $*)\n}",
        ),
        (
            "BASH_FUNC_which%%",
            "() {  ( alias; declare -f ) | /usr/bin/which --tty-only \"$@\"\n}",
        ),
        (
            "BASH_FUNC_ml%%",
            "() {  eval `/usr/bin/modulecmd bash $*`\n}",
        ),
        (
            "BASH_FUNC_which2%%",
            "() {  ( alias; eval ${which_declare} ) | /usr/bin/which --tty-only \"$@\"\n}",
        ),
        ("MANPATH", ":/root/.nvm/man"),
        ("PKG_CONFIG_PATH", "/usr/local/lib/pkgconfig:"),
        ("PYENV_VERSION", "3.12.1"),
        ("EDITOR", "code --wait"),
        (
            "GIT_SSH_COMMAND",
            "ssh -i /root/.ssh/id -o IdentitiesOnly=yes",
        ),
        ("DB_PASSWORD", "pa$$word"),
        (
            "NODE_OPTIONS",
            "--max-old-space-size=4096 --enable-source-maps",
        ),
        ("LS_COLORS", "rs=0:di=01;34:*.tar=01;31"),
    ];
    let found = withheld(&ordinary, folder.path(), &repo);
    assert!(found.is_empty(), "{found:?}");
    let body = [("BASH_FUNC_f%%", "() { . /work/repo/tools/env.sh; }")];
    assert_eq!(withheld(&body, folder.path(), &repo), ["BASH_FUNC_f%%"]);
    let cwd = [("LD_LIBRARY_PATH", "/usr/local/cuda/lib64:")];
    assert_eq!(withheld(&cwd, folder.path(), &repo), ["LD_LIBRARY_PATH"]);
}

#[test]
fn commands_arguments_tools_settings_and_plain_expansions_are_read_as_run() {
    let (folder, repo) = repo_with(&["run", "sshcfg", ".aws/", ".kube/", "tools/"]);
    for (name, value) in [
        ("EDITOR", "sh run"),
        ("GIT_SSH_COMMAND", "bash run"),
        ("GIT_SSH_COMMAND", "ssh -F sshcfg"),
        ("GIT_SSH_COMMAND", "ssh -o ProxyCommand=sh\\ run"),
        ("EDITOR", "sh r${X}un"),
        ("EDITOR", "sh t${X}ools${PWD%%w*}run"),
        ("AWS_CONFIG_FILE", ".aws/config"),
        ("KUBECONFIG", ".kube/config"),
        ("BASH_ENV", "${PWD}/tools/env.sh"),
        ("MY_TOOL", "$PWD/tools/x"),
        // From a folder of pyenv's own, not the project's.
        ("PYENV_VERSION", "../../../../../work/repo/.py"),
    ] {
        assert_eq!(
            withheld(&[(name, value)], folder.path(), &repo),
            [name],
            "{name}={value}"
        );
    }
    let at = folder.path().to_str().expect("UTF-8");
    let through = [("P", at), ("BASH_ENV", "$P/tools/env.sh")];
    assert_eq!(withheld(&through, folder.path(), &repo), ["P", "BASH_ENV"]);
    let ordinary = [
        ("CLASSPATH", "/usr/share/java/*"),
        ("JAVA_OPTS", "-cp /opt/app/lib/* -Dlog.dir=${LOG_DIR}/app"),
        (
            "MAVEN_OPTS",
            "-Xmx2g -Dmaven.repo.local=${HOME}/.m2/repository",
        ),
        ("HOME", "/root"),
        ("FZF_DEFAULT_COMMAND", "fd --type f --hidden . $HOME"),
        ("CMAKE_PREFIX_PATH", "../install"),
        ("LOG_GLOB", "/var/log/nginx/*.log"),
        ("GIT_SSH_COMMAND", "ssh -o ControlMaster=auto"),
        ("PAGER", "less -R"),
        (
            "APP_CONFIG",
            "{\"paths\":[\"/var/log/*.log\"],\"level\":\"info\"}",
        ),
        ("TEMPLATE_DIR", "templates"),
    ];
    let found = withheld(&ordinary, folder.path(), &repo);
    assert!(found.is_empty(), "{found:?}");
    // A shell expands once: what `$A` brings in (`$HOME` here) is a literal
    // file name, which may be the project's (R22a-3).
    let twice = [("A", "fd . $HOME"), ("FZF_CTRL_T_COMMAND", "sh $A")];
    assert_eq!(
        withheld(&twice, folder.path(), &repo),
        ["FZF_CTRL_T_COMMAND"]
    );
    let parent = parent_of(folder.path());
    let glob = format!("{parent}/*/tools/env.sh");
    assert_eq!(
        withheld(&[("BASH_ENV", &glob)], folder.path(), &repo),
        ["BASH_ENV"]
    );
}

#[test]
fn a_variable_withheld_is_read_as_unset_where_another_expands_it() {
    let (folder, repo) = repo_with(&["tools/"]);
    let at = folder.path().to_str().expect("UTF-8");
    let (head, tail) = at.split_at(at.len() - 2);
    // The hook's shell never gets `X` (it names the project), so `${X}`
    // is empty there and `BASH_ENV` names the project's file.
    let spliced = format!("{head}${{X}}{tail}/tools/env.sh");
    let vars = [("X", "/work/repo/zz"), ("BASH_ENV", spliced.as_str())];
    assert_eq!(withheld(&vars, folder.path(), &repo), ["X", "BASH_ENV"]);
}

#[test]
fn what_the_hooks_shell_expands_otherwise_than_the_host_is_the_projects() {
    let (folder, repo) = repo_with(&["run", "x86_64/", "$B", "$Z", "$kcfg", "agent", ".git/"]);
    for (name, value) in [
        ("EDITOR", "sh $CLAUDE_PROJECT_DIR/run"),
        ("EDITOR", "sh ${CURSOR_PROJECT_DIR}/run"),
        ("EDITOR", "sh $HOSTTYPE/run"),
        ("EDITOR", "sh $OSTYPE"),
        ("EDITOR", "sh '$Z'"),
        ("KUBECONFIG", "$kcfg"),
        ("GIT_CONFIG_PARAMETERS", "'core.sshCommand'='sh run'"),
        ("JAVA_TOOL_OPTIONS", "-javaagent:agent"),
        (
            "TAR_OPTIONS",
            "--checkpoint=1 --checkpoint-action=exec=sh\\ run",
        ),
        ("FZF_DEFAULT_COMMAND", "sh run"),
        ("KUBECTL_EXTERNAL_DIFF", "sh run"),
    ] {
        assert_eq!(
            withheld(&[(name, value)], folder.path(), &repo),
            [name],
            "{name}={value}"
        );
    }
    let chained = [("A", "$B"), ("EDITOR", "sh $A")];
    assert_eq!(withheld(&chained, folder.path(), &repo), ["EDITOR"]);
    let ordinary = [
        ("CDPATH", ".:/root:/root/src"),
        ("GIT_CONFIG_PARAMETERS", "'color.ui'='auto'"),
        (
            "JAVA_TOOL_OPTIONS",
            "-agentlib:jdwp=transport=dt_socket,server=y",
        ),
        ("FZF_DEFAULT_COMMAND", "fd --type f"),
        ("FZF_CTRL_T_COMMAND", "rg --files --hidden --glob '!.git'"),
        ("GIT_PAGER", "diff-so-fancy | less --tabs=4 -RFX"),
    ];
    let found = withheld(&ordinary, folder.path(), &repo);
    assert!(found.is_empty(), "{found:?}");
}
