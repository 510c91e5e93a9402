//! Red team round 7, pass C (issue 27): `..` from a folder named before,
//! by name and after a link (R7c-4), and a file a shell runs read as shell
//! code whatever its name, so what it runs is bound in turn (R7c-7).

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

const PWN: &str = "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";
const PY_PWN: &str =
    "import os\nopen(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'pwned'), 'w').write('x')\n";

/// Approves `command` with `files` in the project, checks it runs as
/// approved, then writes `changed` with `payload`: the next call must skip
/// the hook, not run the payload (else what went wrong).
fn changing_asks_again(
    label: &str,
    command: &str,
    files: &[(&str, &str)],
    links: &[(&str, &str)],
    changed: &str,
    payload: &str,
) -> Result<(), String> {
    let (home, project) = home_with("[claude]");
    for (file, text) in files {
        write(&project, file, text);
    }
    for (link, target) in links {
        std::os::unix::fs::symlink(target, project.join(link)).expect("link");
    }
    approve_project_hook(&home, &project, command);
    let unchanged = emit_terminal(&home, &project, "ls", false);
    assert_eq!(
        unchanged["runs"][0]["status"],
        json!("completed"),
        "{label}: approved, unchanged: {unchanged}"
    );
    write(&project, changed, payload);
    let after = emit_terminal(&home, &project, "ls", false);
    if project.join("pwned").exists() || after["runs"][0]["status"] != json!("skipped") {
        return Err(format!("{label}: ran unasked: {after}"));
    }
    Ok(())
}

const HOOK: &str = "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh";

#[test]
fn a_folder_left_with_dot_dot_binds_what_its_parent_holds() {
    let mut failed = Vec::new();
    for (label, body, links) in [
        (
            "cd ..",
            "cd \"$CLAUDE_PROJECT_DIR/scripts/ci\" && cd .. && . lib/x",
            &[][..],
        ),
        (
            "cd -P link && cd ..",
            "cd -P \"$CLAUDE_PROJECT_DIR/tools\" && cd .. && . lib/x",
            &[("tools", "scripts/ci")][..],
        ),
    ] {
        let script = format!("cat >/dev/null\n{body}\n");
        let result = changing_asks_again(
            label,
            HOOK,
            &[
                (".claude/hooks/check.sh", &script),
                ("scripts/ci/run.sh", "true\n"),
                ("scripts/lib/x", "true\n"),
                ("lib/x", "true\n"),
            ],
            links,
            "scripts/lib/x",
            PWN,
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn python_joining_dot_dot_after_a_link_binds_the_module_it_imports() {
    let check = "import os, sys\nsys.stdin.read()\nROOT = os.environ['CLAUDE_PROJECT_DIR']\n\
        sys.path.insert(0, os.path.join(ROOT, 'tools', '..', 'lib'))\nimport xmod\n";
    changing_asks_again(
        "os.path.join",
        "PYTHONDONTWRITEBYTECODE=1 python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.py",
        &[
            (".claude/hooks/check.py", check),
            ("scripts/ci/run.sh", "true\n"),
            ("scripts/lib/xmod.py", "X = 1\n"),
        ],
        &[("tools", "scripts/ci")],
        "scripts/lib/xmod.py",
        PY_PWN,
    )
    .unwrap_or_else(|failed| panic!("{failed}"));
}

#[test]
fn what_a_file_run_by_a_shell_runs_is_bound_whatever_the_files_are_called() {
    let mut failed = Vec::new();
    for (label, body, file, text, second) in [
        (
            "sh run.txt",
            "sh \"$CLAUDE_PROJECT_DIR/tools/run.txt\"",
            "tools/run.txt",
            "/bin/sh \"$CLAUDE_PROJECT_DIR/tools/stage2.dat\"\n",
            "tools/stage2.dat",
        ),
        (
            ". env.conf",
            "cd \"$CLAUDE_PROJECT_DIR\" && . ./env.conf",
            "env.conf",
            "/bin/sh ./lib/helpers.dat\n",
            "lib/helpers.dat",
        ),
        (
            "make -f build.txt",
            "make -s -f \"$CLAUDE_PROJECT_DIR/build.txt\"",
            "build.txt",
            "all:\n\t@/bin/sh \"$$CLAUDE_PROJECT_DIR/tools/stage2.dat\"\n",
            "tools/stage2.dat",
        ),
    ] {
        let script = format!("cat >/dev/null\n{body}\n");
        let result = changing_asks_again(
            label,
            HOOK,
            &[
                (".claude/hooks/check.sh", &script),
                (file, text),
                (second, "true\n"),
            ],
            &[],
            second,
            PWN,
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
