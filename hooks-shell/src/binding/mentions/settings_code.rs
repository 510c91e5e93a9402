//! Files a library the project's Python calls reads by a name the code
//! does not spell as a path (red team round 35):
//!
//! - Flask's `app.config.from_pyfile("settings.cfg")` runs the file as
//!   Python, from the app's folder or, with `instance_relative_config`,
//!   its `instance/` folder (beside a module, or beside a package's
//!   folder): the name is bound in each, present or not (R35-5);
//! - python-dotenv's `load_dotenv()`, `dotenv_values()` and
//!   `find_dotenv()` read `.env`, found from the calling file's folder (or
//!   where it runs) upward, and what they set may change what Python
//!   starts next (`PYTHONPATH`): `.env` in each folder on the way up to the
//!   project's top is bound, present or not, and read as `dotenv run`'s is
//!   (R35-6). A path given to them is a word the code names.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{Code, Names};

impl Names {
    /// Binds what the code `text` (of a file in `dir`; `None`: the
    /// command) has a library read besides the words it spells, and what
    /// git runs when it runs git ([`super::git_config`]).
    pub(super) fn after_words(&mut self, text: &str, dir: Option<&Path>, code: Code) {
        // After its words: the folders they name may hold a repository.
        if super::git_config::runs_git(text) {
            self.bind_git_config();
        }
        if code != Code::Other {
            return;
        }
        let here = dir.map_or_else(|| self.cwd.clone(), Path::to_path_buf);
        for file in flask_config_files(text, &here) {
            if file.starts_with(&self.project) {
                self.add_file_as(super::normalize(&file), Some(Code::Other));
            }
        }
        if reads_dotenv(text) {
            for folder in [here, self.cwd.clone()] {
                let above = folder
                    .ancestors()
                    .take_while(|up| up.starts_with(&self.project));
                let files: Vec<PathBuf> = above.map(|up| up.join(".env")).collect();
                files.into_iter().for_each(|file| self.add_file(file));
            }
        }
    }
}

/// Where Flask looks for each file `text` (code in `dir`) gives
/// `from_pyfile`: the app's folder, its `instance/` and the one beside it.
/// The name is the call's last quoted literal (`filename="s.cfg"`,
/// `os.path.join(app.root_path, "s.cfg")`), and the literals joined
/// (`os.path.join(app.root_path, "conf", "s.cfg")`: `conf/s.cfg`; R37-5).
fn flask_config_files(text: &str, dir: &Path) -> Vec<PathBuf> {
    static LITERAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"[rbuRBU]?(?:"([^"\n]*)"|'([^'\n]*)')"#).expect("valid regex")
    });
    let mut files = Vec::new();
    for (at, _) in text.match_indices("from_pyfile(") {
        let literals: Vec<&str> = LITERAL
            .captures_iter(call_arguments(&text[at + "from_pyfile(".len()..]))
            .filter_map(|c| c.get(1).or_else(|| c.get(2)))
            .map(|m| m.as_str())
            .filter(|name| !name.is_empty())
            .collect();
        let Some(last) = literals.last() else {
            continue;
        };
        let mut names = vec![last.to_string()];
        if literals.len() > 1 {
            names.push(literals.join("/"));
        }
        for name in names {
            let name = name.trim_start_matches('/');
            files.push(dir.join(name));
            files.push(dir.join("instance").join(name));
            files.extend(dir.parent().map(|up| up.join("instance").join(name)));
        }
    }
    files
}

/// The text of a call's arguments, `rest` following its `(`: up to the
/// `)` that closes it (at most 512 characters).
fn call_arguments(rest: &str) -> &str {
    let mut depth = 0usize;
    for (at, c) in rest.char_indices().take(512) {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return &rest[..at],
            ')' => depth -= 1,
            _ => {}
        }
    }
    let end = rest
        .char_indices()
        .nth(512)
        .map_or(rest.len(), |(at, _)| at);
    &rest[..end]
}

/// Whether `text` calls python-dotenv to read a `.env` file.
fn reads_dotenv(text: &str) -> bool {
    static CALLS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:load_dotenv|dotenv_values|find_dotenv)\b").expect("valid regex")
    });
    text.contains("dotenv") && CALLS.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flask_config_files_are_looked_for_where_flask_looks() {
        let dir = Path::new("/p/web");
        let text = "app = Flask(__name__, instance_relative_config=True)\n\
            app.config.from_pyfile('app.cfg', silent=True)\n";
        let files = flask_config_files(text, dir);
        for file in [
            "/p/web/app.cfg",
            "/p/web/instance/app.cfg",
            "/p/instance/app.cfg",
        ] {
            assert!(files.contains(&PathBuf::from(file)), "{file}: {files:?}");
        }
        assert!(flask_config_files("app.config.from_object('conf')", dir).is_empty());
        for (text, file) in [
            ("from_pyfile(filename=\"s.cfg\")", "/p/web/s.cfg"),
            (
                "from_pyfile(os.path.join(app.root_path, \"conf\", 's.cfg'))",
                "/p/web/conf/s.cfg",
            ),
            (
                "from_pyfile(os.path.join(app.root_path, \"s.cfg\"))",
                "/p/web/s.cfg",
            ),
        ] {
            let files = flask_config_files(text, dir);
            assert!(files.contains(&PathBuf::from(file)), "{text}: {files:?}");
        }
    }

    #[test]
    fn a_call_reading_dotenv_is_seen() {
        assert!(reads_dotenv(
            "from dotenv import load_dotenv\nload_dotenv()\n"
        ));
        assert!(reads_dotenv(
            "import dotenv\nv = dotenv.dotenv_values('ci.env')\n"
        ));
        assert!(!reads_dotenv("print('dotenv run')\n"));
    }
}
