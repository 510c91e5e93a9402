//! Red team round 44's open rows: project code that a user's script
//! reaches through a second user script elsewhere in the home folder
//! (R44-11), and through `make` / `npm run` (R44-12), where the project's
//! `Makefile` or `package.json` runs its scripts; a recipe or package
//! script that computes the name it runs cannot be approved.

use crate::dialects::{executable, home_with, write};
use crate::round8_modules::installed;
use crate::round39::{accepted_then_edited, assert_guarded};
use crate::round40::edit_never_runs;

/// A recipe / package script running `tools/g.sh` by its written name.
const RUNS_G: &str = "sh tools/g.sh a";

/// The same by a name computed when it runs.
const COMPUTES_G: &str = "sh $(printf tools/g.%s sh) a";

/// A user's hook script `~/.claude/hooks/x.sh` holding `text`, accepted
/// while the project's `tools/g.sh` guards, then the script edited: the
/// edit never runs. The accepting run must itself have reached the guard
/// (else the test could not fail).
fn user_script_reaches(setup: &dyn Fn(&std::path::Path, &std::path::Path), text: &str) {
    let (home, project) = home_with("[claude]");
    setup(&home.user_home, &project);
    write(&home.user_home, ".claude/hooks/x.sh", text);
    let accepted = accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
    assert_guarded(text, &accepted);
}

#[test]
fn a_second_user_script_elsewhere_is_read_and_bound() {
    let runs_y = "#!/bin/bash\ncat > /dev/null\n~/bin/y a\n";
    user_script_reaches(
        &|home, _| {
            write(home, "bin/y", "#!/bin/sh\nsh tools/g.sh a\n");
            executable(&home.join("bin/y"));
        },
        runs_y,
    );
    // Found on `PATH` by a bare name, the folder put there by the script.
    user_script_reaches(
        &|home, _| {
            write(home, "bin/y", "#!/bin/sh\nsh tools/g.sh a\n");
            executable(&home.join("bin/y"));
        },
        "#!/bin/bash\ncat > /dev/null\nexport PATH=\"$HOME/bin:$PATH\"\ny a\n",
    );
    user_script_reaches(
        &|home, _| {
            write(
                home,
                "lib/hooks/y.sh",
                "sh \"$CLAUDE_PROJECT_DIR\"/tools/g.sh a\n",
            );
        },
        "#!/bin/bash\nbash ~/lib/hooks/y.sh\n",
    );
    // The second script computes the name: it cannot be approved.
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        "lib/hooks/y.sh",
        "sh \"$(printf tools/g.%s sh)\" a\n",
    );
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\nbash ~/lib/hooks/y.sh\n",
    );
    accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
}

#[test]
fn make_and_npm_run_from_a_user_script_bind_the_projects_definitions() {
    if !installed("make") {
        return;
    }
    let makefile = format!("lint:\n\t@{RUNS_G}\n");
    for run in [
        "#!/bin/bash\nmake -s lint\n",
        "#!/bin/bash\nmake -s -C \"$CLAUDE_PROJECT_DIR\" lint\n",
    ] {
        user_script_reaches(
            &|_, project| {
                write(project, "Makefile", &makefile);
            },
            run,
        );
    }
    if !installed("npm") {
        return;
    }
    let manifest = format!("{{\"name\":\"x\",\"scripts\":{{\"lint\":\"{RUNS_G}\"}}}}");
    for run in [
        "#!/bin/bash\nnpm run -s lint\n",
        "#!/bin/bash\nnpm --prefix \"$CLAUDE_PROJECT_DIR\" run -s lint\n",
    ] {
        user_script_reaches(
            &|_, project| {
                write(project, "package.json", &manifest);
            },
            run,
        );
    }
}

#[test]
fn a_recipe_or_package_script_computing_its_name_is_never_run() {
    let recipes = [
        format!("lint:\n\t@{}\n", COMPUTES_G.replace('$', "$$")),
        "G := $(shell printf tools/g.%s sh)\nlint:\n\t@sh $(G) a\n".to_owned(),
        "lint:\n\t@sh $(subst x,g,tools/x.sh) a\n".to_owned(),
        // A `define` block, a target's own value, a continued line.
        "define G\nsh $(shell printf tools/g.%s sh) a\nendef\nlint:\n\t@$(G)\n".to_owned(),
        "lint: G := $(shell printf ./tools/g.%s sh)\nlint:\n\t@$(G) a\n".to_owned(),
        "lint:\n\t@sh $$(printf \\\n\t  tools/g.%s sh) a\n".to_owned(),
    ];
    for makefile in &recipes {
        edit_never_runs("make -s lint", &|project| {
            write(project, "Makefile", makefile);
        });
    }
    // Another language's inline code building the command (R43-11).
    for command in [
        "python3 -c 'import os; os.system(\"sh \" + \"tools/g.\" + \"sh a\")'",
        "awk 'BEGIN{system(\"sh \" sprintf(\"tools/g.%s\",\"sh\") \" a\")}'",
        "perl -e 'exec \"sh\", sprintf(\"tools/g.%s\", \"sh\"), \"a\"'",
    ] {
        edit_never_runs(command, &|_| {});
    }
    // A makefile read from the hook's input (R43-11).
    edit_never_runs(
        "make -s -f /dev/stdin <<'E'\nx:\n\t@sh $$(printf tools/g.%s sh) a\nE",
        &|_| {},
    );
    let manifest = format!("{{\"name\":\"x\",\"scripts\":{{\"lint\":\"{COMPUTES_G}\"}}}}");
    edit_never_runs("npm run -s lint", &|project| {
        write(project, "package.json", &manifest);
    });
    // Through a user's script too.
    let (home, project) = home_with("[claude]");
    write(&project, "Makefile", &recipes[0]);
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\nmake -s lint\n",
    );
    accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
}

/// A recipe naming make's own variables and automatic variables, a
/// `$(MAKE)` call and a static variable is still approved.
#[test]
fn an_ordinary_makefile_keeps_running() {
    makefile_keeps_running(
        "BIN := tools/g.sh\nCFLAGS ?= -O2\nall: out\nout: in.c\n\t$(CC) $(CFLAGS) -o $@ $<\n\
         lint:\n\t@$(MAKE) -s real\nreal:\n\t@sh $(BIN) a\n",
    );
}

/// The user's guard `make -s lint` runs with `makefile` (whose `lint`
/// runs the guarding `tools/g.sh`) and answers "guarded": a makefile the
/// reading must not refuse.
pub(crate) fn makefile_keeps_running(makefile: &str) {
    if !installed("make") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(&project, "Makefile", makefile);
    crate::round39::scripts(&home, &project, crate::round39::GUARDS);
    crate::round39::runs_guarded(&home, &project, "make -s lint");
}

/// A fail-closed project hook whose script computes the name it runs
/// (R43-12): once approving it was tried and refused (`hooks approve
/// --all`, `--accept-hooks`), a run where nobody is asked says approving
/// it was refused and why, never "approve it"; an approval given later (the
/// script fixed) takes the refusal out.
#[test]
fn a_refusal_found_in_a_script_is_told_where_nobody_is_asked() {
    let (home, project) = home_with("[claude]");
    home.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    let command = "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/run.sh";
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": command, "failClosed": true}]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    write(
        &project,
        ".claude/hooks/run.sh",
        &format!("#!/bin/bash\n{COMPUTES_G}\n"),
    );
    crate::round39::scripts(&home, &project, crate::round39::GUARDS);
    let message = |accept: bool| {
        let emitted = crate::dialects::emit_terminal(&home, &project, "ls", accept);
        assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
        emitted["outcome"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // Never tried: nothing says it was refused yet.
    assert!(!message(false).contains("refused when last tried"));
    crate::dialects::in_project(&home, &project, &["approve", "--all"]);
    for accept in [false, true, false] {
        let told = message(accept);
        // Tried now (`--accept-hooks`), or when last tried.
        let refused = if accept {
            "cannot be approved"
        } else {
            "refused when last tried"
        };
        assert!(told.contains(refused), "{told}");
        assert!(told.contains("computed only when it runs"), "{told}");
        for hint in ["to approve it, run", "then approve it", "--accept-hooks"] {
            assert!(!told.contains(hint), "{told}");
        }
    }
    // Fixed: no longer "refused" (R45-10); approved: the guard runs.
    write(
        &project,
        ".claude/hooks/run.sh",
        &format!("#!/bin/bash\n{RUNS_G}\n"),
    );
    assert!(!message(false).contains("refused when last tried"));
    crate::dialects::in_project(&home, &project, &["approve", "--all"]);
    assert_guarded(
        command,
        &crate::dialects::emit_terminal(&home, &project, "ls", false),
    );
    assert!(
        !std::fs::read_to_string(home.hermes.join("shell-hooks-refused.json"))
            .unwrap_or_default()
            .contains("run.sh")
    );
}

/// A makefile included by a variable the makefile sets is read (its
/// recipes bind what they run); one named when make runs cannot be
/// approved.
#[test]
fn an_included_makefile_named_by_a_variable_is_read() {
    if !installed("make") {
        return;
    }
    let rules = format!("lint:\n\t@{RUNS_G}\n");
    let (home, project) = home_with("[claude]");
    write(&project, "mk/rules.mk", &rules);
    write(&project, "Makefile", "MK := mk/rules.mk\ninclude $(MK)\n");
    crate::round39::scripts(&home, &project, crate::round39::GUARDS);
    let accepted = accepted_then_edited(&home, &project, "make -s lint");
    assert_guarded("make -s lint", &accepted);
    edit_never_runs("make -s lint", &|project| {
        write(project, "mk/rules.mk", &rules);
        write(
            project,
            "Makefile",
            "include $(shell printf mk/rules.%s mk)\n",
        );
    });
}

/// Inline code that starts no program, or only commands written out, is
/// still approved and runs.
#[test]
fn inline_code_starting_written_commands_keeps_running() {
    let (home, project) = home_with("[claude]");
    for command in [
        "python3 -c 'import json, sys; json.load(sys.stdin); print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))'",
        "python3 -c 'import subprocess, sys; sys.stdin.read(); subprocess.run([\"true\"], check=True); print(\"{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"guarded\\\"}\")'",
        // A formatter's arguments are data; its program is written out.
        "python3 -c 'import json, subprocess, sys; f = json.load(sys.stdin).get(\"x\", \"-\"); subprocess.run([\"true\", \"--write\", f]); print(\"{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"guarded\\\"}\")'",
        "awk '/x|y/ { n++ } END { system(\"true\"); print \"{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"guarded\\\"}\" }'",
    ] {
        crate::round39::runs_guarded(&home, &project, command);
    }
}
