//! The sealed script put into a shell-form command's text (`cd "$D" && sh
//! tools/guard.sh`, run as `sh -c TEXT`): where the text runs the checked
//! script, it runs the sealed copy instead, as [`super::Launch::rewrite`]
//! does for a command split into words (red team R33b-1: renaming other
//! content over the script during the run ran it in one run of six).

use std::path::Path;

use super::Launch;
use crate::binding::base_name;

/// A word of shell text: its byte span, its value with quotes taken out,
/// or an operator (`&&`, `;`, `|`, `(`...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub start: usize,
    pub end: usize,
    pub value: String,
    pub operator: bool,
    /// Where each character of `value` was written, in order.
    pub pieces: Vec<Piece>,
}

/// Where one character of a word's value was written: its byte in the
/// value, the bytes of `text` it was written as (`\$` is two) and the
/// quotes around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    pub at: usize,
    pub start: usize,
    pub end: usize,
    pub quote: Quote,
}

/// The quotes a character of shell text is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// Outside quotes.
    Bare,
    /// Inside `'…'`.
    Single,
    /// Inside `"…"`.
    Double,
}

/// A word being read: where it starts, its value and its pieces.
#[derive(Default)]
struct Word {
    start: usize,
    value: String,
    pieces: Vec<Piece>,
}

impl Word {
    /// The word being read in `word`, started at `at` when none is.
    fn started(word: &mut Option<Word>, at: usize) -> &mut Word {
        word.get_or_insert_with(|| Word {
            start: at,
            ..Word::default()
        })
    }

    fn push(&mut self, c: char, start: usize, end: usize, quote: Quote) {
        self.pieces.push(Piece {
            at: self.value.len(),
            start,
            end,
            quote,
        });
        self.value.push(c);
    }
}

/// The words and operators of `text`, as `sh` splits them (quotes and
/// backslashes taken out of a word's value; the commands of a `$(…)` or
/// backquotes as commands; comments left out).
pub(super) fn tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut word: Option<Word> = None;
    let end_word = |tokens: &mut Vec<Token>, word: &mut Option<Word>, end: usize| {
        if let Some(Word {
            start,
            value,
            pieces,
        }) = word.take()
        {
            tokens.push(Token {
                start,
                end,
                value,
                operator: false,
                pieces,
            });
        }
    };
    let after = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        chars.peek().map_or(text.len(), |(next, _)| *next)
    };
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() && c != '\n' => end_word(&mut tokens, &mut word, at),
            ';' | '&' | '|' | '(' | ')' | '<' | '>' | '\n' => {
                end_word(&mut tokens, &mut word, at);
                let mut end = at + c.len_utf8();
                while let Some((next, n)) = chars.peek().copied() {
                    if n == c && matches!(c, '&' | '|' | ';' | '<' | '>') {
                        end = next + 1;
                        chars.next();
                    } else {
                        break;
                    }
                }
                let value = text[at..end].to_owned();
                tokens.push(Token {
                    start: at,
                    end,
                    value,
                    operator: true,
                    pieces: Vec::new(),
                });
            }
            '\'' => {
                let word = Word::started(&mut word, at);
                while let Some((q_at, q)) = chars.next() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q, q_at, after(&mut chars), Quote::Single);
                }
            }
            '"' => {
                let word = Word::started(&mut word, at);
                while let Some((q_at, q)) = chars.next() {
                    match q {
                        '"' => break,
                        // Inside double quotes a backslash quotes only
                        // these; before anything else it stays.
                        '\\' if chars
                            .peek()
                            .is_some_and(|(_, e)| matches!(e, '$' | '`' | '"' | '\\' | '\n')) =>
                        {
                            let (_, e) = chars.next().expect("peeked");
                            let end = after(&mut chars);
                            if e != '\n' {
                                word.push(e, q_at, end, Quote::Double);
                            }
                        }
                        q => word.push(q, q_at, after(&mut chars), Quote::Double),
                    }
                }
            }
            '\\' => {
                let word = Word::started(&mut word, at);
                if let Some((_, e)) = chars.next()
                    && e != '\n'
                {
                    word.push(e, at, after(&mut chars), Quote::Bare);
                }
            }
            // `$(sh g.sh)`, `` `sh g.sh` ``: the commands inside are read
            // as commands (the `$` stays in the word before).
            '`' => {
                end_word(&mut tokens, &mut word, at);
                tokens.push(Token {
                    start: at,
                    end: at + 1,
                    value: "`".to_owned(),
                    operator: true,
                    pieces: Vec::new(),
                });
            }
            // A comment, up to the line's end.
            '#' if word.is_none() => {
                while chars.peek().is_some_and(|(_, n)| *n != '\n') {
                    chars.next();
                }
            }
            c => Word::started(&mut word, at).push(c, at, after(&mut chars), Quote::Bare),
        }
    }
    end_word(&mut tokens, &mut word, text.len());
    tokens
}

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
    let skip = words.iter().take_while(|word| keyword(word)).count();
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
        let code = self.code()?;
        let fd_path = self.fd_path()?;
        // The text may redirect the descriptor the copy is read through
        // (`exec 9>lock` before the script runs): it then runs by path.
        let number = fd_path.rsplit('/').next().unwrap_or_default();
        let redirection = format!(r"(?:^|[^0-9]){number}\s*[<>]|[<>]&\s*{number}(?:[^0-9]|$)");
        if regex::Regex::new(&redirection).is_ok_and(|names| names.is_match(text)) {
            return None;
        }
        let mut python = false;
        let edits = self.text_edits(text, cwd, 0, &mut python);
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
        cwd: &Path,
        depth: usize,
        python: &mut bool,
    ) -> Vec<Edit> {
        let (Some(code), Some(fd_path)) = (self.code(), self.fd_path()) else {
            return Vec::new();
        };
        let found = tokens(text);
        let mut edits: Vec<Edit> = Vec::new();
        let mut read_to = 0;
        for (at, token) in found.iter().enumerate() {
            if at < read_to || token.operator {
                continue;
            }
            if let Some(words) = super::nested_text::string_words(&found, at, depth) {
                // `eval WORDS`, `bash -c WORD`: the string they run.
                read_to = at + words.len() + usize::from(token.value == "eval");
                edits.extend(self.string_edits(words, cwd, depth, python));
                continue;
            }
            // As the shell reads it: `$HOME/x`, `~/x`, `./x` (R34-3).
            let plain = |word: &str| {
                let word = crate::binding::with_home(word);
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
                let source = quoted(&format!(". {fd_path}"));
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
                // Sourced: the copy's bytes, `$0` the shell's own.
                quoted(&fd_path)
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
        let found = tokens(text);
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
            let found = tokens(text);
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
