//! A hook that runs the project's own definitions (`make check`, `npm run
//! lint`, `npx tool`) is bound to them: the Makefile and what it includes,
//! `package.json`, the `node_modules/.bin` tool and its package folder.
//! Changed, or created after an approval given while missing, they never run
//! unasked (red-team A10).

use std::path::Path;

use serde_json::json;

use crate::dialects::{
    approve_project_hook, emit_terminal, home_with, in_project, node_tool_package, write,
};

const PWN_RECIPE: &str = "check:\n\t@echo PWNED > pwned\n";

/// Approves the project's hook `command` as it is, lets `change` edit what
/// it runs; the changed code must not run until approved again.
fn changed_definitions_never_run(command: &str, setup: impl Fn(&Path), change: impl Fn(&Path)) {
    let (home, project) = home_with("[claude]");
    setup(&project);
    approve_project_hook(&home, &project, command);
    assert!(!project.join("pwned").exists(), "set-up ran the payload");
    change(&project);
    let after = emit_terminal(&home, &project, "ls", false);
    assert!(
        !project.join("pwned").exists(),
        "changed definitions ran without a new approval: {after}"
    );
    assert_eq!(after["runs"][0]["status"], json!("skipped"), "{after}");
}

#[test]
fn a_file_the_makefile_includes_is_bound() {
    changed_definitions_never_run(
        "make -s check",
        |project| {
            write(project, "Makefile", "include mk/rules.mk\n");
            write(project, "mk/rules.mk", "check:\n\t@:\n");
        },
        |project| {
            write(project, "mk/rules.mk", PWN_RECIPE);
        },
    );
}

#[test]
fn a_makefile_missing_at_approval_is_bound_as_missing() {
    changed_definitions_never_run(
        "make -s check 2>/dev/null || true",
        |_| {},
        |project| {
            write(project, "GNUmakefile", PWN_RECIPE);
        },
    );
}

#[test]
fn a_package_json_script_is_bound() {
    let script = |body: &str| json!({"name": "p", "version": "1.0.0", "scripts": {"lint": body}});
    changed_definitions_never_run(
        "npm run -s lint",
        |project| {
            write(project, "package.json", &script("true").to_string());
        },
        |project| {
            write(
                project,
                "package.json",
                &script("echo PWNED > pwned").to_string(),
            );
        },
    );
}

const PWN_JS: &str =
    "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/pwned', 'PWNED');\n";

#[test]
fn a_node_tools_package_is_bound() {
    changed_definitions_never_run(
        "npx --no tool",
        |project| node_tool_package(project, "// ok\n"),
        |project| node_tool_package(project, PWN_JS),
    );
}

#[test]
fn list_json_shows_the_definitions_a_hook_is_bound_to() {
    let (home, project) = home_with("[claude]");
    write(&project, "Makefile", "include mk/rules.mk\n");
    write(&project, "mk/rules.mk", "check:\n\t@:\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "make -s check"}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let approved = emit_terminal(&home, &project, "ls", true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved}"
    );
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    let text = listed.to_string();
    for file in ["Makefile", "GNUmakefile", "mk/rules.mk"] {
        let path = project.join(file).display().to_string();
        assert!(
            text.contains(&format!("\"{path}\"")),
            "{file} not shown in list --json: {listed:#}"
        );
    }
    assert!(text.contains("\"definitions\""), "{listed:#}");
}

#[test]
fn a_file_a_package_script_runs_is_bound() {
    changed_definitions_never_run(
        "npm run -s lint",
        |project| {
            let manifest =
                json!({"name": "p", "version": "1.0.0", "scripts": {"lint": "node tools/lint.js"}});
            write(project, "package.json", &manifest.to_string());
            write(project, "tools/lint.js", "// ok\n");
        },
        |project| {
            write(project, "tools/lint.js", PWN_JS);
        },
    );
}

#[test]
fn a_makefile_linked_elsewhere_is_bound_through_the_link() {
    changed_definitions_never_run(
        "make -s check",
        |project| {
            write(project, "build/rules.mk", "check:\n\t@:\n");
            std::os::unix::fs::symlink("build/rules.mk", project.join("Makefile")).expect("link");
        },
        |project| {
            write(project, "build/rules.mk", PWN_RECIPE);
        },
    );
}

/// The code an `.npmrc` names for npm to run or load (red-team round 4, N4:
/// `script-shell=tools/sh.sh`, `node-options=--require ./tools/a.js`) is
/// bound with the package script (npm itself need not be installed: the
/// approval's binding is what is checked).
#[test]
fn files_an_npmrc_names_as_code_are_bound() {
    let (home, project) = home_with("[claude]");
    write(&project, "package.json", r#"{"scripts": {"lint": "true"}}"#);
    write(
        &project,
        ".npmrc",
        "script-shell=tools/sh.sh\nnode-options=--require ./tools/a.js\nregistry=https://registry.npmjs.org/\n",
    );
    write(&project, "tools/sh.sh", "#!/bin/sh\nexec sh \"$@\"\n");
    write(&project, "tools/a.js", "\n");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "npm run lint"}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    emit_terminal(&home, &project, "ls", true);
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    let text = listed.to_string();
    for file in [".npmrc", "tools/sh.sh", "tools/a.js"] {
        let path = project.join(file).display().to_string();
        assert!(
            text.contains(&format!("\"{path}\"")),
            "{file} not bound: {listed:#}"
        );
    }
}

/// Red-team round 5, F17: a program the bound `.cargo/config.toml` names
/// (a `rustc-wrapper`) is bound too.
#[test]
fn a_program_the_cargo_configuration_names_is_bound() {
    changed_definitions_never_run(
        "cargo -q check --offline 2>/dev/null || true",
        |project| {
            write(
                project,
                "Cargo.toml",
                "[package]\nname = \"p\"\nversion = \"0.1.0\"\n",
            );
            write(project, "src/lib.rs", "");
            write(
                project,
                ".cargo/config.toml",
                "[build]\nrustc-wrapper = \"tools/wrap.sh\"\n",
            );
            write(project, "tools/wrap.sh", "#!/bin/sh\nexec \"$@\"\n");
        },
        |project| {
            write(
                project,
                "tools/wrap.sh",
                "#!/bin/sh\necho PWNED > pwned\nexec \"$@\"\n",
            );
        },
    );
}
