//! Red team round 45 against round 44's fixes: a project script that a
//! recipe or package script runs was bound but not read (R45-11); recipe
//! text the makefile reading skipped (R45-5: a make function, a rule's
//! same-line recipe, `.ONESHELL`, `.RECIPEPREFIX`, a sub-make); npm's
//! `t` alias, `exec -c`, a BOM and `cross-env` (R45-6); the sealed copy's
//! place read through `BASH_SOURCE` or `caller` (R45-7); a user's script
//! outside the home folder (R45-3); a version manager's shim named by path
//! (R45-9, which must keep running).

use crate::dialects::{executable, home_with, write};
use crate::round8_modules::installed;
use crate::round39::{accepted_then_edited, runs_guarded};
use crate::round40::edit_never_runs;

/// A script that runs the edited `tools/g.sh` by a name computed when it
/// runs.
const COMPUTES: &str = "#!/bin/sh\nsh \"$(printf tools/g.%s sh)\" a\n";

#[test]
fn a_project_script_a_recipe_or_package_script_runs_is_read() {
    let manifest = "{\"name\":\"x\",\"scripts\":{\"lint\":\"bash scripts/x.sh\"}}";
    edit_never_runs("npm run -s lint", &|project| {
        write(project, "package.json", manifest);
        executable(&write(project, "scripts/x.sh", COMPUTES));
    });
    edit_never_runs("make -s lint", &|project| {
        write(project, "Makefile", "lint:\n\t@./scripts/x.sh\n");
        executable(&write(project, "scripts/x.sh", COMPUTES));
    });
}

#[test]
fn recipe_text_the_makefile_reading_skipped_is_read() {
    let computes = "sh $$(printf tools/g.%s sh) a";
    for makefile in [
        format!("lint:\n\t@$(strip ) {computes}\n"),
        format!("V = $(strip {computes})\nlint:\n\t@$(V)\n"),
        format!("lint: ; @{computes}\n"),
        ".ONESHELL:\nlint:\n\t@set -- $$(printf tools/g.%s sh)\n\tsh \"$$1\" a\n".to_owned(),
        format!(".RECIPEPREFIX = >\nlint:\n> @{computes}\n"),
        "lint:\n\t@$(MAKE) -s -f other.mk\n".to_owned(),
        // A function of values the makefile does not write (R32-4 had it
        // bind any folder; what it gives is not read now).
        "X := $(or $(D),tools)\nlint:\n\tsh $(X)/g.sh a\n".to_owned(),
    ] {
        edit_never_runs("make -s lint", &|project| {
            write(project, "Makefile", &makefile);
            write(project, "other.mk", &format!("all:\n\t@{computes}\n"));
        });
    }
}

/// A makefile or `package.json` too large to read whole cannot hide a
/// recipe that computes what it runs.
#[test]
fn definitions_too_large_to_read_are_never_approved() {
    let padding = format!("# {}\n", "x".repeat(1 << 20));
    let makefile = format!("{padding}lint:\n\t@sh $$(printf tools/g.%s sh) a\n");
    edit_never_runs("make -s lint", &|project| {
        write(project, "Makefile", &makefile);
    });
    let manifest = format!(
        "{{\"description\":\"{}\",\"scripts\":{{\"lint\":\"sh $(printf tools/g.%s sh) a\"}}}}",
        "x".repeat(1 << 20)
    );
    edit_never_runs("npm run -s lint", &|project| {
        write(project, "package.json", &manifest);
    });
}

#[test]
fn npm_spellings_reach_the_scripts_they_run() {
    let computes = "sh $(printf tools/g.%s sh) a";
    for (command, manifest) in [
        (
            "npm t",
            format!("{{\"scripts\":{{\"test\":\"{computes}\"}}}}"),
        ),
        (
            "npm run -s lint",
            format!("\u{feff}{{\"scripts\":{{\"lint\":\"{computes}\"}}}}"),
        ),
        (
            "npm run -s lint",
            format!("{{\"scripts\":{{\"lint\":\"cross-env A=1 {computes}\"}}}}"),
        ),
    ] {
        edit_never_runs(command, &|project| {
            write(project, "package.json", &manifest);
        });
    }
    edit_never_runs("npm exec -c 'sh \"$(printf tools/g.%s sh)\" a'", &|_| {});
    // Scripts a script runs by name, or as a runner's shell text.
    for (lint, runner) in [
        ("run-p a", "for s in \"$@\"; do npm run -s \"$s\"; done"),
        (
            "concurrently \\\"sh $(printf tools/g.%s sh) a\\\"",
            "for c in \"$@\"; do sh -c \"$c\"; done",
        ),
    ] {
        let manifest = format!("{{\"scripts\":{{\"lint\":\"{lint}\",\"a\":\"{computes}\"}}}}");
        let program = lint.split(' ').next().unwrap_or_default().to_owned();
        edit_never_runs("npm run -s lint", &|project| {
            write(project, "package.json", &manifest);
            let bin = format!("node_modules/.bin/{program}");
            executable(&write(project, &bin, &format!("#!/bin/sh\n{runner}\n")));
        });
    }
    // Words npm appends to the script.
    edit_never_runs(
        "npm run -s lint -- \"$(printf tools/g.%s sh)\" a",
        &|project| {
            write(project, "package.json", "{\"scripts\":{\"lint\":\"sh\"}}");
        },
    );
}

#[test]
fn the_sealed_copys_place_is_never_a_name_that_runs() {
    for text in [
        "#!/bin/bash\ns=${BASH_SOU\\\nRCE[0]}\nsh \"${s%/*}/../cwd/tools/g.sh\" a\n",
        "#!/bin/bash\ns=$\\\n{BASH_SOURCE[0]}\nsh \"${s%/*}/../cwd/tools/g.sh\" a\n",
        "#!/bin/bash\nf() { set -- $(caller 0); sh \"$(dirname \"$3\")/../cwd/tools/g.sh\" a; }\nf\n",
    ] {
        edit_never_runs("bash \"$CLAUDE_PROJECT_DIR\"/run/x.sh", &|project| {
            write(project, "run/x.sh", text);
        });
    }
    edit_never_runs("bash \"$CLAUDE_PROJECT_DIR\"/run/x.sh", &|project| {
        write(
            project,
            "run/x.sh",
            "#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\n",
        );
        write(
            project,
            "run/lib.sh",
            "D=$(dirname \"${BASH_SOURCE[1]}\")\nsh \"$D/../cwd/tools/g.sh\" a\n",
        );
    });
}

#[test]
fn a_users_script_outside_the_home_folder_is_read() {
    let outside = tempfile::tempdir().expect("outside");
    let script = outside.path().join("y.sh");
    std::fs::write(&script, "sh tools/g.sh a\n").expect("y.sh");
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        &format!("#!/bin/bash\ncat >/dev/null\nsh {}\n", script.display()),
    );
    let accepted = accepted_then_edited(&home, &project, "bash ~/.claude/hooks/x.sh");
    crate::round39::assert_guarded("outside", &accepted);
}

#[test]
fn a_version_managers_shim_named_by_path_keeps_running() {
    if !installed("python3") {
        return;
    }
    let (home, project) = home_with("[claude]");
    // A shim works out what to run when it runs (pyenv's, in short).
    executable(&write(
        &home.user_home,
        ".pyenv/shims/python3",
        "#!/usr/bin/env bash\nprogram=\"${0##*/}\"\nexec \"$HOME/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n",
    ));
    executable(&write(
        &home.user_home,
        ".pyenv/libexec/pyenv",
        "#!/usr/bin/env bash\ncommand=\"$1\"; shift\nexec \"$(dirname \"$0\")/pyenv-$command\" \"$@\"\n",
    ));
    executable(&write(
        &home.user_home,
        ".pyenv/libexec/pyenv-exec",
        "#!/usr/bin/env bash\nshift\nexec python3 \"$@\"\n",
    ));
    write(
        &home.user_home,
        ".claude/hooks/guard.py",
        "import sys; sys.stdin.read(); print('{\"decision\":\"block\",\"reason\":\"guarded\"}')\n",
    );
    write(
        &home.user_home,
        ".claude/hooks/x.sh",
        "#!/bin/bash\nPATH=/usr/bin:/bin ~/.pyenv/shims/python3 ~/.claude/hooks/guard.py\n",
    );
    runs_guarded(&home, &project, "bash ~/.claude/hooks/x.sh");
}

/// A realistic makefile whose other target feeds file names to a Python
/// module through `xargs` (R45-8): the names are the module's data, and
/// the hook running another target keeps running; its shell is found by
/// `$(shell command -v sh)`, a place, as in a command.
#[test]
fn a_makefile_feeding_names_to_a_module_keeps_running() {
    crate::round45::makefile_keeps_running(
        "PY ?= python3\nSH := $(shell command -v sh)\n.PHONY: lint check\n\
         check:\n\tgit diff --name-only | grep -E \"\\.py$$\" | xargs -r $(PY) -m py_compile\n\
         lint:\n\t@$(SH) tools/g.sh a\n",
    );
}

/// A user's Python hook running the project's script by a written name
/// binds it, as a shell script's does (R45-3's Python rows).
#[test]
fn a_users_python_hook_binds_the_project_script_it_names() {
    if !installed("python3") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(
        &home.user_home,
        ".claude/hooks/x.py",
        "import subprocess, sys\nsys.stdin.read()\nsubprocess.run(['sh', 'tools/g.sh', 'a'])\n",
    );
    let accepted = accepted_then_edited(&home, &project, "python3 ~/.claude/hooks/x.py");
    crate::round39::assert_guarded("x.py", &accepted);
}

/// `.` as an argument (`prettier --check .`) sources nothing: the program
/// (`npx`, a node script) is not read as shell text, and the hook, direct
/// or in a recipe, keeps running (a regression of R45-11's reading).
#[test]
fn a_dot_argument_is_no_file_sourced() {
    if !installed("npx") || !installed("make") {
        return;
    }
    let guard =
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"guarded\"}'\n";
    for command in ["npx --no-install prettier --check .", "make -s fmt"] {
        let (home, project) = home_with("[claude]");
        executable(&write(&project, "node_modules/.bin/prettier", guard));
        write(
            &project,
            "Makefile",
            "fmt:\n\t@npx --no-install prettier --check .\n",
        );
        runs_guarded(&home, &project, command);
    }
}
