//! Red team round 8 (issue 27), lexical spellings: a file a project hook's
//! script sources spelled as bash reads it (`~+/`, `li{b,}`, `$'\x6c...'`,
//! a backslash-newline in the word: R8-9), a JavaScript or Python string
//! literal's escapes and Python's adjacent literals (R8-10), and a file
//! outside the project run by a `sh -c` string (R8-11). Each is approved,
//! checked to run the file, then the file changes: the hook must ask again.

use serde_json::json;

use crate::dialects::{approve_project_hook, emit_terminal, home_with, write};

const SANE: &str = "echo ok > \"$CLAUDE_PROJECT_DIR/sane\"\n";
const PWN: &str = "echo PWNED > \"$CLAUDE_PROJECT_DIR/pwned\"\n";

/// Approves `command` with `files` in the project, the file `changed`
/// (in the project, or the absolute path under HOME `~/<changed>`) holding
/// `sane`: the approved run must run it. Then `changed` holds `payload`:
/// the next call must skip the hook, not run the payload.
fn changing_asks_again(
    label: &str,
    command: &str,
    files: &[(&str, &str)],
    changed: &str,
    (sane, payload): (&str, &str),
) -> Result<(), String> {
    let (home, project) = home_with("[claude]");
    for (file, text) in files {
        write(&project, file, text);
    }
    let (base, file) = match changed.strip_prefix("~/") {
        Some(in_home) => (home.user_home.clone(), in_home),
        None => (project.clone(), changed),
    };
    write(&base, file, sane);
    let command = command.replace("~/", &format!("{}/", home.user_home.display()));
    approve_project_hook(&home, &project, &command);
    if !project.join("sane").exists() {
        return Err(format!("{label}: the approved run did not run {changed}"));
    }
    write(&base, file, payload);
    let after = emit_terminal(&home, &project, "ls", false);
    if project.join("pwned").exists() || after["runs"][0]["status"] != json!("skipped") {
        return Err(format!("{label}: ran unasked: {after}"));
    }
    Ok(())
}

#[test]
fn bash_spellings_of_the_sourced_file_bind_it() {
    // R8-9.
    let mut failed = Vec::new();
    for spelling in [
        "~+/lib/common.sh",
        "li{b,}/common.sh",
        "lib/comm{on,}.sh",
        "$'\\x6cib/common.sh'",
        "lib/com\\\nmon.sh",
    ] {
        let script = format!("cat >/dev/null\n. {spelling}\n");
        let result = changing_asks_again(
            spelling,
            "cd \"$CLAUDE_PROJECT_DIR\" && bash scripts/check.sh",
            &[("scripts/check.sh", &script)],
            "lib/common.sh",
            (SANE, PWN),
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn escaped_and_adjacent_string_literals_bind_the_file_they_spell() {
    // R8-10.
    let js_sane = "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/sane', 'ok');\n";
    let js_pwn = "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/pwned', 'x');\n";
    let py_sane = "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/sane', 'w').write('ok')\n";
    let py_pwn = "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/pwned', 'w').write('x')\n";
    let mut failed = Vec::new();
    for (label, runner, script, file, code) in [
        (
            "\\x in JavaScript",
            "node scripts/check.js",
            "require(process.cwd() + \"/\\x6cib/x.js\");\n",
            "lib/x.js",
            (js_sane, js_pwn),
        ),
        (
            "\\u in JavaScript",
            "node scripts/check.js",
            "require(process.cwd() + \"/\\u006cib/x.js\");\n",
            "lib/x.js",
            (js_sane, js_pwn),
        ),
        (
            "\\x in Python",
            "python3 scripts/check.py",
            "exec(open(\"\\x6cib/x.py\").read())\n",
            "lib/x.py",
            (py_sane, py_pwn),
        ),
        (
            "adjacent Python literals",
            "python3 scripts/check.py",
            "exec(open(\"li\" \"b/x.py\").read())\n",
            "lib/x.py",
            (py_sane, py_pwn),
        ),
    ] {
        let name = if runner.starts_with("node") {
            "scripts/check.js"
        } else {
            "scripts/check.py"
        };
        let result = changing_asks_again(
            label,
            &format!("cd \"$CLAUDE_PROJECT_DIR\" && {runner} </dev/null"),
            &[(name, script)],
            file,
            code,
        );
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_file_outside_the_project_a_shell_string_runs_is_bound() {
    // R8-11: a repository's installer wrote `~/.local/share/acme/x.sh`.
    let mut failed = Vec::new();
    for form in [
        "sh -c '. F'",
        "sh -c 'sh F'",
        "bash -c \". F\"",
        "bash -c 'source F'",
    ] {
        let command = format!(
            "cat >/dev/null; {}",
            form.replace('F', "~/.local/share/acme/x.sh")
        );
        let result =
            changing_asks_again(form, &command, &[], "~/.local/share/acme/x.sh", (SANE, PWN));
        failed.extend(result.err());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
