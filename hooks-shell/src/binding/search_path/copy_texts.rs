//! The texts the copy rule reads together (R30-5): the hook's command, each
//! shell file and makefile it reaches, and the words of each Python, Node,
//! Perl or Ruby file it reaches, so that a copy of the folder it runs in
//! made in one file (`cp -r . /tmp/x` in a sourced helper,
//! `shutil.copytree('.', '/tmp/x')` in a Python file, a makefile's recipe)
//! and a use of the copy in another (`python3 /tmp/x/check.py`) count
//! together; and the folders a text moves into or points a program at
//! (`cd /tmp/x && make`, `npm --prefix /tmp/x run t`: R30-16).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::run_folder::code_words;
use super::{Spoken, is_shell};
use crate::binding::peek;

/// Whether `file` lies in a folder packages are installed in, or the
/// system's.
fn installed(file: &Path) -> bool {
    let folders = ["site-packages", "dist-packages", "node_modules"];
    file.starts_with("/usr") || file.iter().any(|part| folders.iter().any(|f| part == *f))
}

/// The most names a code file's literal paths are read through.
const MAX_NAMES: usize = 32;

/// The most of a code file read (past a start-up file's MiB: a copy may be
/// made at its end).
const MAX_CODE: u64 = 16 << 20;

impl Spoken {
    /// The tokens of the command `words`, of the shell files among `files`
    /// and among the project's own files of `reached` (those it reaches
    /// through its tool folder too: not an environment's), as
    /// [`Spoken::new`] reads them, and the words of each other code file of
    /// the project's among them, a name a Python file sets to a literal
    /// path read as that path where it is joined (`X + "/check.py"`,
    /// `f"{X}/check.py"`, `os.path.join(X, "check.py")`, `Path(X) /
    /// "check.py"`).
    pub(in crate::binding) fn for_copies(
        words: &[String],
        files: &[&PathBuf],
        reached: &[&PathBuf],
        cwd: &Path,
        project: &Path,
    ) -> Self {
        let mut unique: Vec<&PathBuf> = files.to_vec();
        for file in reached {
            if !unique.contains(file) && own(file, project) {
                unique.push(file);
            }
        }
        let mut spoken = Spoken::new(words, &unique, cwd, project);
        let shell_texts: Vec<String> = unique
            .iter()
            .filter(|file| is_shell(file))
            .filter_map(|file| peek::small_text(file))
            .collect();
        let texts: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .chain(shell_texts.iter().map(String::as_str))
            .collect();
        spoken.write_targets = super::write_targets::write_targets(&texts);
        // The hook's own scripts too, the user's (`shutil.copytree('tools',
        // '/tmp/d')` in `~/.claude/hooks/x.py`: round 50, y46).
        let code = unique
            .iter()
            .filter(|file| own(file, project) || (files.contains(file) && !installed(file)))
            .filter(|file| is_code(file));
        for file in code {
            let Some(text) = code_text(file) else {
                continue;
            };
            let folder = file.parent().map(Path::to_path_buf);
            for line in with_literal_paths(&text).lines() {
                for part in code_words(line) {
                    spoken.tokens.push((part.to_owned(), folder.clone()));
                }
            }
        }
        spoken
    }

    /// The tokens naming a folder the text moves into or points a program
    /// at, each with that folder as written: the one after `cd`, `pushd`,
    /// `-C`, `--prefix`, `--directory`, `--chdir`, `--cwd`, `--dir`, or
    /// one joining it to such an option (`--prefix=/tmp/x`, `-C/tmp/x`).
    pub(super) fn entered(&self) -> Vec<(usize, &str)> {
        const MOVES: [&str; 8] = [
            "cd",
            "pushd",
            "-C",
            "--prefix",
            "--directory",
            "--chdir",
            "--cwd",
            "--dir",
        ];
        let mut entered = Vec::new();
        for (at, (token, _)) in self.tokens.iter().enumerate() {
            if MOVES.contains(&token.as_str()) {
                let next = self.tokens.get(at + 1);
                entered.extend(next.map(|(next, _)| (at + 1, next.as_str())));
                continue;
            }
            let joined = MOVES[2..].iter().find_map(|option| {
                let rest = token.strip_prefix(option)?;
                let rest = rest.strip_prefix('=').unwrap_or(rest);
                (*option == "-C" || token.as_bytes()[option.len()] == b'=').then_some(rest)
            });
            entered.extend(
                joined
                    .filter(|rest| rest.starts_with(['/', '$', '~']))
                    .map(|rest| (at, rest)),
            );
        }
        entered
    }
}

/// Whether `file` is the project's own: in it, not in an environment (a
/// `site-packages`, `dist-packages` or `node_modules` folder, or one below
/// a folder holding `pyvenv.cfg` or `conda-meta`).
fn own(file: &Path, project: &Path) -> bool {
    let Ok(relative) = file.strip_prefix(project) else {
        return false;
    };
    if installed(relative) {
        return false;
    }
    let mut folder = project.to_path_buf();
    let parents = relative.parent().into_iter().flat_map(Path::iter);
    for part in parents {
        folder.push(part);
        if folder.join("pyvenv.cfg").exists() || folder.join("conda-meta").exists() {
            return false;
        }
    }
    true
}

/// The text of the regular file at `file`, its first [`MAX_CODE`] bytes.
fn code_text(file: &Path) -> Option<String> {
    use std::io::Read;
    let file = hermes_hooks_core::regular_file::open_regular(file).ok()?;
    let mut text = Vec::new();
    file.take(MAX_CODE).read_to_end(&mut text).ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// Whether `file` is code other than shell the copy rule reads words of:
/// a Python, Node, Perl or Ruby ending or `#!` line.
fn is_code(file: &Path) -> bool {
    const ENDINGS: [&str; 7] = ["py", "pyw", "js", "mjs", "cjs", "pl", "rb"];
    let ending = file.extension().and_then(|e| e.to_str());
    if ending.is_some_and(|e| ENDINGS.contains(&e)) {
        return true;
    }
    if is_shell(file) {
        return false;
    }
    peek::hash_bang(file).is_some_and(|line| {
        ["python", "node", "perl", "ruby"]
            .iter()
            .any(|name| line.contains(name))
    })
}

/// `text` with each name set to a literal absolute path (`X = "/tmp/x"`)
/// written as that path where it is joined to a literal after it is set.
fn with_literal_paths(text: &str) -> String {
    static SET: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*[rRfFbB]?(['"])([/~][^'"]*)['"]\s*$"#)
            .expect("valid regex")
    });
    let mut out = text.to_owned();
    let mut names: Vec<(String, String)> = Vec::new();
    for found in SET.captures_iter(text) {
        let pair = (found[1].to_owned(), found[3].to_owned());
        if !names.contains(&pair) && names.len() < MAX_NAMES {
            names.push(pair);
        }
    }
    for (name, value) in names {
        let value = value.trim_end_matches('/');
        let joined = format!(
            r#"\b{name}\s*\+\s*(['"])|(?:join\(\s*|Path\(\s*){name}\s*(?:,|\)\s*/)\s*(['"])|\{{{name}\}}"#
        );
        let Ok(joined) = Regex::new(&joined) else {
            continue;
        };
        out = joined
            .replace_all(&out, |found: &regex::Captures<'_>| {
                match found.get(1).or(found.get(2)) {
                    // `X + "/a"` is `"/tmp/x/a"`, `join(X, "a")` `("/tmp/x/a"`.
                    Some(quote) if found[0].starts_with(name.as_str()) => {
                        format!("{}{value}", quote.as_str())
                    }
                    Some(quote) => format!("({}{value}/", quote.as_str()),
                    None => value.to_owned(),
                }
            })
            .into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_set_to_a_path_is_read_as_that_path_where_it_is_joined() {
        let text = "import os\nX = \"/tmp/x\"\nrun(X + \"/check.py\")\nrun(f\"{X}/a.py\")\n\
                    os.path.join(X, 'lib')\nPath(X) / \"b.py\"\nXY + '/no'\n";
        let read = with_literal_paths(text);
        let words: Vec<&str> = read.lines().flat_map(code_words).collect();
        for word in [
            "/tmp/x/check.py",
            "/tmp/x/a.py",
            "/tmp/x/lib",
            "/tmp/x/b.py",
        ] {
            assert!(words.contains(&word), "{word}: {read}");
        }
        assert!(read.contains("XY + '/no'"), "{read}");
    }
}
