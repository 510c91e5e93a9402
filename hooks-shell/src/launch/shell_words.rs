//! Shell text split as `sh` splits it, each character of a word's value
//! kept with where and in which quotes it was written, so a word can be
//! replaced in the text it came from ([`super::shell_text`]).

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
    /// The byte spans of the commands of the `$(…)` and backquotes inside
    /// its double quotes (`"$(sh g.sh)"`): shell text of their own.
    pub inner: Vec<(usize, usize)>,
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
    /// Inside `$'…'` (its escapes read, not written back).
    Ansi,
}

/// A word being read: where it starts, its value and its pieces.
#[derive(Default)]
struct Word {
    start: usize,
    value: String,
    pieces: Vec<Piece>,
    inner: Vec<(usize, usize)>,
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
/// `ansi`: its shell reads `$'…'` (bash, zsh, ksh; not dash, where `$'`
/// is a `$` and a quote).
pub(super) fn tokens_of(text: &str, ansi: bool) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut word: Option<Word> = None;
    let end_word = |tokens: &mut Vec<Token>, word: &mut Option<Word>, end: usize| {
        if let Some(Word {
            start,
            value,
            pieces,
            inner,
        }) = word.take()
        {
            tokens.push(Token {
                start,
                end,
                value,
                operator: false,
                pieces,
                inner,
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
                    inner: Vec::new(),
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
                    let opens = match q {
                        '$' if text[q_at..].starts_with("$(")
                            && !text[q_at..].starts_with("$((") =>
                        {
                            2
                        }
                        '`' => 1,
                        _ => 0,
                    };
                    if opens > 0
                        && let Some(close) =
                            crate::binding::substitution_end(text, q_at + opens, q == '`')
                    {
                        // Its commands: read on their own; the characters
                        // stay the word's.
                        word.inner.push((q_at + opens, close));
                        for (c_at, c) in text[q_at..=close].char_indices() {
                            let from = q_at + c_at;
                            word.push(c, from, from + c.len_utf8(), Quote::Double);
                        }
                        while chars.peek().is_some_and(|(next, _)| *next <= close) {
                            chars.next();
                        }
                        continue;
                    }
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
                    inner: Vec::new(),
                });
            }
            // A comment, up to the line's end.
            '#' if word.is_none() => {
                while chars.peek().is_some_and(|(_, n)| *n != '\n') {
                    chars.next();
                }
            }
            // `$'…'`: backslash escapes inside (`$'\''` is one quote).
            '$' if ansi && chars.peek().is_some_and(|(_, n)| *n == '\'') => {
                let word = Word::started(&mut word, at);
                chars.next();
                while let Some((q_at, q)) = chars.next() {
                    match q {
                        '\'' => break,
                        // `\x2e` is a `.` (red team R38-1); a kept escape
                        // (`\q`) is read as its character, as before.
                        '\\' => match crate::ansi_quotes::escape(&text[q_at + 1..]) {
                            Some((value, taken)) => {
                                let end = q_at + 1 + taken;
                                while chars.peek().is_some_and(|(next, _)| *next < end) {
                                    chars.next();
                                }
                                word.push(value, q_at, end, Quote::Ansi);
                            }
                            None => {
                                let escaped = chars.next().map_or('\\', |(_, e)| e);
                                word.push(escaped, q_at, after(&mut chars), Quote::Ansi);
                            }
                        },
                        q => word.push(q, q_at, after(&mut chars), Quote::Ansi),
                    }
                }
            }
            c => Word::started(&mut word, at).push(c, at, after(&mut chars), Quote::Bare),
        }
    }
    end_word(&mut tokens, &mut word, text.len());
    tokens
}

/// Whether the shell named `shell` (a path or name; `sh` as this system's
/// `/bin/sh` is) reads `$'…'`.
pub(super) fn reads_ansi_quotes(shell: &str) -> bool {
    static SYSTEM_SH: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        std::fs::canonicalize("/bin/sh")
            .ok()
            .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .is_some_and(|name| reads_ansi_quotes(&name))
    });
    match crate::binding::base_name(shell).as_str() {
        "bash" | "zsh" | "ksh" | "ksh93" | "mksh" => true,
        "sh" => *SYSTEM_SH,
        _ => false,
    }
}
