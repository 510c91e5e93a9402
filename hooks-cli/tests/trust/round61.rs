//! Red team round 61 (`FINDINGS-round61.md`), through the real binary:
//! round 60's readings attacked. Names reaching a word through `$(echo
//! $x)`, `env NAME=value`, past the limits of the reading, reassigned from
//! their own value; a pipe into a compound command; a script read by the
//! program it is given whatever its name; sed's `s///e`. Each ran the
//! project's edited Makefile unasked on the code before.

use crate::round8_modules::installed;
use crate::round58_red::{MAKEFILE, MAKEFILE_EDITED, never_runs_after};
use crate::round59::guard_running;

#[test]
fn names_pipes_and_sed_substitutions_never_run_an_edit() {
    if !installed("make") {
        return;
    }
    for run in [
        "x=make; $(echo $x) -s lint",
        "x=ma; y=$(echo ${x}ke); $y -s lint",
        "nice env -u y x=make sh -c '$x -s lint'",
        "a=make; b=$a; c=$b; d=$c; e=$d; f=$e; $f -s lint",
        "x=1 x=2 x=3 x=4 x=5 x=6 x=7 x=8 x=make; $x -s lint",
        "x=m; x=${x}a; x=${x}k; x=${x}e; $x -s lint",
        "echo make -s lint | if true; then sh; fi",
        "echo make -s lint | while true; do sh; break; done",
        "sed -n '1{s/.*/mXke -s lint/;s/X/a/e}' /etc/hostname",
    ] {
        never_runs_after(&guard_running(run), None, &[MAKEFILE], MAKEFILE_EDITED);
    }
}

#[test]
fn a_script_is_read_by_the_program_it_is_given_whatever_its_name() {
    if !installed("make") {
        return;
    }
    let mut rows = vec![(
        "sed -n -f ~/.claude/hooks/g.x /etc/hostname",
        "1{s/.*/mXke -s lint/;s/X/a/e}\n",
    )];
    if installed("tclsh") {
        rows.push((
            "tclsh ~/.claude/hooks/g.x",
            "exec [string cat ma ke] -s lint\n",
        ));
        rows.push((
            "tclsh < ~/.claude/hooks/g.x",
            "regsub x max m m; exec -ignorestderr $m -s lint\n",
        ));
    }
    for (run, script) in rows {
        never_runs_after(
            &guard_running(run),
            Some(script),
            &[MAKEFILE],
            MAKEFILE_EDITED,
        );
    }
}
