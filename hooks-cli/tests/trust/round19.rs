//! Red team round 19, round 18's fixes attacked: a loader value naming the
//! project through another user's home (`~root/../<p>/…`: R19-1), after a
//! shell operator (`true&&~/project/…`: R19-2), or through a link outside
//! the project that leads into it, then `..` (R19-3), is the project's.

use crate::dialects::{emit_terminal_command, user_guard_file, write};
use crate::round17::{approved_bash_guard_and_env_file, rm_with_bash_env};
use crate::support::Run;

#[test]
fn loader_values_through_homes_links_and_operators_are_withheld() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    std::fs::create_dir_all(project.join("a")).expect("a");
    let outside = home.user_home.join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::os::unix::fs::symlink(project.join("a"), outside.join("in")).expect("link");
    let via_link = format!("{}/in/../tools/env.sh", outside.display());
    let via_root = format!("~root/..{}/tools/env.sh", project.display());
    for value in [via_link.as_str(), via_root.as_str()] {
        let emitted = rm_with_bash_env(&home, &project, &project, value);
        assert!(!marker.exists(), "{value}: {emitted:#}");
        assert_eq!(
            emitted["outcome"]["message"], "no rm",
            "{value}: {emitted:#}"
        );
    }
    // After a shell operator, in a value a shell runs: withheld.
    let seen = "env > \"$HOME/seen.env\"; cat >/dev/null; echo '{}'\n";
    let (home, project) = user_guard_file("sh ~/.claude/hooks/guard.sh", "guard.sh", seen);
    write(&project, "tools/ssh.sh", "");
    let mut emit = emit_terminal_command(&home, &project, Some(&project), "ls", true);
    emit.env("EDITOR", "true&&~/project/tools/ssh.sh");
    Run(emit.output().expect("run hooks")).json();
    let env = std::fs::read_to_string(home.user_home.join("seen.env")).expect("the guard ran");
    assert!(!env.contains("EDITOR="), "{env}");
}
