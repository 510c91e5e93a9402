//! The sealed script put into a shell-form command's text (`cd "$D" && sh
//! tools/guard.sh`, run as `sh -c TEXT`): where the text runs the checked
//! script, it runs the sealed copy instead, as [`super::Launch::rewrite`]
//! does for a command split into words (red team R33b-1: renaming other
//! content over the script during the run ran it in one run of six).

use std::path::Path;

use super::Launch;
pub(super) use super::shell_words::{Piece, Quote, Token, reads_ansi_quotes, tokens_of};
use crate::binding::base_name;

/// The words of the simple command the word at `at` ends (its program
/// first): leading keywords (`then`, `{`, `!`), assignments, `exec`,
/// `command`, redirections (`2>/dev/null`) and, after them, wrappers
/// (`env`, `timeout 5`, `nice`: [`crate::binding::unwrap`]) left out.
pub(super) fn command_of(tokens: &[Token], at: usize) -> Vec<String> {
    let redirect = |i: usize| {
        let t = &tokens[i];
        t.operator
            && (t.value.contains(['<', '>'])
                || t.value == "&" && i > 0 && tokens[i - 1].value.contains(['<', '>']))
    };
    let mut start = at;
    while start > 0 && (!tokens[start - 1].operator || redirect(start - 1)) {
        start -= 1;
    }
    let mut words = Vec::new();
    let mut i = start;
    while i <= at {
        if redirect(i) {
            // The operator, and its target after it (the next word).
            if i + 1 < at && !tokens[i + 1].operator {
                i += 1;
            }
        } else if !(i < at
            && redirect(i + 1)
            && tokens[i].value.chars().all(|c| c.is_ascii_digit()))
        {
            words.push(tokens[i].value.clone());
        }
        i += 1;
    }
    let keyword = |word: &String| {
        crate::binding::LEADING_KEYWORDS.contains(&word.as_str())
            || matches!(word.as_str(), "exec" | "command" | "builtin" | "{" | "time")
            || word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
    };
    let mut skip = words.iter().take_while(|word| keyword(word)).count();
    // `command -p sh g.sh`: the default `PATH`, the same program (R36-1).
    if skip > 0 && words[skip - 1] == "command" && words.get(skip).is_some_and(|w| w == "-p") {
        skip += 1;
    }
    let words = words.split_off(skip.min(words.len().saturating_sub(1)));
    let unwrapped = crate::binding::unwrap(&words);
    match unwrapped.unsure.is_none() && !unwrapped.words.is_empty() {
        true => unwrapped.words,
        false => words,
    }
}

/// `text` quoted for `sh` as one word.
pub(super) fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// An edit of shell text: the bytes `start..end` become `replacement`.
pub(super) type Edit = (usize, usize, String);

/// How many strings deep a text is rewritten.
const MAX_DEPTH: usize = crate::binding::MAX_STRING_DEPTH;

/// Where a text runs: its folder, the variables the run sets, and
/// whether its shell reads `$'…'`.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    pub cwd: &'a Path,
    pub vars: &'a [(&'a str, String)],
    pub ansi: bool,
}

/// `word` with `$NAME` / `${NAME}` of `vars` as their values.
fn with_vars(word: &str, vars: &[(&str, String)]) -> String {
    static NAME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
            .expect("valid regex")
    });
    if vars.is_empty() || !word.contains('$') {
        return word.to_owned();
    }
    NAME.replace_all(word, |found: &regex::Captures<'_>| {
        let name = found.get(1).or(found.get(2)).map_or("", |m| m.as_str());
        vars.iter()
            .find(|(var, _)| *var == name)
            .map_or_else(|| found[0].to_owned(), |(_, value)| value.clone())
    })
    .into_owned()
}

impl Launch {
    /// [`Launch::rewrite`] for a shell-form command's `text` (run as `sh
    /// -c TEXT` in `cwd`): each word naming the checked script that the
    /// text runs (a shell's or Python's script, or a simple command's
    /// program) is replaced by the words running the sealed copy: `sh
    /// tools/g.sh` becomes `sh -c '. /proc/self/fd/N' tools/g.sh`, so `$0`
    /// is still the script's (red team R33b-1). So are the words of the
    /// strings it runs (`bash -c "sh g.sh"`, `eval "sh g.sh"`: R34-1),
    /// quoted as they were. Returns the extra environment, or `None` when
    /// the text runs no such word (the run then goes by path, verified
    /// just before).
    pub fn rewrite_text(&self, text: &mut String, cwd: &Path) -> Option<Vec<(String, String)>> {
        self.rewrite_text_with(text, cwd, &[])
    }

    /// [`Launch::rewrite_text`], the variables `vars` the run sets read
    /// where a word names them (`sh "$CLAUDE_PROJECT_DIR"/g.sh` inside a
    /// string the outer shell leaves alone: R36-1).
    pub fn rewrite_text_with(
        &self,
        text: &mut String,
        cwd: &Path,
        vars: &[(&str, String)],
    ) -> Option<Vec<(String, String)>> {
        let code = self.code()?;
        let fd_path = self.fd_path()?;
        // The text may redirect the descriptor the copy is read through
        // (`exec 9>lock` before the script runs): it then runs by path.
        for copy in std::iter::once(fd_path.clone()).chain(self.renamed_fd_path()) {
            let number = copy.rsplit('/').next().unwrap_or_default();
            let redirection = format!(r"(?:^|[^0-9]){number}\s*[<>]|[<>]&\s*{number}(?:[^0-9]|$)");
            if regex::Regex::new(&redirection).is_ok_and(|names| names.is_match(text)) {
                return None;
            }
        }
        let mut python = false;
        let place = Place {
            cwd,
            vars,
            ansi: reads_ansi_quotes("sh"),
        };
        let edits = self.text_edits(text, &place, 0, &mut python);
        if edits.is_empty() {
            return None;
        }
        for (start, end, replacement) in edits.into_iter().rev() {
            text.replace_range(start..end, &replacement);
        }
        let mut env = vec![(
            super::SCRIPT_ENV.to_owned(),
            code.path.display().to_string(),
        )];
        if python && let Some(dir) = code.path.parent() {
            env.push(("PYTHONPATH".to_owned(), super::python_path(dir)));
        }
        Some(env)
    }

    /// The edits of [`Launch::rewrite_text`] in `text`, a string `depth`
    /// strings deep, in order; `python` is set when one runs the copy
    /// through the Python loader.
    pub(super) fn text_edits(
        &self,
        text: &str,
        place: &Place<'_>,
        depth: usize,
        python: &mut bool,
    ) -> Vec<Edit> {
        let cwd = place.cwd;
        let (Some(code), Some(fd_path)) = (self.code(), self.fd_path()) else {
            return Vec::new();
        };
        let found = tokens_of(text, place.ansi);
        let mut edits: Vec<Edit> = Vec::new();
        let mut read_to = 0;
        for (at, token) in found.iter().enumerate() {
            if at < read_to || token.operator {
                continue;
            }
            if let Some((string, shell)) = super::nested_text::string_span(&found, at, depth) {
                // `eval WORDS`, `bash -c WORD`, `trap WORD`: the string
                // they run, read as its shell reads it.
                read_to = string.end;
                let inner = Place {
                    ansi: shell.map_or(place.ansi, reads_ansi_quotes),
                    ..*place
                };
                edits.extend(self.string_edits(&found[string], &inner, depth, python));
                continue;
            }
            // `"$(sh g.sh)"`: the commands inside double quotes (R36-1).
            for &(start, end) in token.inner.iter().filter(|_| depth + 1 < MAX_DEPTH) {
                let inner = self.text_edits(&text[start..end], place, depth + 1, python);
                let moved = inner.into_iter().map(|(s, e, r)| (s + start, e + start, r));
                edits.extend(moved);
            }
            // As the shell reads it: `$HOME/x`, `~/x`, `./x` (R34-3), the
            // run's own variables.
            let plain = |word: &str| {
                let word = crate::binding::with_home(&with_vars(word, place.vars));
                let word = hermes_hooks_core::home::expand_tilde(&word);
                word.trim_start_matches("./").to_owned()
            };
            let names_script = plain(&token.value) == plain(&code.word)
                || super::resolves_to(&plain(&token.value), cwd, &code.path);
            if !names_script {
                continue;
            }
            let written = &text[token.start..token.end];
            let mut start = token.start;
            let argv = command_of(&found, at);
            let before = argv.len() - 1;
            let runs_python = before > 0 && base_name(&argv[0]).starts_with("python");
            let replacement = if runs_python {
                // `-P`/`-I`: no script folder on the path it was asked
                // not to have (R36-8).
                *python |= !super::python_safe_path(&argv[1..before]);
                let loader = super::PYTHON_LOADER.replace("{fd}", &fd_path);
                if argv[before - 1] == "--" {
                    // `python3 -- g.py`: `-c` before the end of options (R36-5).
                    start = found[at - 1].start;
                }
                // `sys.argv[0]` as written (R34-12).
                format!("-c {} {written}", quoted(&loader))
            } else if let Some(shell) = super::shell_sourcing(&argv, before, &fd_path) {
                let source = quoted(&self.sourcing(&shell, &fd_path));
                if before > 0 && argv[before - 1] == "--" {
                    // `sh -- x.sh`: from the `--` on.
                    start = found[at - 1].start;
                }
                match before {
                    0 => {
                        let shell: Vec<String> = shell.iter().map(|w| quoted(w)).collect();
                        format!("{} {source} {written}", shell.join(" "))
                    }
                    _ => format!("-c {source} {written}"),
                }
            } else if before == 1 && matches!(argv[0].as_str(), "." | "source") {
                // Sourced: the copy's bytes, `$0` the shell's own; where they
                // read `BASH_SOURCE`, the renamed copy, which names the
                // script's path (red team round 46).
                quoted(&self.renamed_fd_path().unwrap_or_else(|| fd_path.clone()))
            } else if let Some(perl) =
                super::perl::perl_loading(&argv, before, &fd_path, &token.value)
            {
                let perl: Vec<String> = perl.iter().map(|w| quoted(w)).collect();
                perl[before..].join(" ")
            } else if before == 0
                || (!code.is_program
                    && crate::binding::FD_SAFE.contains(&base_name(&argv[0]).as_str())
                    && argv[1..before].iter().all(|w| w.starts_with('-')))
            {
                // A program, or an interpreter's script: its fd path (not
                // an operand of `test -f`, `cp`, `rm`).
                quoted(&fd_path)
            } else {
                continue;
            };
            edits.push((start, token.end, replacement));
        }
        edits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_their_spans_and_lose_their_quotes() {
        let text = r#"cd "$D" && sh 'tools/guard.sh' a\ b; exit $?"#;
        let found = tokens_of(text, false);
        let values: Vec<&str> = found.iter().map(|t| t.value.as_str()).collect();
        assert_eq!(
            values,
            [
                "cd",
                "$D",
                "&&",
                "sh",
                "tools/guard.sh",
                "a b",
                ";",
                "exit",
                "$?"
            ]
        );
        let script = &found[4];
        assert_eq!(&text[script.start..script.end], "'tools/guard.sh'");
        assert_eq!(command_of(&found, 4), ["sh", "tools/guard.sh"]);
        let command = |text: &str| {
            let found = tokens_of(text, false);
            let at = found.iter().rposition(|t| t.value == "g.sh").expect("g.sh");
            command_of(&found, at)
        };
        assert_eq!(command("X=1 exec bash -e g.sh"), ["bash", "-e", "g.sh"]);
        assert_eq!(
            command("cd x && 2>/dev/null env A=1 timeout 5 sh g.sh"),
            ["sh", "g.sh"]
        );
        assert_eq!(command("f() { nice sh g.sh; }"), ["sh", "g.sh"]);
        assert_eq!(
            command("if x; then sh -e g.sh >&2; fi"),
            ["sh", "-e", "g.sh"]
        );
    }
}
