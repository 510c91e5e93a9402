//! What stays read-only inside a writable project: the files whose content
//! some other program runs later, outside any sandbox.
//!
//! - the project's git metadata: its `.git` (a folder, or the `.git` file of
//!   a linked worktree or submodule together with the gitdir it names, and
//!   that gitdir's common folder's `config` and `hooks`): a planted
//!   `.git/hooks/pre-commit` or `core.fsmonitor` would run at the user's
//!   next git command in the project;
//! - the agents' project settings ([`PROTECTED_SETTINGS`]): a rewritten
//!   `.claude/settings.local.json` or `.mcp.json` can grant the agent
//!   permissions or start MCP servers the user never approved. The rest of
//!   the tool folders (a hook's logs, state, its own scripts) stays
//!   writable: a hook that rewrites its own approved scripts is asked about
//!   again by consent, and a guard that cannot write its log must not turn
//!   into an allow.
//!
//! Only what exists when a hook is prepared is protected: a `.git` or a
//! settings file the project does not have can be created by the hook
//! (git then uses a planted `.git`; consent asks about a planted settings
//! file's hooks).
//!
//! - the links of a hook's tree ([`pinned_links`]): a tool folder that is a
//!   link (`.claude -> agent`) has the checked copy of the tree mounted on
//!   its target, but the link itself is an entry of the writable project; a
//!   hook that re-pointed it (`ln -sfn evil .claude`) would make every later
//!   path through it (its own, another hook's of the event) reach unchecked
//!   files (red-team round 5, F6). A link cannot be mounted over, so the
//!   folder holding it, and each folder above it up to the writable root,
//!   keeps its entries instead (Landlock: see `resolved.rs`).

use std::path::{Path, PathBuf};

/// The agents' settings files of a project (relative to it) kept read-only
/// under a profile that writes the project.
pub const PROTECTED_SETTINGS: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".cursor/hooks.json",
    ".cursor/mcp.json",
    ".cursor/cli.json",
    ".hermes/config.yaml",
];

/// The agents' tool folders of a project (relative to it): each one that is
/// a symbolic link is kept pointing where it points ([`pinned_links`]).
pub const TOOL_FOLDERS: &[&str] = &[".claude", ".codex", ".cursor", ".hermes"];

/// The links a hook in `project` must not re-point while it runs: each of
/// the project's [`TOOL_FOLDERS`] and each of `roots` (the roots of the
/// hook's checked tree) that is a symbolic link beneath one of the `write`
/// roots (not one itself). Each is named with its folder resolved (the link
/// itself is not followed), as the resolved write roots are enumerated.
pub fn pinned_links(project: &Path, roots: &[PathBuf], write: &[PathBuf]) -> Vec<PathBuf> {
    let write: Vec<PathBuf> = write
        .iter()
        .map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()))
        .collect();
    let candidates = TOOL_FOLDERS
        .iter()
        .map(|folder| project.join(folder))
        .chain(roots.iter().cloned());
    let mut pinned = Vec::new();
    for link in candidates.filter(|path| path.is_absolute()) {
        let is_link = std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink());
        let (Some(folder), Some(name)) = (link.parent(), link.file_name()) else {
            continue;
        };
        let Ok(folder) = std::fs::canonicalize(folder) else {
            continue;
        };
        let link = folder.join(name);
        let beneath = write
            .iter()
            .any(|root| link.starts_with(root) && link != *root);
        if is_link && beneath && !pinned.contains(&link) {
            pinned.push(link);
        }
    }
    pinned
}

/// The existing paths of `project` to keep read-only (absolute; symlinks
/// resolved, so each names the file a mount or a rule must cover).
pub fn protected_paths(project: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    git_metadata(project, &mut paths);
    submodules(project, &mut paths);
    for setting in PROTECTED_SETTINGS {
        push_existing(&project.join(setting), &mut paths);
    }
    paths
}

/// `.git` of `project` and, when it is a file (`gitdir: <path>`), the
/// gitdir it points to and that gitdir's common folder's `config` and
/// `hooks` (a linked worktree's shared ones).
fn git_metadata(project: &Path, paths: &mut Vec<PathBuf>) {
    let dot_git = project.join(".git");
    let Ok(metadata) = std::fs::symlink_metadata(&dot_git) else {
        return;
    };
    if metadata.is_dir() {
        paths.push(dot_git);
        return;
    }
    // A symlinked `.git`: its target (the link itself lives in the
    // writable project and cannot be mounted over).
    push_existing(&dot_git, paths);
    if !metadata.is_file() {
        return;
    }
    let Some(gitdir) = read_small(&dot_git)
        .and_then(|text| {
            text.strip_prefix("gitdir:")
                .map(|rest| rest.trim().to_owned())
        })
        .filter(|gitdir| !gitdir.is_empty())
    else {
        return;
    };
    let gitdir = project.join(gitdir);
    push_existing(&gitdir, paths);
    let common = read_small(&gitdir.join("commondir")).map(|text| gitdir.join(text.trim()));
    if let Some(common) = common {
        push_existing(&common.join("config"), paths);
        push_existing(&common.join("hooks"), paths);
    }
}

/// How many submodules' `.git` entries are protected at most.
const MAX_SUBMODULES: usize = 64;

/// The `.git` entry (a `gitdir:` file, or a folder) of each submodule the
/// project's `.gitmodules` lists: git at the project's root follows them
/// (`git status`), so a hook that replaced one with a folder of its own
/// (`core.fsmonitor`) ran code at the user's next `git status` (red-team
/// round 4, N5). A mount over the entry keeps it from being replaced.
fn submodules(project: &Path, paths: &mut Vec<PathBuf>) {
    let Some(text) = read_small(&project.join(".gitmodules")) else {
        return;
    };
    let listed = text.lines().filter_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "path").then(|| value.trim().to_owned())
    });
    for path in listed.take(MAX_SUBMODULES) {
        let entry = project.join(&path).join(".git");
        // Only inside the project: `..` in a listed path reaches nothing else.
        if !path.split('/').any(|part| part == "..") {
            push_existing(&entry, paths);
        }
    }
}

/// The text of `path` when it is a regular file of at most 64 KiB, opened
/// without blocking: a repository's FIFO or `/dev/stdin` link in place of
/// `.gitmodules` or a `.git` file must not hang a hook's preparation.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > 64 * 1024 {
        return None;
    }
    let mut text = String::new();
    file.take(64 * 1024).read_to_string(&mut text).ok()?;
    Some(text)
}

fn push_existing(path: &Path, paths: &mut Vec<PathBuf>) {
    if let Ok(resolved) = std::fs::canonicalize(path)
        && !paths.contains(&resolved)
    {
        paths.push(resolved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_folder_and_existing_settings_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{}").unwrap();
        assert_eq!(
            protected_paths(&project),
            [project.join(".git"), project.join(".claude/settings.json")]
        );
    }

    #[test]
    fn a_worktree_protects_its_file_gitdir_and_the_shared_config_and_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (main, worktree) = (root.join("main"), root.join("wt"));
        let gitdir = main.join(".git/worktrees/wt");
        std::fs::create_dir_all(&gitdir).unwrap();
        std::fs::create_dir_all(main.join(".git/hooks")).unwrap();
        std::fs::write(main.join(".git/config"), "").unwrap();
        std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(&worktree).unwrap();
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", gitdir.display()),
        )
        .unwrap();
        assert_eq!(
            protected_paths(&worktree),
            [
                worktree.join(".git"),
                gitdir,
                main.join(".git/config"),
                main.join(".git/hooks")
            ]
        );
    }

    #[test]
    fn each_submodules_git_entry_is_protected() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join(".git/modules/lib")).unwrap();
        std::fs::create_dir_all(project.join("vendor/lib")).unwrap();
        std::fs::write(
            project.join("vendor/lib/.git"),
            "gitdir: ../../.git/modules/lib\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".gitmodules"),
            "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n",
        )
        .unwrap();
        let paths = protected_paths(&project);
        assert!(
            paths.contains(&project.join("vendor/lib/.git")),
            "{paths:?}"
        );
        assert!(paths.contains(&project.join(".git")), "{paths:?}");
    }

    #[test]
    fn a_fifo_in_place_of_gitmodules_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(project.join(".gitmodules"))
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Returns (a blocking read would wait for a writer forever).
        assert!(protected_paths(&project).is_empty());
    }

    #[test]
    fn only_links_beneath_a_writable_root_are_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        std::fs::create_dir_all(project.join("agent")).unwrap();
        std::fs::create_dir_all(project.join(".codex")).unwrap();
        std::os::unix::fs::symlink("agent", project.join(".claude")).unwrap();
        std::os::unix::fs::symlink("agent", project.join("scripts")).unwrap();
        let write = [project.clone()];
        assert_eq!(
            pinned_links(&project, &[], &write),
            [project.join(".claude")]
        );
        assert_eq!(
            pinned_links(&project, &[project.join("scripts")], &write),
            [project.join(".claude"), project.join("scripts")]
        );
        // Not writable: nothing to keep (strict writes no project).
        assert!(pinned_links(&project, &[], &[root.join("elsewhere")]).is_empty());
        // Named through a linked folder: named with that folder resolved.
        std::os::unix::fs::symlink(&project, root.join("via")).unwrap();
        assert_eq!(
            pinned_links(&root.join("via"), &[], &[root.join("via")]),
            [project.join(".claude")]
        );
    }

    #[test]
    fn a_project_without_git_or_settings_protects_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(protected_paths(dir.path()).is_empty());
    }
}
