//! What pip builds from the project besides the folder it runs in (red
//! team round 35, R35-3, R35-4): each local project folder it is given
//! (`pip install ./pkg`, `-e pkg`, a requirements file's `./pkg` or `-e
//! ./pkg`, a direct reference `p @ file:///x/pkg`, `file:pkg#egg=p`,
//! through nested `-r` / `-c` files and those `PIP_REQUIREMENT` /
//! `PIP_CONSTRAINT` name) has its build settings
//! (`pyproject.toml`, `setup.cfg`, `setup.py`) bound, present or not, as
//! those of `.` are; they are read in turn for the build backend code they
//! name. A local archive is bound by content, and each `--find-links`
//! folder (`-f ./dist`, on the command line, in `PIP_FIND_LINKS` or in a
//! requirements file) as a tree: pip unpacks an sdist found there and runs
//! its `setup.py`, so a new archive is a change.

use std::path::{Path, PathBuf};

use super::Reached;
use crate::binding::wrappers::run_folders;

/// The build settings a local project folder's build reads.
const BUILD_SETTINGS: [&str; 3] = ["pyproject.toml", "setup.cfg", "setup.py"];

/// How deep nested requirements files are followed.
const MAX_DEPTH: usize = 8;

/// The most requirements files read for one command.
const MAX_FILES: usize = 64;

/// Endings of the archives pip installs from.
const ARCHIVES: [&str; 7] = [
    ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip", ".whl",
];

/// Options whose value names a file or folder pip reads.
const TAKE_PATHS: [&str; 8] = [
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-e",
    "--editable",
    "-f",
    "--find-links",
];

/// Options whose value is neither a project nor a file of code pip builds
/// (`--target ./out`): their value is skipped.
const OTHER_VALUES: [&str; 28] = [
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "-i",
    "--index-url",
    "--extra-index-url",
    "--cache-dir",
    "--log",
    "--log-file",
    "--report",
    "--python",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--upgrade-strategy",
    "--progress-bar",
    "--proxy",
    "--retries",
    "--timeout",
    "--exists-action",
    "--trusted-host",
    "--cert",
    "--client-cert",
    "-d",
    "--dest",
];

/// What a pip command given `args` (the words after `pip`, or after
/// `python -m pip`) and the variables `assignments` set for it, run in
/// `dir`, builds from the project: see the module documentation.
pub(super) fn local_projects(
    args: &[String],
    assignments: &[(String, String)],
    dir: &Path,
    found: &mut Reached,
) {
    let mut reading = Reading {
        cwd: dir.to_path_buf(),
        files_read: 0,
    };
    for (name, value) in assignments {
        for item in value.split_whitespace() {
            match name.as_str() {
                "PIP_FIND_LINKS" => reading.find_links(item, &[dir.to_path_buf()], found),
                // Files pip reads as `-c` / `-r` ones (R37-5).
                "PIP_CONSTRAINT" | "PIP_REQUIREMENT" => reading.requirements(item, dir, 0, found),
                _ => {}
            }
        }
    }
    reading.words(args, dir, 0, found);
}

/// One command's reading: where it runs, and how many requirements files
/// it has read.
struct Reading {
    cwd: PathBuf,
    files_read: usize,
}

impl Reading {
    /// Reads `words` (the command's, or a requirements file's in `here`,
    /// `depth` files deep).
    fn words(&mut self, words: &[String], here: &Path, depth: usize, found: &mut Reached) {
        let mut at = 0;
        while at < words.len() {
            let word = words[at].as_str();
            at += 1;
            let (option, attached) = split_option(word);
            let takes_value = TAKE_PATHS.contains(&option) || OTHER_VALUES.contains(&option);
            let value = match (attached, takes_value) {
                (Some(value), _) => Some(value.to_owned()),
                (None, true) => {
                    at += 1;
                    words.get(at - 1).cloned()
                }
                (None, false) => None,
            };
            match (option, value) {
                ("-r" | "--requirement" | "-c" | "--constraint", Some(file)) => {
                    self.requirements(&file, here, depth, found);
                }
                ("-e" | "--editable", Some(project)) => self.project(&project, here, true, found),
                ("-f" | "--find-links", Some(link)) => {
                    let mut bases = vec![here.to_path_buf()];
                    if here != self.cwd {
                        bases.push(self.cwd.clone());
                    }
                    self.find_links(&link, &bases, found);
                }
                _ if word.starts_with('-') => {}
                _ => self.project(word, here, false, found),
            }
        }
    }

    /// Binds the requirements file `name` (from `here`) and what it names.
    fn requirements(&mut self, name: &str, here: &Path, depth: usize, found: &mut Reached) {
        if is_url(name) || depth >= MAX_DEPTH {
            return;
        }
        for path in run_folders(here, &[name.to_owned()]) {
            let path = crate::binding::normalize(&path);
            if self.files_read >= MAX_FILES || found.roots.contains(&path) {
                continue;
            }
            self.files_read += 1;
            found.add(path.clone());
            let Some(text) = crate::binding::peek::small_text(&path) else {
                continue;
            };
            let folder = path.parent().unwrap_or(here).to_path_buf();
            for line in logical_lines(&text) {
                let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
                self.words(&words, &folder, depth + 1, found);
            }
        }
    }

    /// Binds what pip builds of `word` named in `here` (and, from a
    /// requirements file, from where pip runs, which local paths there are
    /// relative to): a folder's build settings, an archive's content.
    /// `editable`: given to `-e`, a folder by any name.
    fn project(&self, word: &str, here: &Path, editable: bool, found: &mut Reached) {
        // A direct reference, `p @ file:///x/pkg` (R37-5): its location.
        let word = match word.split_once('@') {
            Some((_, location)) if location.trim_start().starts_with("file:") => {
                location.trim_start()
            }
            _ => word,
        };
        let Some(path) = local_path(word) else {
            return;
        };
        let path_like = path.contains('/') || path.starts_with('.') || word.starts_with("file:");
        let mut bases = vec![self.cwd.clone()];
        if here != self.cwd {
            bases.push(here.to_path_buf());
        }
        for base in &bases {
            for place in run_folders(base, std::slice::from_ref(&path)) {
                let place = crate::binding::normalize(&place);
                if ARCHIVES.iter().any(|ending| path.ends_with(ending)) {
                    found.add(place);
                } else if path_like || (editable && place.is_dir()) {
                    for file in BUILD_SETTINGS {
                        found.add(place.join(file));
                    }
                }
            }
        }
    }

    /// Binds the local folder (or page) `link` names, from each of `bases`,
    /// as a tree.
    fn find_links(&self, link: &str, bases: &[PathBuf], found: &mut Reached) {
        let Some(path) = local_path(link) else {
            return;
        };
        for base in bases {
            for place in run_folders(base, std::slice::from_ref(&path)) {
                found.add(crate::binding::normalize(&place));
            }
        }
    }
}

/// An option word as its name and the value attached to it (`-rreq.txt`,
/// `--requirement=req.txt`).
fn split_option(word: &str) -> (&str, Option<&str>) {
    if let Some((name, value)) = word.strip_prefix("--").and_then(|_| word.split_once('=')) {
        return (name, Some(value));
    }
    let short = word.len() > 2 && word.starts_with('-') && !word.starts_with("--");
    match short && word.is_char_boundary(2) {
        true => (&word[..2], Some(&word[2..])),
        false => (word, None),
    }
}

/// Whether `word` is a URL pip fetches (not a local `file:` one).
fn is_url(word: &str) -> bool {
    word.contains("://") && !word.starts_with("file:")
}

/// The local path `word` (a requirement or link) names, without a `file:`
/// scheme, extras (`./pkg[dev]`) or a fragment (`#egg=p`); `None` for a
/// URL.
fn local_path(word: &str) -> Option<String> {
    if is_url(word) {
        return None;
    }
    let path = word
        .strip_prefix("file://")
        .or_else(|| word.strip_prefix("file:"))
        .unwrap_or(word);
    let path = path.split('#').next().unwrap_or(path);
    let path = path.split('[').next().unwrap_or(path);
    let path = path.split(';').next().unwrap_or(path);
    (!path.is_empty()).then(|| path.to_owned())
}

/// The lines of a requirements file as pip reads them: continued lines
/// (`\` at the end) joined, comments (`#` at a line's start or after a
/// blank) taken out.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = match line.find(" #").or_else(|| line.find("\t#")) {
            Some(at) => &line[..at],
            None if line.trim_start().starts_with('#') => "",
            None => line,
        };
        match line.strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    lines.push(current);
    lines
}

#[cfg(test)]
mod tests {
    use super::super::reached;

    #[test]
    fn the_local_projects_pip_builds_are_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        for folder in ["pkg", "reqs", "dist"] {
            std::fs::create_dir(root.join(folder)).expect("folder");
        }
        std::fs::write(root.join("requirements.txt"), "-r reqs/more.txt\n").expect("reqs");
        let nested = "-e ./pkg  # the project\n--find-links ../dist\np\n";
        std::fs::write(root.join("reqs/more.txt"), nested).expect("nested");
        for (name, text) in [
            ("fileurl.txt", "file:pkg#egg=p\n".to_owned()),
            ("plain.txt", "./pkg#egg=p\n".to_owned()),
            ("names.txt", "p\n".to_owned()),
            ("cons.txt", format!("p @ file://{}/pkg\n", root.display())),
        ] {
            std::fs::write(root.join(name), text).expect("requirements");
        }
        for command in [
            "pip install ./pkg",
            "pip install -e pkg",
            "pip3 install --editable=./pkg[dev]",
            "pip install -r requirements.txt",
            "python3 -m pip install --no-deps ./pkg",
            "pip install --no-deps \"p @ file://$CLAUDE_PROJECT_DIR/pkg\"",
            "pip install -r fileurl.txt",
            "PIP_REQUIREMENT=plain.txt pip install",
            "PIP_CONSTRAINT=cons.txt pip install -r names.txt",
        ] {
            let found = reached(command, root, true);
            assert!(
                found.roots.contains(&root.join("pkg/setup.py")),
                "{command}: {found:?}"
            );
            assert!(found.roots.contains(&root.join("pkg/pyproject.toml")));
        }
        let found = reached("pip install -r requirements.txt", root, true);
        assert!(found.roots.contains(&root.join("dist")), "{found:?}");
        for command in [
            "pip install --find-links ./dist p",
            "pip install -f./dist p",
            "PIP_FIND_LINKS=dist pip install p",
        ] {
            let found = reached(command, root, true);
            assert!(found.roots.contains(&root.join("dist")), "{command}");
        }
        // A name from an index, a folder it writes to: no project of it.
        for command in ["pip install pkg", "pip install --target ./pkg p"] {
            let found = reached(command, root, true);
            assert!(
                !found.roots.contains(&root.join("pkg/setup.py")),
                "{command}: {found:?}"
            );
        }
    }
}
