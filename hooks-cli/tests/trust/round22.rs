//! Red team round 22, round 21's fixes attacked: a variable the runner or
//! the hook's shell sets (`$CLAUDE_PROJECT_DIR`, `$OSTYPE`), one in single
//! quotes, a tool's settings file named as written (`KUBECONFIG='$x'`),
//! git settings in `GIT_CONFIG_PARAMETERS`, an option's value
//! (`-javaagent:agent`) and a command line no program of the lists runs
//! (`FZF_DEFAULT_COMMAND`) are read as the hook's shell and tools read them
//! (R22a-1 to R22a-7); `CDPATH`'s `.` reaches a user's hook (R22a-8); a
//! `../` value going on with a folder of the project's path is the
//! project's whatever folder a program takes it from (R21a-6's regression).
//! A project hook's Perl binds what its included folders hold under the
//! names of the system's Perl modules (R22b-9).

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};
use crate::round8_modules::installed;
use crate::round17::env_a_users_guard_gets;

#[test]
fn values_read_as_the_hooks_shell_and_tools_read_them_are_withheld() {
    // pyenv takes `../` from its own versions folder: one going on with a
    // folder of the project's path may lead into it.
    let temp = std::env::temp_dir();
    let top = temp
        .components()
        .nth(1)
        .expect("a temporary folder below /");
    let pyenv = format!(
        "../../../../../../{}/x/.py",
        top.as_os_str().to_string_lossy()
    );
    let values = [
        ("PYENV_VERSION", pyenv.as_str()),
        ("EDITOR", "sh $CLAUDE_PROJECT_DIR/run"),
        ("VISUAL", "sh $OSTYPE"),
        ("GIT_SSH_COMMAND", "sh '$Z'"),
        ("KUBECONFIG", "$kcfg"),
        ("GIT_CONFIG_PARAMETERS", "'core.sshCommand'='sh run'"),
        ("JAVA_TOOL_OPTIONS", "-javaagent:agent"),
        ("FZF_DEFAULT_COMMAND", "sh run"),
    ];
    let files = ["run", "linux-gnu", "$Z", "$kcfg", "agent"];
    crate::round21::none_reach_a_users_guard(&files, &values);
}

#[test]
fn a_cdpath_naming_the_working_folder_reaches_a_users_hook() {
    let (env, _) = env_a_users_guard_gets(&["tools/env.sh"], &[("CDPATH", ".:/usr/share")]);
    assert!(
        env.lines().any(|line| line == "CDPATH=.:/usr/share"),
        "{env}"
    );
}

#[test]
fn a_perl_module_an_included_project_folder_stands_in_for_asks_again() {
    if !installed("perl") {
        return;
    }
    for (command, script) in [
        ("perl -I. check.pl", "use File::Temp;\nprint \"{}\\n\";\n"),
        (
            "perl check.pl",
            "use lib \".\";\nuse File::Temp;\nprint \"{}\\n\";\n",
        ),
    ] {
        perl_module_asks_again(command, script, "Carp.pm");
    }
}

/// A project hook running `command` (its `check.pl` holding `script`,
/// beside a `Dbg.pm` and a `lib/` folder) asks again, and runs nothing,
/// once the Perl module file `changed` (`Carp.pm`, `lib/Carp.pm`) is written
/// after the approval.
pub(crate) fn perl_module_asks_again(command: &str, script: &str, changed: &str) {
    let (home, project) = home_with("[claude]");
    write(&project, "check.pl", script);
    write(&project, "Dbg.pm", "package Dbg;\n1;\n");
    std::fs::create_dir_all(project.join("lib")).expect("lib");
    approve_project_hook(&home, &project, command);
    let marker = project.join("PWNED");
    let module = changed.trim_start_matches("lib/").trim_end_matches(".pm");
    let text = format!("package {module};\nopen(my $f, '>', {marker:?});\n1;\n");
    write(&project, changed, &text);
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{command}: {emitted:#}");
    let status = &emitted["runs"][0]["status"];
    assert_ne!(status, &json!("completed"), "{command}: {emitted:#}");
}
