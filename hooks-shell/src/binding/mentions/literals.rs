//! String literals of code other than a shell's read as the program reads
//! them (red team round 8, R8-10): `require(process.cwd() + "/\x6cib/x.js")`,
//! `"\u006cib"`, `exec(open("\x6cib/x.py").read())` name `lib/...`, and so
//! does Python's `open("li" "b/x.py")` (adjacent literals are one).
//!
//! Escapes decoded: `\xHH`, `\uHHHH`, `\u{...}`, `\UHHHHHHHH`, octal
//! `\NNN`, `\n` and the other letters, a backslash-newline (nothing); a
//! Python `\N{NAME}` of a character a path may hold (`LATIN SMALL LETTER
//! L`, `SOLIDUS`, `DIGIT ONE`...), and any other name as `?`, a glob of any
//! one character (never a name missed). Raw literals (`r"..."`, `rb'...'`)
//! are read as written. A literal ends at its line's end unless triple
//! quoted or a template (`` ` ``): a stray quote (`don't` in a comment)
//! spoils one line at most.

/// Which escapes a decoder knows beyond the common ones.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flavor {
    /// Bash's `$'...'`: `\cX`, `\e`.
    Bash,
    /// JavaScript's and Python's literals: `\u{...}`, `\N{NAME}`.
    Literal,
}

/// `text` with each literal, and each run of adjacent literals, replaced by
/// one double-quoted literal of what it holds; `None` when decoding names
/// nothing new (no escape of a character a name may hold, no literals
/// side by side).
pub(super) fn decoded(text: &str) -> Option<String> {
    if !text.contains(['\\', '"', '\'']) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut at = 0;
    while at < chars.len() {
        let Some(first) = literal_at(&chars, at) else {
            out.push(chars[at]);
            at += 1;
            continue;
        };
        let mut joined = first.text;
        changed |= first.changed;
        let mut end = first.end;
        // Adjacent literals are one (`"li" "b/x.py"`).
        loop {
            let mut next = end;
            while next < chars.len() && chars[next].is_whitespace() {
                next += 1;
            }
            let Some(more) = literal_at(&chars, next) else {
                break;
            };
            joined.push_str(&more.text);
            changed = true;
            end = more.end;
        }
        out.push('"');
        out.push_str(&joined);
        out.push('"');
        at = end;
    }
    changed.then_some(out)
}

/// A literal read: what it holds, where it ends, and whether an escape
/// spelled a character a name may hold.
struct Literal {
    text: String,
    end: usize,
    changed: bool,
}

/// The literal starting at `at` (at its prefix letters or its quote).
fn literal_at(chars: &[char], at: usize) -> Option<Literal> {
    let mut quote_at = at;
    while quote_at < chars.len() && quote_at - at < 2 && "rRbBuUfF".contains(chars[quote_at]) {
        quote_at += 1;
    }
    let quote = *chars.get(quote_at)?;
    if !matches!(quote, '"' | '\'' | '`') {
        return None;
    }
    let before = at.checked_sub(1).map(|b| chars[b]);
    if quote_at > at && before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
        // `for"x"`: letters of a name, not a prefix.
        return None;
    }
    let raw = chars[at..quote_at].iter().any(|c| matches!(c, 'r' | 'R'));
    let triple = quote != '`'
        && chars.get(quote_at + 1) == Some(&quote)
        && chars.get(quote_at + 2) == Some(&quote);
    let open = if triple { 3 } else { 1 };
    let mut text = String::new();
    let mut changed = false;
    let mut i = quote_at + open;
    while i < chars.len() {
        let c = chars[i];
        let closes = c == quote
            && (!triple || (chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote)));
        if closes {
            return Some(Literal {
                text,
                end: i + open,
                changed,
            });
        }
        if c == '\n' && !triple && quote != '`' {
            return None;
        }
        if c == '\\' && i + 1 < chars.len() {
            if raw {
                text.push(c);
                text.push(chars[i + 1]);
                i += 2;
                continue;
            }
            let (decoded, used) = escape(chars, i + 1, Flavor::Literal);
            changed |= chars[i + 1] == '\n' || decoded.chars().any(names_part);
            text.push_str(&decoded);
            i += 1 + used;
            continue;
        }
        text.push(c);
        i += 1;
    }
    None
}

/// Whether `c` may be part of a word naming a file.
fn names_part(c: char) -> bool {
    c.is_alphanumeric() || "_./@+~%,:-?".contains(c)
}

/// What the escape whose letter is at `chars[at]` (after a `\`) stands for,
/// and how many characters it takes.
pub(crate) fn escape(chars: &[char], at: usize, flavor: Flavor) -> (String, usize) {
    let Some(&letter) = chars.get(at) else {
        return (String::new(), 0);
    };
    let digits = |from: usize, most: usize, radix: u32| {
        let taken: String = chars[from.min(chars.len())..]
            .iter()
            .take(most)
            .take_while(|c| c.is_digit(radix))
            .collect();
        let value = u32::from_str_radix(&taken, radix).ok();
        (value.and_then(char::from_u32), taken.chars().count())
    };
    let coded = |(value, used): (Option<char>, usize), lead: usize| match value {
        Some(c) => (c.to_string(), lead + used),
        None => (letter.to_string(), 1),
    };
    match letter {
        'x' => coded(digits(at + 1, 2, 16), 1),
        'u' if flavor == Flavor::Literal && chars.get(at + 1) == Some(&'{') => {
            let (value, used) = digits(at + 2, 6, 16);
            let closed = chars.get(at + 2 + used) == Some(&'}');
            match value {
                Some(c) if closed => (c.to_string(), used + 3),
                _ => (letter.to_string(), 1),
            }
        }
        'u' => coded(digits(at + 1, 4, 16), 1),
        'U' => coded(digits(at + 1, 8, 16), 1),
        '0'..='7' => coded(digits(at, 3, 8), 0),
        'N' if flavor == Flavor::Literal && chars.get(at + 1) == Some(&'{') => {
            match chars[at + 2..].iter().position(|c| *c == '}') {
                Some(length) => {
                    let name: String = chars[at + 2..at + 2 + length].iter().collect();
                    (named(&name), length + 3)
                }
                None => (letter.to_string(), 1),
            }
        }
        'c' if flavor == Flavor::Bash && at + 1 < chars.len() => {
            let control = char::from_u32(u32::from(chars[at + 1]) & 0x1f).unwrap_or('?');
            (control.to_string(), 2)
        }
        '\n' => (String::new(), 1),
        _ => {
            let plain = match letter {
                'a' => '\x07',
                'b' => '\x08',
                'e' | 'E' => '\x1b',
                'f' => '\x0c',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'v' => '\x0b',
                other => other,
            };
            (plain.to_string(), 1)
        }
    }
}

/// The character a Python `\N{NAME}` names when a path may hold it; else
/// `?`, any one character.
fn named(name: &str) -> String {
    let name = name.to_ascii_uppercase();
    let letter = |prefix: &str| {
        let rest = name.strip_prefix(prefix)?;
        let [b] = rest.as_bytes() else { return None };
        b.is_ascii_uppercase().then_some(char::from(*b))
    };
    if let Some(c) = letter("LATIN SMALL LETTER ") {
        return c.to_ascii_lowercase().to_string();
    }
    if let Some(c) = letter("LATIN CAPITAL LETTER ") {
        return c.to_string();
    }
    const DIGITS: [&str; 10] = [
        "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE",
    ];
    if let Some(digit) = name.strip_prefix("DIGIT ")
        && let Some(value) = DIGITS.iter().position(|d| *d == digit)
    {
        return value.to_string();
    }
    let punctuation = [
        ("FULL STOP", '.'),
        ("SOLIDUS", '/'),
        ("LOW LINE", '_'),
        ("HYPHEN-MINUS", '-'),
        ("COMMERCIAL AT", '@'),
        ("PLUS SIGN", '+'),
        ("TILDE", '~'),
        ("PERCENT SIGN", '%'),
        ("COMMA", ','),
        ("COLON", ':'),
    ];
    match punctuation.iter().find(|(n, _)| *n == name) {
        Some((_, c)) => c.to_string(),
        None => "?".to_owned(),
    }
}
