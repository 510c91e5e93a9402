//! What else one `git` command reaches (red team round 72): the
//! submodules it recurses into, each read as a repository of its own (its
//! settings, its hooks in `.git/modules/<name>/hooks`; `git status`,
//! `git diff`, `git commit -a` refresh their indexes too), the command
//! `git submodule foreach` runs in each, and a repository of this machine
//! it pushes to, whose receiving hooks (`pre-receive`, `update`,
//! `post-receive`...) run as part of the push.

use std::path::{Path, PathBuf};

use super::follow::read_or_refuse;
use super::{Reached, reached_within};
use crate::binding::mentions::git_settings;

/// The most submodules read for one `git`.
const MAX_SUBMODULES: usize = 16;

/// The hooks the receiving side of a push runs (`githooks(5)`).
const RECEIVING: [&str; 8] = [
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "push-to-checkout",
    "reference-transaction",
    "pre-auto-gc",
];

/// The submodule folders of the work tree `work_tree` (`path = …` in its
/// `.gitmodules`) that are there.
fn submodules(work_tree: &Path, found: &mut Reached) -> Vec<PathBuf> {
    let Some(text) = read_or_refuse(&work_tree.join(".gitmodules"), found) else {
        return Vec::new();
    };
    git_settings(&text)
        .into_iter()
        .filter(|(key, _)| key.starts_with("submodule.") && key.ends_with(".path"))
        .map(|(_, path)| work_tree.join(path))
        .filter(|folder| folder.is_dir())
        .take(MAX_SUBMODULES)
        .collect()
}

/// Reads what `git` (`args`, the command's `assignments`) reaches in the
/// submodules of `work_tree`: `git submodule foreach CMD` runs `CMD` in
/// each; another subcommand that may recurse into them (every one but
/// those that only read objects) is read again in each.
pub(super) fn read_submodules(
    args: &[String],
    assignments: &[(String, String)],
    work_tree: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    if depth > 3 {
        return;
    }
    let folders = submodules(work_tree, found);
    if folders.is_empty() {
        return;
    }
    let subcommand = super::git_hooks::subcommand(args);
    if subcommand == Some("submodule") {
        // `git submodule foreach [--recursive] [-q] CMD`.
        if let Some(at) = args.iter().position(|word| word == "foreach") {
            let command = args[at + 1..].iter().find(|word| !word.starts_with('-'));
            for folder in &folders {
                if let Some(command) = command {
                    super::follow::recipe_files(command, folder, found);
                    reached_within(command, folder, project_hook, found, depth + 1);
                }
            }
        }
    }
    let only_objects = matches!(
        subcommand,
        Some("log" | "show" | "rev-parse" | "rev-list" | "cat-file" | "ls-tree" | "shortlog")
    );
    if only_objects {
        return;
    }
    for folder in &folders {
        super::git_config::read(args, assignments, folder, (project_hook, depth + 1), found);
    }
}

/// The repositories `git push` (`args`) may push to that are this
/// machine's (`.`, a folder, a `file://` URL; a remote's `url` or
/// `pushurl`; with no target, every remote's; a `url.<base>.insteadOf`
/// base), each one's hooks read as its receiving side runs them, from its
/// git folder.
pub(super) fn read_push_target(
    args: &[String],
    git_dir: &Path,
    here: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    // A fetch's or clone's remote end is another program (`ext::sh x.sh`,
    // round 73: GT-15b) too; only a push runs its receiving hooks.
    let subcommand = super::git_hooks::subcommand(args);
    let push = subcommand == Some("push");
    if !push
        && !matches!(
            subcommand,
            Some("fetch" | "pull" | "ls-remote" | "remote" | "clone" | "archive")
        )
    {
        return;
    }
    let settings: Vec<(String, String)> = read_or_refuse(&git_dir.join("config"), found)
        .map(|text| git_settings(&text))
        .unwrap_or_default();
    let target = args
        .iter()
        .skip_while(|word| Some(word.as_str()) != subcommand)
        .skip(1)
        .find(|word| !word.starts_with('-') && *word != "update");
    let remote = |key: &str| {
        key.starts_with("remote.") && (key.ends_with(".url") || key.ends_with(".pushurl"))
    };
    let mut candidates: Vec<String> = match target {
        Some(target) => {
            let named = [
                format!("remote.{target}.url"),
                format!("remote.{target}.pushurl"),
            ];
            let urls: Vec<String> = settings
                .iter()
                .filter(|(key, _)| named.contains(key))
                .map(|(_, url)| url.clone())
                .collect();
            if urls.is_empty() {
                vec![target.clone()]
            } else {
                urls
            }
        }
        None => settings
            .iter()
            .filter(|(key, _)| remote(key))
            .map(|(_, url)| url.clone())
            .collect(),
    };
    // `[url "/srv/r.git"] pushInsteadOf = gh:`: what a URL becomes.
    let rewrites: Vec<(String, String)> = settings
        .iter()
        .filter_map(|(key, prefix)| {
            let base = key.strip_prefix("url.")?;
            let base = base
                .strip_suffix(".insteadof")
                .or_else(|| base.strip_suffix(".pushinsteadof"))?;
            Some((base.to_owned(), prefix.clone()))
        })
        .collect();
    for (base, prefix) in &rewrites {
        let rewritten: Vec<String> = candidates
            .iter()
            .filter_map(|url| Some(format!("{base}{}", url.strip_prefix(prefix.as_str())?)))
            .collect();
        candidates.extend(rewritten);
        candidates.push(base.clone());
    }
    candidates.truncate(MAX_SUBMODULES);
    for url in candidates {
        // `ext::sh x.sh`: git runs the command as the remote end (round 73).
        if let Some(command) = url.strip_prefix("ext::") {
            let command = command
                .replace("%S", "git-receive-pack")
                .replace("%s", "receive-pack");
            super::follow::recipe_files(&command, here, found);
            reached_within(&command, here, at.0, found, at.1 + 1);
            continue;
        }
        if !push {
            continue;
        }
        let path = url.strip_prefix("file://").unwrap_or(&url);
        if path.contains("://") || (path.contains(':') && !path.starts_with(['/', '.', '$'])) {
            continue;
        }
        // `"$PWD/r.git"`, `"file://$PWD/r.git"` (round 73).
        let path = crate::binding::wrappers::here_expanded(path, here).unwrap_or(path.to_owned());
        if path.contains(['$', '`']) {
            found.computed.get_or_insert_with(|| {
                format!("git pushes to a repository named only when it runs (`{url}`)")
            });
            return;
        }
        let folder = here.join(crate::binding::mentions::expand_home(&path));
        if folder.is_dir() {
            read_receiving(&folder, at, found);
        }
    }
}

/// Reads the hooks the repository at `folder` runs receiving a push.
fn read_receiving(folder: &Path, at: (bool, usize), found: &mut Reached) {
    // A bare repository is its own git folder; else its `.git`.
    let receiving = match folder.join("HEAD").is_file() && folder.join("objects").is_dir() {
        true => folder.to_path_buf(),
        false => {
            let dot_git = folder.join(".git");
            crate::binding::mentions::pointed_at(&dot_git).unwrap_or(dot_git)
        }
    };
    let mut folders = vec![receiving.join("hooks")];
    if let Some(text) = read_or_refuse(&receiving.join("config"), found) {
        folders.extend(
            git_settings(&text)
                .into_iter()
                .filter(|(key, _)| key == "core.hookspath")
                .map(|(_, value)| receiving.join(value)),
        );
        found.add(receiving.join("config"));
    }
    let run = super::git_hooks::Run::These(RECEIVING.to_vec(), None);
    super::git_hooks::hooks(&folders, &receiving, &run, at, found);
}

/// The hooks of the template a `git clone` or `git init` copies into the
/// new repository (`--template=tpl`, `GIT_TEMPLATE_DIR`), which the clone
/// then runs (`post-checkout`: round 73, EV-G10), read from `here`.
pub(super) fn read_template(
    args: &[String],
    assignments: &[(String, String)],
    here: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    if !matches!(super::git_hooks::subcommand(args), Some("clone" | "init")) {
        return;
    }
    let mut templates: Vec<String> = assignments
        .iter()
        .filter(|(name, _)| name == "GIT_TEMPLATE_DIR")
        .map(|(_, value)| value.clone())
        .collect();
    for (at, word) in args.iter().enumerate() {
        if let Some(value) = word.strip_prefix("--template=") {
            templates.push(value.to_owned());
        } else if word == "--template"
            && let Some(value) = args.get(at + 1)
        {
            templates.push(value.clone());
        }
    }
    for template in templates {
        let template = crate::binding::wrappers::here_expanded(&template, here).unwrap_or(template);
        if template.contains(['$', '`']) {
            found.computed.get_or_insert_with(|| {
                format!("git copies hooks from a template named only when it runs (`{template}`)")
            });
            return;
        }
        let folder = here.join(crate::binding::mentions::expand_home(&template));
        let run = super::git_hooks::Run::Any;
        super::git_hooks::hooks(&[folder.join("hooks")], here, &run, at, found);
    }
}
