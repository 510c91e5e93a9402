//! The `node_modules` folders Node searches for a bare `require("b")` (red
//! team round 22, R22b-10): from the folder of the file that asks up to the
//! project's top, the nearest `<folder>/node_modules/b` first. A package
//! nested there after the approval (`node_modules/a/node_modules/b` beside
//! the bound `node_modules/b`) is what `a` loads, and a package added where
//! none was found (`try { require("b") } catch {}`) runs too. Which
//! packages each such folder holds is bound, by name (what a package holds
//! is bound where the code names it): adding, removing or replacing one
//! asks again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{BindError, peek};

/// Endings of files Node runs.
const NODE_ENDINGS: [&str; 8] = ["js", "cjs", "mjs", "jsx", "ts", "cts", "mts", "tsx"];

/// The most folders of Node code whose lookup chain is bound.
const MAX_FOLDERS: usize = 64;

/// Binds in `mentioned` the packages each `node_modules` folder on the
/// lookup chain of the Node files among `files` holds.
pub(super) fn bind<'a>(
    files: impl Iterator<Item = &'a PathBuf>,
    project: &Path,
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let mut folders: Vec<&Path> = Vec::new();
    for file in files.filter(|file| runs_under_node(file)) {
        let Some(folder) = file.parent() else {
            continue;
        };
        if !folders.contains(&folder) && folders.len() < MAX_FOLDERS {
            folders.push(folder);
        }
    }
    let mut searched: Vec<PathBuf> = Vec::new();
    for folder in folders {
        for at in folder.ancestors().take_while(|at| at.starts_with(project)) {
            // Node never looks in `node_modules/node_modules`.
            let modules = at.join("node_modules");
            if at.file_name().is_some_and(|name| name != "node_modules")
                && !searched.contains(&modules)
            {
                searched.push(modules);
            }
        }
    }
    for modules in searched {
        let (key, digest) = packages(&modules)?;
        mentioned.insert(key, digest);
    }
    Ok(())
}

/// Whether Node runs `file`: its ending, or a `#!` line naming `node`.
fn runs_under_node(file: &Path) -> bool {
    let ending = file.extension().and_then(|e| e.to_str());
    match ending {
        Some(ending) => NODE_ENDINGS.contains(&ending),
        None => peek::runs_under(file, "node"),
    }
}

/// The key and digest of the packages `modules` holds: each entry's name,
/// kind and link target (a scope folder's `@acme/*` too), never its content.
fn packages(modules: &Path) -> Result<(PathBuf, String), BindError> {
    let mut found = super::python_shadows::entries_where(modules, |_, _| true)?;
    for (name, path) in found.clone() {
        if name.starts_with('@') && path.is_dir() {
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
    let state = if modules.is_dir() {
        format!("{} packages", found.len())
    } else {
        "none".to_owned()
    };
    let key = modules.join(format!("<Node packages found here: {state}>"));
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
    }
}
