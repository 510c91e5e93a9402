//! A strict reading of a command line, for a fail-closed guard's `if` rule
//! (`guard_rule.rs`): only the plain part of bash's grammar is read (words,
//! quotes, `$NAME` and `${NAME}`, `;` `&&` `||` `|` `&` and newlines,
//! comments, redirections, a here-string); anything else (`$(...)`,
//! backquotes, `(`, `)`, `$((...))`, `${x...}` with an operator, `$'...'`,
//! here-documents, `{fd}>`) is not read at all: [`simple_commands`] gives
//! `None` and the guard runs. The binding reads it too, to find the
//! commands that name a folder without loading it (`binding/mentions`).

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The text with quotes and escapes removed; an expansion kept as
    /// written (`$HOME`).
    pub(crate) text: String,
    /// Whether the text is the word bash passes on: nothing in it is
    /// expanded (no `$NAME`, glob, brace or leading `~`).
    pub(crate) literal: bool,
    /// How many bytes of `text` came before any quote, escape or expansion
    /// (what may name a variable in `NAME=value`).
    plain: usize,
}

impl Word {
    /// The variable a `NAME=value` (or `NAME+=value`) word assigns.
    fn assigned(&self) -> Option<&str> {
        let (name, _) = self.text.split_once('=')?;
        let equals = name.len();
        let name = name.strip_suffix('+').unwrap_or(name);
        let valid = equals < self.plain
            && name.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
        valid.then_some(name)
    }
}

/// One simple command of a line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The variables its leading `NAME=value` words assign.
    pub(crate) assigned: Vec<String>,
    /// The program and its arguments.
    pub(crate) words: Vec<Word>,
    /// Whether a redirection writes a file (anything but `/dev/null`,
    /// `/dev/stdout`, `/dev/stderr` and a descriptor).
    pub(crate) writes_file: bool,
    /// Where it is in the line: the character positions from its first
    /// word or redirection to the end of its last (`None`: nothing read).
    pub(crate) span: Option<(usize, usize)>,
}

impl SimpleCommand {
    /// Adds `word`: an assignment before the program, or a word.
    fn push(&mut self, word: Word) {
        match word.assigned() {
            Some(name) if self.words.is_empty() => self.assigned.push(name.into()),
            _ => self.words.push(word),
        }
    }

    /// Whether nothing was read into it but blanks and comments.
    fn is_empty(&self) -> bool {
        self.assigned.is_empty() && self.words.is_empty() && !self.writes_file
    }
}

/// The simple commands of `line`, or `None` when it holds anything beyond
/// the plain grammar this reading knows.
pub(crate) fn simple_commands(line: &str) -> Option<Vec<SimpleCommand>> {
    if line.contains('\0') {
        return None;
    }
    let mut reader = Reader {
        chars: line.chars().collect(),
        at: 0,
    };
    let mut commands = Vec::new();
    let mut current = SimpleCommand::default();
    loop {
        reader.skip_blanks();
        let Some(c) = reader.peek() else {
            break;
        };
        let start = reader.at;
        match c {
            '&' if reader.peek_at(1) == Some('>') => reader.redirection(&mut current)?,
            '\n' | ';' | '&' | '|' => {
                reader.separator()?;
                commands.push(std::mem::take(&mut current));
                continue;
            }
            '#' => {
                reader.skip_comment();
                continue;
            }
            '<' | '>' => reader.redirection(&mut current)?,
            '(' | ')' | '`' => return None,
            _ => {
                let word = reader.word()?;
                if matches!(reader.peek(), Some('<' | '>')) {
                    if word.text.starts_with('{') {
                        // `{fd}>file` names a variable bash assigns.
                        return None;
                    }
                    if word.plain == word.text.len()
                        && word.text.bytes().all(|b| b.is_ascii_digit())
                    {
                        // `2>err`: the descriptor of the redirection.
                        reader.redirection(&mut current)?;
                    } else {
                        current.push(word);
                    }
                } else {
                    current.push(word);
                }
            }
        }
        let first = current.span.map_or(start, |(first, _)| first);
        current.span = Some((first, reader.at));
    }
    commands.push(current);
    commands.retain(|command| !command.is_empty());
    Some(commands)
}

/// The characters that end an unquoted word.
fn ends_word(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
    )
}

/// Where the reading is.
struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.at += 1;
        }
    }

    /// `;`, `&`, `&&`, `|`, `||`, `|&` or a newline; `;;` and `;&` (a
    /// `case` item's end) are not read.
    fn separator(&mut self) -> Option<()> {
        let c = self.peek()?;
        self.at += 1;
        match (c, self.peek()) {
            (';', Some(';' | '&')) => return None,
            ('&', Some('&')) | ('|', Some('|' | '&')) => self.at += 1,
            _ => {}
        }
        Some(())
    }

    /// A redirection at `<`, `>` or `&>`: a here-document is not read; an
    /// output to a file marks `command` as writing one.
    fn redirection(&mut self, command: &mut SimpleCommand) -> Option<()> {
        let first = self.peek()?;
        self.at += 1;
        let output = match (first, self.peek()) {
            ('&', _) => {
                // `&>` or `&>>`.
                self.at += 1;
                if self.peek() == Some('>') {
                    self.at += 1;
                }
                true
            }
            ('<', Some('<')) => {
                self.at += 1;
                if self.peek() != Some('<') {
                    return None;
                }
                self.at += 1;
                false
            }
            ('<' | '>', Some('&')) => {
                self.at += 1;
                let target = self.target()?;
                let descriptor = target.literal
                    && !target.text.is_empty()
                    && target
                        .text
                        .trim_end_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit());
                if descriptor {
                    return Some(());
                }
                // `>&file` is `&>file`; `<&file` is an error.
                if first == '<' {
                    return None;
                }
                command.writes_file |= !discards(&target);
                return Some(());
            }
            ('<', Some('>')) | ('>', Some('>' | '|')) => {
                self.at += 1;
                true
            }
            ('<', _) => false,
            _ => true,
        };
        let target = self.target()?;
        if output && !discards(&target) {
            command.writes_file = true;
        }
        Some(())
    }

    /// The word a redirection names.
    fn target(&mut self) -> Option<Word> {
        self.skip_blanks();
        self.word()
    }

    /// One word; `None` when there is none here or it holds what is not read.
    fn word(&mut self) -> Option<Word> {
        let start = self.at;
        let mut word = Word {
            text: String::new(),
            literal: true,
            plain: 0,
        };
        let mut plain = true;
        while let Some(c) = self.peek() {
            if ends_word(c) {
                break;
            }
            match c {
                '\'' => {
                    plain = false;
                    self.at += 1;
                    loop {
                        match self.peek()? {
                            '\'' => break,
                            c => word.text.push(c),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                }
                '"' => {
                    plain = false;
                    self.at += 1;
                    self.double_quoted(&mut word)?;
                }
                '\\' => {
                    plain = false;
                    self.at += 1;
                    match self.peek() {
                        Some('\n') => {}
                        Some(next) => word.text.push(next),
                        None => word.text.push('\\'),
                    }
                    self.at += 1;
                }
                '$' => {
                    plain = false;
                    self.dollar(&mut word, false)?;
                }
                '`' | '\0' => return None,
                '*' | '?' | '[' | '{' => {
                    word.literal = false;
                    word.text.push(c);
                    self.at += 1;
                }
                '~' if word.text.is_empty() => {
                    word.literal = false;
                    word.text.push(c);
                    self.at += 1;
                }
                _ => {
                    word.text.push(c);
                    self.at += 1;
                }
            }
            if plain {
                word.plain = word.text.len();
            }
        }
        if self.at == start {
            return None;
        }
        if word.text == "[" && word.plain == 1 {
            // A lone `[` (`test`) matches no file as a glob.
            word.literal = true;
        }
        Some(word)
    }

    /// The rest of a `"..."` (its opening quote read).
    fn double_quoted(&mut self, word: &mut Word) -> Option<()> {
        loop {
            match self.peek()? {
                '"' => {
                    self.at += 1;
                    return Some(());
                }
                '\\' => {
                    self.at += 1;
                    match self.peek()? {
                        '\n' => self.at += 1,
                        c @ ('$' | '`' | '"' | '\\') => {
                            word.text.push(c);
                            self.at += 1;
                        }
                        _ => word.text.push('\\'),
                    }
                }
                '$' => self.dollar(word, true)?,
                '`' | '\0' => return None,
                c => {
                    word.text.push(c);
                    self.at += 1;
                }
            }
        }
    }

    /// A `$` (at it): `$NAME`, `${NAME}`, `$1`, `$?`... are expansions; a
    /// `$` before a blank, the end or a closing quote is itself; anything
    /// else (`$(`, `$((`, `$[`, `${x:-...}`, `$'...'`, `$"..."`) is not read.
    fn dollar(&mut self, word: &mut Word, quoted: bool) -> Option<()> {
        self.at += 1;
        let is_name = |c: char| c == '_' || c.is_ascii_alphanumeric();
        match self.peek() {
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                word.text.push('$');
                while let Some(c) = self.peek().filter(|c| is_name(*c)) {
                    word.text.push(c);
                    self.at += 1;
                }
            }
            Some(c) if c.is_ascii_digit() || "@*#?-$!".contains(c) => {
                word.text.push('$');
                word.text.push(c);
                self.at += 1;
            }
            Some('{') => {
                self.at += 1;
                word.text.push_str("${");
                let start = self.at;
                while let Some(c) = self.peek().filter(|c| is_name(*c)) {
                    word.text.push(c);
                    self.at += 1;
                }
                let named = self.at > start && !self.chars[start].is_ascii_digit();
                if !named || self.peek() != Some('}') {
                    return None;
                }
                word.text.push('}');
                self.at += 1;
            }
            None | Some(' ' | '\t' | '\n') => {
                word.text.push('$');
                return Some(());
            }
            Some('"') if quoted => {
                word.text.push('$');
                return Some(());
            }
            Some(_) => return None,
        }
        word.literal = false;
        Some(())
    }
}

/// Whether an output redirection to `target` writes nothing to a file.
fn discards(target: &Word) -> bool {
    target.literal && ["/dev/null", "/dev/stdout", "/dev/stderr"].contains(&target.text.as_str())
}

#[cfg(test)]
#[path = "shell_words_tests.rs"]
mod tests;
