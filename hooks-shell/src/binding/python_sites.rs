//! Where Python finds a project's modules besides the folder it runs in
//! (red team round 8, R8-7): a development install (`pip install -e .`)
//! writes a `.pth` file naming `<project>/src` into a site folder (or a
//! `__editable__*finder.py` whose `MAPPING` names each package's folder),
//! and `python3 -m acme.check` then runs `src/acme/check.py`. The site
//! folders are found without running an interpreter: the user's (under
//! `PYTHONUSERBASE` or `~/.local`), a virtual environment's or conda's,
//! pyenv's versions, the system's, and the prefix of each `python3` on
//! `PATH`. Only folders inside the project count (the rest is installed,
//! not the project's code).

use std::path::{Path, PathBuf};

/// The most site folders read, and the most bytes read of one `.pth` or
/// finder file.
const MAX_SITES: usize = 64;
const MAX_SITE_FILE: u64 = 256 * 1024;

/// The folders inside `project` where Python looks modules up beside it:
/// its `src`, the folders `PYTHONPATH` and the site folders' `.pth` files
/// name there, and the parents of the package folders an editable
/// install's finder maps there.
pub(super) fn module_roots(project: &Path) -> Vec<PathBuf> {
    let real_project = std::fs::canonicalize(project).ok();
    let mut roots = Vec::new();
    let mut add = |root: PathBuf| {
        let root = super::normalize(&root);
        // Spelled from the project as it is named here.
        let root = match real_project.as_deref().map(|real| root.strip_prefix(real)) {
            Some(Ok(rest)) if !root.starts_with(project) => project.join(rest),
            _ => root,
        };
        if root.starts_with(project) && root != project && root.is_dir() && !roots.contains(&root) {
            roots.push(root);
        }
    };
    add(project.join("src"));
    if let Some(path) = std::env::var_os("PYTHONPATH") {
        std::env::split_paths(&path).for_each(|folder| add(project.join(folder)));
    }
    for site in site_folders() {
        let Ok(listing) = std::fs::read_dir(&site) else {
            continue;
        };
        for entry in listing.flatten().take(10_000) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let finder = name.starts_with("__editable__") && name.ends_with("finder.py");
            if !name.ends_with(".pth") && !finder {
                continue;
            }
            let Some(text) = small_text(&entry.path()) else {
                continue;
            };
            if finder {
                // `MAPPING = {'acme': '/p/src/acme'}`: the folder above each.
                for quoted in quoted_paths(&text) {
                    add(quoted.parent().map(Path::to_path_buf).unwrap_or_default());
                }
                continue;
            }
            for line in text.lines().map(str::trim) {
                if line.is_empty() || line.starts_with('#') || line.starts_with("import") {
                    continue;
                }
                add(site.join(line));
            }
        }
    }
    roots
}

/// The site folders that may be on an interpreter's path here.
pub(super) fn site_folders() -> Vec<PathBuf> {
    let env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let home = env("HOME");
    let mut prefixes: Vec<PathBuf> = Vec::new();
    prefixes.extend(env("PYTHONUSERBASE"));
    prefixes.extend(home.as_ref().map(|home| home.join(".local")));
    prefixes.extend(env("VIRTUAL_ENV"));
    prefixes.extend(env("CONDA_PREFIX"));
    prefixes.extend(["/usr", "/usr/local"].map(PathBuf::from));
    let pyenv = env("PYENV_ROOT").or_else(|| home.map(|home| home.join(".pyenv")));
    if let Some(Ok(versions)) = pyenv.map(|root| std::fs::read_dir(root.join("versions"))) {
        prefixes.extend(versions.flatten().take(MAX_SITES).map(|v| v.path()));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for folder in std::env::split_paths(&path) {
            for name in ["python3", "python"] {
                let real = std::fs::canonicalize(folder.join(name));
                let prefix = real
                    .ok()
                    .and_then(|real| Some(real.parent()?.parent()?.to_owned()));
                prefixes.extend(prefix);
            }
        }
    }
    prefixes.sort();
    prefixes.dedup();
    let mut sites = Vec::new();
    for prefix in prefixes {
        for lib in ["lib", "lib64"] {
            let lib = prefix.join(lib);
            sites.push(lib.join("python3/dist-packages"));
            let Ok(listing) = std::fs::read_dir(&lib) else {
                continue;
            };
            for entry in listing.flatten().take(1_000) {
                if entry.file_name().to_string_lossy().starts_with("python") {
                    sites.push(entry.path().join("site-packages"));
                    sites.push(entry.path().join("dist-packages"));
                }
            }
        }
    }
    sites.retain(|site| site.is_dir());
    sites.truncate(MAX_SITES);
    sites
}

/// The text of a small file (`None`: missing, unreadable or too large).
fn small_text(path: &Path) -> Option<String> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_SITE_FILE {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The absolute paths quoted in `text` (`'/p/src/acme'`).
fn quoted_paths(text: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for quote in ['\'', '"'] {
        for (index, part) in text.split(quote).enumerate() {
            if index % 2 == 1 && part.starts_with('/') && !part.contains('\n') {
                paths.push(PathBuf::from(part));
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::quoted_paths;
    use std::path::PathBuf;

    #[test]
    fn a_finder_names_each_package_folder_it_maps() {
        let text = "MAPPING: dict[str, str] = {'acme': '/p/src/acme', \"b\": \"/p/lib/b\"}\n";
        let paths = quoted_paths(text);
        assert!(paths.contains(&PathBuf::from("/p/src/acme")), "{paths:?}");
        assert!(paths.contains(&PathBuf::from("/p/lib/b")), "{paths:?}");
    }
}
