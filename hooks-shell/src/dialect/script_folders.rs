//! The project folders a project hook's command names scripts in (red-team
//! B2): `"$CLAUDE_PROJECT_DIR"/scripts/check.sh` may run `scripts/helper.sh`,
//! `python3 tools/check.py` may import `tools/sub/util.py`. No scan can follow
//! every way a script reaches its neighbours, so the approval binds the whole
//! top-level folder of the project holding each named script, as it binds the
//! tool folder (the same size bound: too big, and it cannot be approved).
//! A script right at the project's top has no folder of its own: it is bound
//! by its hash only.

use std::path::{Component, Path, PathBuf};

/// The characters that end a word in a shell line, blanks included: a
/// word may hold a whole line (`bash -c 'python3 tools/a.py'`).
const SHELL_PUNCTUATION: &[char] = &[
    ';', '&', '|', '(', ')', '<', '>', '`', '{', '}', '=', ' ', '\t', '\n',
];

/// The top-level folders of `project` (in order, once each) that hold a
/// path named by `line` (the command as it runs, split roughly) or `words`
/// (its argv, when known), relative paths taken from `cwd`. `.git` is never
/// one.
pub(super) fn top_folders(
    project: &Path,
    cwd: &Path,
    line: &str,
    words: Option<&[String]>,
) -> Vec<PathBuf> {
    let expanded = line
        .replace("${CLAUDE_PROJECT_DIR}", &project.display().to_string())
        .replace("$CLAUDE_PROJECT_DIR", &project.display().to_string());
    let split = shlex::split(&expanded).unwrap_or_else(|| {
        expanded
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'']).to_owned())
            .collect()
    });
    let mut folders = Vec::new();
    let pieces = split
        .iter()
        .chain(words.unwrap_or_default())
        .flat_map(|word| word.split(SHELL_PUNCTUATION))
        .filter(|piece| piece.contains('/'));
    for piece in pieces {
        // A Python environment is bound by what its entries are, not as
        // a tree of scripts (red team round 27), also a few folders down
        // (`tools/.venv/bin/python`: R28-8).
        // `~/bin/g.sh` is the home's, wherever the project is.
        let piece = hermes_hooks_core::home::expand_tilde(piece);
        let piece = piece.as_str();
        let path = crate::binding::normalize(&cwd.join(piece));
        if crate::binding::environment_holding(project, &path).is_some() {
            continue;
        }
        let Some(folder) = top_folder(project, cwd, Path::new(piece)) else {
            continue;
        };
        // A glob (`PATH=$(echo .v*/bin):$PATH`): the folders it matches
        // too (R34-5: only the literal `.v*` was bound).
        let mut found = matching(project, &folder);
        found.push(folder);
        for folder in found {
            if !folders.contains(&folder) && !crate::binding::is_environment(&folder) {
                folders.push(folder);
            }
        }
    }
    folders
}

/// The project's top-level folders the name of `folder` matches when it
/// is a glob.
fn matching(project: &Path, folder: &Path) -> Vec<PathBuf> {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !name.contains(['*', '?', '[']) {
        return Vec::new();
    }
    let entries = std::fs::read_dir(project).into_iter().flatten().flatten();
    entries
        .filter(|entry| {
            entry.file_type().is_ok_and(|kind| kind.is_dir()) && entry.file_name() != ".git"
        })
        .filter(|entry| crate::binding::wildcard(&name, &entry.file_name().to_string_lossy()))
        .map(|entry| entry.path())
        .collect()
}

/// The top-level folder of `project` that `path` (from `cwd`) lies in, when
/// it lies in one.
fn top_folder(project: &Path, cwd: &Path, path: &Path) -> Option<PathBuf> {
    let full = crate::binding::normalize(&cwd.join(path));
    let inside = match full.strip_prefix(project) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => {
            // The project reached by another spelling (a link to it).
            let real = std::fs::canonicalize(project).ok()?;
            let resolved = std::fs::canonicalize(full.parent()?)
                .ok()?
                .join(full.file_name()?);
            resolved.strip_prefix(&real).ok()?.to_path_buf()
        }
    };
    let mut parts = inside.components();
    let top = match parts.next()? {
        Component::Normal(top) if top != ".git" => top,
        _ => return None,
    };
    // A file right at the project's top has no folder of its own.
    parts.next()?;
    Some(project.join(top))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::top_folders;

    #[test]
    fn named_scripts_bind_their_top_folder() {
        let project = Path::new("/work/p");
        let line = "\"$CLAUDE_PROJECT_DIR\"/scripts/check.sh && python3 tools/a/b.py; cat x";
        assert_eq!(
            top_folders(project, project, line, None),
            [project.join("scripts"), project.join("tools")]
        );
        assert!(top_folders(project, project, "sh ./top.sh /usr/bin/x ../up/x", None).is_empty());
        assert_eq!(
            top_folders(project, project, "bash -c 'python3 tools/a.py --x'", None),
            [project.join("tools")]
        );
        assert!(top_folders(project, project, "cat .git/hooks/x", None).is_empty());
        assert_eq!(
            top_folders(project, &project.join("sub"), "python3 ../lib/x.py", None),
            [project.join("lib")]
        );
    }
}
