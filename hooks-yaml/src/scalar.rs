//! The scalar, anchor, tag and directive scanners, with PyYAML's folding:
//! a `\n` line break folds to a space, an LS or PS line break is kept as
//! itself, tabs count as spaces inside quotes but not before a token.

use super::YamlError;
use super::scan::{Scanner, is_blank_or_end, is_break, is_break_or_end};

impl Scanner {
    /// `---` or `...` at the start of a line, then a blank.
    fn at_document_marker(&self) -> bool {
        let prefix = self.prefix(3);
        (prefix == "---" || prefix == "...") && is_blank_or_end(self.peek(3))
    }

    /// A `|` or `>` scalar.
    pub(super) fn scan_block_scalar(&mut self, folded: bool) -> Result<String, YamlError> {
        self.forward(1);
        let (chomping, increment) = self.scan_block_indicators()?;
        // libyaml skips tabs here too.
        while matches!(self.peek(0), ' ' | '\t') {
            self.forward(1);
        }
        if self.peek(0) == '#' {
            while !is_break_or_end(self.peek(0)) {
                self.forward(1);
            }
        }
        if !is_break_or_end(self.peek(0)) {
            return Err(self.error(format!(
                "while scanning a block scalar: expected a comment or a line break, but found {}",
                super::shown(self.peek(0))
            )));
        }
        self.scan_line_break();
        let min_indent = usize::try_from(self.indent + 1).unwrap_or(0).max(1);
        let (mut breaks, indent) = match increment {
            None => {
                let (breaks, max_indent) = self.scan_block_indentation();
                (breaks, min_indent.max(max_indent))
            }
            Some(increment) => {
                let indent = min_indent + increment - 1;
                (self.scan_block_breaks(indent), indent)
            }
        };
        let mut text = String::new();
        let mut line_break = String::new();
        while self.mark.column == indent && self.peek(0) != '\0' {
            text.extend(breaks.drain(..));
            let leading_non_space = !matches!(self.peek(0), ' ' | '\t');
            while !is_break_or_end(self.peek(0)) {
                text.push(self.peek(0));
                self.forward(1);
            }
            line_break = self.scan_line_break();
            breaks = self.scan_block_breaks(indent);
            if self.mark.column == indent && self.peek(0) != '\0' {
                if folded
                    && line_break == "\n"
                    && leading_non_space
                    && !matches!(self.peek(0), ' ' | '\t')
                {
                    if breaks.is_empty() {
                        text.push(' ');
                    }
                } else {
                    text.push_str(&line_break);
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) {
            text.push_str(&line_break);
        }
        if chomping == Some(true) {
            text.extend(breaks);
        }
        Ok(text)
    }

    /// `+`/`-` (keep/strip) and an indentation digit, in either order.
    fn scan_block_indicators(&mut self) -> Result<(Option<bool>, Option<usize>), YamlError> {
        let mut chomping = None;
        let mut increment = None;
        for _ in 0..2 {
            let ch = self.peek(0);
            if chomping.is_none() && matches!(ch, '+' | '-') {
                chomping = Some(ch == '+');
                self.forward(1);
            } else if increment.is_none() && ch.is_ascii_digit() {
                if ch == '0' {
                    return Err(self.error(
                        "while scanning a block scalar: expected indentation indicator in the range 1-9, but found 0",
                    ));
                }
                increment = ch.to_digit(10).and_then(|d| usize::try_from(d).ok());
                self.forward(1);
            } else {
                break;
            }
        }
        let ch = self.peek(0);
        if !is_blank_or_end(ch) {
            return Err(self.error(format!(
                "while scanning a block scalar: expected chomping or indentation indicators, but found {}",
                super::shown(ch)
            )));
        }
        Ok((chomping, increment))
    }

    fn scan_block_indentation(&mut self) -> (Vec<String>, usize) {
        let mut breaks = Vec::new();
        let mut max_indent = 0;
        while self.peek(0) == ' ' || is_break(self.peek(0)) {
            if self.peek(0) == ' ' {
                self.forward(1);
                max_indent = max_indent.max(self.mark.column);
            } else {
                breaks.push(self.scan_line_break());
            }
        }
        (breaks, max_indent)
    }

    fn scan_block_breaks(&mut self, indent: usize) -> Vec<String> {
        let mut breaks = Vec::new();
        while self.mark.column < indent && self.peek(0) == ' ' {
            self.forward(1);
        }
        while is_break(self.peek(0)) {
            breaks.push(self.scan_line_break());
            while self.mark.column < indent && self.peek(0) == ' ' {
                self.forward(1);
            }
        }
        breaks
    }

    /// A `'...'` or `"..."` scalar. Indentation is not checked: PyYAML reads
    /// a quoted string continued on a dedented line.
    pub(super) fn scan_flow_scalar(&mut self, double: bool) -> Result<String, YamlError> {
        let quote = self.peek(0);
        self.forward(1);
        let mut text = String::new();
        self.scan_quoted_non_spaces(double, &mut text)?;
        while self.peek(0) != quote {
            self.scan_quoted_spaces(&mut text)?;
            self.scan_quoted_non_spaces(double, &mut text)?;
        }
        self.forward(1);
        Ok(text)
    }

    fn scan_quoted_non_spaces(&mut self, double: bool, text: &mut String) -> Result<(), YamlError> {
        loop {
            while !matches!(self.peek(0), '\'' | '"' | '\\') && !is_blank_or_end(self.peek(0)) {
                text.push(self.peek(0));
                self.forward(1);
            }
            let ch = self.peek(0);
            if !double && ch == '\'' && self.peek(1) == '\'' {
                text.push('\'');
                self.forward(2);
            } else if (double && ch == '\'') || (!double && matches!(ch, '"' | '\\')) {
                text.push(ch);
                self.forward(1);
            } else if double && ch == '\\' {
                self.forward(1);
                self.scan_escape(text)?;
            } else {
                return Ok(());
            }
        }
    }

    fn scan_escape(&mut self, text: &mut String) -> Result<(), YamlError> {
        let ch = self.peek(0);
        let simple = match ch {
            '0' => Some('\0'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            't' | '\t' => Some('\t'),
            'n' => Some('\n'),
            'v' => Some('\x0b'),
            'f' => Some('\x0c'),
            'r' => Some('\r'),
            'e' => Some('\x1b'),
            ' ' => Some(' '),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '/' => Some('/'),
            'N' => Some('\u{85}'),
            '_' => Some('\u{a0}'),
            'L' => Some('\u{2028}'),
            'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(simple) = simple {
            text.push(simple);
            self.forward(1);
            return Ok(());
        }
        let length = match ch {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ if is_break(ch) => {
                self.scan_line_break();
                let breaks = self.scan_quoted_breaks()?;
                text.extend(breaks);
                return Ok(());
            }
            _ => {
                return Err(self.error(format!(
                    "while scanning a double-quoted scalar: found unknown escape character {}",
                    super::shown(ch)
                )));
            }
        };
        self.forward(1);
        let digits = self.prefix(length);
        if digits.chars().count() != length || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(self.error(format!(
                "while scanning a double-quoted scalar: expected escape sequence of {length} hexadecimal numbers"
            )));
        }
        let code = u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32);
        let Some(code) = code else {
            // Python's chr() refuses past U+10FFFF; a lone surrogate cannot be
            // a Rust string (PyYAML keeps it; JSON could not carry it either).
            return Err(self.error(format!(
                "while scanning a double-quoted scalar: \\{ch}{digits} is not a character"
            )));
        };
        text.push(code);
        self.forward(length);
        Ok(())
    }

    fn scan_quoted_spaces(&mut self, text: &mut String) -> Result<(), YamlError> {
        let mut length = 0;
        while matches!(self.peek(length), ' ' | '\t') {
            length += 1;
        }
        let whitespace = self.prefix(length);
        self.forward(length);
        let ch = self.peek(0);
        if ch == '\0' {
            return Err(
                self.error("while scanning a quoted scalar: found unexpected end of stream")
            );
        }
        if is_break(ch) {
            let line_break = self.scan_line_break();
            let breaks = self.scan_quoted_breaks()?;
            if line_break != "\n" {
                text.push_str(&line_break);
            } else if breaks.is_empty() {
                text.push(' ');
            }
            text.extend(breaks);
        } else {
            text.push_str(&whitespace);
        }
        Ok(())
    }

    fn scan_quoted_breaks(&mut self) -> Result<Vec<String>, YamlError> {
        let mut breaks = Vec::new();
        loop {
            if self.at_document_marker() {
                return Err(self
                    .error("while scanning a quoted scalar: found unexpected document separator"));
            }
            while matches!(self.peek(0), ' ' | '\t') {
                self.forward(1);
            }
            if is_break(self.peek(0)) {
                breaks.push(self.scan_line_break());
            } else {
                return Ok(breaks);
            }
        }
    }

    /// A plain scalar, folded over lines indented past the enclosing block.
    pub(super) fn scan_plain(&mut self) -> Result<String, YamlError> {
        let mut text = String::new();
        let indent = usize::try_from(self.indent + 1).unwrap_or(0);
        let mut spaces: Vec<String> = Vec::new();
        loop {
            if self.peek(0) == '#' {
                break;
            }
            let mut length = 0;
            loop {
                let ch = self.peek(length);
                let next = self.peek(length + 1);
                if is_blank_or_end(ch)
                    || (ch == ':'
                        && (is_blank_or_end(next)
                            || (self.flow_level > 0 && ",[]{}".contains(next))))
                    || (self.flow_level > 0 && ",?[]{}".contains(ch))
                {
                    break;
                }
                length += 1;
            }
            if length == 0 {
                break;
            }
            self.allow_simple_key = false;
            text.extend(spaces.drain(..));
            text.push_str(&self.prefix(length));
            self.forward(length);
            match self.scan_plain_spaces(indent)? {
                Some(found)
                    if !found.is_empty()
                        && self.peek(0) != '#'
                        && (self.flow_level > 0 || self.mark.column >= indent) =>
                {
                    spaces = found;
                }
                _ => break,
            }
        }
        Ok(text)
    }

    /// The blanks after a plain chunk; `None` at a document marker. Tabs
    /// count as blanks as libyaml counts them (PyYAML alone would refuse the
    /// file), except a tab in the indentation of a continuation line.
    fn scan_plain_spaces(&mut self, indent: usize) -> Result<Option<Vec<String>>, YamlError> {
        let mut length = 0;
        while matches!(self.peek(length), ' ' | '\t') {
            length += 1;
        }
        let whitespace = self.prefix(length);
        self.forward(length);
        let mut chunks = Vec::new();
        if is_break(self.peek(0)) {
            let line_break = self.scan_line_break();
            self.allow_simple_key = true;
            if self.at_document_marker() {
                return Ok(None);
            }
            let mut breaks = Vec::new();
            while matches!(self.peek(0), ' ' | '\t') || is_break(self.peek(0)) {
                if self.peek(0) == '\t' && self.flow_level == 0 && self.mark.column < indent {
                    return Err(self.error(
                        "while scanning a plain scalar: found a tab character that violates indentation",
                    ));
                } else if matches!(self.peek(0), ' ' | '\t') {
                    self.forward(1);
                } else {
                    breaks.push(self.scan_line_break());
                    if self.at_document_marker() {
                        return Ok(None);
                    }
                }
            }
            if line_break != "\n" {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(" ".to_owned());
            }
            chunks.extend(breaks);
        } else if !whitespace.is_empty() {
            chunks.push(whitespace);
        }
        Ok(Some(chunks))
    }
}
