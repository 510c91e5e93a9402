//! The tokenizer: PyYAML's scanner rules, so every document PyYAML reads is
//! split into the same tokens (its line breaks `\r`, `\n`, NEL, LS and PS; its
//! simple-key and indentation rules; flow context ignoring indentation; a BOM
//! skipped only as the very first character).
//!
//! The scalar scanners live in [`super::scalar`]; this half drives them.

use super::YamlError;

/// A position in the text, 0-based, counted as PyYAML counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Mark {
    pub line: usize,
    pub column: usize,
}

/// The style a scalar was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    StreamEnd,
    /// `%TAG handle prefix` carries both; other directives carry `None`.
    Directive(String, Option<(String, String)>),
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    /// The handle (`None` for a verbatim `!<...>` tag) and the suffix.
    Tag(Option<String>, String),
    Scalar(String, Style),
}

/// A place where a simple key (one without `?`) may start.
#[derive(Debug, Clone, Copy)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    index: usize,
    line: usize,
    mark: Mark,
}

/// Characters that end a token as whitespace or a line break does
/// (PyYAML's `'\0 \t\r\n\x85\u2028\u2029'`; `\0` is the end of the text).
pub(super) fn is_blank_or_end(ch: char) -> bool {
    matches!(
        ch,
        '\0' | ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// A line break, or the end of the text.
pub(super) fn is_break_or_end(ch: char) -> bool {
    matches!(ch, '\0' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// A line break.
pub(super) fn is_break(ch: char) -> bool {
    ch != '\0' && is_break_or_end(ch)
}

pub(super) struct Scanner {
    chars: Vec<char>,
    pub(super) index: usize,
    pub(super) mark: Mark,
    pub(super) flow_level: usize,
    pub(super) indent: isize,
    indents: Vec<isize>,
    pub(super) allow_simple_key: bool,
    /// By flow level, the possible simple key there.
    simple_keys: Vec<Option<SimpleKey>>,
    pub(super) tokens: Vec<(Token, Mark)>,
}

impl Scanner {
    pub(super) fn new(text: &str) -> Scanner {
        let mut chars: Vec<char> = text.chars().collect();
        chars.push('\0');
        Scanner {
            chars,
            index: 0,
            mark: Mark::default(),
            flow_level: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            simple_keys: vec![None],
            tokens: Vec::new(),
        }
    }

    /// All tokens of the text, ending with [`Token::StreamEnd`].
    pub(super) fn run(mut self) -> Result<Vec<(Token, Mark)>, YamlError> {
        loop {
            if self.fetch()? {
                return Ok(self.tokens);
            }
        }
    }

    pub(super) fn peek(&self, offset: usize) -> char {
        self.chars.get(self.index + offset).copied().unwrap_or('\0')
    }

    pub(super) fn prefix(&self, length: usize) -> String {
        let end = (self.index + length).min(self.chars.len());
        self.chars[self.index.min(end)..end].iter().collect()
    }

    /// Moves on `length` characters, counting lines and columns as PyYAML:
    /// a BOM takes no column.
    pub(super) fn forward(&mut self, length: usize) {
        for _ in 0..length {
            let ch = self.peek(0);
            if ch == '\0' && self.index + 1 >= self.chars.len() {
                return;
            }
            self.index += 1;
            if matches!(ch, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
                || (ch == '\r' && self.peek(0) != '\n')
            {
                self.mark.line += 1;
                self.mark.column = 0;
            } else if ch != '\u{feff}' {
                self.mark.column += 1;
            }
        }
    }

    pub(super) fn error(&self, what: impl Into<String>) -> YamlError {
        YamlError::at(self.mark, what)
    }

    fn push(&mut self, token: Token, mark: Mark) {
        self.tokens.push((token, mark));
    }

    /// Scans the next token (and any it implies); `true` at the end.
    fn fetch(&mut self) -> Result<bool, YamlError> {
        self.scan_to_next_token();
        self.stale_simple_keys()?;
        self.unwind_indent(self.column());
        let ch = self.peek(0);
        let at_line_start = self.mark.column == 0;
        let next_blank = is_blank_or_end(self.peek(3));
        match ch {
            '\0' if self.index + 1 >= self.chars.len() => {
                self.unwind_indent(-1);
                self.remove_simple_key()?;
                self.allow_simple_key = false;
                self.push(Token::StreamEnd, self.mark);
                return Ok(true);
            }
            '%' if at_line_start => {
                self.unwind_indent(-1);
                self.remove_simple_key()?;
                self.allow_simple_key = false;
                let mark = self.mark;
                let token = self.scan_directive()?;
                self.push(token, mark);
            }
            '-' if at_line_start && self.prefix(3) == "---" && next_blank => {
                self.document_indicator(Token::DocumentStart)?;
            }
            '.' if at_line_start && self.prefix(3) == "..." && next_blank => {
                self.document_indicator(Token::DocumentEnd)?;
            }
            '[' | '{' => {
                self.save_simple_key()?;
                if self.flow_level >= super::MAX_DEPTH {
                    return Err(
                        self.error(format!("nesting deeper than {} levels", super::MAX_DEPTH))
                    );
                }
                self.flow_level += 1;
                self.simple_keys.push(None);
                self.allow_simple_key = true;
                let token = if ch == '[' {
                    Token::FlowSequenceStart
                } else {
                    Token::FlowMappingStart
                };
                self.single(token);
            }
            ']' | '}' => {
                self.remove_simple_key()?;
                if self.flow_level > 0 {
                    self.flow_level -= 1;
                    self.simple_keys.pop();
                }
                self.allow_simple_key = false;
                let token = if ch == ']' {
                    Token::FlowSequenceEnd
                } else {
                    Token::FlowMappingEnd
                };
                self.single(token);
            }
            ',' => {
                self.allow_simple_key = true;
                self.remove_simple_key()?;
                self.single(Token::FlowEntry);
            }
            '-' if is_blank_or_end(self.peek(1)) => {
                if self.flow_level == 0 {
                    if !self.allow_simple_key {
                        return Err(self.error("sequence entries are not allowed here"));
                    }
                    if self.add_indent(self.column())? {
                        self.push(Token::BlockSequenceStart, self.mark);
                    }
                }
                self.allow_simple_key = true;
                self.remove_simple_key()?;
                self.single(Token::BlockEntry);
            }
            '?' if self.flow_level > 0 || is_blank_or_end(self.peek(1)) => {
                if self.flow_level == 0 {
                    if !self.allow_simple_key {
                        return Err(self.error("mapping keys are not allowed here"));
                    }
                    if self.add_indent(self.column())? {
                        self.push(Token::BlockMappingStart, self.mark);
                    }
                }
                self.allow_simple_key = self.flow_level == 0;
                self.remove_simple_key()?;
                self.single(Token::Key);
            }
            ':' if self.flow_level > 0 || is_blank_or_end(self.peek(1)) => self.fetch_value()?,
            '*' | '&' => {
                self.save_simple_key()?;
                self.allow_simple_key = false;
                let mark = self.mark;
                let token = self.scan_anchor()?;
                self.push(token, mark);
            }
            '!' => {
                self.save_simple_key()?;
                self.allow_simple_key = false;
                let mark = self.mark;
                let token = self.scan_tag()?;
                self.push(token, mark);
            }
            '|' | '>' if self.flow_level == 0 => {
                self.allow_simple_key = true;
                self.remove_simple_key()?;
                let mark = self.mark;
                let style = if ch == '|' {
                    Style::Literal
                } else {
                    Style::Folded
                };
                let value = self.scan_block_scalar(style == Style::Folded)?;
                self.push(Token::Scalar(value, style), mark);
            }
            '\'' | '"' => {
                self.save_simple_key()?;
                self.allow_simple_key = false;
                let mark = self.mark;
                let double = ch == '"';
                let value = self.scan_flow_scalar(double)?;
                let style = if double { Style::Double } else { Style::Single };
                self.push(Token::Scalar(value, style), mark);
            }
            _ if self.check_plain() => {
                self.save_simple_key()?;
                self.allow_simple_key = false;
                let mark = self.mark;
                let value = self.scan_plain()?;
                self.push(Token::Scalar(value, Style::Plain), mark);
            }
            _ => {
                return Err(self.error(format!(
                    "found character {} that cannot start any token",
                    super::shown(ch)
                )));
            }
        }
        Ok(false)
    }

    fn column(&self) -> isize {
        isize::try_from(self.mark.column).unwrap_or(isize::MAX)
    }

    /// A one-character token.
    fn single(&mut self, token: Token) {
        let mark = self.mark;
        self.forward(1);
        self.push(token, mark);
    }

    fn document_indicator(&mut self, token: Token) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_simple_key()?;
        self.allow_simple_key = false;
        let mark = self.mark;
        self.forward(3);
        self.push(token, mark);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.simple_keys[self.flow_level].take() {
            // The key was seen before this `:`: put KEY (and maybe the
            // mapping's start) in front of its tokens.
            self.tokens.insert(key.token_number, (Token::Key, key.mark));
            if self.flow_level == 0 {
                let column = isize::try_from(key.mark.column).unwrap_or(isize::MAX);
                if self.add_indent(column)? {
                    self.tokens
                        .insert(key.token_number, (Token::BlockMappingStart, key.mark));
                }
            }
            self.allow_simple_key = false;
        } else {
            if self.flow_level == 0 {
                if !self.allow_simple_key {
                    return Err(self.error("mapping values are not allowed here"));
                }
                if self.add_indent(self.column())? {
                    self.push(Token::BlockMappingStart, self.mark);
                }
            }
            self.allow_simple_key = self.flow_level == 0;
            self.remove_simple_key()?;
        }
        self.single(Token::Value);
        Ok(())
    }

    fn check_plain(&self) -> bool {
        let ch = self.peek(0);
        let indicator = is_blank_or_end(ch) || "-?:,[]{}#&*!|>'\"%@`".contains(ch);
        !indicator
            || (!is_blank_or_end(self.peek(1))
                && (ch == '-' || (self.flow_level == 0 && matches!(ch, '?' | ':'))))
    }

    /// Skips spaces (tabs only where libyaml skips them), comments and line breaks.
    fn scan_to_next_token(&mut self) {
        if self.index == 0 && self.peek(0) == '\u{feff}' {
            self.forward(1);
        }
        loop {
            // libyaml (hermes-agent's CSafeLoader) also skips tabs where no
            // simple key can start (after `key:`, after a value) and in flow
            // context; pure PyYAML refuses them. Reading both is reading what
            // either loader reads: `fail_closed:\ttrue` is a setting, not an error.
            while self.peek(0) == ' '
                || (self.peek(0) == '\t' && (self.flow_level > 0 || !self.allow_simple_key))
            {
                self.forward(1);
            }
            if self.peek(0) == '#' {
                while !is_break_or_end(self.peek(0)) {
                    self.forward(1);
                }
            }
            if self.scan_line_break().is_empty() {
                return;
            }
            if self.flow_level == 0 {
                self.allow_simple_key = true;
            }
        }
    }

    /// Consumes one line break: `\r\n`, `\r`, `\n` and NEL read as `\n`; LS
    /// and PS as themselves. Empty when there is none.
    pub(super) fn scan_line_break(&mut self) -> String {
        match self.peek(0) {
            '\r' | '\n' | '\u{85}' => {
                let length = if self.prefix(2) == "\r\n" { 2 } else { 1 };
                self.forward(length);
                "\n".to_owned()
            }
            ch @ ('\u{2028}' | '\u{2029}') => {
                self.forward(1);
                ch.to_string()
            }
            _ => String::new(),
        }
    }

    fn stale_simple_keys(&mut self) -> Result<(), YamlError> {
        for slot in &mut self.simple_keys {
            if let Some(key) = slot
                && (key.line != self.mark.line || self.index - key.index > 1024)
            {
                if key.required {
                    return Err(YamlError::at(
                        key.mark,
                        "while scanning a simple key: could not find expected ':'",
                    ));
                }
                *slot = None;
            }
        }
        Ok(())
    }

    fn save_simple_key(&mut self) -> Result<(), YamlError> {
        let required = self.flow_level == 0 && self.indent == self.column();
        if self.allow_simple_key {
            self.remove_simple_key()?;
            self.simple_keys[self.flow_level] = Some(SimpleKey {
                token_number: self.tokens.len(),
                required,
                index: self.index,
                line: self.mark.line,
                mark: self.mark,
            });
        }
        Ok(())
    }

    fn remove_simple_key(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.simple_keys[self.flow_level].take()
            && key.required
        {
            return Err(YamlError::at(
                key.mark,
                "while scanning a simple key: could not find expected ':'",
            ));
        }
        Ok(())
    }

    /// Closes block collections deeper than `column` (none in flow context,
    /// where PyYAML ignores indentation).
    fn unwind_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            self.indent = self.indents.pop().unwrap_or(-1);
            self.push(Token::BlockEnd, self.mark);
        }
    }

    /// Opens a block collection at `column` if it is deeper than the current
    /// one (bounded, so a deep document fails fast instead of slowly).
    fn add_indent(&mut self, column: isize) -> Result<bool, YamlError> {
        if self.indent >= column {
            return Ok(false);
        }
        if self.indents.len() >= super::MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {} levels", super::MAX_DEPTH)));
        }
        self.indents.push(self.indent);
        self.indent = column;
        Ok(true)
    }
}
