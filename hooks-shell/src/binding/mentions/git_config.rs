//! What git runs of a project when a hook's code runs git (red team round
//! 8, R8-8): the repository's own configuration names programs git starts
//! (`core.fsmonitor = scripts/fsmon.sh` runs on `git status`; `core.pager`,
//! `core.editor`, `core.sshCommand`, `alias.x = !sh x.sh`,
//! `filter.*.smudge`, `diff.*.textconv`, `credential.helper`, ...), a
//! folder of hooks (`core.hooksPath`, else the git folder's `hooks`), and
//! more configuration (`include.path`, `includeIf.*.path`). A clone never
//! writes them, but a shipped `.git` or a setup script the user ran
//! (`git config core.hooksPath .husky`) does.
//!
//! So code that runs git binds the project's configuration files (the
//! common one and the worktree's) and every file they include, and reads
//! every value in them as shell code from the top of the worktree (git
//! runs many keys as commands, and the list grows: no value is skipped by
//! its key); the files of its hooks folders are bound and read as what
//! they are.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{Code, Names};

/// The most configuration files an `include` chain reads.
const MAX_CONFIG_FILES: usize = 16;

/// Whether `text` may run git: the word `git` as a program (`git status`,
/// `["git", "status"]`, `/usr/bin/git`), not a part of a name (`.git`,
/// `git-lfs`, `gitdir`).
pub(crate) fn runs_git(text: &str) -> bool {
    static GIT: LazyLock<Regex> = LazyLock::new(|| {
        // Or a parameter's default (`${GIT:-git} status`: round 58, gw03).
        Regex::new(r#"(?:^|[^\w.\-]|:?[-=])git(?:$|[^\w./\-])|\$\{\w+:?[-=]git\}"#)
            .expect("valid regex")
    });
    text.contains("git") && GIT.is_match(text)
}

impl Names {
    /// Binds what git runs of the project (see the module documentation),
    /// once per repository: the project's own, and each nested one in a
    /// folder its code names (`git -C sub status`, `cd sub && git status`:
    /// its configuration includes files too, R33-6).
    pub(super) fn bind_git_config(&mut self) {
        let mut tops = vec![self.project.clone(), self.cwd.clone()];
        tops.extend(self.places.iter().cloned());
        tops.retain(|top| top.starts_with(&self.project));
        tops.sort();
        tops.dedup();
        for top in tops {
            self.bind_repository_config(&top);
        }
    }

    /// [`Self::bind_git_config`] for the repository whose worktree is `top`.
    fn bind_repository_config(&mut self, top: &Path) {
        let Some((git_dir, common)) = git_folders(top) else {
            return;
        };
        let mut configs = vec![common.join("config"), git_dir.join("config.worktree")];
        configs.retain(|config| config.is_file());
        if configs.iter().all(|config| self.files.contains(config)) {
            return;
        }
        let mut hook_folders = vec![common.join("hooks")];
        let mut values = String::new();
        let mut read = 0;
        while read < configs.len() && read < MAX_CONFIG_FILES {
            let config = configs[read].clone();
            read += 1;
            self.files.insert(config.clone());
            let Ok(Some(text)) = self.read.text(&config) else {
                continue;
            };
            for (key, value) in entries(&text) {
                let folder = config.parent().unwrap_or(&git_dir);
                if key == "include.path"
                    || (key.starts_with("includeif.") && key.ends_with(".path"))
                {
                    let included = folder.join(expand_home(&value));
                    if included.is_file() && !configs.contains(&included) {
                        configs.push(included);
                    }
                } else if key == "core.hookspath" {
                    hook_folders.push(top.join(expand_home(&value)));
                }
                values.push_str(value.trim_start_matches('!'));
                values.push('\n');
            }
        }
        self.text(&values, Some(top), Code::Shell);
        for folder in hook_folders {
            for (name, kind) in self.listing(&folder).iter() {
                if *kind == super::Kind::File && !name.ends_with(".sample") {
                    self.add_run_file(folder.join(name), None);
                }
            }
        }
    }
}

/// The git folder of the worktree at `project` and the common one (they
/// differ in a linked worktree): `.git` itself, or what a `.git` file
/// names (`gitdir: …`) and its `commondir`.
fn git_folders(project: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot_git = project.join(".git");
    let metadata = std::fs::metadata(&dot_git).ok()?;
    let git_dir = if metadata.is_dir() {
        dot_git
    } else {
        pointed_at(&dot_git)?
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(common) => git_dir.join(common.trim()),
        Err(_) => git_dir.clone(),
    };
    Some((git_dir, common))
}

/// The folder a `.git` file names (`gitdir: …`), from the folder that
/// holds it.
pub(crate) fn pointed_at(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(dot_git.parent()?.join(named))
}

/// `~/x` from the home folder.
pub(crate) fn expand_home(value: &str) -> PathBuf {
    match (value.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(value),
    }
}

/// Each `section[.subsection].key` (section and key lowercased) and its
/// value, quotes and escapes taken out, continued lines joined.
pub(crate) fn entries(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim().to_owned();
        while line.ends_with('\\') {
            line.pop();
            line.push_str(lines.next().unwrap_or_default().trim());
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or_default();
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!(
                    "{}.{}",
                    name.to_ascii_lowercase(),
                    sub.trim().trim_matches('"')
                ),
                None => header.to_ascii_lowercase(),
            };
            continue;
        }
        if line.starts_with(['#', ';']) || line.is_empty() {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((&line, ""));
        let value = unquoted(value.trim());
        out.push((
            format!("{section}.{}", key.trim().to_ascii_lowercase()),
            value,
        ));
    }
    out
}

/// A configuration value as git reads it: quotes taken out, `\"`, `\\`,
/// `\t`, `\n` read, a comment (`#`, `;` outside quotes) cut.
fn unquoted(value: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::{entries, runs_git};

    #[test]
    fn code_running_git_is_told_from_a_name_holding_git() {
        for text in [
            "git status",
            "cat >/dev/null; git -C \"$D\" status",
            "subprocess.run([\"git\", \"status\"])",
            "/usr/bin/git log",
            "x=$(git rev-parse HEAD)",
        ] {
            assert!(runs_git(text), "{text}");
        }
        for text in ["cat .git/HEAD", "git-lfs", "gitdir: x", "digit", "legit.sh"] {
            assert!(!runs_git(text), "{text}");
        }
    }

    #[test]
    fn configuration_values_are_read_as_git_reads_them() {
        let text = "[core]\n\tfsmonitor = scripts/fsmon.sh\n\tpager = \"less -R\" # c\n\
            [alias]\n\tx = !sh \\\n tools/x.sh\n[filter \"lfs\"]\n\tsmudge = tools/s.sh %f\n\
            [includeIf \"gitdir:/p/\"]\n\tpath = extra.cfg\n[core]\n\tbare\n";
        let found = entries(text);
        for (key, value) in [
            ("core.fsmonitor", "scripts/fsmon.sh"),
            ("core.pager", "less -R"),
            ("alias.x", "!sh tools/x.sh"),
            ("filter.lfs.smudge", "tools/s.sh %f"),
            ("includeif.gitdir:/p/.path", "extra.cfg"),
            ("core.bare", ""),
        ] {
            assert!(
                found.contains(&(key.to_owned(), value.to_owned())),
                "{key}: {found:?}"
            );
        }
    }
}
