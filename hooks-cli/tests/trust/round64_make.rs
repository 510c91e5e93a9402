//! Round 64's Makefile rows and what reading them showed, through the
//! real binary: a rule's prerequisites held in a variable, a double-colon
//! rule, order-only prerequisites and the `D`/`F` forms are approved and
//! bound (they could not be approved: U-1); a rule naming several targets
//! no longer reads `$@` as the first of them (it ran another script
//! unasked before).

use crate::dialects::{emit_terminal, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round59::guard_running;

/// `make_command` approved in a project holding `makefile` and
/// `tools/a.sh`, `tools/b.sh`; then `edited` written with `touch PWNED`:
/// the edit never runs, the guard blocks. Returns the approving emit.
fn approved_then_edited(make_command: &str, makefile: &str, edited: &str) -> serde_json::Value {
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    write(&project, "Makefile", makefile);
    for script in [
        "tools/a.sh",
        "tools/b.sh",
        "tools/check.sh",
        "tools/lint.sh",
    ] {
        write(&project, script, "true\n");
    }
    user_fail_closed_command(&home, &guard_running(make_command));
    let approved = emit_terminal(&home, &project, "ls", true);
    write(&project, edited, "touch PWNED\n");
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert!(!project.join("PWNED").exists(), "{makefile}: ran unasked");
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{makefile}: {emitted:#}"
    );
    approved
}

/// Ordinary Makefile idioms are approved, and an edit of the script they
/// run asks again.
#[test]
fn a_recipe_running_prerequisites_a_variable_holds_is_approved_and_bound() {
    if !installed("make") {
        return;
    }
    for makefile in [
        "S := tools/a.sh\nlint: $(S)\n\t@sh $^\n",
        "lint:: tools/a.sh\n\t@sh $<\nlint::\n\t@true\n",
        "lint: | tools/a.sh\n\t@sh $|\n",
        "lint: tools/a.sh\n\t@cd $(<D) && sh $(<F)\n",
    ] {
        let approved = approved_then_edited("make -s lint", makefile, "tools/a.sh");
        assert_eq!(
            approved["outcome"]["message"], "guarded",
            "{makefile}: {approved:#}"
        );
    }
}

/// `$@` of a rule naming several targets is the one make is asked for,
/// not the first written: `make check` ran `tools/check.sh` while
/// `tools/lint.sh` was bound.
#[test]
fn a_target_the_rule_does_not_name_first_is_never_run_unasked() {
    if !installed("make") {
        return;
    }
    approved_then_edited(
        "make -s check",
        "lint check: tools/lint.sh\n\t@sh tools/$@.sh\n",
        "tools/check.sh",
    );
}

/// An approved Makefile swapped for one whose recipe cannot be read as
/// binding what it runs is "changed" (its guard blocks, and says what
/// changed), found from the Makefile itself before it is read again: a
/// makefile too intricate to read cost the reading's budget on every run.
#[test]
fn a_changed_makefile_is_changed_before_it_is_read_again() {
    if !installed("make") {
        return;
    }
    let (home, project) = home_with("[claude]");
    crate::round28::git(&project, &["init", "-q", "."]);
    write(&project, "Makefile", "lint:\n\t@true\n");
    user_fail_closed_command(&home, &guard_running("make -s lint"));
    emit_terminal(&home, &project, "ls", true);
    write(
        &project,
        "Makefile",
        "lint:\n\t@sh $$(printf tools/g.%s sh)\n",
    );
    let emitted = emit_terminal(&home, &project, "ls", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    let said = emitted["outcome"]["message"].to_string();
    assert!(said.contains("Makefile changed"), "{said}");
}
