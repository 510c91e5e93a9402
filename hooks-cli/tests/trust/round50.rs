//! Red team round 50, against round 49's fixes: a copy's source that only
//! starts and ends with a quote (`'tools/' + chr(103) + '.sh'`) read as
//! written; a file the code wrote, then renamed onto the one it runs; a
//! group's redirection (`{ …; } > F`); a target named before the source
//! (`sort -o F "$(…)"`); a Python hook starting `git`. Each ran the
//! project's edit unasked.

use crate::dialects::{home_with, write};
use crate::round39::accepted_then_edited;
use crate::round40::edit_never_runs;

#[test]
fn a_users_python_hook_copying_a_built_name_is_never_approved() {
    let run = "subprocess.run(['sh', W])\nos.remove(W)\n";
    for body in [
        "src = 'tools/' + chr(103) + '.sh'\nshutil.copyfile(src, W)\n",
        "shutil.copyfile('tools/' + sorted(os.listdir('tools'))[0] + '', W)\n",
        "shutil.copyfile('tools/' + chr(103) + '.sh', W + '.tmp')\nos.rename(W + '.tmp', W)\n",
        "open(T, 'w').write(open('tools/' + chr(103) + '.sh').read())\nos.rename(T, W)\n",
    ] {
        let (home, project) = home_with("[claude]");
        let folder = project.parent().expect("a temporary home");
        let written = format!("'{}'", folder.join("r50y.sh").display());
        let scratch = format!("'{}'", folder.join("r50y.tmp").display());
        let code = format!("import os, shutil, subprocess, sys\nsys.stdin.read()\n{body}{run}")
            .replace('W', &written)
            .replace('T', &scratch);
        write(&home.user_home, ".claude/hooks/x.py", &code);
        accepted_then_edited(&home, &project, "python3 ~/.claude/hooks/x.py");
    }
}

#[test]
fn a_group_or_a_target_named_first_writes_what_runs() {
    let copy = "\"$(printf tools/g.%s sh)\"";
    for command in [
        format!("{{ cat {copy}; }} > ../r50y.sh; sh ../r50y.sh"),
        format!("( cat {copy} ) > ../r50y.sh; sh ../r50y.sh"),
        format!("sort -o ../r50y.sh {copy}; sh ../r50y.sh"),
        format!("cp /dev/stdin ../r50y.sh < {copy}; sh ../r50y.sh"),
    ] {
        edit_never_runs(&format!("{command}; rm -f ../r50y.sh"), &|_| {});
    }
}

/// R50-8: the user's Python hook script starting `git` in the project
/// binds its git settings as a shell hook running `git` does.
#[test]
fn a_users_code_hook_running_git_binds_the_projects_git_settings() {
    let python = "import subprocess, sys\nsys.stdin.read()\nsubprocess.run([\"git\", \"status\"], capture_output=True)\nsubprocess.run([\"sh\", \"tools/g.sh\"])\n";
    crate::round49_reach::git_settings_bound(
        "python3 ~/.claude/hooks/k.py",
        &[(".claude/hooks/k.py", python)],
    );
}
