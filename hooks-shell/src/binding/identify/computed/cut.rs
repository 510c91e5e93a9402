//! Shell text cut into simple commands for [`super::computed_name`]: each
//! substitution a mark in its word, its text kept apart; redirections
//! taken out of a command's words.

/// A marker standing for the `i`th substitution in a word.
pub(super) fn mark(i: usize) -> String {
    format!("\u{e000}{i}\u{e001}")
}

/// A simple command: its words, and whether a pipe feeds it.
pub(super) struct Command {
    pub words: Vec<String>,
    pub piped: bool,
}

/// Shell text cut into simple commands; each `$(…)`, backquoted command
/// and `<(…)` replaced by a [`mark`] and its text kept.
pub(super) struct Cut {
    pub commands: Vec<Command>,
    pub substitutions: Vec<String>,
}

pub(super) fn cut(text: &str) -> Cut {
    let mut parts: Vec<(String, bool)> = Vec::new();
    let mut substitutions = Vec::new();
    let mut current = String::new();
    let mut piped = false;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let rest = &text[at..];
        let opens = match (quote, c) {
            (Some('\''), _) => 0,
            (_, '$') if rest.starts_with("$(") && !rest.starts_with("$((") => 2,
            (_, '`') => 1,
            (None, '<' | '>') if rest[1..].starts_with('(') => 2,
            _ => 0,
        };
        if opens > 0
            && let Some(end) = crate::binding::substitution_end(text, at + opens, c == '`')
        {
            current.push_str(&mark(substitutions.len()));
            substitutions.push(text[at + opens..end].to_owned());
            while chars.peek().is_some_and(|(next, _)| *next <= end) {
                chars.next();
            }
            continue;
        }
        // `${N}`, `${N:-x}`: one word (its braces are no group).
        if quote != Some('\'') && rest.starts_with("${") {
            let end = parameter_end(text, at + 2);
            current.push_str(&text[at..end]);
            while chars.peek().is_some_and(|(next, _)| *next < end) {
                chars.next();
            }
            continue;
        }
        let starts_word = current.is_empty() || current.ends_with(char::is_whitespace);
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some('"') | None, '\\') => {
                current.push(c);
                if let Some((_, next)) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '#') if starts_word => {
                while chars.peek().is_some_and(|(_, n)| *n != '\n') {
                    chars.next();
                }
            }
            (None, '{' | '}') if !starts_word => current.push(c),
            // `&>`, `>&2`, `2>&1`: redirections, no separator.
            (None, '&') if current.ends_with(['>', '<']) || rest[1..].starts_with('>') => {
                current.push(c);
            }
            (None, '|' | ';' | '&' | '(' | ')' | '\n' | '{' | '}') => {
                parts.push((std::mem::take(&mut current), piped));
                // `a | b` and `a |& b` feed b; `a || b` does not.
                let next = chars.peek().map(|(_, n)| *n);
                piped = c == '|' && next != Some('|');
                if c == '|' && matches!(next, Some('|' | '&')) {
                    chars.next();
                }
            }
            (None, _) => current.push(c),
        }
    }
    parts.push((current, piped));
    let commands = parts
        .into_iter()
        .map(|(part, piped)| Command {
            words: shlex::split(&part)
                .unwrap_or_else(|| part.split_whitespace().map(str::to_owned).collect()),
            piped,
        })
        .collect();
    Cut {
        commands,
        substitutions,
    }
}

/// The byte after the `}` that closes a `${` whose name starts at `from`
/// (nested `${…}` counted); the end of `text` when none does.
fn parameter_end(text: &str, from: usize) -> usize {
    let mut open = 1;
    for (at, c) in text[from..].char_indices() {
        match c {
            '{' => open += 1,
            '}' => {
                open -= 1;
                if open == 0 {
                    return from + at + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// `words` without their output redirections (`> /dev/null`, `2>&1`,
/// `&>log`) and here-documents; without input ones too when `inputs`
/// (a shell's `< file` is its code: kept for [`super::interpreters::script_argument`]).
pub(super) fn without_redirections(words: &[String], inputs: bool) -> Vec<String> {
    let mut kept = Vec::with_capacity(words.len());
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let output =
            operator.starts_with(['>', '&']) && operator.len() > 1 || operator.starts_with('>');
        let input = operator.starts_with("<<") || (inputs && operator.starts_with('<'));
        if !(output || input) || word.is_empty() {
            kept.push(word.clone());
            continue;
        }
        // A bare operator's target is the next word.
        let bare = operator
            .trim_start_matches(['>', '<', '&', '|', '-'])
            .is_empty();
        if bare {
            words.next();
        }
    }
    kept
}
