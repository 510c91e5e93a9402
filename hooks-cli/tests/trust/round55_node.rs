//! Red team round 55, H55-9: Node loading a project file by a name the
//! reading of its code did not work out. Inline code's `#m`, looked up in
//! the project's `package.json` `imports` (`require("#m")`, `import
//! "#m"`), and its own package name through `exports` (`require("x/m")`
//! in package `x`); the user's Node hook reaching the project through
//! `createRequire` of a file there, `path` under another name, a list
//! joined, `path.resolve` of the project's variable or `.`, a worker. Each
//! ran the edit of the project file unasked; now the file, and the map
//! that names it, are bound (an edit asks again), or the hook is refused.

use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;

/// Project code that leaves `PWNED` in the folder it runs in.
const JS_MARK: &str = "require(\"fs\").writeFileSync(\"PWNED\", \"\");\n";

/// The guard the red team's inline commands run after their Node.
const GUARD: &str = " >/dev/null 2>&1; sh ~/bin/g.sh </dev/null";

#[test]
fn a_name_a_package_json_maps_binds_the_map_and_what_it_names() {
    if !installed("node") {
        return;
    }
    let imports = "{\"name\": \"x\", \"imports\": {\"#m\": \"./tools/m.js\"}}\n";
    for command in [
        "node -e 'require(\"#m\")'",
        "node --input-type=module -e 'import \"#m\"'",
    ] {
        let command = format!("{command}{GUARD}");
        let files = [
            ("package.json", imports),
            ("tools/m.js", "1;\n"),
            ("tools/n.js", "1;\n"),
        ];
        edited_never_runs(&command, &files, &[("tools/m.js", JS_MARK)]);
        // The map edited to name another file.
        edited_never_runs(
            &command,
            &files,
            &[
                ("tools/n.js", JS_MARK),
                (
                    "package.json",
                    "{\"name\": \"x\", \"imports\": {\"#m\": \"./tools/n.js\"}}\n",
                ),
            ],
        );
    }
    // A conditions object, a pattern.
    edited_never_runs(
        &format!("node -e 'require(\"#c\"); require(\"#t/w\")'{GUARD}"),
        &[
            (
                "package.json",
                "{\"imports\": {\"#c\": {\"node\": \"./tools/m.js\", \"default\": \"./tools/d.js\"}, \"#t/*\": \"./tools/*.js\"}}\n",
            ),
            ("tools/m.js", "1;\n"),
            ("tools/w.js", "1;\n"),
        ],
        &[("tools/m.js", JS_MARK), ("tools/w.js", JS_MARK)],
    );
    // The package's own name through its `exports`.
    edited_never_runs(
        &format!("node -e 'require(\"x/m\")'{GUARD}"),
        &[
            (
                "package.json",
                "{\"name\": \"x\", \"exports\": {\"./m\": \"./tools/m.js\"}}\n",
            ),
            ("tools/m.js", "1;\n"),
        ],
        &[("tools/m.js", JS_MARK)],
    );
    // A package of `node_modules` through its `exports`.
    edited_never_runs(
        &format!("node -e 'require(\"m/x\")'{GUARD}"),
        &[
            (
                "node_modules/m/package.json",
                "{\"exports\": {\"./x\": \"./lib/e.js\"}}\n",
            ),
            ("node_modules/m/lib/e.js", "1;\n"),
        ],
        &[("node_modules/m/lib/e.js", JS_MARK)],
    );
}

#[test]
fn a_node_hook_loading_a_project_file_binds_it_or_is_refused() {
    if !installed("node") {
        return;
    }
    for (body, file) in [
        (
            "require(\"module\").createRequire(path.join(process.cwd(), \"x.js\"))(\"./m\");",
            "m.js",
        ),
        (
            "const p = require(\"path\");\nrequire(p.resolve(\"m\"));",
            "m.js",
        ),
        ("require([process.cwd(), \"m\"].join(\"/\"));", "m.js"),
        (
            "require(path.resolve(process.env.CLAUDE_PROJECT_DIR || \".\", \"m\"));",
            "m.js",
        ),
        (
            "new (require(\"worker_threads\").Worker)(process.cwd() + \"/tools/w.js\");",
            "tools/w.js",
        ),
        (
            "const { Worker } = require(\"worker_threads\");\nnew Worker(process.cwd() + \"/tools/w.js\");",
            "tools/w.js",
        ),
        (
            "const { Worker } = require(\"worker_threads\");\nnew Worker(\"./tools/w.js\");",
            "tools/w.js",
        ),
        // A name no reading works out: refused.
        (
            "require(path.join(process.cwd(), process.argv.slice(2).join(\"\") || \"m\"));",
            "m.js",
        ),
    ] {
        let hook = format!(
            "const path = require(\"path\");\n\
             const input = JSON.parse(require(\"fs\").readFileSync(0, \"utf8\"));\n\
             try {{ {body} }} catch (e) {{}}\n\
             console.log(JSON.stringify({{ decision: \"block\", reason: \"guarded\" }}));\n"
        );
        edited_never_runs(
            "node ~/.claude/hooks/n.js",
            &[("~/.claude/hooks/n.js", &hook), (file, "1;\n")],
            &[(file, JS_MARK)],
        );
        // The file added after the approval.
        edited_never_runs(
            "node ~/.claude/hooks/n.js",
            &[("~/.claude/hooks/n.js", &hook)],
            &[(file, JS_MARK)],
        );
    }
}
