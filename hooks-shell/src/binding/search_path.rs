//! Where a project hook's Python or Perl looks for modules before the
//! installed ones, as its command and the shell files it runs say: the
//! folders `PYTHONPATH=`, `PERL5LIB=`, `-I` and `cd` name, written with the
//! expansions a hook's shell resolves the same way every run (`$PWD`,
//! `$CLAUDE_PROJECT_DIR`, `~`, `$HOME`, the folder of `$0`, a variable the
//! same text set, a variable only the host sets: R24-1, R25a-6, R26-12,
//! R26-13), also inside a wrapper, a sourced `.env`, a `$(…)` or a
//! `package.json` script (R25a-3, R26-1, R26-6, R26-8); and the folders
//! code adds by a literal (R24-3, R25a-4, R25a-5). A module folder written
//! with any other expansion cannot be known before the hook runs, so such
//! a hook cannot be approved ([`BindError::UnknownFolder`]). What the text
//! may copy to a module folder outside the project is in `copies`, read
//! from all the code texts the hook reaches (`copy_texts`).

mod copies;
mod copy_texts;
mod physical;
mod run_folder;
mod values;
mod words;
pub(super) mod write_targets;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use values::{Assignment, Values, assignment, with_chosen};
use words::{fixed, split};
pub(super) use words::{literal_folders, quoted_words, with_project};

use super::{BindError, peek};

/// The most shell files read for settings.
const MAX_FILES: usize = 64;

/// The hook's command and the shell files it runs or sources, split into
/// tokens (quotes gone), each with the folder `$0` names there.
#[derive(Default)]
pub(super) struct Spoken {
    /// `(token, folder of the file it is in, None for the command)`.
    pub tokens: Vec<(String, Option<PathBuf>)>,
    /// The variables the command or those files set.
    names: BTreeSet<String>,
    /// A module search setting whose value cannot be read before it runs
    /// (`read PYTHONPATH`, a shell file too long to read), as written.
    unknown: Option<String>,
    /// The copies' and archives' targets of the shell text
    /// ([`write_targets`]), for the copy rule.
    write_targets: BTreeSet<String>,
}

impl Spoken {
    /// The tokens of the command `words` (as written: a `$(…)` whole) and
    /// of the shell files among `files`.
    pub(super) fn new(words: &[String], files: &[&PathBuf], cwd: &Path, project: &Path) -> Self {
        let mut spoken = Self::default();
        spoken.add(&with_project(words, project, cwd), None, project);
        // A git hooks folder's `*.sample` files never run (round 72, U-1:
        // `sendemail-validate.sample`'s `cd "$(git config …)"` refused
        // a `git commit` guard).
        let sample = |file: &&&PathBuf| {
            file.extension().is_some_and(|ending| ending == "sample")
                && file
                    .parent()
                    .is_some_and(|folder| folder.ends_with("hooks"))
        };
        let read = files.iter().filter(|file| is_shell(file) && !sample(file));
        for file in read.take(MAX_FILES) {
            let Some(text) = peek::small_text(file) else {
                continue;
            };
            // What a project's script sets after its first MiB is not read
            // (R26-7); a compiled program (ELF) is no script. A NUL byte
            // anywhere else is dropped as `source` and `sh` drop it: a file
            // holding one is still run (R28-11).
            let long = std::fs::metadata(file).is_ok_and(|meta| meta.len() > peek::MAX_PEEK);
            if text.starts_with("\u{7f}ELF") {
                continue;
            }
            let text = text.replace('\0', "");
            if long && file.starts_with(project) {
                let long = format!("{} (a shell file over 1 MiB)", file.display());
                spoken.unknown.get_or_insert(long);
            }
            // A line continued with `\` is one line (R26-2).
            let text = text.replace("\\\r\n", "").replace("\\\n", "");
            // A makefile's `export NAME := value` as the shell's `NAME=value`.
            static MAKE_SET: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:::|:|\?|\+)?=\s*")
                    .expect("valid regex")
            });
            let mut lines: Vec<String> = text
                .lines()
                .filter(|line| !line.trim_start().starts_with('#'))
                .map(|line| MAKE_SET.replace(line, "$1=").into_owned())
                .collect();
            // `package.json`: each script's command line.
            if file.file_name().is_some_and(|name| name == "package.json") {
                let manifest: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                let scripts = manifest.get("scripts").and_then(|s| s.as_object());
                let commands = scripts
                    .into_iter()
                    .flatten()
                    .filter_map(|(_, c)| c.as_str());
                lines.extend(commands.map(str::to_owned));
            }
            spoken.add(&with_project(&lines, project, cwd), file.parent(), project);
        }
        spoken
    }

    /// Adds the tokens of `lines` (of a file in `folder`, `None`: the
    /// command): the folder of `$0` and the project's top written as they
    /// are, then each variable the lines set before (`DIR=…; cd $DIR`).
    fn add(&mut self, lines: &[String], folder: Option<&Path>, project: &Path) {
        let split: Vec<Vec<String>> = lines
            .iter()
            .map(|line| split(&fixed(line, folder, project)))
            .collect();
        let values = Values::of(&split, lines);
        self.names.extend(values.unknown.iter().cloned());
        if let Some(setting) = values.setting.clone() {
            self.unknown.get_or_insert(setting);
        }
        // A variable set later in the text (a function defined first, as
        // `activate`'s `deactivate`: R26-13) is read as that value too.
        let later = &values.all;
        let mut set: Vec<Assignment> = Vec::new();
        let read = |token: &str, set: &[Assignment], unresolved: &BTreeSet<String>| {
            // `PYTHONPATH=lib:$PYTHONPATH`: its own name is the inherited value.
            let own = token.split_once('=').map(|(name, _)| name.to_owned());
            let mut token = token.to_owned();
            // Each name once, its latest value first: a script of many
            // assignments was read in time growing as their square.
            let mut done: BTreeSet<&str> = BTreeSet::new();
            for found in set.iter().rev().chain(later) {
                if !token.contains('$') {
                    break;
                }
                if !done.insert(found.name.as_str()) {
                    continue;
                }
                if own.as_deref() != Some(found.name.as_str()) && !unresolved.contains(&found.name)
                {
                    token = found.used.replace_all(&token, &found.value);
                }
            }
            token
        };
        let folder = folder.map(Path::to_path_buf);
        for line in &split {
            if super::shell::out_of_time() {
                break;
            }
            // Each variable used with several values is read with each
            // (R26-4); too many ways, and they stay unresolved.
            let (choices, unresolved) = match values.choices(line) {
                Ok(choices) => (choices, BTreeSet::new()),
                Err(unresolved) => (Vec::new(), unresolved),
            };
            let before = set.len();
            for token in line {
                let token = read(token, &set, &unresolved);
                if let Some(found) =
                    assignment(&token).filter(|f| !values.unknown.contains(&f.name))
                {
                    self.names.insert(found.name.clone());
                    set.push(found);
                }
                self.tokens.push((token, folder.clone()));
            }
            for chosen in &choices {
                for token in line {
                    let token = read(
                        &with_chosen(token, chosen, &values),
                        &set[..before],
                        &unresolved,
                    );
                    if let Some(found) = assignment(&token) {
                        self.names.insert(found.name);
                    }
                    self.tokens.push((token, folder.clone()));
                }
            }
        }
    }

    /// A setting whose name or value only the running shell knows
    /// (`export $(cat .env)`, `env $(cat f) python3`, `eval "…$(…)"`:
    /// R26-5; a name built from pieces, `export PYTHON${1}=…`,
    /// `declare -x "$name=…"`: R28-12), the first such word.
    pub(super) fn unknown_settings(&self) -> Option<String> {
        if let Some(unknown) = &self.unknown {
            return Some(unknown.clone());
        }
        const SETS: [&str; 8] = [
            "export", "env", "eval", "declare", "typeset", "local", "readonly", "set",
        ];
        let built = |text: &str| text.contains(['$', '`']);
        // A changed `IFS` splits a variable's value where the text does
        // not show (`IFS=,; v="PYTHONPATH=lib,python3,c.py"; env $v`:
        // R28-9), however it is set (`read IFS`, `printf -v IFS`, `for IFS
        // in`, `IFS+=`: R28b-8); `IFS=: read …` sets it for that `read`
        // alone, and the blanks-only spellings split no further than the
        // words read here (R28b-11: `IFS=" ,"`).
        // As read here, quotes gone: `IFS=$'\n\t'` is `IFS=$\n\t`, and
        // `IFS=''` or `IFS=" ,"` starts with `IFS=`, which is blank only
        // before a `read`.
        const BLANKS: [&str; 4] = ["IFS=$\\n", "IFS=$\\t", "IFS=$\\n\\t", "IFS=$\\t\\n"];
        for (at, (token, _)) in self.tokens.iter().enumerate() {
            let names_ifs = token
                .strip_prefix("-v")
                .unwrap_or(token)
                .trim_matches(['"', '\''])
                == "IFS";
            let sets = token.starts_with("IFS=") || token.starts_with("IFS+=");
            if !names_ifs && !sets {
                continue;
            }
            let next = self.tokens.get(at + 1).map(|(next, _)| next.as_str());
            let before = at.checked_sub(1).map(|at| self.tokens[at].0.as_str());
            let for_read = matches!(next, Some("read" | "mapfile" | "readarray"));
            let restores = names_ifs && matches!(before, Some("unset" | "local"));
            if (sets && (for_read || BLANKS.contains(&token.as_str()))) || restores {
                continue;
            }
            return Some(token.clone());
        }
        for (at, (setter, _)) in self.tokens.iter().enumerate() {
            if !SETS.contains(&setter.as_str()) {
                continue;
            }
            let words = self.tokens[at + 1..].iter().map(|(word, _)| word.as_str());
            // The words it sets (its options skipped): a name only the
            // running shell spells may be any module setting.
            for (nth, word) in words.filter(|w| !w.starts_with('-')).take(4).enumerate() {
                let name = word.split_once('=').map_or(word, |(name, _)| name);
                let unknown = match setter.as_str() {
                    "eval" => built(word),
                    "set" | "env" => word.starts_with('$') || word.contains('`'),
                    // `export $(cat .env)`; what follows is a `$(…)`'s own.
                    _ => nth == 0 && built(name),
                } || (word.contains('=') && built(name));
                if unknown {
                    return Some(format!("{setter} {word}"));
                }
                // `env NAME=v command …`: what follows the command is its own.
                let ends = matches!(setter.as_str(), "env" | "set") && !word.contains('=');
                if ends || (nth == 0 && setter == "set") {
                    break;
                }
            }
        }
        None
    }

    /// The values assigned to `name` (`NAME=v`, `export NAME=v`), each with
    /// its file's folder.
    pub(super) fn assigned<'a>(&'a self, name: &str) -> Vec<(&'a str, Option<&'a Path>)> {
        let prefix = format!("{name}=");
        self.tokens
            .iter()
            .filter_map(|(token, folder)| {
                let value = token.strip_prefix(&prefix)?;
                Some((value, folder.as_deref()))
            })
            .collect()
    }

    /// The folders `cd`, `pushd`, `env -C` move into that are known, and
    /// the first that is not (`cd "$(mktemp -d)"`, `cd "$1"`).
    pub(super) fn cd_targets(&self, cwd: &Path, project: &Path) -> (Vec<PathBuf>, Option<String>) {
        let (mut folders, mut unknown) = (Vec::new(), None);
        for (at, (token, in_file)) in self.tokens.iter().enumerate() {
            let after_env = at > 0 && self.tokens[at - 1].0 == "env";
            // `cd -P -- sub`: the first word that is no option.
            let next = self.tokens[at + 1..]
                .iter()
                .take(3)
                .map(|(next, _)| next.as_str())
                .find(|next| !next.starts_with('-'));
            let target = match token.as_str() {
                "cd" | "pushd" => next,
                "-C" | "--chdir" if after_env => next,
                _ => token.strip_prefix("--chdir=").filter(|_| after_env),
            };
            let Some(target) = target.filter(|t| !t.is_empty()) else {
                continue;
            };
            match self.folder(target, "", cwd, project, in_file.as_deref()) {
                Ok(known) => folders.extend(known),
                Err(_) => unknown = unknown.or_else(|| Some(target.to_owned())),
            }
        }
        (folders, unknown)
    }

    /// The folders the list `value` (of the variable `own`, `:`-separated;
    /// `""` for one folder) names, from `cwd`; `in_file`: the folder of the
    /// shell file it is written in (`$(dirname "$0")`). A variable neither
    /// the text nor the runner sets is the host's (`${_OLD_PYTHONHOME:-}`):
    /// its default is read, never its value.
    pub(super) fn folder(
        &self,
        value: &str,
        own: &str,
        cwd: &Path,
        project: &Path,
        in_file: Option<&Path>,
    ) -> Result<Vec<PathBuf>, BindError> {
        static EXPANSION: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(
                r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-=+?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)",
            )
            .expect("valid regex")
        });
        let written = value;
        let value = fixed(value, in_file, project);
        let value = EXPANSION.replace_all(&value, |found: &regex::Captures<'_>| {
            let name = found.get(1).or(found.get(4)).map_or("", |m| m.as_str());
            if name != own && self.names.contains(name) {
                return found[0].to_owned();
            }
            // The host's (or the inherited value of `own`): its default.
            match found.get(2).map(|m| m.as_str()) {
                Some("-" | "=") => found.get(3).map_or("", |m| m.as_str()).to_owned(),
                _ => String::new(),
            }
        });
        let entries: Vec<&str> = if own.is_empty() {
            vec![value.as_ref()]
        } else {
            value.split(':').collect()
        };
        let home = hermes_hooks_core::home::user_home();
        let mut folders = Vec::new();
        for entry in entries {
            let entry = match (entry.strip_prefix('~'), &home) {
                (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{}{rest}", home.display())
                }
                _ => entry.to_owned(),
            };
            if entry.contains(['$', '`']) || entry.starts_with('~') {
                // Named as written.
                return Err(BindError::UnknownFolder(written.to_owned()));
            }
            // An empty entry is the folder it runs in for `PYTHONPATH` only.
            if entry.is_empty() && own != "PYTHONPATH" {
                continue;
            }
            // A glob (`PATH=$(echo .v*/bin):$PATH`): the folders it matches
            // too (R34-5: only the literal `.v*` was bound).
            if entry.contains(['*', '?', '[']) {
                folders.extend(super::globbing::glob_folders(cwd, &entry));
            }
            folders.push(super::normalize(&cwd.join(entry)));
        }
        Ok(folders)
    }
}

/// Whether `file` is shell code a hook may run or source: a shell ending
/// or one of settings (`.sh`, `.env`, `.cfg`, `.hook`), a dotfile (`.env`,
/// `.env.local`), a `#!` line naming a shell, no ending and no `#!` line,
/// and the manifests a runner reads commands from (`package.json`
/// scripts, a makefile: R26-8).
pub(super) fn is_shell(file: &Path) -> bool {
    const ENDINGS: [&str; 13] = [
        "sh", "bash", "zsh", "ksh", "env", "cfg", "conf", "rc", "inc", "local", "command", "hook",
        "mk",
    ];
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let ending = file.extension().and_then(|e| e.to_str());
    let manifest = matches!(
        name,
        "package.json" | "Makefile" | "makefile" | "GNUmakefile"
    );
    if manifest || name.starts_with('.') || ending.is_some_and(|e| ENDINGS.contains(&e)) {
        return true;
    }
    match peek::hash_bang(file) {
        Some(line) => line.contains("sh"),
        None => ending.is_none(),
    }
}

#[cfg(test)]
mod tests;
