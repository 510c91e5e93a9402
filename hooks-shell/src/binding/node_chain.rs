//! The `node_modules` folders Node searches for a bare `require("b")` (red
//! team round 22, R22b-10): from the folder of the file that asks up to the
//! project's top, the nearest `<folder>/node_modules/b` first. A package
//! nested there after the approval (`node_modules/a/node_modules/b` beside
//! the bound `node_modules/b`) is what `a` loads, and a package added where
//! none was found (`try { require("b") } catch {}`) runs too. Which
//! packages each such folder holds is bound, by name (what a package holds
//! is bound where the code names it): adding, removing or replacing one
//! asks again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use sha2::{Digest, Sha256};

use super::{BindError, peek};

/// Endings of files Node runs.
const NODE_ENDINGS: [&str; 8] = ["js", "cjs", "mjs", "jsx", "ts", "cts", "mts", "tsx"];

/// The most folders of Node code whose lookup chain is bound.
const MAX_FOLDERS: usize = 64;

/// Binds in `mentioned` the packages each `node_modules` folder on the
/// lookup chain of the Node files among `files` holds under the names
/// their code requires (all of them where a name is computed: R26-14).
pub(super) fn bind<'a>(
    files: impl Iterator<Item = &'a PathBuf>,
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    // Each `node_modules` folder searched, and the names looked up there
    // (`None`: any).
    let mut searched: BTreeMap<PathBuf, Option<BTreeSet<String>>> = BTreeMap::new();
    for file in files.filter(|file| runs_under_node(file)).take(MAX_FOLDERS) {
        let Some(folder) = file.parent() else {
            continue;
        };
        let wanted = required(file);
        if wanted.as_ref().is_some_and(BTreeSet::is_empty) {
            continue;
        }
        for at in folder.ancestors().take_while(|at| at.starts_with(project)) {
            // Node never looks in `node_modules/node_modules`.
            if at.file_name().is_none_or(|name| name == "node_modules") {
                continue;
            }
            let names = searched
                .entry(at.join("node_modules"))
                .or_insert(Some(BTreeSet::new()));
            match (names.as_mut(), &wanted) {
                (Some(names), Some(wanted)) => names.extend(wanted.iter().cloned()),
                _ => *names = None,
            }
        }
    }
    for (modules, names) in searched {
        let (key, digest) = packages(&modules, names.as_ref())?;
        mentioned.insert(key, digest);
    }
    Ok(())
}

/// The packages the code of `file` requires by a bare name (`require("a")`,
/// `import x from "@s/b/c"`: `a`, `@s/b`), Node's own modules left out;
/// `None` when a name is computed (`require(name)`).
fn required(file: &Path) -> Option<BTreeSet<String>> {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\b(?:require|import)\s*\(\s*(?:['"`]([^'"`]+)['"`]|[^)'"`\s])|\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]"#)
            .expect("valid regex")
    });
    let text = super::peek::small_text(file)?;
    let mut names = BTreeSet::new();
    for found in NAMED.captures_iter(&text) {
        // A computed name (`require(name)`): any package.
        let name = found.get(1).or(found.get(2)).or(found.get(3))?;
        let name = name.as_str();
        if name.starts_with(['.', '/']) || name.starts_with("node:") || name.contains("${") {
            if name.contains("${") {
                return None;
            }
            continue;
        }
        let mut parts = name.split('/');
        let first = parts.next().unwrap_or_default();
        let package = match first.starts_with('@') {
            true => format!("{first}/{}", parts.next().unwrap_or_default()),
            false => first.to_owned(),
        };
        if !BUILT_IN.contains(&first) {
            names.insert(package);
        }
    }
    Some(names)
}

/// Node's own modules (`require("fs")` never reads `node_modules`).
pub(crate) const BUILT_IN: [&str; 43] = [
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
    "test",
];

/// Whether Node runs `file`: its ending, or a `#!` line naming `node`.
fn runs_under_node(file: &Path) -> bool {
    let ending = file.extension().and_then(|e| e.to_str());
    match ending {
        Some(ending) => NODE_ENDINGS.contains(&ending),
        None => peek::runs_under(file, "node"),
    }
}

/// The key and digest of the packages `modules` holds (those named
/// `names`, present or not; every one when `None`): each entry's name, kind
/// and link target (a scope folder's `@acme/*` too), never its content.
fn packages(
    modules: &Path,
    names: Option<&BTreeSet<String>>,
) -> Result<(PathBuf, String), BindError> {
    let mut found: Vec<(String, PathBuf)> = match names {
        Some(names) => names
            .iter()
            .map(|name| (name.clone(), modules.join(name)))
            .collect(),
        None => super::python_shadows::entries_where(modules, |_, _| true)?,
    };
    for (name, path) in found.clone() {
        if names.is_none() && name.starts_with('@') && path.is_dir() {
            let scoped = super::python_shadows::entries_where(&path, |_, _| true)?;
            found.extend(
                scoped
                    .into_iter()
                    .map(|(inner, at)| (format!("{name}/{inner}"), at)),
            );
        }
    }
    found.sort();
    let mut digest = Sha256::new();
    for (name, path) in &found {
        let kind = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_symlink() => "link",
            Ok(meta) if meta.is_dir() => "folder",
            Ok(meta) if meta.is_file() => "file",
            Ok(_) => "other",
            Err(_) => "gone",
        };
        let link = std::fs::read_link(path)
            .map(|to| to.display().to_string())
            .unwrap_or_default();
        digest.update(format!("{name}\0{kind}\0{link}\n"));
    }
    let state = match names {
        Some(names) => names.iter().cloned().collect::<Vec<_>>().join(", "),
        None if modules.is_dir() => format!("any of {} packages", found.len()),
        None => "none".to_owned(),
    };
    let key = modules.join(format!("<Node packages it may require here: {state}>"));
    Ok((key, hex::encode(digest.finalize())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_nested_on_the_chain_changes_the_binding() {
        let project = tempfile::tempdir().expect("project");
        let p = project.path();
        let a = p.join("node_modules/a");
        std::fs::create_dir_all(&a).expect("a");
        std::fs::create_dir_all(p.join("node_modules/b")).expect("b");
        std::fs::write(a.join("index.js"), "require('b')\n").expect("a");
        std::fs::write(p.join("check.js"), "require('fs'); require('a')\n").expect("check");
        let files = [a.join("index.js"), p.join("check.js")];
        let bound = |project: &Path| {
            let mut mentioned = std::collections::BTreeMap::new();
            bind(files.iter(), project, &mut mentioned).expect("bound");
            mentioned
        };
        let before = bound(p);
        let keys: Vec<String> = before.keys().map(|k| k.display().to_string()).collect();
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert!(
            keys.iter()
                .all(|key| !key.contains("node_modules/node_modules"))
        );
        std::fs::create_dir_all(a.join("node_modules/b")).expect("nested");
        assert_ne!(bound(p), before);
        let later = bound(p);
        std::fs::write(p.join("node_modules/b/index.js"), "x\n").expect("content");
        assert_eq!(bound(p), later, "what a package holds is bound elsewhere");
        std::fs::create_dir_all(p.join("node_modules/is-odd")).expect("unrelated");
        assert_eq!(bound(p), later, "a package no code requires (R26-14)");
    }
}
