//! The sealed script put into a shell-form command's text (`cd "$D" && sh
//! tools/guard.sh`, run as `sh -c TEXT`): where the text runs the checked
//! script, it runs the sealed copy instead, as [`super::Launch::rewrite`]
//! does for a command split into words (red team R33b-1: renaming other
//! content over the script during the run ran it in one run of six).

/// A word of shell text: its byte span, its value with quotes taken out,
/// or an operator (`&&`, `;`, `|`, `(`...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub start: usize,
    pub end: usize,
    pub value: String,
    pub operator: bool,
}

/// The words and operators of `text`, as `sh` splits them (quotes and
/// backslashes taken out of a word's value; a `$(…)` kept in its word).
pub(super) fn tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut word: Option<(usize, String)> = None;
    let end_word = |tokens: &mut Vec<Token>, word: &mut Option<(usize, String)>, end: usize| {
        if let Some((start, value)) = word.take() {
            tokens.push(Token {
                start,
                end,
                value,
                operator: false,
            });
        }
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
                });
            }
            '\'' => {
                let (_, value) = word.get_or_insert_with(|| (at, String::new()));
                for (_, q) in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    value.push(q);
                }
            }
            '"' => {
                let (_, value) = word.get_or_insert_with(|| (at, String::new()));
                while let Some((_, q)) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => value.extend(chars.next().map(|(_, e)| e)),
                        q => value.push(q),
                    }
                }
            }
            '\\' => {
                let (_, value) = word.get_or_insert_with(|| (at, String::new()));
                value.extend(chars.next().map(|(_, e)| e).filter(|e| *e != '\n'));
            }
            '$' if chars.peek().is_some_and(|(_, n)| *n == '(') => {
                let (_, value) = word.get_or_insert_with(|| (at, String::new()));
                value.push('$');
                let mut depth = 0usize;
                for (_, q) in chars.by_ref() {
                    value.push(q);
                    depth += usize::from(q == '(');
                    depth -= usize::from(q == ')');
                    if depth == 0 {
                        break;
                    }
                }
            }
            c => word.get_or_insert_with(|| (at, String::new())).1.push(c),
        }
    }
    end_word(&mut tokens, &mut word, text.len());
    tokens
}

/// Where the word at `at` stands: the index of the program word of its
/// simple command, skipping leading keywords and assignments.
pub(super) fn program_of(tokens: &[Token], at: usize) -> usize {
    let mut start = at;
    while start > 0 && !tokens[start - 1].operator {
        start -= 1;
    }
    let keyword = |t: &Token| {
        crate::binding::LEADING_KEYWORDS.contains(&t.value.as_str())
            || matches!(t.value.as_str(), "exec" | "command" | "builtin")
            || t.value.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
    };
    while start < at && keyword(&tokens[start]) {
        start += 1;
    }
    start
}

/// `text` quoted for `sh` as one word.
pub(super) fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
        assert_eq!(program_of(&found, 4), 3);
        assert_eq!(program_of(&tokens("X=1 exec bash -e g.sh"), 4), 2);
    }
}
