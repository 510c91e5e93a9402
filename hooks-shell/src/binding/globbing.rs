//! Globs as the binder reads them, wider than any program: a part's
//! `[...]` as any one character, `**` as zero or more folders
//! (`glob.glob("**/helper.py", recursive=True)`, `Path(".").rglob("sub")`:
//! red team R32-8).

use std::path::{Path, PathBuf};

/// The most folders one `**` stands for.
const MAX_FOLDERS: usize = 2_000;
/// The deepest nesting one `**` descends.
const MAX_DEPTH: usize = 16;

/// Whether `name` matches the shell pattern `pattern` (`*`, `?`, `[...]`
/// as any one character).
pub(crate) fn wildcard(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some('[') => {
                let close = pattern[p..].iter().position(|c| *c == ']').map(|i| p + i);
                p = close.map_or(p + 1, |c| c + 1);
                n += 1;
            }
            Some('?') => {
                p += 1;
                n += 1;
            }
            Some(c) if *c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// `folder` and each folder under it, breadth first (links to folders are
/// not followed, `.git` is left out), at most [`MAX_FOLDERS`].
pub(super) fn folders_below(folder: &Path) -> Vec<PathBuf> {
    let mut found = vec![folder.to_path_buf()];
    let mut level = vec![folder.to_path_buf()];
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for parent in &level {
            let Ok(entries) = std::fs::read_dir(parent) else {
                continue;
            };
            for entry in entries.flatten() {
                let is_folder = entry.file_type().is_ok_and(|kind| kind.is_dir());
                if is_folder && entry.file_name() != ".git" {
                    next.push(entry.path());
                }
            }
        }
        next.truncate(MAX_FOLDERS.saturating_sub(found.len()));
        if next.is_empty() {
            break;
        }
        found.extend(next.iter().cloned());
        level = next;
    }
    found
}

/// The glob words `text` (Python) walks recursively with
/// `rglob("sub")`: each as `**/sub`.
pub(super) fn recursive_globs(text: &str) -> Vec<String> {
    use std::sync::LazyLock;
    static RGLOB: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#"\brglob\(\s*[rR]?(?:"([^"\n]{1,200})"|'([^'\n]{1,200})')"#)
            .expect("valid regex")
    });
    RGLOB
        .captures_iter(text)
        .filter_map(|found| found.get(1).or(found.get(2)))
        .map(|pattern| format!("**/{}", pattern.as_str().trim_start_matches("./")))
        .collect()
}

/// The most entries of one folder read: a glob part is matched against
/// them, and a folder of more cannot be bound (`python_shadows`).
pub(super) const MAX_LISTED: usize = 200_000;

/// A folder code puts on a search path by a glob (`sys.path.insert(0,
/// glob.glob("li*")[0])`, red team R31-3; `PATH=$(echo .v*/bin):$PATH`,
/// R34-5): the folders it matches now.
/// The folders the glob `pattern` (`li*`, `.venv/lib/*/site-packages`)
/// matches from `base`, part by part; at most 256.
pub(super) fn glob_folders(base: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = glob_matches(base, pattern);
    current.retain(|folder| folder.is_dir());
    current
}

/// The files and folders the glob `pattern` matches from `base`, part by
/// part; at most 256.
pub(super) fn glob_matches(base: &Path, pattern: &str) -> Vec<PathBuf> {
    glob_walk(base, pattern, 256).0
}

/// The most matches of a glob whose files are bound ([`every_match`]).
pub(super) const MAX_MATCHED: usize = 4096;

/// Every file and folder the glob `pattern` matches from `base`; `None`
/// when more than [`MAX_MATCHED`] do at any part (a hook running each
/// match of `tools/*` cannot be bound past it: none may be left out).
pub(super) fn every_match(base: &Path, pattern: &str) -> Option<Vec<PathBuf>> {
    match glob_walk(base, pattern, MAX_MATCHED) {
        (matched, false) => Some(matched),
        (_, true) => None,
    }
}

/// The matches of `pattern` from `base`, at most `limit` at each part, and
/// whether more were left out.
fn glob_walk(base: &Path, pattern: &str, limit: usize) -> (Vec<PathBuf>, bool) {
    let mut over = false;
    let mut current = vec![base.to_path_buf()];
    let parts: Vec<&str> = pattern.split('/').filter(|part| !part.is_empty()).collect();
    for (at, part) in parts.iter().copied().enumerate() {
        let mut next = Vec::new();
        for folder in &current {
            if part == "**" {
                let below = folders_below(folder);
                // Last (`tools/**`): every file too, under globstar or not
                // (there it is `*`: red team round 49, i12).
                if at + 1 == parts.len() {
                    let files = below.iter().flat_map(|folder| {
                        let entries = std::fs::read_dir(folder).into_iter().flatten().flatten();
                        entries.take(MAX_LISTED).map(|entry| entry.path())
                    });
                    next.extend(files.collect::<Vec<_>>());
                }
                next.extend(below);
                continue;
            }
            if !part.contains(['*', '?', '[']) {
                next.push(folder.join(part));
                continue;
            }
            let entries = std::fs::read_dir(folder).into_iter().flatten().flatten();
            for entry in entries.take(MAX_LISTED) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if wildcard(part, &name) {
                    next.push(folder.join(name));
                }
            }
        }
        over |= next.len() > limit;
        next.truncate(limit);
        current = next;
    }
    current.retain(|path| path.exists());
    (current, over)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_globstar_stands_for_the_folder_and_every_folder_under_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("lib/sub/deep")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join(".git/objects")).expect("mkdir");
        std::fs::write(dir.path().join("lib/file.py"), "").expect("write");
        let found = folders_below(dir.path());
        for folder in ["", "lib", "lib/sub", "lib/sub/deep"] {
            assert!(
                found.contains(&dir.path().join(folder)),
                "{folder}: {found:?}"
            );
        }
        assert!(
            !found
                .iter()
                .any(|f| f.ends_with(".git") || f.ends_with("file.py"))
        );
    }

    #[test]
    fn rglob_walks_every_folder() {
        let text = "next(Path('.').rglob(\"sub\")); p.rglob('./*.py'); glob('x')";
        assert_eq!(recursive_globs(text), ["**/sub", "**/*.py"]);
    }
}
