//! The git settings a hook's `git` may read besides the project's top
//! `.git/config` (red team round 25, R25b-3): a nested repository's (`git
//! -C sub`, `cd sub && git status`), a submodule's (`.git/modules/*/config`:
//! `git status` reads them to look into each submodule) and another git
//! folder's (`GIT_DIR=alt.git`, `--git-dir=alt.git`). A `core.fsmonitor`
//! or `core.pager` added to any of them runs inside the approved hook; each
//! one, present or not, is bound by its content.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BindError;

/// The most submodule settings files bound.
const MAX_SUBMODULES: usize = 256;

/// The key and digest of the git settings `tokens` (a command and the
/// shell files it runs) may read from `bases` (the folders it runs in),
/// or `None` when it runs no `git`.
pub(super) fn bind(
    tokens: &[String],
    bases: &[PathBuf],
    project: &Path,
) -> Result<Option<(PathBuf, String)>, BindError> {
    // `git`, `/usr/bin/git`, and a code file's `["git", "status"]` (R50-8).
    static WORD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[\s"'(\[,])git(?:$|[\s"'),\]])"#).expect("valid regex")
    });
    let is_git = |token: &String| token == "git" || token.ends_with("/git") || WORD.is_match(token);
    if !tokens.iter().any(is_git) {
        return Ok(None);
    }
    let mut work: Vec<PathBuf> = bases.to_vec();
    let mut git_dirs: Vec<PathBuf> = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let next = tokens.get(at + 1);
        if token == "-C"
            && at > 0
            && is_git(&tokens[at - 1])
            && let Some(dir) = next
        {
            work.extend(bases.iter().map(|base| base.join(dir)));
        }
        let named = token
            .strip_prefix("GIT_DIR=")
            .or_else(|| token.strip_prefix("--git-dir="))
            .or_else(|| {
                (token == "--git-dir")
                    .then(|| next.map(String::as_str))
                    .flatten()
            });
        if let Some(dir) = named.filter(|dir| !dir.is_empty()) {
            git_dirs.extend(bases.iter().map(|base| base.join(dir)));
        }
    }
    for folder in &work {
        let folder = super::normalize(folder);
        for at in folder.ancestors().take_while(|at| at.starts_with(project)) {
            git_dirs.push(at.join(".git"));
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for git_dir in git_dirs.iter().map(|dir| super::normalize(dir)) {
        if !git_dir.starts_with(project) {
            continue;
        }
        // A `.git` file points at the real folder (`gitdir: …`).
        files.push(git_dir.clone());
        let real = pointed_at(&git_dir).unwrap_or(git_dir);
        for name in ["config", "config.worktree", "commondir"] {
            files.push(real.join(name));
        }
        submodules(&real.join("modules"), &mut files);
    }
    files.sort();
    files.dedup();
    let mut digest = Sha256::new();
    for file in &files {
        let hash = match std::fs::symlink_metadata(file) {
            Ok(meta) if meta.is_file() => crate::fingerprint::content_or_metadata(file),
            Ok(meta) if meta.is_dir() => "folder".to_owned(),
            Ok(_) => "not a regular file".to_owned(),
            Err(_) => "missing".to_owned(),
        };
        digest.update(format!("{}\0{hash}\n", file.display()));
    }
    let key = project.join(format!(
        "<git settings it may read: {} places>",
        files.len()
    ));
    Ok(Some((key, hex::encode(digest.finalize()))))
}

/// The folder a `.git` file's `gitdir:` line names.
fn pointed_at(git_file: &Path) -> Option<PathBuf> {
    if !git_file.is_file() {
        return None;
    }
    let text = super::peek::small_text(git_file)?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(super::normalize(&git_file.parent()?.join(target)))
}

/// Each submodule's `config` under `modules` (nested ones too).
fn submodules(modules: &Path, files: &mut Vec<PathBuf>) {
    let mut pending = vec![modules.to_path_buf()];
    let mut found = 0;
    while let Some(dir) = pending.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) && found < MAX_SUBMODULES {
                found += 1;
                files.push(path.join("config"));
                pending.push(path.join("modules"));
            }
        }
    }
}
