//! What a repository's git settings make `git` run (red team round 62):
//! an alias `!make -s lint`, `core.fsmonitor = tools/fs.sh`, a filter, a
//! pager, a credential helper. The settings files are bound by content
//! (`git_dirs`); what their values run is read here as the shell text git
//! hands a shell, in the work tree git runs it in, so the Makefile an
//! alias runs, or the script a hook setting names, is bound too. Every
//! value is read so (a reading for consent binds more, never less), as
//! are the files an `[include]` names.

use std::path::{Path, PathBuf};

use super::{Reached, reached_within};
use crate::binding::mentions::{expand_home, git_settings, pointed_at};

/// How many settings files (an `[include]` chain) are read for one `git`.
const MAX_CONFIGS: usize = 8;

/// Reads what the settings of the repository `git` (given `args` and the
/// command's own `assignments`, started in `here`) runs, as above.
pub(super) fn read(
    args: &[String],
    assignments: &[(String, String)],
    here: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let (git_dir, work_tree) = repository(args, assignments, here);
    let Some(git_dir) = git_dir else {
        return;
    };
    let work_tree = work_tree.unwrap_or_else(|| here.to_path_buf());
    let mut pending = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    let mut read: Vec<PathBuf> = Vec::new();
    let mut hook_folders = vec![git_dir.join("hooks")];
    // Settings the command gives git itself (round 68): `-c
    // core.hooksPath=hk`, `--config-env`, `GIT_CONFIG_KEY_0`, and the
    // files `GIT_CONFIG_GLOBAL` / `GIT_CONFIG_SYSTEM` name.
    match given_settings(args, assignments, here) {
        Ok((files, values)) => {
            pending.extend(files);
            for (key, value) in values {
                if key == "core.hookspath" {
                    hook_folders.push(work_tree.join(expand_home(&value)));
                }
                let command = value.strip_prefix('!').unwrap_or(&value);
                super::follow::recipe_files(command, &work_tree, found);
                reached_within(command, &work_tree, project_hook, found, depth + 1);
            }
        }
        Err(why) => {
            found.computed.get_or_insert(why);
            return;
        }
    }
    while let Some(file) = pending.pop() {
        if read.len() >= MAX_CONFIGS || read.contains(&file) {
            continue;
        }
        read.push(file.clone());
        // Present but not read whole: what it runs cannot be read.
        let Some(text) = super::follow::read_or_refuse(&file, found) else {
            continue;
        };
        for (key, value) in git_settings(&text) {
            if key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path")) {
                let base = file.parent().unwrap_or(&git_dir);
                pending.push(base.join(expand_home(&value)));
                continue;
            }
            if key == "core.hookspath" {
                hook_folders.push(work_tree.join(expand_home(&value)));
            }
            // `alias.ci = -c core.hooksPath=.githooks commit` (round 70).
            hook_folders.extend(
                alias_hooks_paths(&key, &value).map(|folder| work_tree.join(expand_home(&folder))),
            );
            // `!make -s lint`, `!sh -c "…"`: shell text from the work tree.
            let command = value.strip_prefix('!').unwrap_or(&value);
            let before = found.roots.len();
            super::follow::recipe_files(command, &work_tree, found);
            reached_within(command, &work_tree, project_hook, found, depth + 1);
            // A file that runs something is read as a manifest is, for the
            // test runners it names (`!pytest -q`).
            if value.starts_with('!') || found.roots.len() > before {
                found.add(file.clone());
            }
        }
    }
    // Every subcommand may run one: `git status` writes the index
    // (`post-index-change`), `git branch` updates a ref
    // (`reference-transaction`: round 68).
    // The user's own settings may name the hooks folder too (a global
    // `core.hooksPath = .githooks` is the project's: round 69).
    for (file, value) in global_hooks_paths(assignments, here, found) {
        found.add(file);
        match value.strip_prefix('!') {
            Some(command) => {
                super::follow::recipe_files(command, &work_tree, found);
                reached_within(command, &work_tree, project_hook, found, depth + 1);
            }
            None => hook_folders.push(work_tree.join(expand_home(&value))),
        }
    }
    // `git hook run lint`: a hook of any name.
    let named = args
        .windows(3)
        .find(|words| words[0] == "hook" && words[1] == "run")
        .map(|words| words[2].clone());
    let at = (project_hook, depth);
    let run = super::git_hooks::run_by(args, named.as_deref());
    super::git_hooks::hooks(&hook_folders, &work_tree, &run, at, found);
    super::git_reaches::read_push_target(args, &git_dir, here, at, found);
    super::git_reaches::read_submodules(args, assignments, &work_tree, at, found);
    super::git_reaches::read_template(args, assignments, here, at, found);
}

/// Whether the git setting `key` (lowercased) names a program git runs in
/// the work tree of the repository it reads: the file monitor, a filter,
/// a diff or merge driver (not a pager, an editor or a credential helper).
fn runs_in_the_work_tree(key: &str) -> bool {
    let ends = [
        ".clean",
        ".smudge",
        ".process",
        ".textconv",
        ".command",
        ".driver",
    ];
    key == "core.fsmonitor"
        || (["filter.", "diff.", "merge."]
            .iter()
            .any(|start| key.starts_with(start))
            && ends.iter().any(|end| key.ends_with(end)))
}

/// The hooks folders an alias's own settings give (`alias.ci = -c
/// core.hooksPath=.githooks commit`), for the setting `key` = `value`.
fn alias_hooks_paths(key: &str, value: &str) -> impl Iterator<Item = String> {
    let words = match key.starts_with("alias.") && !value.starts_with('!') {
        true => shlex::split(value).unwrap_or_default(),
        false => Vec::new(),
    };
    let given = given_settings(&words, &[], Path::new("/")).map(|(_, values)| values);
    given
        .unwrap_or_default()
        .into_iter()
        .filter(|(key, _)| key == "core.hookspath")
        .map(|(_, folder)| folder)
}

/// The `core.hooksPath` values of the user's and the system's git
/// settings (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
/// `/etc/gitconfig` and the files they include), and the programs they
/// have run in the work tree (each as `!command`), each with the file that
/// sets it; every file read is bound, present or not.
fn global_hooks_paths(
    assignments: &[(String, String)],
    here: &Path,
    found: &mut Reached,
) -> Vec<(PathBuf, String)> {
    // `HOME=.`, `XDG_CONFIG_HOME=$PWD/.cfg git commit`: as the command
    // gives them (round 70), else this process's.
    let given = |name: &str| {
        let value = assignments.iter().rev().find(|(known, _)| known == name)?;
        crate::binding::wrappers::places(here, &value.1)
            .into_iter()
            .next()
    };
    let home = given("HOME").or_else(hermes_hooks_core::home::user_home);
    let config = given("XDG_CONFIG_HOME")
        .or_else(|| std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from))
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    let mut pending: Vec<PathBuf> = home.iter().map(|home| home.join(".gitconfig")).collect();
    pending.extend(config.map(|config| config.join("git/config")));
    pending.push(PathBuf::from("/etc/gitconfig"));
    let mut values = Vec::new();
    let mut at = 0;
    while at < pending.len() && at < MAX_CONFIGS * 2 {
        let file = pending[at].clone();
        at += 1;
        found.add(file.clone());
        let Some(text) = super::follow::read_or_refuse(&file, found) else {
            continue;
        };
        let folder = file.parent().unwrap_or(Path::new("/")).to_path_buf();
        for (key, value) in git_settings(&text) {
            if key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path")) {
                pending.push(folder.join(expand_home(&value)));
            } else if key == "core.hookspath" {
                values.push((file.clone(), value));
            } else if runs_in_the_work_tree(&key) {
                // A global `core.fsmonitor`, filter or diff driver runs in
                // the project's work tree (round 70): read as a command.
                values.push((file.clone(), format!("!{value}")));
            } else {
                values.extend(alias_hooks_paths(&key, &value).map(|folder| (file.clone(), folder)));
            }
        }
    }
    values
}

/// Settings as `(key, value)`, keys lowercased.
type Settings = Vec<(String, String)>;

/// The settings files (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`,
/// `GIT_CONFIG` among `assignments`, from `here`) and the settings
/// (`-c key=value`, `--config-env=key=VAR`, `GIT_CONFIG_KEY_n` with
/// `GIT_CONFIG_VALUE_n`; keys lowercased) the command gives git; an error
/// when a value is taken from a variable the command does not set.
fn given_settings(
    args: &[String],
    assignments: &[(String, String)],
    here: &Path,
) -> Result<(Vec<PathBuf>, Settings), String> {
    let assigned = |name: &str| {
        assignments
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, value)| value.clone())
    };
    let mut files = Vec::new();
    for name in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"] {
        let Some(file) = assigned(name) else { continue };
        if crate::binding::wrappers::computed(&file) {
            return Err(format!(
                "git is given {name}={file}, which this reading cannot expand"
            ));
        }
        files.extend(crate::binding::wrappers::places(here, &file));
    }
    let mut values = Vec::new();
    let pair = |text: &str| {
        text.split_once('=')
            .map(|(key, value)| (key.to_ascii_lowercase(), value.to_owned()))
    };
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "-c" {
            values.extend(words.next().and_then(|text| pair(text)));
        } else if let Some(given) = word.strip_prefix("--config-env=") {
            let Some((key, variable)) = pair(given) else {
                continue;
            };
            let value = assigned(&variable).ok_or_else(|| {
                format!("git is given {key} from ${variable}, which the command does not set")
            })?;
            values.push((key, value));
        } else if !word.starts_with('-') {
            break;
        }
    }
    // `GIT_CONFIG_PARAMETERS="'core.hooksPath'='.githooks'"` (round 70).
    if let Some(given) = assigned("GIT_CONFIG_PARAMETERS") {
        for word in shlex::split(&given).unwrap_or_default() {
            values.extend(pair(&word));
        }
        // `'k'='v'` as one word: the quotes split it into `k=v`.
        if values.is_empty() && !given.trim().is_empty() {
            return Err("git is given GIT_CONFIG_PARAMETERS this reading cannot read".to_owned());
        }
    }
    for (name, key) in assignments {
        if let Some(at) = name.strip_prefix("GIT_CONFIG_KEY_") {
            let value = assigned(&format!("GIT_CONFIG_VALUE_{at}")).unwrap_or_default();
            values.push((key.to_ascii_lowercase(), value));
        }
    }
    Ok((files, values))
}

/// The git folder `git` reads its settings from, and the work tree it
/// runs their commands in: `--git-dir` or `GIT_DIR` (and `--work-tree`,
/// `GIT_WORK_TREE`, `core.worktree`), else the nearest `.git` from `here`
/// (after `-C`), a `.git` file followed to the folder it names.
fn repository(
    args: &[String],
    assignments: &[(String, String)],
    here: &Path,
) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut start = here.to_path_buf();
    let mut git_dir: Option<PathBuf> = None;
    let mut work_tree: Option<PathBuf> = None;
    for (name, value) in assignments {
        match name.as_str() {
            "GIT_DIR" => git_dir = Some(here.join(value)),
            "GIT_WORK_TREE" => work_tree = Some(here.join(value)),
            _ => {}
        }
    }
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value = |option: &str| {
            word.strip_prefix(&format!("{option}="))
                .map(str::to_owned)
                .or_else(|| (word == option).then(|| words.clone().next().cloned())?)
        };
        if let Some(dir) = value("--git-dir") {
            git_dir = Some(start.join(dir));
        } else if let Some(dir) = value("--work-tree") {
            work_tree = Some(start.join(dir));
        } else if word == "-C" {
            if let Some(dir) = words.next() {
                start = start.join(dir);
            }
        } else if !word.starts_with('-') && !word.contains('=') {
            // The subcommand: its own options follow.
            break;
        }
    }
    let git_dir = git_dir.or_else(|| {
        start
            .ancestors()
            .take(32)
            .map(|folder| folder.join(".git"))
            .find(|dot_git| std::fs::symlink_metadata(dot_git).is_ok())
    });
    let Some(git_dir) = git_dir else {
        return (None, work_tree);
    };
    let real = pointed_at(&git_dir).unwrap_or_else(|| git_dir.clone());
    // `core.worktree = ..`: relative to the git folder.
    let configured = std::fs::read_to_string(real.join("config"))
        .ok()
        .and_then(|text| {
            git_settings(&text)
                .into_iter()
                .find(|(key, _)| key == "core.worktree")
                .map(|(_, value)| real.join(value))
        });
    let beside = git_dir
        .file_name()
        .is_some_and(|name| name == ".git")
        .then(|| git_dir.parent().map(Path::to_path_buf))
        .flatten();
    let work_tree = work_tree.or(configured).or(beside);
    (Some(real), work_tree)
}

#[cfg(test)]
mod tests {
    use super::git_settings;

    #[test]
    fn settings_are_read_as_git_reads_them() {
        let text = "[core]\n\tfsmonitor = tools/fs.sh\n[alias]\n\tlint = \"!make -s lint\" # x\n\
                    [filter \"x\"]\n\tclean = sh \\\"tools/c.sh\\\"\n[include]\n\tpath = extra\n";
        let found = git_settings(text);
        let has = |key: &str, value: &str| found.iter().any(|(k, v)| k == key && v == value);
        assert!(has("core.fsmonitor", "tools/fs.sh"), "{found:?}");
        assert!(has("alias.lint", "!make -s lint"), "{found:?}");
        assert!(has("filter.x.clean", "sh \"tools/c.sh\""), "{found:?}");
        assert!(has("include.path", "extra"), "{found:?}");
    }
}
