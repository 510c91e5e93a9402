//! The workspaces a package manager runs a script in when it is told to by
//! name or all at once (`npm start -ws`, `npm test --workspaces`, `npm -w
//! web start` where `web` is a package's name): the folders the root
//! `package.json`'s `workspaces` list (round 66: M-12, M-13, M-40; their
//! scripts ran unbound). Each is read as the folder the script runs in; a
//! folder a glob of the list picks may be added later, so the names of what
//! the glob's folder holds are bound too ([`super::Reached::listed`]).

use std::path::{Path, PathBuf};

/// The most workspace folders read.
const MAX_WORKSPACES: usize = 64;

/// The folders of `dir`'s workspaces that `args` (a package manager's
/// words, options included) picks: every one for `-ws` / `--workspaces`,
/// those whose package is named as `-w name` / `--workspace name` says
/// (one named by its folder is read as a folder elsewhere). The folders a
/// glob of the list looks in are added to `listed`.
///
/// A `package.json` present that cannot be read whole or parsed is an
/// error: which workspaces run cannot be known (npm may read it).
pub(super) fn picked(
    args: &[String],
    dir: &Path,
    listed: &mut Vec<PathBuf>,
) -> Result<Vec<PathBuf>, String> {
    let every = args.iter().any(|arg| {
        matches!(
            arg.as_str(),
            "-ws" | "--workspaces" | "--workspaces=true" | "--include-workspace-root"
        )
    });
    let names: Vec<&str> = args
        .iter()
        .enumerate()
        .filter_map(|(at, arg)| match arg.as_str() {
            "-w" | "--workspace" => args.get(at + 1).map(String::as_str),
            _ => arg
                .strip_prefix("--workspace=")
                .or_else(|| arg.strip_prefix("-w=")),
        })
        .collect();
    if !every && names.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for folder in listed_folders(dir, listed)? {
        let manifest = manifest(&folder.join("package.json"))?.unwrap_or_default();
        let name = manifest.get("name").and_then(serde_json::Value::as_str);
        if every || name.is_some_and(|name| names.contains(&name)) {
            found.push(folder);
        }
    }
    Ok(found)
}

/// The most bytes of a `package.json` read.
const MAX_MANIFEST: u64 = 8 << 20;

/// The `package.json` at `path` parsed: `None` when there is none; an
/// error when one is there that cannot be read whole or parsed.
fn manifest(path: &Path) -> Result<Option<serde_json::Value>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let parsed = hermes_hooks_core::regular_file::read_capped(path, MAX_MANIFEST)
        .ok()
        .and_then(|bytes| {
            let text = String::from_utf8(bytes).ok()?;
            serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()
        });
    match parsed {
        Some(manifest) => Ok(Some(manifest)),
        None => Err(format!(
            "{} cannot be read whole or parsed: which workspaces npm runs cannot be known",
            path.display()
        )),
    }
}

/// The folders `dir/package.json`'s `workspaces` lists (an array, or an
/// object's `packages`), globs matched now; each glob's fixed folder goes
/// to `listed`.
fn listed_folders(dir: &Path, listed: &mut Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    let manifest = manifest(&dir.join("package.json"))?.unwrap_or_default();
    let list = manifest.get("workspaces");
    let list = list
        .and_then(|w| w.get("packages"))
        .or(list)
        .and_then(serde_json::Value::as_array);
    let patterns = list
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str);
    let mut folders = Vec::new();
    for pattern in patterns {
        let pattern = pattern.trim_start_matches("./");
        if !pattern.contains(['*', '?', '[']) {
            folders.push(crate::binding::normalize(&dir.join(pattern)));
            continue;
        }
        let fixed: Vec<&str> = pattern
            .split('/')
            .take_while(|part| !part.contains(['*', '?', '[']))
            .collect();
        let parent = crate::binding::normalize(&dir.join(fixed.join("/")));
        if !listed.contains(&parent) {
            listed.push(parent);
        }
        // A folder without a `package.json` is no workspace (npm skips
        // it); one given it later changes the listing bound above.
        let matched = crate::binding::globbing::glob_folders(dir, pattern);
        let packages = matched
            .iter()
            .filter(|folder| folder.join("package.json").is_file());
        folders.extend(packages.map(|folder| crate::binding::normalize(folder)));
    }
    folders.dedup();
    folders.truncate(MAX_WORKSPACES);
    Ok(folders)
}

/// The key and digest binding the folders of `folder` that hold a
/// manifest (`package.json`, `Cargo.toml`) by name (one added, removed or
/// given a manifest changes it), not by content.
pub(crate) fn listing(folder: &Path) -> Result<(PathBuf, String), crate::binding::BindError> {
    let mut entries = Vec::new();
    if let Ok(listing) = std::fs::read_dir(folder) {
        for entry in listing.flatten() {
            if entries.len() >= crate::binding::globbing::MAX_MATCHED {
                return Err(crate::binding::BindError::TreeTooLarge(
                    folder.to_path_buf(),
                ));
            }
            // A folder is a workspace or a crate by its manifest: an empty
            // new folder changes nothing (sweep 71), one given a manifest
            // later does.
            let path = entry.path();
            if ["package.json", "Cargo.toml"]
                .iter()
                .any(|name| path.join(name).exists())
            {
                entries.push(path);
            }
        }
    }
    let what = "folders a package manager may pick here";
    crate::binding::python_shadows::bound_digest(folder, Vec::new(), &entries, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspaces_are_picked_all_at_once_or_by_their_package_name() {
        let project = tempfile::tempdir().expect("project");
        let p = project.path();
        std::fs::write(
            p.join("package.json"),
            r#"{"workspaces": ["pk/*", "tool"]}"#,
        )
        .expect("manifest");
        for (folder, name) in [("pk/web", "web"), ("pk/api", "api"), ("tool", "tool")] {
            std::fs::create_dir_all(p.join(folder)).expect("folder");
            let manifest = format!(r#"{{"name": "{name}"}}"#);
            std::fs::write(p.join(folder).join("package.json"), manifest).expect("manifest");
        }
        let words = |text: &str| -> Vec<String> { text.split(' ').map(str::to_owned).collect() };
        let mut listed = Vec::new();
        let mut all = picked(&words("start -ws"), p, &mut listed).expect("read");
        all.sort();
        assert_eq!(all, [p.join("pk/api"), p.join("pk/web"), p.join("tool")]);
        assert_eq!(listed, [p.join("pk")]);
        let by_name = picked(&words("-w web start"), p, &mut listed).expect("read");
        assert_eq!(by_name, [p.join("pk/web")]);
        assert!(
            picked(&words("start"), p, &mut listed)
                .expect("read")
                .is_empty()
        );
        // A manifest that cannot be read whole: which ones run is unknown.
        std::fs::write(p.join("pk/api/package.json"), "{\"name\": ").expect("manifest");
        assert!(picked(&words("start -ws"), p, &mut listed).is_err());
    }
}
