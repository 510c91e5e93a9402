//! The project folders a hook's shell text may copy to where its Python or
//! Perl looks for modules outside the project (R26-10): a folder it names
//! (`cp -r src /tmp/x`), the folder a glob lists (`cp lib/* /tmp/x`:
//! R28-10), and every folder of the folder it runs in when it copies that
//! folder itself or one holding it: a glob there (`cp */helper.py`:
//! R28b-9), `.`, `./`, `"$PWD"`, `"$(pwd)"`, `"$CLAUDE_PROJECT_DIR"`, `~+`,
//! `..` above it, `tar cf - .`, `rsync -a . …`, `zip -r x.zip .` (R28c-4).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::physical::Physical;
use super::run_folder::code_words;
use super::{BindError, Spoken};

/// The most folders bound as what a copy may take; past it the hook cannot
/// be approved (none of them may be missed).
const MAX_COPIED: usize = 256;

/// What a project file or folder the hook's text may copy where it runs
/// code from is named for (R29-2).
const RUN_COPY_KEY: &str = "code that may be copied where the hook runs code from";

/// [`RUN_COPY_KEY`] in a git checkout: each name, the content of each
/// tracked code file, each untracked entry by what it is (R30-18).
const RUN_COPY_TRACKED_KEY: &str = "code that may be copied where the hook runs code from, each name and the content of each tracked code file, each untracked entry by what it is";

/// Folders of the system a hook's text names a path in without having
/// copied anything there (`/usr/bin` and `/usr/bin/python3`).
const SYSTEM: [&str; 12] = [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/nix",
    "/snap",
    "/dev/null",
];

/// What one word of the text may copy.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// A project folder, bound whole.
    Named(PathBuf),
    /// The folder it runs in, the project or a folder of the project
    /// holding the folder it runs in: each folder there, bound whole.
    Listed(PathBuf),
}

impl Spoken {
    /// The project folders the text names (`cp -r src /tmp/x`), and each
    /// folder of the folder it runs in when a word names it or one holding
    /// it (`cp -r . /tmp/x`, `cp ~+/lib/* …`, `tar cf - .`), from the
    /// folder it runs in and each it `cd`s into (`cd .. && cp -r project
    /// …`), when one of `settings` names a folder outside the project: what
    /// runs there may be copied from them when the hook runs (R26-10,
    /// R28c-4). Bound whole.
    pub(in crate::binding) fn copied_from(
        &self,
        settings: &[&str],
        cwd: &Path,
        project: &Path,
    ) -> Result<Vec<PathBuf>, BindError> {
        let mut outside = false;
        let mut physical = Physical::of(project);
        for name in settings {
            for (value, in_file) in self.assigned(name) {
                let folders = self.folder(value, name, cwd, project, in_file)?;
                outside |= folders.iter().any(|folder| physical.outside(folder));
            }
        }
        if !outside {
            return Ok(Vec::new());
        }
        self.copied(cwd, project, false)
    }

    /// The project folders (and, for the folder it runs in, its files) the
    /// text may copy, as [`Spoken::copied_from`] reads them, when it also
    /// names a path inside a folder outside the project it names
    /// (`cp -r . /tmp/x; python3 /tmp/x/check.py`, `cp -r tools "$D"; bash
    /// "$D/step.sh"`): what runs there may be a copy of them (R29-2).
    pub(in crate::binding) fn copied_and_run(
        &self,
        cwd: &Path,
        project: &Path,
    ) -> Result<Vec<PathBuf>, BindError> {
        if !self.uses_a_folder_outside(cwd, project) {
            return Ok(Vec::new());
        }
        self.copied(cwd, project, true)
    }

    /// Binds in `mentioned` each of [`Spoken::copied_and_run`]: in a git
    /// checkout as a folder an environment leads to is bound (each name,
    /// tracked code by content, tracked documents by name, the rest by
    /// what it is: R30-18, a README edit asks nothing), elsewhere whole.
    pub(in crate::binding) fn bind_run_copies(
        &self,
        cwd: &Path,
        project: &Path,
        mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
    ) -> Result<(), BindError> {
        use crate::binding::git_index::{self, Checkout};
        let copied = self.copied_and_run(cwd, project)?;
        let listed = match copied.is_empty() {
            true => None,
            false => match git_index::checkout(project) {
                Checkout::Tracks(_) => git_index::paths_under(project, project),
                Checkout::Outside | Checkout::Unreadable => None,
            },
        };
        for path in copied {
            let (key, digest) = match &listed {
                Some(listed) => (
                    RUN_COPY_TRACKED_KEY,
                    crate::binding::led_to::digest_in_checkout(&path, project, listed)?,
                ),
                None => (
                    RUN_COPY_KEY,
                    crate::binding::tree_sha256(std::slice::from_ref(&path))?,
                ),
            };
            mentioned.insert(path.join(format!("<{key}>")), digest);
        }
        Ok(())
    }

    /// Whether one word names a path inside the folder another names,
    /// outside the project and holding no part of it, not a folder of the
    /// system's (`/tmp/x` and `/tmp/x/check.py`, `"$D"` and `"$D/x.sh"`).
    fn uses_a_folder_outside(&self, cwd: &Path, project: &Path) -> bool {
        let trimmed = |word: &str| word.trim_end_matches("/.").trim_end_matches('/').to_owned();
        let mut words: Vec<String> = self.tokens.iter().map(|(word, _)| trimmed(word)).collect();
        let parts = self.tokens.iter().flat_map(|(word, _)| code_words(word));
        words.extend(parts.map(trimmed).collect::<Vec<_>>());
        // `${TMPDIR:-/tmp}/d/g.sh`: its default too (red team round 51, k03).
        static DEFAULTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^}]*)\}(.*)$")
                .expect("valid regex")
        });
        let defaults: Vec<String> = (words.iter())
            .filter_map(|word| DEFAULTED.captures(word))
            .map(|found| trimmed(&format!("{}{}", &found[1], &found[2])))
            .collect();
        words.extend(defaults);
        words.sort();
        words.dedup();
        let bases = [cwd.to_path_buf()];
        let mut physical = Physical::of(project);
        let folders = words.iter().filter(|word| {
            let outside =
                word.starts_with(['/', '$', '~']) && !word.starts_with(&*project.to_string_lossy());
            let system = SYSTEM
                .iter()
                .any(|top| *word == top || word.starts_with(&format!("{top}/")));
            let named_outside = outside
                && !system
                && word.len() > 1
                && self.sources(word, None, &bases, project).is_empty();
            // A relative path leading out of the project: by `..`, or
            // through a link of the project to a folder outside it (`out
            // -> /tmp/x`: R30-11), as the kernel takes it.
            named_outside || physical.relative_outside(cwd, word)
        });
        let entered = self.entered();
        // A copy's or an archive's target named once, in no folder the
        // text enters: a backup it never runs (R52-5).
        let write_only = |word: &String| {
            self.write_targets.contains(word)
                && !entered
                    .iter()
                    .any(|(_, target)| word.starts_with(&format!("{}/", trimmed(target))))
        };
        for folder in folders {
            let inside = format!("{folder}/");
            // A glob that starts the word (`*/.env.*` in a `case`) is
            // relative: never inside an outside folder.
            let globbed =
                |word: &String| glob_at(word).is_some_and(|at| at > 0) && glob_inside(word, folder);
            if words
                .iter()
                .any(|word| (word.starts_with(&inside) && !write_only(word)) || globbed(word))
            {
                return true;
            }
            // Entered (`cd /tmp/x && make`, `make -C /tmp/x`, `npm --prefix
            // /tmp/x run t`) and named elsewhere (the copy): R30-16.
            let other = |at: usize| entered.iter().all(|(entered, _)| *entered != at);
            let mut named = self.tokens.iter().enumerate();
            let named = named.any(|(at, (word, _))| trimmed(word) == *folder && other(at));
            if named && entered.iter().any(|(_, target)| trimmed(target) == *folder) {
                return true;
            }
        }
        false
    }

    /// The project folders the text may copy (see [`Spoken::copied_from`]),
    /// with the files of the folder it runs in when `files`.
    fn copied(&self, cwd: &Path, project: &Path, files: bool) -> Result<Vec<PathBuf>, BindError> {
        let mut bases = vec![cwd.to_path_buf()];
        bases.extend(self.cd_targets(cwd, project).0);
        let mut found: Vec<PathBuf> = Vec::new();
        let mut add = |folder: PathBuf| {
            if found.contains(&folder) {
                return Ok(());
            }
            if found.len() >= MAX_COPIED {
                return Err(BindError::ReadingTooLarge(folder));
            }
            found.push(folder);
            Ok(())
        };
        // A path with a blank, as the words of the text split it.
        let spaced: Vec<(String, String)> = [cwd, project]
            .iter()
            .map(|path| path.display().to_string())
            .map(|text| (text.split_whitespace().collect::<Vec<_>>().join(" "), text))
            .filter(|(spaced, _)| spaced.contains(' '))
            .collect();
        let mut listed: Vec<PathBuf> = Vec::new();
        let mut physical = Physical::of(project);
        // Words repeat: each is read once per file.
        let mut read: HashMap<(&str, Option<&Path>), Vec<Source>> = HashMap::new();
        for (at, (token, in_file)) in self.tokens.iter().enumerate() {
            let in_file = in_file.as_deref();
            let mut sources = read
                .entry((token.as_str(), in_file))
                .or_insert_with(|| self.sources(token, in_file, &bases, project))
                .clone();
            if let Some(word) = self.blank_split(at, &spaced) {
                sources.extend(self.sources(&word, in_file, &bases, project));
            }
            // Code in a word (`python3 -c "shutil.copytree('.', …)"`: R29-3).
            for part in code_words(token) {
                let found = read
                    .entry((part, in_file))
                    .or_insert_with(|| self.sources(part, in_file, &bases, project));
                sources.extend(found.iter().cloned());
            }
            for source in sources {
                match source {
                    Source::Named(folder) => add(folder)?,
                    Source::Listed(folder) if !listed.contains(&folder) => {
                        let entries = std::fs::read_dir(&folder).into_iter().flatten().flatten();
                        for path in entries.map(|entry| entry.path()) {
                            let file = files && path.is_file();
                            // A link out of the project (`out -> /tmp/x`,
                            // where the copy may go) holds none of it.
                            let mut out = || physical.outside(&path);
                            if (path.is_dir() || file) && !path.ends_with(".git") && !out() {
                                add(path)?;
                            }
                        }
                        listed.push(folder);
                    }
                    Source::Listed(_) => {}
                }
            }
        }
        Ok(found)
    }

    /// The word at `at` joined with those after it when together they
    /// spell one of `paths` (each as split at blanks and joined by one,
    /// then as written) that holds a blank (`"$PWD"` in `/home/u/my
    /// project` is two words here), written as that path.
    fn blank_split(&self, at: usize, paths: &[(String, String)]) -> Option<String> {
        for (spaced, text) in paths {
            let last = at + spaced.matches(' ').count();
            let Some(words) = self.tokens.get(at..=last) else {
                continue;
            };
            let words = words.iter().map(|(word, _)| word.as_str());
            let joined = words.collect::<Vec<_>>().join(" ");
            let rest = joined.strip_prefix(spaced.as_str());
            if let Some(rest) = rest.filter(|rest| rest.is_empty() || rest.starts_with('/')) {
                return Some(format!("{text}{rest}"));
            }
        }
        None
    }

    /// What the word `token` (of a file in `in_file`) may copy, read from
    /// each of `bases` (the folder it runs in first): a glob (`*`, `?`,
    /// `[`, a brace list) the folder it lists; the folder it runs in, the
    /// project or a folder holding either (`.`, `./`, `$PWD`, `..`, `~+`,
    /// `~`) each folder there; another project folder that folder.
    /// Options, assignments and a folder only the running shell knows copy
    /// nothing known here.
    fn sources(
        &self,
        token: &str,
        in_file: Option<&Path>,
        bases: &[PathBuf],
        project: &Path,
    ) -> Vec<Source> {
        let mut found = Vec::new();
        let Some(cwd) = bases.first() else {
            return found;
        };
        if token.starts_with('-') || token.contains(['`', '=']) {
            return found;
        }
        // `\.` is `.` to the shell.
        let mut token = token.replace('\\', "");
        let in_project = cwd.starts_with(project);
        // `~+` is the folder it runs in and `~-` the one it was in: read as
        // `.`; quoted, `~+` is a folder of the one it runs in.
        let tilde = ["~+", "~-"]
            .iter()
            .any(|t| token == *t || token.starts_with(&format!("{t}/")));
        if tilde {
            token.replace_range(..2, ".");
            if in_project {
                found.push(Source::Listed(cwd.clone()));
            }
        }
        let glob = glob_at(&token);
        let written = match glob {
            // `*/x` lists the folder it runs in, `/*` the root.
            Some(at) => match token[..at].rsplit_once('/') {
                Some(("", _)) => "/",
                Some((folder, _)) => folder,
                None => ".",
            },
            None => token.as_str(),
        };
        let expands = written.contains('$') || written.starts_with('~');
        for base in bases {
            let folder = if expands {
                let folder = self.folder(written, "", base, project, in_file).ok();
                folder.and_then(|folders| folders.into_iter().next())
            } else {
                Some(crate::binding::normalize(&base.join(written)))
            };
            let Some(folder) = folder else {
                continue;
            };
            let within = folder.starts_with(project);
            let holds_cwd = within && in_project && cwd.starts_with(&folder);
            if project.starts_with(&folder) || holds_cwd {
                let listed = if within {
                    folder
                } else {
                    project.to_path_buf()
                };
                found.push(Source::Listed(listed));
            } else if within && folder.is_dir() {
                found.push(Source::Named(folder));
            }
        }
        found
    }
}

/// Whether the glob `word` may name a path inside `folder`, component by
/// component as the shell expands it (`/tmp/x*/check.py`, `/tmp/x?/a` and
/// `/tmp/*/a` in `/tmp/x`: R30-20); `**` may match any folders below.
fn glob_inside(word: &str, folder: &str) -> bool {
    let mut parts = word.split('/');
    for name in folder.split('/') {
        match parts.next() {
            Some(part) if part.contains("**") => return true,
            Some(part) if glob_matches(part.as_bytes(), name.as_bytes()) => {}
            _ => return false,
        }
    }
    parts.next().is_some()
}

/// Whether the glob component `pattern` (`*`, `?`, a `[…]` class, a brace
/// list) matches `name`; a class or brace list matches any one character
/// or any text.
fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|at| glob_matches(rest, &name[at..])),
        Some((b'{', rest)) if rest.contains(&b'}') => {
            let after = rest
                .iter()
                .position(|c| *c == b'}')
                .map_or(rest, |at| &rest[at + 1..]);
            (0..=name.len()).any(|at| glob_matches(after, &name[at..]))
        }
        Some((b'?', rest)) => !name.is_empty() && glob_matches(rest, &name[1..]),
        Some((b'[', rest)) => {
            // `[]a]` holds `]`; an unclosed `[` is itself.
            let close = rest
                .iter()
                .skip(1)
                .position(|c| *c == b']')
                .map(|at| at + 1);
            match close {
                Some(at) => !name.is_empty() && glob_matches(&rest[at + 1..], &name[1..]),
                None => name.first() == Some(&b'[') && glob_matches(rest, &name[1..]),
            }
        }
        Some((b'\\', [c, rest @ ..])) | Some((c, rest)) => {
            name.first() == Some(c) && glob_matches(rest, &name[1..])
        }
    }
}

/// Where the first glob character of `word` is (`*`, `?`, `[`, `{` of a
/// brace list), not counting those inside a `${…}` or `$(…)`.
fn glob_at(word: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut last = None;
    for (at, c) in word.char_indices() {
        let after_dollar = last == Some('$');
        last = Some(c);
        match c {
            '{' | '(' if after_dollar => depth += 1,
            '{' | '(' if depth > 0 => depth += 1,
            '}' | ')' if depth > 0 => depth -= 1,
            '*' | '?' | '[' if depth == 0 => return Some(at),
            '{' if depth == 0 && brace_list(&word[at..]) => return Some(at),
            _ => {}
        }
    }
    None
}

/// Whether `word`, from its `{`, is a brace list the shell expands: closed,
/// holding a `,` or `..` (`{a,b}`, `{1..3}`; not `{}` nor `{"a": 1`).
fn brace_list(word: &str) -> bool {
    let mut depth = 0usize;
    for (at, c) in word.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return word[..at].contains(',') || word[..at].contains(".."),
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_character_inside_an_expansion_is_no_glob() {
        assert_eq!(glob_at("lib/*.py"), Some(4));
        assert_eq!(glob_at("{.,}"), Some(0));
        assert_eq!(glob_at("a/{1..3}/b"), Some(2));
        assert_eq!(glob_at("{}"), None);
        assert_eq!(glob_at("{name:x,version:1"), None);
        assert_eq!(glob_at("${HOME}/x"), None);
        assert_eq!(glob_at("${A[0]}/$(ls x*)/y?"), Some(18));
    }

    #[test]
    fn a_glob_names_a_path_inside_the_folders_it_may_match() {
        for word in [
            "/tmp/x*/a.py",
            "/tmp/?/a",
            "/tmp/*/a",
            "/t*/x/a",
            "/tmp/[xy]/a",
        ] {
            assert!(glob_inside(word, "/tmp/x"), "{word}");
        }
        assert!(glob_inside("/tmp/x?/a", "/tmp/x1") && glob_inside("/**/a", "/tmp/x"));
        assert!(glob_inside("/tmp/{x,y}/a", "/tmp/x") && glob_inside("/tmp/[!a]/a", "/tmp/x"));
        for word in ["/tmp/y*/a", "/tmp/x?", "/tmp/x?/a", "/tmp/x*"] {
            assert!(!glob_inside(word, "/tmp/xy/z"), "{word}");
        }
        assert!(!glob_inside("/tmp/x*", "/tmp/x") && !glob_inside("/tmp/?/a", "/tmp/xy"));
    }
}
