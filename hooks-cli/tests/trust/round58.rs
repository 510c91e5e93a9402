//! Red team round 58 (my own attack on round 57's readings): Node's
//! `{cwd}` option shorthand given a name that holds another folder, option
//! keys and variable names spelled where no reading sees them (computed
//! keys, escapes, getters, comments, reflection), and U57-3: a Node guard
//! taking `cwd` out of its input as parsed (`const {cwd} = JSON.parse(…)`)
//! is approved and bound.

use crate::dialects::{home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round53::emit_naming;
use crate::round55::the_files_folder_never_runs_by;

/// A Node guard: reads its input whole, takes the tool call's path into
/// `fp` and its folder into `d`, runs `body`, and blocks.
fn node_guard(body: &str) -> String {
    format!(
        "const cp = require(\"child_process\"); const fs = require(\"fs\"); \
         const path = require(\"path\");\n\
         const raw = fs.readFileSync(0, \"utf8\");\n\
         {body}\n\
         console.log(JSON.stringify({{ decision: \"block\", reason: \"guarded\" }}));\n"
    )
}

/// The path and its folder, read from the input parsed as `input`.
const INPUT: &str = "const input = JSON.parse(raw); \
     const fp = (input.tool_input || {}).file_path || \"\"; const d = path.dirname(fp);";

/// `make -s lint` with the options `options`, its failure ignored.
fn make_with(options: &str) -> String {
    format!("try {{ cp.execSync(\"make -s lint\", {options}); }} catch (e) {{}}")
}

/// U57-3: `const {cwd} = JSON.parse(…)` is the project folder; git run
/// there binds the project's git settings, so an edit of them asks again.
#[test]
fn a_node_guard_taking_cwd_out_of_its_input_is_approved_and_bound() {
    if !installed("node") || !installed("git") {
        return;
    }
    let hook = node_guard(
        "const {cwd, tool_input} = JSON.parse(raw);\n\
         try { cp.execFileSync(\"git\", [\"-C\", cwd, \"status\", \"--short\"], {stdio: \"ignore\"}); } catch (e) {}",
    );
    let (home, project) = home_with("[claude]");
    write(&project, "src/app.py", "print(1)\n");
    crate::round28::git(&project, &["init", "-q", "."]);
    write(&home.user_home, ".claude/hooks/g.js", &hook);
    user_fail_closed_command(&home, "node ~/.claude/hooks/g.js");
    let file = project.join("src/app.py");
    let accepted = emit_naming(&home, &project, &file, true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    let fsmonitor = format!("touch {}; false", project.join("PWNED").display());
    crate::round28::git(&project, &["config", "core.fsmonitor", &fsmonitor]);
    let emitted = emit_naming(&home, &project, &file, false);
    assert!(!project.join("PWNED").exists(), "git ran the edit");
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// The `{cwd}` shorthand given a name that holds the tool call's folder
/// (a parameter, a loop variable, a name given again) runs nothing of it.
#[test]
fn the_cwd_shorthand_given_another_folder_runs_nothing_of_it() {
    if !installed("node") || !installed("make") {
        return;
    }
    let make = make_with("{cwd, stdio: \"ignore\"}");
    let head = "const {cwd, tool_input} = JSON.parse(raw); \
                const fp = (tool_input || {}).file_path || \"\";";
    let head_let = head.replacen("const {cwd", "let {cwd", 1);
    for body in [
        format!("{head}\nfunction go(cwd) {{ {make} }}\ngo(path.dirname(fp));"),
        format!("{head}\n[path.dirname(fp)].forEach(function (cwd) {{ {make} }});"),
        format!("{head_let}\nfor (cwd of [path.dirname(fp)]) {{ {make} }}"),
        format!("{head}\ntry {{ throw path.dirname(fp); }} catch (cwd) {{ {make} }}"),
        format!(
            "{head_let}\n({{tool_input: {{file_path: cwd}}}} = \
             {{tool_input: {{file_path: path.dirname(fp)}}}});\n{make}"
        ),
        format!(
            "const fp = (JSON.parse(raw).tool_input || {{}}).file_path || \"\";\n\
             const {{cwd}} = JSON.parse(raw.split(JSON.parse(raw).cwd).join(path.dirname(fp)));\n{make}"
        ),
    ] {
        the_files_folder_never_runs_by("node ~/.claude/hooks/g.py", &node_guard(&body));
    }
}

/// An option key no reading sees (`cwd` built, escaped, behind a getter
/// or a comment, entries made an object) runs nothing of the folder.
#[test]
fn option_keys_spelled_where_no_reading_sees_them_run_nothing_of_the_folder() {
    if !installed("node") || !installed("make") {
        return;
    }
    for options in [
        "Object.fromEntries([[\"cwd\", d], [\"stdio\", \"ignore\"]])",
        "{c\\u0077d: d, stdio: \"ignore\"}",
        "{\"\\x63wd\": d, stdio: \"ignore\"}",
        "{[`cwd`]: d, stdio: \"ignore\"}",
        "{[\"c\" + \"wd\"]: d, stdio: \"ignore\"}",
        "{/*x*/cwd/*y*/: d, stdio: \"ignore\"}",
        "{stdio: \"ignore\", get cwd() { return d; }}",
    ] {
        let body = format!("{INPUT}\n{}", make_with(options));
        the_files_folder_never_runs_by("node ~/.claude/hooks/g.py", &node_guard(&body));
    }
    let stored = format!(
        "{INPUT}\nconst k = [\"c\", \"w\", \"d\"].join(\"\"); const o = {{stdio: \"ignore\"}}; \
         o[k] = d;\n{}",
        make_with("o")
    );
    the_files_folder_never_runs_by("node ~/.claude/hooks/g.py", &node_guard(&stored));
}

/// A steering variable's name no reading sees (`P\u0041TH`, `["PA" +
/// "TH"]`, a getter, a comment, `Reflect.set`) never runs the program it
/// leads to unasked.
#[test]
fn variable_names_spelled_where_no_reading_sees_them_never_run_the_projects_code() {
    if !installed("node") || !installed("python3") {
        return;
    }
    let run = |env: &str| {
        format!(
            "try {{ cp.execSync(\"lint-helper\", {{stdio: \"ignore\", env: {env}}}); }} catch (e) {{}}"
        )
    };
    let mut hooks: Vec<(String, &str)> = [
        "{...process.env, P\\u0041TH: \"tools:\" + process.env.PATH}",
        "{...process.env, \"P\\x41TH\": \"tools:\" + process.env.PATH}",
        "{...process.env, [\"PA\" + \"TH\"]: \"tools:\" + process.env.PATH}",
        "{...process.env, /*x*/PATH/*y*/: \"tools:\" + process.env.PATH}",
        "{...process.env, get PATH() { return \"tools:\" + process.env.PATH; }}",
    ]
    .iter()
    .map(|env| (node_guard(&run(env)), "node"))
    .collect();
    hooks.push((
        node_guard(
            "const e = Object.assign({}, process.env); \
             Reflect.set(e, \"PA\" + \"TH\", \"tools:\" + process.env.PATH);\n\
             try { cp.execSync(\"lint-helper\", {stdio: \"ignore\", env: e}); } catch (x) {}",
        ),
        "node",
    ));
    hooks.push((
        "import json, os, subprocess\n\
         subprocess.run([\"lint-helper\"], capture_output=True, \
         env={**os.environ, \"P\\x41TH\": \"tools:\" + os.environ[\"PATH\"]})\n\
         print(json.dumps({\"decision\": \"block\", \"reason\": \"guarded\"}))\n"
            .to_owned(),
        "python3",
    ));
    for (hook, program) in &hooks {
        let (home, project) = home_with("[claude]");
        write(&project, "src/app.py", "print(1)\n");
        let helper = write(&project, "tools/lint-helper", "#!/bin/sh\nexit 0\n");
        crate::round30_open::executable(&helper);
        write(&home.user_home, ".claude/hooks/p.x", hook);
        user_fail_closed_command(&home, &format!("{program} ~/.claude/hooks/p.x"));
        let file = project.join("src/app.py");
        emit_naming(&home, &project, &file, true);
        write(&project, "tools/lint-helper", "#!/bin/sh\ntouch PWNED\n");
        let emitted = emit_naming(&home, &project, &file, false);
        assert!(
            !project.join("PWNED").exists(),
            "{hook}: the edit ran unasked"
        );
        assert_eq!(emitted["outcome"]["action"], "block", "{hook}: {emitted:#}");
    }
}
