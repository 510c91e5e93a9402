//! What the globs of code name. In shell code a glob names what runs in a
//! `for` loop's list (or after a shell); elsewhere it is a formatter's
//! operands (`sed -i ... src/*.ts`) or a `case` pattern, except that a glob
//! matching folders names places its code may run from wherever it stands
//! (`V=${V:-.v*}; $V/bin/lint`, `: ${V:=.v*}`, `set -- .v*`, `local
//! V=.v*`: red team R34-5, R36-3), as the folders' own names would. Other
//! code: any glob but a `case` pattern.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Code, Kind, Names, Reach, read};

impl Names {
    /// Binds what the globs of `text` (code of `code`, in `dir`; `wide`:
    /// it runs programs or code) name.
    pub(super) fn text_globs(&mut self, text: &str, dir: Option<&Path>, code: Code, wide: bool) {
        let listed = if code != Code::Other {
            read::loop_lists(text)
        } else {
            read::without_case_patterns(text)
        };
        let reach = if wide { Reach::AnyFile } else { Reach::Loads };
        for word in read::words(&listed) {
            if read::is_glob(&word) && (code != Code::Other || !bare_operator(&word, text)) {
                for path in self.glob_paths(&word, dir) {
                    // `for d in .v*`: a folder is a place, not a file (R36-3).
                    let kind = if path.is_dir() {
                        Kind::Folder
                    } else {
                        Kind::File
                    };
                    self.found(path, Some(kind), &word, reach);
                }
            }
        }
        if code == Code::Other {
            return;
        }
        for glob in glob_parts(text) {
            let folders = self
                .glob_paths(&glob, dir)
                .into_iter()
                .filter(|p| p.is_dir());
            for folder in folders.collect::<Vec<_>>() {
                self.found(folder, Some(Kind::Folder), &glob, Reach::AnyFile);
            }
        }
    }
}

/// Whether `word`, a glob of code that is not shell, is only stars and
/// slashes never written quoted in `text`: an operator or a comment's
/// border (`2 * 3`, `/** doc`, ` * line`, `import * as x`), not a pattern
/// (round 67: a Node script's doc comment named every file beside it).
/// `glob.glob("*")` is quoted, and read.
fn bare_operator(word: &str, text: &str) -> bool {
    let stars = word.chars().all(|c| matches!(c, '*' | '/'));
    stars && !in_a_string(word, text)
}

/// Whether `word` stands as a word of a string literal of `text`
/// (`"cat * | sh"` in a package script or an `execSync`: round 68, where
/// only `"*"` alone was seen).
fn in_a_string(word: &str, text: &str) -> bool {
    static STRING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`"#).expect("valid regex")
    });
    STRING.find_iter(text).any(|literal| {
        let inside = &literal.as_str()[1..literal.as_str().len() - 1];
        inside
            .split(|c: char| c.is_whitespace() || ";&|()<>".contains(c))
            .any(|part| part == word)
    })
}

/// The globs of shell text wherever they stand: after a blank, `=`, a
/// default's `:-`/`:=`, a quote or a parenthesis (`V=.v*`, `${V:-.v*}`).
fn glob_parts(text: &str) -> Vec<String> {
    static GLOB: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s=:\-+"'(])([^\s=:"'${}();|&<>`+-][^\s=:"'${}();|&<>`]*)"#)
            .expect("valid regex")
    });
    GLOB.captures_iter(text)
        .filter_map(|found| found.get(1))
        .map(|glob| glob.as_str().to_owned())
        .filter(|glob| read::is_glob(glob) && glob.chars().any(|c| c.is_alphanumeric() || c == '.'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::glob_parts;

    #[test]
    fn globs_are_found_wherever_they_stand() {
        for (text, glob) in [
            ("V=${V:-.v*}; $V/bin/lint", ".v*"),
            (": ${V:=.v*}; $V/bin/lint", ".v*"),
            ("V=${V:-${W:-.v*}}", ".v*"),
            ("export V=.v*", ".v*"),
            ("set -- .v*; \"$1\"/bin/lint", ".v*"),
            ("f() { local V=tools/[a-z]*; }", "tools/[a-z]*"),
        ] {
            assert_eq!(glob_parts(text), [glob], "{text}");
        }
        assert!(glob_parts("echo $? ; ls").is_empty());
    }
}
