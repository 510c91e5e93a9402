//! Red team round 73's holes (round 72's readings attacked), through the
//! real binary: a script under `${CLAUDE_PROJECT_DIR:-$(pwd)}` (nothing
//! was bound), a just script recipe's own `export`, `env --ignore-env`,
//! make's variables from the environment and `MAKEFLAGS`, `eval export`,
//! a push to the project's own repository written with `$PWD` or an
//! `insteadOf`, and config.yaml's `fail_closed` spelled with a dot, a
//! zero-width space or given twice. Each ran the edit unasked (or let an
//! unapproved guard allow) on the code before.

use crate::round65::{asks_again, refused};
use crate::round72::wrapper_asks_again;

const EDITED_SCRIPT: (&str, &str) = ("t/x.sh", "touch PWNED\n");

#[test]
fn a_script_under_a_defaulted_project_folder_is_bound_or_refused() {
    let script = ("t/x.sh", "true\n");
    asks_again(
        "bash \"${CLAUDE_PROJECT_DIR:-$(pwd)}/t/x.sh\"",
        &[script],
        EDITED_SCRIPT,
        "t/x.sh",
    );
    refused(
        "bash \"${NOPE_X:-$(pwd)}/t/x.sh\"",
        &[script],
        Some(EDITED_SCRIPT),
        "a folder named only when it runs",
    );
}

#[test]
fn variables_reach_programs_by_the_routes_round_73_found() {
    let build = "b:\n\tcargo build -q --frozen\n";
    let just = "b:\n    #!/bin/sh\n    export CARGO_HOME=ch\n    cargo build -q --frozen\n";
    wrapper_asks_again("just b", &[("justfile", just)]);
    let assigned = format!("CARGO_HOME = ch\n{build}");
    wrapper_asks_again("make -s b", &[("Makefile", &assigned)]);
    let flags = format!("MAKEFLAGS += CARGO_HOME=ch\n{build}");
    wrapper_asks_again("make -s b", &[("Makefile", &flags)]);
    wrapper_asks_again(
        "MAKEFLAGS='CARGO_HOME=ch' make -s b",
        &[("Makefile", build)],
    );
    wrapper_asks_again("eval export CARGO_HOME=ch; cargo build -q --frozen", &[]);
    wrapper_asks_again("CARGO_HOME=ch eval cargo build -q --frozen", &[]);
    refused(
        "export $(cat vars.txt); cargo build -q --frozen",
        &[("vars.txt", "CARGO_HOME=ch\n")],
        None,
        "names are known only when it runs",
    );
    let json = ("json.py", "open('PWNED', 'w')\ndumps = str\n");
    asks_again(
        "env --ignore-env python3 -c 'import json'",
        &[("README", "r\n")],
        json,
        "json.py",
    );
}

#[test]
fn a_push_to_the_projects_own_repository_written_another_way_reads_its_hooks() {
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edited = ("Makefile", "lint:\n\t@touch PWNED\n");
    let bare = [
        makefile,
        ("r.git/HEAD", "ref: refs/heads/main\n"),
        ("r.git/objects/.keep", ""),
        ("r.git/config", "[core]\n\tbare = true\n"),
        (
            "r.git/hooks/pre-receive",
            "#!/bin/sh\ncd .. && make -s lint\n",
        ),
    ];
    for command in [
        "git push -q \"$PWD/r.git\" HEAD:refs/heads/zz",
        "git push -q \"file://$PWD/r.git\" HEAD:refs/heads/zz",
    ] {
        asks_again(command, &bare, edited, "Makefile");
    }
    let rewrite = (
        ".git/config",
        "[core]\n\trepositoryformatversion = 0\n[url \"r.git\"]\n\tpushInsteadOf = gh:\n",
    );
    let mut rewritten = bare.to_vec();
    rewritten.push(rewrite);
    asks_again(
        "git push -q gh: HEAD:refs/heads/zz",
        &rewritten,
        edited,
        "Makefile",
    );
}

#[test]
fn a_config_guard_with_fail_closed_spelled_oddly_or_twice_blocks() {
    for key in [
        "fail.closed: true",
        "fail\u{200b}closed: true",
        "fail_closed: true\n      fail_closed: false",
        // A Cyrillic `с`, fullwidth letters and a slip of the keyboard
        // (round 73, FC-19: the look-alike let an unapproved guard allow).
        "fail_\u{0441}losed: true",
        "\u{ff46}\u{ff41}\u{ff49}\u{ff4c}_closed: true",
        "fail_close: true",
    ] {
        let (home, project) = crate::dialects::home_with("[]");
        let guard = crate::dialects::write(&home.user_home, "guard.sh", "echo {}\n");
        home.config(&format!(
            "hooks:\n  pre_tool_call:\n    - command: \"bash {}\"\n      {key}\n",
            guard.display()
        ));
        let emitted = crate::dialects::emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(emitted["outcome"]["action"], "block", "{key}: {emitted:#}");
    }
}

#[test]
fn more_routes_round_73_found_are_read() {
    wrapper_asks_again(
        "bash -c \"bash <<< 'CARGO_HOME=ch cargo build -q --frozen'\"",
        &[],
    );
    let eval = "$(eval export CARGO_HOME=ch)\nb:\n\tcargo build -q --frozen\n";
    wrapper_asks_again("make -s b", &[("Makefile", eval)]);
    let tox = "[testenv:b]\nskip_install = true\nset_env = file|.env\nallowlist_externals = cargo\ncommands = cargo build -q --frozen\n";
    wrapper_asks_again(
        "tox -q -e b",
        &[("tox.ini", tox), (".env", "CARGO_HOME=ch\n")],
    );
    let legacy = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[testenv:b]\nskip_install = true\nsetenv = CARGO_HOME={toxinidir}/ch\ncommands = cargo build -q --frozen\n\"\"\"\n";
    wrapper_asks_again("tox -q -e b", &[("pyproject.toml", legacy)]);
    let just = "export CARGO_HOME := \"/nonexistent\"\nb:\n    cargo build -q --frozen\n";
    wrapper_asks_again("just CARGO_HOME=ch b", &[("justfile", just)]);
    wrapper_asks_again("just --set CARGO_HOME ch b", &[("justfile", just)]);
    refused(
        "JUST_DOTENV_COMMAND='cat e.txt' just b",
        &[
            ("justfile", "b:\n    cargo build -q --frozen\n"),
            ("e.txt", "CARGO_HOME=ch\n"),
        ],
        None,
        "JUST_DOTENV_COMMAND",
    );
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edited = ("Makefile", "lint:\n\t@touch PWNED\n");
    let template = ("tpl/hooks/post-checkout", "#!/bin/sh\nmake -s lint\n");
    asks_again(
        "git clone -q --template=tpl . c2",
        &[makefile, template],
        edited,
        "Makefile",
    );
    let ext = (
        ".git/config",
        "[core]\n\trepositoryformatversion = 0\n[remote \"o\"]\n\turl = https://example.invalid/x\n[url \"ext::sh x.sh \"]\n\tinsteadOf = https://example.invalid/\n",
    );
    let script = ("x.sh", "make -s lint\n");
    asks_again(
        "git fetch -q o",
        &[makefile, ext, script],
        edited,
        "Makefile",
    );
    let jest = [
        makefile,
        (
            "package.json",
            "{\"jest\": {\"setupFiles\": [\"./setup.js\"]}}",
        ),
        (
            "setup.js",
            "require(\"child_process\").execSync(\"make -s lint\");\n",
        ),
        ("a.test.js", "test(\"a\", () => {});\n"),
    ];
    asks_again("npx jest --silent", &jest, edited, "Makefile");
    // A test starting `make` in a folder it names.
    let sub = [
        ("sub/Makefile", "lint:\n\t@true\n"),
        (
            "test_a.py",
            "import subprocess\ndef test_a():\n    subprocess.Popen([\"make\", \"-s\", \"lint\"], cwd=\"sub\").wait()\n",
        ),
    ];
    let changed = ("sub/Makefile", "lint:\n\t@touch ../PWNED\n");
    asks_again("python3 -m pytest -q", &sub, changed, "sub/Makefile");
}

/// A discovered test that starts a program in a way the reading does not
/// follow (`os.spawnlp`, `getattr(subprocess, "run")`, `promisify(exec)`)
/// cannot be approved; a Perl `.t` without a `#!` line is read as Perl
/// (round 73: TS-14, TS-15, JT-06, TS-05e ran an edited Makefile unasked).
#[test]
fn tests_starting_programs_no_reading_follows_are_refused_or_read() {
    for (command, test, text) in [
        (
            "python3 -m pytest -q",
            "test_a.py",
            "import os\ndef test_a():\n    os.spawnlp(os.P_WAIT, \"make\", \"make\", \"-s\", \"lint\")\n",
        ),
        (
            "python3 -m pytest -q",
            "test_a.py",
            "import subprocess\ndef test_a():\n    getattr(subprocess, \"run\")([\"make\", \"-s\", \"lint\"])\n",
        ),
        (
            "node --test",
            "test/a.test.js",
            "const {promisify} = require(\"util\");\ntest(\"a\", async () => { await promisify(require(\"child_process\").exec)(\"make -s lint\"); });\n",
        ),
    ] {
        test_refused(command, test, text);
    }
    let perl = (
        "t/a.t",
        "chdir \"sub\"; system(\"make\", \"-s\", \"lint\"); print \"1..1\\nok 1\\n\";\n",
    );
    let sub = ("sub/Makefile", "lint:\n\t@true\n");
    let edited = ("sub/Makefile", "lint:\n\t@touch PWNED\n");
    asks_again("prove -Q t", &[perl, sub], edited, "sub/Makefile");
}

/// `command` (a test runner) finding the test file `test` holding `text`,
/// which starts `make -s lint` in a way the reading does not follow: it
/// cannot be approved, and an edited Makefile never runs.
pub(crate) fn test_refused(command: &str, test: &str, text: &str) {
    let makefile = ("Makefile", "lint:\n\t@true\n");
    let edited = ("Makefile", "lint:\n\t@touch PWNED\n");
    refused(
        command,
        &[makefile, (test, text)],
        Some(edited),
        "starts programs in a way this reading does not follow",
    );
}
