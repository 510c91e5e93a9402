//! The escapes of bash's `$'…'` quoting (ANSI-C quoting): `$'tools/g\x2esh'`
//! is `tools/g.sh`, written so no reading of the plain text finds it (red
//! team R38-1). Both the reading for consent and the rewrite to the checked
//! copy read a `$'…'` word as the shell will.

/// The character an escape inside `$'…'` stands for and how many bytes of
/// `rest` (the text right after the backslash) it takes; `None` for a
/// backslash the shell keeps (`\q` is a backslash and a `q`) and for `\c`,
/// whose control character no script name holds.
pub(crate) fn escape(rest: &str) -> Option<(char, usize)> {
    let first = rest.chars().next()?;
    let simple = match first {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'e' | 'E' => Some('\u{1b}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' | '\'' | '"' | '?' => Some(first),
        _ => None,
    };
    if let Some(c) = simple {
        return Some((c, first.len_utf8()));
    }
    let (radix, skip, most) = match first {
        '0'..='7' => (8, 0, 3),
        'x' => (16, 1, 2),
        'u' => (16, 1, 4),
        'U' => (16, 1, 8),
        _ => return None,
    };
    let digits: String = rest[skip..]
        .chars()
        .take_while(|c| c.is_digit(radix))
        .take(most)
        .collect();
    if digits.is_empty() {
        return None;
    }
    let value = u32::from_str_radix(&digits, radix).ok()?;
    // `\777` is a byte in bash (the low eight bits).
    let value = if radix == 8 { value & 0xff } else { value };
    Some((char::from_u32(value)?, skip + digits.len()))
}

/// The value of the text between the quotes of a `$'…'`.
pub(crate) fn decode(inner: &str) -> String {
    let mut value = String::with_capacity(inner.len());
    let mut at = 0;
    while let Some(offset) = inner[at..].find('\\') {
        let slash = at + offset;
        value.push_str(&inner[at..slash]);
        let rest = &inner[slash + 1..];
        match escape(rest) {
            Some((c, taken)) => {
                value.push(c);
                at = slash + 1 + taken;
            }
            None => {
                value.push('\\');
                at = slash + 1;
            }
        }
    }
    value.push_str(&inner[at..]);
    value
}

/// `text` with each `$'…'` replaced by its value in single quotes (a `'` of
/// the value closes and reopens them), and each `$"…"` (bash's translated
/// string: its text where no catalog has it, red team round 51, z44) as
/// `"…"`, for readings that only strip quotes.
pub(crate) fn with_ansi_quotes_read(text: &str) -> String {
    let text = &translated_as_quoted(text);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(offset) = text[at..].find("$'") {
        let open = at + offset;
        out.push_str(&text[at..open]);
        let body = open + 2;
        let Some(close) = quote_end(&text[body..]) else {
            out.push_str(&text[open..]);
            return out;
        };
        let value = decode(&text[body..body + close]);
        out.push('\'');
        out.push_str(&value.replace('\'', "'\\''"));
        out.push('\'');
        at = body + close + 1;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` with each `$"` that opens a translated string (no backslash
/// before its `$`) as `"`.
fn translated_as_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut escaped = false;
    while let Some(c) = chars.next() {
        if c == '$' && !escaped && chars.peek() == Some(&'"') {
            escaped = false;
            continue;
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out
}

/// The byte of the `'` that ends a `$'…'` body starting `body`.
fn quote_end(body: &str) -> Option<usize> {
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' => return Some(at),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_read_as_bash_reads_them() {
        assert_eq!(decode(r"tools/g\x2esh"), "tools/g.sh");
        assert_eq!(decode(r"tools/g\056sh"), "tools/g.sh");
        assert_eq!(decode(r"tools/g\u002esh"), "tools/g.sh");
        assert_eq!(decode(r"tools/g\U0000002esh"), "tools/g.sh");
        assert_eq!(decode(r"a\'b\\c\q"), r"a'b\c\q");
        assert_eq!(decode(r"\x"), r"\x");
        assert_eq!(
            with_ansi_quotes_read(r"sh $'tools/g\x2esh' $'it\'s' a"),
            r"sh 'tools/g.sh' 'it'\''s' a"
        );
        assert_eq!(with_ansi_quotes_read("echo $'open"), "echo $'open");
    }
}
