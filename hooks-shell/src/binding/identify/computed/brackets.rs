//! Code text read outside its quotes and brackets: where a call's
//! arguments part (`top_level`), where an expression ends (Python's
//! `expression`), shared by the readings of other languages' code.

/// Calls `visit(at, c, depth)` for each character of `text` outside a
/// quoted string, `depth` the bracket depth once `c` is read; returns the
/// position where `visit` first says stop.
pub(super) fn scan(text: &str, mut visit: impl FnMut(usize, char, i32) -> bool) -> Option<usize> {
    let (mut depth, mut quote) = (0i32, None::<char>);
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
                continue;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
        if quote.is_none() && !matches!(c, '"' | '\'') && visit(at, c, depth) {
            return Some(at);
        }
    }
    None
}

/// `text` split at `separator` outside quotes and brackets, each part
/// trimmed (empty ones kept).
pub(super) fn split_outside<'a>(text: &'a str, separator: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut start = 0;
    scan(text, |at, _, depth| {
        if depth == 0 && at >= start && text[at..].starts_with(separator) {
            parts.push(text[start..at].trim());
            start = at + separator.len();
        }
        false
    });
    parts.push(text[start.min(text.len())..].trim());
    parts
}

#[cfg(test)]
mod tests {
    use super::split_outside;

    #[test]
    fn separators_inside_quotes_and_brackets_do_not_split() {
        assert_eq!(
            split_outside("a, f(b, c), 'd, e', [f, g]", ","),
            ["a", "f(b, c)", "'d, e'", "[f, g]"]
        );
        assert_eq!(
            split_outside("x or 'y or z' or w", " or "),
            ["x", "'y or z'", "w"]
        );
    }
}
