//! The directive, anchor and tag scanners (PyYAML's rules: a tag's suffix
//! may hold URI escapes, an anchor name is letters, digits, `-` and `_`).

use super::YamlError;
use super::scan::{Scanner, Token, is_blank_or_end, is_break, is_break_or_end};

fn is_word(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'
}

fn is_uri(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || "-;/?:@&=+$,_.!~*'()[]%".contains(ch)
}

impl Scanner {
    pub(super) fn scan_directive(&mut self) -> Result<Token, YamlError> {
        self.forward(1);
        let name = self.scan_word("directive")?;
        if !matches!(self.peek(0), '\0' | ' ') && !is_break(self.peek(0)) {
            return Err(
                self.error("while scanning a directive: expected alphabetic or numeric character")
            );
        }
        let mut value = None;
        match name.as_str() {
            "YAML" => {
                self.skip_spaces();
                let major = self.scan_version_number()?;
                if self.peek(0) != '.' {
                    return Err(self.error("while scanning a directive: expected a digit or '.'"));
                }
                self.forward(1);
                self.scan_version_number()?;
                if !matches!(self.peek(0), '\0' | ' ') && !is_break(self.peek(0)) {
                    return Err(self.error("while scanning a directive: expected a digit or ' '"));
                }
                if major != "1" && major.trim_start_matches('0') != "1" {
                    return Err(
                        self.error("found incompatible YAML document (version 1.* is required)")
                    );
                }
            }
            "TAG" => {
                self.skip_spaces();
                let handle = self.scan_tag_handle("directive")?;
                if self.peek(0) != ' ' {
                    return Err(self.error("while scanning a directive: expected ' '"));
                }
                self.skip_spaces();
                let prefix = self.scan_tag_uri("directive")?;
                if !matches!(self.peek(0), '\0' | ' ') && !is_break(self.peek(0)) {
                    return Err(self.error("while scanning a directive: expected ' '"));
                }
                value = Some((handle, prefix));
            }
            _ => {
                while !is_break_or_end(self.peek(0)) {
                    self.forward(1);
                }
            }
        }
        self.skip_spaces();
        if self.peek(0) == '#' {
            while !is_break_or_end(self.peek(0)) {
                self.forward(1);
            }
        }
        if !is_break_or_end(self.peek(0)) {
            return Err(
                self.error("while scanning a directive: expected a comment or a line break")
            );
        }
        self.scan_line_break();
        Ok(Token::Directive(name, value))
    }

    pub(super) fn skip_spaces(&mut self) {
        while self.peek(0) == ' ' {
            self.forward(1);
        }
    }

    fn scan_version_number(&mut self) -> Result<String, YamlError> {
        let mut length = 0;
        while self.peek(length).is_ascii_digit() {
            length += 1;
        }
        if length == 0 {
            return Err(self.error("while scanning a directive: expected a digit"));
        }
        let digits = self.prefix(length);
        self.forward(length);
        Ok(digits)
    }

    fn scan_word(&mut self, what: &str) -> Result<String, YamlError> {
        let mut length = 0;
        while is_word(self.peek(length)) {
            length += 1;
        }
        if length == 0 {
            return Err(self.error(format!(
                "while scanning {what}: expected alphabetic or numeric character, but found {}",
                super::shown(self.peek(0))
            )));
        }
        let word = self.prefix(length);
        self.forward(length);
        Ok(word)
    }

    /// `*name` or `&name`.
    pub(super) fn scan_anchor(&mut self) -> Result<Token, YamlError> {
        let alias = self.peek(0) == '*';
        let what = if alias { "an alias" } else { "an anchor" };
        self.forward(1);
        let name = self.scan_word(what)?;
        let ch = self.peek(0);
        if !is_blank_or_end(ch) && !"?:,]}%@`".contains(ch) {
            return Err(self.error(format!(
                "while scanning {what}: expected alphabetic or numeric character, but found {}",
                super::shown(ch)
            )));
        }
        Ok(if alias {
            Token::Alias(name)
        } else {
            Token::Anchor(name)
        })
    }

    pub(super) fn scan_tag(&mut self) -> Result<Token, YamlError> {
        let next = self.peek(1);
        let (handle, suffix) = if next == '<' {
            self.forward(2);
            let suffix = self.scan_tag_uri("tag")?;
            if self.peek(0) != '>' {
                return Err(self.error("while parsing a tag: expected '>'"));
            }
            self.forward(1);
            (None, suffix)
        } else if is_blank_or_end(next) {
            self.forward(1);
            (None, "!".to_owned())
        } else {
            // `!handle!suffix` when a second `!` comes before a blank.
            let mut length = 1;
            let mut use_handle = false;
            loop {
                let ch = self.peek(length);
                if is_blank_or_end(ch) {
                    break;
                }
                if ch == '!' {
                    use_handle = true;
                    break;
                }
                length += 1;
            }
            let handle = if use_handle {
                self.scan_tag_handle("tag")?
            } else {
                self.forward(1);
                "!".to_owned()
            };
            (Some(handle), self.scan_tag_uri("tag")?)
        };
        let ch = self.peek(0);
        // A tab may follow a tag, as libyaml reads it.
        if !is_blank_or_end(ch) {
            return Err(self.error(format!(
                "while scanning a tag: expected ' ', but found {}",
                super::shown(ch)
            )));
        }
        Ok(Token::Tag(handle, suffix))
    }

    fn scan_tag_handle(&mut self, what: &str) -> Result<String, YamlError> {
        if self.peek(0) != '!' {
            return Err(self.error(format!("while scanning a {what}: expected '!'")));
        }
        let mut length = 1;
        if self.peek(length) != ' ' {
            while is_word(self.peek(length)) {
                length += 1;
            }
            if self.peek(length) != '!' {
                self.forward(length);
                return Err(self.error(format!("while scanning a {what}: expected '!'")));
            }
            length += 1;
        }
        let handle = self.prefix(length);
        self.forward(length);
        Ok(handle)
    }

    fn scan_tag_uri(&mut self, what: &str) -> Result<String, YamlError> {
        let mut text = String::new();
        let mut length = 0;
        while is_uri(self.peek(length)) {
            if self.peek(length) == '%' {
                text.push_str(&self.prefix(length));
                self.forward(length);
                length = 0;
                text.push_str(&self.scan_uri_escapes(what)?);
            } else {
                length += 1;
            }
        }
        if length > 0 {
            text.push_str(&self.prefix(length));
            self.forward(length);
        }
        if text.is_empty() {
            return Err(self.error(format!("while parsing a {what}: expected URI")));
        }
        Ok(text)
    }

    fn scan_uri_escapes(&mut self, what: &str) -> Result<String, YamlError> {
        let mut bytes = Vec::new();
        while self.peek(0) == '%' {
            self.forward(1);
            let code = self.prefix(2);
            let byte = (code.len() == 2)
                .then(|| u8::from_str_radix(&code, 16).ok())
                .flatten()
                .filter(|_| code.chars().all(|c| c.is_ascii_hexdigit()));
            let Some(byte) = byte else {
                return Err(self.error(format!(
                    "while scanning a {what}: expected URI escape sequence of 2 hexadecimal numbers"
                )));
            };
            bytes.push(byte);
            self.forward(2);
        }
        String::from_utf8(bytes)
            .map_err(|_| self.error(format!("while scanning a {what}: invalid UTF-8 escape")))
    }
}
