//! Names Node looks up in a `package.json` map (red team round 55, H55-9):
//! a `#name` in the `imports` of the nearest one (`require("#m")` with
//! `"imports": {"#m": "./tools/m.js"}`), the package's own name
//! (`require("x/m")` in package `x`, its `exports`), and a package of
//! `node_modules` through its `exports`. The manifest is bound, present
//! or absent (each one looked for on the way up), and every file its
//! matching entry names, each candidate as for a relative name: every
//! string of a conditions object, a pattern's `*` given the part of the
//! name it matches. An edit of the map, or of a file it names, asks again;
//! a map naming too many files cannot be approved.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::super::Reached;

/// The most files one entry of a map may name.
const MAX_TARGETS: usize = 64;

/// How deep a conditions object is read.
const MAX_NESTING: usize = 8;

/// How many manifests up the nearest is looked for.
const MAX_UP: usize = 32;

/// Binds what Node loads for the `#` name `name` from `dir`: the nearest
/// `package.json` and the files its `imports` entry names.
pub(super) fn bind_imports(dir: &Path, name: &str, found: &mut Reached, depth: usize) {
    if let Some((folder, manifest)) = nearest(dir, found)
        && let Some(map) = manifest.get("imports")
    {
        bind_entry(map, name, (&folder, true), found, depth);
    }
}

/// Binds what Node loads for the package name `spec` (`x`, `x/m`,
/// `@s/x/m`) from `dir`: the `exports` of `dir/node_modules/x`, and of
/// the nearest `package.json` when its `name` is `x` (a self-reference).
pub(super) fn bind_package(dir: &Path, spec: &str, found: &mut Reached, depth: usize) {
    let mut parts = spec.splitn(3, '/');
    let first = parts.next().unwrap_or_default();
    let name = match first.starts_with('@') {
        true => format!("{first}/{}", parts.next().unwrap_or_default()),
        false => first.to_owned(),
    };
    let sub = match spec[name.len()..].trim_start_matches('/') {
        "" => ".".to_owned(),
        rest => format!("./{rest}"),
    };
    let folder = dir.join("node_modules").join(&name);
    let manifest = folder.join("package.json");
    found.add(manifest.clone());
    if let Some(json) = read(&manifest)
        && let Some(map) = json.get("exports")
    {
        bind_entry(map, &sub, (&folder, false), found, depth);
    }
    if let Some((folder, manifest)) = nearest(dir, found)
        && manifest.get("name").and_then(Json::as_str) == Some(name.as_str())
        && let Some(map) = manifest.get("exports")
    {
        bind_entry(map, &sub, (&folder, false), found, depth);
    }
}

/// The folder of the `package.json` nearest `dir` (within the folder the
/// command starts in) and its content; each one looked for is bound.
fn nearest(dir: &Path, found: &mut Reached) -> Option<(PathBuf, Json)> {
    let dir = crate::binding::normalize(dir);
    let top = found.top.clone();
    for at in dir.ancestors().take(MAX_UP) {
        if !top.as_os_str().is_empty() && !at.starts_with(&top) {
            return None;
        }
        let manifest = at.join("package.json");
        found.add(manifest.clone());
        if manifest.is_file() {
            return read(&manifest).map(|json| (at.to_path_buf(), json));
        }
        if at.file_name().is_some_and(|name| name == "node_modules") {
            return None;
        }
    }
    None
}

/// The JSON of the file `manifest`, if it holds some.
fn read(manifest: &Path) -> Option<Json> {
    let text = crate::binding::peek::small_text(manifest)?;
    serde_json::from_str(&text).ok()
}

/// Binds the files the entry of `map` for `key` names, relative to
/// `folder`; `imports`: a name no `./` starts is a package's.
fn bind_entry(
    map: &Json,
    key: &str,
    (folder, imports): (&Path, bool),
    found: &mut Reached,
    depth: usize,
) {
    let mut targets = Vec::new();
    match map.as_object() {
        // `"exports": {"import": "./a.mjs"}`: conditions of `.`.
        Some(entries) if imports || entries.keys().any(|k| k.starts_with('.')) => {
            match entries.get(key) {
                Some(value) => leaves(value, None, &mut targets, 0),
                None => {
                    for (pattern, value) in entries {
                        if let Some(part) = matched(pattern, key) {
                            leaves(value, Some(part), &mut targets, 0);
                        }
                    }
                }
            }
        }
        _ if key == "." => leaves(map, None, &mut targets, 0),
        _ => {}
    }
    if targets.len() > MAX_TARGETS {
        found.computed.get_or_insert(format!(
            "a package.json map ({}) names more files for `{key}` than are bound",
            folder.join("package.json").display()
        ));
        return;
    }
    for target in targets {
        if target.starts_with("./") || target.starts_with("../") {
            super::bind_at(&target, folder, found, depth + 1);
        } else if let Some(package) = imports
            .then(|| super::super::node_specs::bare_package(&target))
            .flatten()
        {
            super::bind_at(&format!("node_modules/{package}"), folder, found, depth + 1);
        }
    }
}

/// The part of `key` a pattern `pattern` (`#m/*`, `./lib/*.js`, a folder
/// `./lib/`) matches.
fn matched<'k>(pattern: &str, key: &'k str) -> Option<&'k str> {
    match pattern.split_once('*') {
        Some((before, after)) => (key.len() >= before.len() + after.len()
            && key.starts_with(before)
            && key.ends_with(after))
        .then(|| &key[before.len()..key.len() - after.len()]),
        None if pattern.ends_with('/') => key.strip_prefix(pattern),
        None => None,
    }
}

/// Each string of `value` (a target, a list, a conditions object), the
/// pattern's matched `part` put in; past [`MAX_TARGETS`], one more.
fn leaves(value: &Json, part: Option<&str>, out: &mut Vec<String>, nesting: usize) {
    if nesting > MAX_NESTING {
        // Deeper than read: as many as cannot be bound.
        out.resize(MAX_TARGETS + 1, String::new());
    }
    if out.len() > MAX_TARGETS {
        return;
    }
    match value {
        Json::String(target) => out.push(match part {
            Some(part) if target.contains('*') => target.replace('*', part),
            Some(part) if target.ends_with('/') => format!("{target}{part}"),
            _ => target.clone(),
        }),
        Json::Array(items) => {
            for item in items {
                leaves(item, part, out, nesting + 1);
            }
        }
        Json::Object(conditions) => {
            for item in conditions.values() {
                leaves(item, part, out, nesting + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::super::reached;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn a_mapped_name_binds_its_manifest_and_the_files_its_entry_names() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        write(
            root,
            "package.json",
            r##"{"name": "x",
                "imports": {"#m": "./tools/m.js", "#t/*": "./tools/*.js", "#d": "dep",
                            "#c": {"node": "./tools/n.js", "default": ["./tools/d.js"]}},
                "exports": {"./m": "./lib/m.js", "./p/*": "./lib/p/*.js"}}"##,
        );
        write(
            root,
            "node_modules/y/package.json",
            r#"{"exports": {".": {"require": "./main.cjs"}, "./x": "./lib/e.js"}}"#,
        );
        std::fs::create_dir_all(root.join("sub")).expect("sub");
        for (command, files) in [
            (
                "node -e 'require(\"#m\")'",
                &["package.json", "tools/m.js"][..],
            ),
            (
                "node --input-type=module -e 'import \"#m\"'",
                &["tools/m.js"],
            ),
            ("node -e 'require(\"#c\")'", &["tools/n.js", "tools/d.js"]),
            ("node -e 'require(\"#t/a\")'", &["tools/a.js"]),
            ("node -e 'require(\"#d\")'", &["node_modules/dep/index.js"]),
            ("node -e 'require(\"x/m\")'", &["lib/m.js"]),
            ("node -e 'require(\"x/p/q\")'", &["lib/p/q.js"]),
            ("node -e 'require(\"y/x\")'", &["node_modules/y/lib/e.js"]),
            ("node -e 'require(\"y\")'", &["node_modules/y/main.cjs"]),
            (
                "cd sub && node -e 'require(\"#m\")'",
                &["sub/package.json", "package.json", "tools/m.js"],
            ),
        ] {
            let found = reached(command, root, false);
            for file in files {
                assert!(
                    found.roots.contains(&root.join(file)),
                    "{command}: {file}: {found:?}"
                );
            }
            assert_eq!(found.computed, None, "{command}");
        }
        // No such entry: the manifest alone.
        let found = reached("node -e 'require(\"#z\")'", root, false);
        assert_eq!(found.roots, [root.join("package.json")]);
    }

    #[test]
    fn a_map_naming_more_files_than_are_bound_cannot_be_approved() {
        let dir = tempfile::tempdir().expect("dir");
        let many: Vec<String> = (0..70).map(|n| format!("\"./t/{n}.js\"")).collect();
        let manifest = format!("{{\"imports\": {{\"#m\": [{}]}}}}", many.join(", "));
        write(dir.path(), "package.json", &manifest);
        let found = reached("node -e 'require(\"#m\")'", dir.path(), false);
        assert!(found.computed.is_some(), "{found:?}");
    }
}
