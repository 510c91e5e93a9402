//! Bash brace expansion of one word (red team round 8, R8-9: `. li{b,}/x`,
//! `. lib/comm{on,}.sh`): comma lists (nested) and `{a..z}` / `{1..9..2}`
//! sequences, each alternative a word of its own, as bash makes them.
//!
//! Bounded: a word that expands to more than [`MAX_ALTERNATIVES`] words is
//! read as globs instead, each list an `*` for each count of `/` its
//! alternatives hold (`{a..zz}` is `*`, `{lib/x,y}` is `*/*` and `*`); when
//! even those are too many, or the word holds more than that many `{`, as a
//! path computed on from the text before the first list (the folder it
//! starts in is a place: `lib/comm`).

/// The most words one word expands to before it is read as globs (and the
/// most `{` a word is parsed with).
pub(super) const MAX_ALTERNATIVES: usize = 64;
/// The longest word expanded (a longer one is never read as a word).
const MAX_WORD: usize = 4096;

/// A part of a word: text, or a list of alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Choice(Vec<Vec<Piece>>),
    /// A sequence too long to list: any text without a `/`.
    Many,
}

/// What `word` stands for after brace expansion; `None` when it has no
/// brace list to expand.
pub(crate) fn expanded(word: &str) -> Option<Vec<String>> {
    if word.len() > MAX_WORD {
        // Never read as a word (`read::words`).
        return None;
    }
    let chars: Vec<char> = word.chars().collect();
    if chars.iter().filter(|c| **c == '{').count() > MAX_ALTERNATIVES {
        // Too many lists to parse on every check: a path computed on.
        let prefix: String = chars.iter().take_while(|c| **c != '{').collect();
        return Some(vec![prefix]);
    }
    let pieces = parse(&chars);
    if !pieces.iter().any(|piece| !matches!(piece, Piece::Text(_))) {
        return None;
    }
    if let Some(words) = expand(&pieces, &|piece| alternatives(piece, false)) {
        return Some(words);
    }
    if let Some(globs) = expand(&pieces, &|piece| alternatives(piece, true)) {
        return Some(globs);
    }
    let prefix: String = pieces
        .iter()
        .map_while(|piece| match piece {
            Piece::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    Some(vec![prefix])
}

/// The words `pieces` stand for, each piece's alternatives given by
/// `choices`; `None` past [`MAX_ALTERNATIVES`].
fn expand(
    pieces: &[Piece],
    choices: &dyn Fn(&Piece) -> Option<Vec<String>>,
) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let options = choices(piece)?;
        if words.len().saturating_mul(options.len()) > MAX_ALTERNATIVES {
            return None;
        }
        words = words
            .iter()
            .flat_map(|word| options.iter().map(move |option| format!("{word}{option}")))
            .collect();
    }
    Some(words)
}

/// The texts `piece` stands for; as globs (`*` for each part between `/`)
/// when `shapes`.
fn alternatives(piece: &Piece, shapes: bool) -> Option<Vec<String>> {
    match piece {
        Piece::Text(text) => Some(vec![text.clone()]),
        Piece::Many if shapes => Some(vec!["*".to_owned()]),
        Piece::Many => None,
        Piece::Choice(options) => {
            let mut out = Vec::new();
            for option in options {
                let more = expand(option, &|piece| alternatives(piece, shapes))?;
                if shapes {
                    out.extend(more.iter().map(|text| shape(text)));
                    out.sort();
                    out.dedup();
                } else {
                    out.extend(more);
                }
                if out.len() > MAX_ALTERNATIVES {
                    return None;
                }
            }
            Some(out)
        }
    }
}

/// `text` as a glob any text with as many `/` matches.
fn shape(text: &str) -> String {
    text.split('/').map(|_| "*").collect::<Vec<_>>().join("/")
}

/// The pieces of a word (quotes kept as text, lists in them not expanded).
fn parse(chars: &[char]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let skip = skipped(chars, at);
        if skip > 1 {
            text.extend(&chars[at..at + skip]);
            at += skip;
            continue;
        }
        if c == '{'
            && let Some(close) = closing(chars, at)
            && let Some(piece) = list(&chars[at + 1..close])
        {
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(piece);
            at = close + 1;
            continue;
        }
        text.push(c);
        at += 1;
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

/// How many characters from `at` are taken whole: a quoted string, an
/// escaped character, a `${...}` (1: just the one).
fn skipped(chars: &[char], at: usize) -> usize {
    let end = |close: char, from: usize| {
        chars[from..]
            .iter()
            .position(|c| *c == close)
            .map_or(chars.len() - at, |n| from + n + 1 - at)
    };
    let closed = |quote: char| chars[at + 1..].contains(&quote);
    match chars[at] {
        '\\' if at + 1 < chars.len() => 2,
        // (An unclosed quote is a character: `it's`.)
        '\'' if closed('\'') => end('\'', at + 1),
        '"' if !closed('"') => 1,
        '"' => {
            let mut i = at + 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            (i + 1).min(chars.len()) - at
        }
        '$' if chars.get(at + 1) == Some(&'{') => end('}', at + 2),
        _ => 1,
    }
}

/// `text` with each word that holds a brace list replaced by the words it
/// expands to, side by side (as bash passes them); `None` when none does.
/// Words are cut at blanks and `;&|()<>`, inside quotes too: a list in
/// quotes is read expanded as well (more read, never less).
pub(super) fn expand_in(text: &str) -> Option<String> {
    if !text.contains('{') {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut start = 0;
    for at in 0..=chars.len() {
        let boundary =
            at == chars.len() || chars[at].is_whitespace() || ";&|()<>".contains(chars[at]);
        if !boundary {
            continue;
        }
        let word: String = chars[start..at].iter().collect();
        match word.contains('{').then(|| expanded(&word)).flatten() {
            Some(words) => {
                out.push_str(&words.join(" "));
                changed = true;
            }
            None => out.push_str(&word),
        }
        out.extend(chars.get(at));
        start = at + 1;
    }
    changed.then_some(out)
}

/// Where the `}` closing the `{` at `open` is.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut at = open;
    while at < chars.len() {
        match chars[at] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
        at += skipped(chars, at).max(1);
    }
    None
}

/// The list or sequence `inner` (between braces) spells; `None` when it
/// is neither (`{}`, `{a}`: kept as text).
fn list(inner: &[char]) -> Option<Piece> {
    let mut options = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < inner.len() {
        match inner[at] {
            '{' => {
                at = closing(inner, at).unwrap_or(inner.len() - 1) + 1;
                continue;
            }
            ',' => {
                options.push(parse(&inner[start..at]));
                start = at + 1;
            }
            _ => {}
        }
        at += skipped(inner, at).max(1);
    }
    if !options.is_empty() {
        options.push(parse(&inner[start..]));
        return Some(Piece::Choice(options));
    }
    sequence(&inner.iter().collect::<String>())
}

/// `{1..10}`, `{05..10}`, `{a..e..2}`: the items, or [`Piece::Many`] when
/// there are too many to list.
fn sequence(inner: &str) -> Option<Piece> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (first, last, step) = match parts.as_slice() {
        [first, last] => (*first, *last, 1),
        [first, last, step] => (
            *first,
            *last,
            step.parse::<i64>().ok()?.unsigned_abs().max(1),
        ),
        _ => return None,
    };
    let items: Box<dyn Iterator<Item = String>> = match (first.parse::<i64>(), last.parse::<i64>())
    {
        (Ok(from), Ok(to)) => {
            let count = from.abs_diff(to) / step + 1;
            if count > MAX_ALTERNATIVES as u64 {
                return Some(Piece::Many);
            }
            let width = [first, last]
                .iter()
                .filter(|n| n.trim_start_matches('-').starts_with('0') && n.len() > 1)
                .map(|n| n.len())
                .max()
                .unwrap_or(0);
            let down = from > to;
            Box::new((0..count as i64).map(move |i| {
                let n = if down {
                    from - i * step as i64
                } else {
                    from + i * step as i64
                };
                format!("{n:0width$}")
            }))
        }
        _ => {
            let (from, to) = (single_letter(first)?, single_letter(last)?);
            let count = from.abs_diff(to) as u64 / step + 1;
            let down = from > to;
            Box::new((0..count).map(move |i| {
                let offset = (i * step) as u8;
                let b = if down { from - offset } else { from + offset };
                char::from(b).to_string()
            }))
        }
    };
    Some(Piece::Choice(
        items.map(|item| vec![Piece::Text(item)]).collect(),
    ))
}

fn single_letter(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [b] if b.is_ascii_alphabetic() => Some(*b),
        _ => None,
    }
}
