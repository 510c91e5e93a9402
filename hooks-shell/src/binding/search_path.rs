//! Where a project hook's Python or Perl looks for modules before the
//! installed ones, as its command and the shell files it runs say: the
//! folders `PYTHONPATH=`, `PERL5LIB=`, `-I` and `cd` name, written with the
//! expansions a hook's shell resolves the same way every run (`$PWD`,
//! `$CLAUDE_PROJECT_DIR`, `~`, `$HOME`, the variable's own inherited value:
//! R24-1, R25a-6), also inside a wrapper or a sourced `.env` (R25a-3); and
//! the folders code adds by a literal (R24-3, R25a-4, R25a-5). A folder
//! written with any other expansion cannot be known before the hook runs,
//! so such a hook cannot be approved ([`BindError::UnknownFolder`]).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{BindError, peek};

/// The most shell files read for settings.
const MAX_FILES: usize = 16;

/// The hook's command and the shell files it runs or sources, split into
/// tokens (quotes gone), each with the folder `$0` names there.
pub(super) struct Spoken {
    /// `(token, folder of the file it is in, None for the command)`.
    pub tokens: Vec<(String, Option<PathBuf>)>,
}

impl Spoken {
    /// The tokens of `words` and of the shell files among `files`.
    pub(super) fn new(words: &[String], files: &[&PathBuf], cwd: &Path, project: &Path) -> Self {
        let mut spoken = Self { tokens: Vec::new() };
        spoken.add(&with_project(words, project, cwd), None, project);
        for file in files.iter().filter(|file| is_shell(file)).take(MAX_FILES) {
            let Some(text) = peek::small_text(file) else {
                continue;
            };
            let lines: Vec<String> = text
                .lines()
                .filter(|line| !line.trim_start().starts_with('#'))
                .map(|line| line.split(" #").next().unwrap_or_default().to_owned())
                .collect();
            spoken.add(&with_project(&lines, project, cwd), file.parent(), project);
        }
        spoken
    }

    /// Adds the tokens of `lines` (of a file in `folder`, `None`: the
    /// command): the folder of `$0` and the project's top written as they
    /// are, then each variable the lines set before (`DIR=…; cd $DIR`).
    fn add(&mut self, lines: &[String], folder: Option<&Path>, project: &Path) {
        let mut set: Vec<(Regex, String)> = Vec::new();
        for line in lines {
            let line = fixed(line, folder, project);
            for mut token in split(&line) {
                for (name, value) in set.iter().rev() {
                    token = name
                        .replace_all(&token, regex::NoExpand(value))
                        .into_owned();
                }
                if let Some((name, value)) = token.split_once('=')
                    && !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    let used = Regex::new(&format!(r"\$\{{{name}\}}|\${name}\b"));
                    set.push((used.expect("valid regex"), value.to_owned()));
                }
                self.tokens.push((token, folder.map(Path::to_path_buf)));
            }
        }
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

    /// The folders `cd`, `pushd`, `env -C` move into.
    pub(super) fn cd_targets(&self, cwd: &Path, project: &Path) -> Result<Vec<PathBuf>, BindError> {
        let mut folders = Vec::new();
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
            let Some(target) = target.filter(|t| !t.starts_with('-') && !t.is_empty()) else {
                continue;
            };
            folders.extend(folder(target, "", cwd, project, in_file.as_deref())?);
        }
        Ok(folders)
    }
}

/// `word` split at blanks and shell operators, a command substitution
/// (`$(dirname $X)/lib`) kept whole.
fn split(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut part, mut depth) = (String::new(), 0usize);
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek() == Some(&'(') {
            depth += 1;
            part.push(c);
            part.extend(chars.next());
            continue;
        }
        if depth > 0 {
            depth -= usize::from(c == ')');
            depth += usize::from(c == '(');
            part.push(c);
        } else if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')') {
            parts.extend((!part.is_empty()).then(|| std::mem::take(&mut part)));
        } else {
            part.push(c);
        }
    }
    parts.extend((!part.is_empty()).then_some(part));
    parts
}

/// Whether `file` is shell code a hook may run or source: `.sh`, a dotfile
/// (`.env`, `.envrc`), no ending and no `#!` line naming another language.
fn is_shell(file: &Path) -> bool {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let ending = file.extension().and_then(|e| e.to_str());
    match ending {
        Some("sh" | "bash" | "zsh" | "ksh" | "env") => true,
        _ if name.starts_with('.') && !name[1..].contains('.') => true,
        None => peek::hash_bang(file).is_none_or(|line| line.contains("sh")),
        _ => false,
    }
}

/// `text` with the folder of `$0` (`$(dirname "$0")`, `$(cd "$(dirname
/// "${BASH_SOURCE[0]}")" && pwd)`) written as `in_file`, and `$(git
/// rev-parse --show-toplevel)` and `$HOME` as they are.
fn fixed(text: &str, in_file: Option<&Path>, project: &Path) -> String {
    static DIRNAME: LazyLock<Regex> = LazyLock::new(|| {
        let of_script = r#"\$\(\s*dirname\s+"?\$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)"?\s*\)"#;
        Regex::new(&format!(
            r#"\$\(\s*cd\s+"?{of_script}"?\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)|{of_script}"#
        ))
        .expect("valid regex")
    });
    static TOP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)").expect("valid regex")
    });
    static HOME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$\{HOME\}|\$HOME\b").expect("valid regex"));
    let mut text = text.to_owned();
    if let Some(dir) = in_file {
        let dir = dir.display().to_string();
        text = DIRNAME
            .replace_all(&text, regex::NoExpand(&dir))
            .into_owned();
    }
    let top = project.display().to_string();
    text = TOP.replace_all(&text, regex::NoExpand(&top)).into_owned();
    if let Some(home) = hermes_hooks_core::home::user_home() {
        let home = home.display().to_string();
        text = HOME.replace_all(&text, regex::NoExpand(&home)).into_owned();
    }
    text
}

/// The folders the list `value` (of the variable `own`, `:`-separated;
/// `""` for one folder) names, from `cwd`; `in_file`: the folder of the
/// shell file it is written in (`$(dirname "$0")`).
pub(super) fn folder(
    value: &str,
    own: &str,
    cwd: &Path,
    project: &Path,
    in_file: Option<&Path>,
) -> Result<Vec<PathBuf>, BindError> {
    let mut value = fixed(value, in_file, project);
    if !own.is_empty() {
        // The inherited value is the host's, not the project's.
        let inherited = Regex::new(&format!(r"\$\{{{own}(?:[:]?[-+=?][^}}]*)?\}}|\${own}\b"))
            .expect("valid regex");
        value = inherited.replace_all(&value, "").into_owned();
    }
    let entries: Vec<&str> = if own.is_empty() {
        vec![value.as_str()]
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
            return Err(BindError::UnknownFolder(entry));
        }
        folders.push(super::normalize(&cwd.join(entry)));
    }
    Ok(folders)
}

/// `words` with the runner's project variables (`$CLAUDE_PROJECT_DIR`,
/// `${CURSOR_PROJECT_DIR:-.}`…) written as `project` and the folder it runs
/// in (`$PWD`, `$(pwd)`) as `cwd`, quotes gone (R23-2, R24-1).
pub(super) fn with_project(words: &[String], project: &Path, cwd: &Path) -> Vec<String> {
    static PROJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\$\{(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR(?:[:]?[-=+?][^}]*)?\}|\$(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR\b",
        )
        .expect("valid regex")
    });
    static HERE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\{PWD(?:[:]?[-=+?][^}]*)?\}|\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`")
            .expect("valid regex")
    });
    let (project, cwd) = (project.display().to_string(), cwd.display().to_string());
    words
        .iter()
        .map(|word| {
            let word = word.replace(['"', '\''], "");
            let word = PROJECT.replace_all(&word, regex::NoExpand(&project));
            HERE.replace_all(&word, regex::NoExpand(&cwd)).into_owned()
        })
        .collect()
}

/// The quoted strings of `text` that may name a folder (`"lib"`,
/// `'./vendor'`, Perl's `q(lib)`, `qw(. inc)`), when it changes a module
/// search path (`sys.path`, `addsitedir`, `os.chdir`, `@INC`, `use lib`,
/// `lib->import`): every form of adding one cannot be listed (R25a-5).
pub(super) fn literal_folders(text: &str) -> Vec<String> {
    static CHANGES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"sys\.path|\bimport\s+path\b|addsitedir|os\.chdir|@INC|\buse\s+lib\b|\blib\s*(?:->|=>)")
            .expect("valid regex")
    });
    if !CHANGES.is_match(text) {
        return Vec::new();
    }
    quoted_words(text)
}

/// The quoted words of `text` that may name a path (`"lib"`, `'./vendor'`,
/// Perl's `q(lib)`, `qw(. inc)`).
pub(super) fn quoted_words(text: &str) -> Vec<String> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\\?"([^"\\\n]{1,200})\\?"|'([^'\n]{1,200})'|\bq[qw]?\s*[(\[{<]([^)\]}>\n]{1,200})[)\]}>]"#)
            .expect("valid regex")
    });
    let mut found: Vec<String> = Vec::new();
    for quoted in QUOTED.captures_iter(text) {
        let inner = quoted.get(1).or(quoted.get(2)).or(quoted.get(3));
        for word in inner
            .map(|m| m.as_str())
            .unwrap_or_default()
            .split_whitespace()
        {
            let path_like = word
                .chars()
                .all(|c| c.is_alphanumeric() || "._/-+@$:".contains(c))
                && !word.contains("://");
            if path_like && !found.iter().any(|known| known == word) {
                found.push(word.to_owned());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inherited_value_and_home_resolve_and_other_expansions_refuse() {
        let (cwd, project) = (Path::new("/p"), Path::new("/p"));
        let idiom = "lib${PYTHONPATH:+:$PYTHONPATH}";
        let folders = folder(idiom, "PYTHONPATH", cwd, project, None).expect("known");
        assert_eq!(folders, [PathBuf::from("/p/lib")]);
        let top = folder(
            "$(git rev-parse --show-toplevel)/lib",
            "",
            cwd,
            project,
            None,
        );
        assert_eq!(top.expect("known"), [PathBuf::from("/p/lib")]);
        let from_file = folder(
            "$(dirname \"$0\")/lib",
            "",
            cwd,
            project,
            Some(Path::new("/p/t")),
        );
        assert_eq!(from_file.expect("known"), [PathBuf::from("/p/t/lib")]);
        let unknown = folder("$(dirname $X)/lib", "PERL5LIB", cwd, project, None);
        assert_eq!(
            split("cd $(dirname $X)/a && b;c"),
            ["cd", "$(dirname $X)/a", "b", "c"]
        );
        assert!(
            matches!(unknown, Err(BindError::UnknownFolder(_))),
            "{unknown:?}"
        );
    }

    #[test]
    fn quoted_folders_are_read_where_code_changes_its_search_path() {
        let python = "import os, sys\nsys.path[:0] = [os.path.abspath(\"lib\")]\nprint('{}')\n";
        assert_eq!(literal_folders(python), ["lib"]);
        assert!(literal_folders("print('lib')\n").is_empty());
        let text = "import sys, site\nsys.path.insert(0, \"lib\")\nsite.addsitedir(\"vendor\")\n";
        assert_eq!(literal_folders(text), ["lib", "vendor"]);
        // `-c` code as the shell left it, and a folder it moves into.
        let code = r#"import os; os.chdir(\"sub\"); os.chdir('b'); import subprocess"#;
        assert_eq!(literal_folders(code), ["sub", "b"]);
        let perl = "use lib q(lib);\nBEGIN { push @INC, qw(. inc) }\nuse lib \"$FindBin::Bin/../x\";\n\
                    use if 1, lib => \"a\";\nBEGIN { splice @INC, 0, 0, 'b'; }\n";
        let found = ["lib", ".", "inc", "$FindBin::Bin/../x", "a", "b"];
        assert_eq!(literal_folders(perl), found);
    }
}
