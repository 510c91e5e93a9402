//! Red team round 20, round 19's fixes attacked: a loader value naming the
//! project through what a shell expands or unquotes inside an absolute path
//! (`<p>${X}/…`, `/${HOME#/}/…`, `/w''ork/…`, `<d>/pro*ect/…`: R20-1) or a
//! version manager's choice climbing into it (`PYENV_VERSION=3/../../<p>`:
//! R20-2) is the project's; lists whose empty entry is not the working
//! folder reach a user's hook (R20-5; R20-4's exported functions, which
//! `sh` does not pass on, in `host_env_tests.rs`).

use crate::round17::{
    approved_bash_guard_and_env_file, bash_env_values_withheld, env_a_users_guard_gets,
};

#[test]
fn loader_values_a_shell_expands_or_unquotes_into_the_project_are_withheld() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    let at = project.display();
    let parent = project.parent().expect("parent").display().to_string();
    let home_relative = at.to_string();
    let home_relative = home_relative.trim_start_matches('/');
    let values = [
        format!("{at}${{X}}/tools/env.sh"),
        format!("{at}$(:)/tools/env.sh"),
        format!("/${{NOPE:-{home_relative}}}/tools/env.sh"),
        format!("{parent}/pro*ect/tools/env.sh"),
        format!("{parent}/pro''ject/tools/env.sh"),
    ];
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    bash_env_values_withheld(&home, &project, &marker, &values);
    let values = [
        ("EDITOR", "sh ~/pro\\ject/tools/ssh.sh"),
        ("PYENV_VERSION", "3.12.1/../../../project/.py"),
    ];
    let (env, _) = env_a_users_guard_gets(&["tools/ssh.sh"], &values);
    assert!(
        !env.contains("EDITOR=") && !env.contains("PYENV_VERSION="),
        "{env}"
    );
}

#[test]
fn lists_whose_empty_entry_is_not_the_working_folder_reach_a_users_hook() {
    let values = [
        ("MANPATH", ":/usr/local/man"),
        ("PKG_CONFIG_PATH", "/usr/local/lib/pkgconfig:"),
        ("PYENV_VERSION", "3.12.1"),
    ];
    let (env, _) = env_a_users_guard_gets(&[], &values);
    for (name, _) in values {
        assert!(env.contains(&format!("{name}=")), "{name}: {env}");
    }
}
