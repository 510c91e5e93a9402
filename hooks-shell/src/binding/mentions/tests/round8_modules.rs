//! Red team round 8: modules and includes found through a manifest, a
//! module name's own spelling, an option or a site folder (R8-3 node
//! `imports` / `exports`, R8-4 Perl `::` and `#!` switches, R8-5 Tcl
//! `auto_path`, R8-6 C `-I`, R8-7 Python `src` layout, R8-8 git's
//! configuration).

use super::{named_by, project, write};
use std::path::Path;

/// What `command` names with `.claude/<file>` holding `text`, when that
/// misses `file`.
fn missed(p: &Path, command: &str, code: Option<(&str, &str)>, file: &str) -> Option<String> {
    let named = named_by(p, command, code);
    (!named.contains(&file.to_owned())).then(|| format!("{command} {code:?}: {named:?}"))
}

#[test]
fn a_node_script_binds_its_package_scope_and_what_its_maps_name() {
    // R8-3: `#util` through `imports`, `proj/util` through `exports`.
    let (_dir, p) = project();
    write(
        &p.join("package.json"),
        "{\"name\":\"proj\",\"type\":\"module\",\"imports\":{\"#util\":\"./src/u.js\"},\
         \"exports\":{\"./util\":{\"node\":{\"import\":\"./src/v.js\"}}}}\n",
    );
    write(&p.join("src/u.js"), "export const ok = 1;\n");
    write(&p.join("src/v.js"), "export const ok = 1;\n");
    let mut missing = Vec::new();
    for (spec, file) in [("#util", "src/u.js"), ("proj/util", "src/v.js")] {
        let script = format!("import {{ ok }} from \"{spec}\";\n");
        write(&p.join("tools/check.mjs"), &script);
        for wanted in ["package.json", file] {
            missing.extend(missed(&p, "node tools/check.mjs", None, wanted));
            // The same script in the hook's own folder.
            missing.extend(missed(&p, "x", Some(("hooks/c.mjs", &script)), wanted));
        }
    }
    // The nearest package.json is the scope: a nested package's own.
    write(
        &p.join("pkg/package.json"),
        "{\"imports\":{\"#h\":\"./h.js\"}}\n",
    );
    write(&p.join("pkg/h.js"), "1\n");
    write(&p.join("pkg/tools/run.js"), "require('#h');\n");
    missing.extend(missed(&p, "node pkg/tools/run.js", None, "pkg/h.js"));
    assert!(missing.is_empty(), "{missing:#?}");
}
