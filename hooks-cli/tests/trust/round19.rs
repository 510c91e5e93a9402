//! Red team round 19, round 18's fixes attacked: a loader value naming the
//! project through another user's home (`~root/../<p>/…`: R19-1), after a
//! shell operator (`true&&~/project/…`: R19-2), or through a link outside
//! the project that leads into it, then `..` (R19-3), is the project's.

use crate::round17::{
    approved_bash_guard_and_env_file, bash_env_values_withheld, env_a_users_guard_gets,
};

#[test]
fn loader_values_through_homes_links_and_operators_are_withheld() {
    let (home, project, marker) = approved_bash_guard_and_env_file();
    std::fs::create_dir_all(project.join("a")).expect("a");
    let outside = home.user_home.join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::os::unix::fs::symlink(project.join("a"), outside.join("in")).expect("link");
    let via_link = format!("{}/in/../tools/env.sh", outside.display());
    let via_root = format!("~root/..{}/tools/env.sh", project.display());
    bash_env_values_withheld(&home, &project, &marker, &[&via_link, &via_root]);
    // After a shell operator, in a value a shell runs: withheld.
    let editor = [("EDITOR", "true&&~/project/tools/ssh.sh")];
    let (env, _) = env_a_users_guard_gets(&["tools/ssh.sh"], &editor);
    assert!(!env.contains("EDITOR="), "{env}");
}
