//! Shell text cut into simple commands for [`super::computed_name`]: each
//! substitution a mark in its word, its text kept apart; redirections
//! taken out of a command's words.

use super::words::Words;

/// A marker standing for the `i`th substitution in a word.
pub(super) fn mark(i: usize) -> String {
    format!("\u{e000}{i}\u{e001}")
}

/// A simple command: its words, and whether a pipe feeds it.
pub(super) struct Command {
    pub words: Vec<String>,
    pub piped: bool,
    /// The body of a here-document it reads (`python3 - <<E`): text it is
    /// fed, which may name files it writes or runs (round 51, R50-10).
    pub here_document: Option<String>,
    /// A line of a here-document body fed to a program other than a shell:
    /// text, not a command it runs (still read for its substitutions).
    pub in_text: bool,
}

impl Command {
    /// The command run as `words` (an alias, a wrapper, a replayed call
    /// read through), fed as this one is.
    pub(super) fn with_words(&self, words: Vec<String>) -> Command {
        Command {
            words,
            piped: self.piped,
            here_document: self.here_document.clone(),
            in_text: self.in_text,
        }
    }
}

/// Shell text cut into simple commands; each `$(…)`, backquoted command
/// and `<(…)` replaced by a [`mark`] and its text kept.
pub(super) struct Cut {
    pub commands: Vec<Command>,
    pub substitutions: Vec<String>,
    /// A `'` inside a double-quoted `${…}`: bash reads it as a quote for
    /// some operators and as a character for others.
    pub ambiguous: bool,
}

pub(super) fn cut(text: &str) -> Cut {
    // `$'a\'b'` as the quotes it stands for: its `\'` closes nothing (R44-1).
    let text = &crate::ansi_quotes::with_ansi_quotes_read(text);
    let mut parts: Vec<(String, bool)> = Vec::new();
    // Here-documents: the ones opened on the current line, the bodies read
    // (by part), and where the last body fed to no shell ends.
    let mut here = super::here_documents::HereDocuments::default();
    // A double-quoted string inside `${…}` (`"${x#"'"}"`: its quotes
    // nest, R44-1), and a `'` there that shells read two ways.
    let (mut inner, mut ambiguous) = (false, false);
    let mut substitutions = Vec::new();
    let mut current = String::new();
    let mut piped = false;
    let mut quote: Option<char> = None;
    let mut parameters = 0usize;
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
            // `>(sh)`: what the hook writes there is its input, fed as
            // by a program no reading knows (round 60).
            substitutions.push(match (c, quote) {
                ('>', None) => format!(": | {}", &text[at + opens..end]),
                _ => text[at + opens..end].to_owned(),
            });
            while chars.peek().is_some_and(|(next, _)| *next <= end) {
                chars.next();
            }
            continue;
        }
        // `tools$((0))/g.sh`: an arithmetic expansion is part of its word,
        // its parentheses no separators (red team round 51, z50), read as
        // the number it makes when it runs.
        if quote != Some('\'') && rest.starts_with("$((") {
            let mut depth = 0usize;
            let mut end = rest.len();
            for (offset, c) in rest.char_indices().skip(1) {
                match c {
                    '(' => depth += 1,
                    ')' if depth <= 1 => {
                        end = offset + 1;
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            // A command inside it is read as before (cut where it stands).
            if !rest[3..end].contains(['`', '$']) {
                // A number made when it runs, as `$RANDOM` is.
                current.push_str("${RANDOM}");
                while chars.peek().is_some_and(|(next, _)| *next < at + end) {
                    chars.next();
                }
                continue;
            }
        }
        if parameters > 0 && quote != Some('\'') {
            match c {
                '\\' if inner => {
                    current.push(c);
                    if let Some((_, next)) = chars.next() {
                        current.push(next);
                    }
                    continue;
                }
                '"' => {
                    inner = !inner;
                    current.push(c);
                    continue;
                }
                // Inside the nested string every other character is itself
                // (`${x#"'"}` unquoted too).
                _ if inner => {
                    current.push(c);
                    continue;
                }
                // `"${x#'}'}"` quotes the brace in bash, `"${x:-'}'}"` does not.
                '\'' if quote == Some('"') => {
                    ambiguous = true;
                    current.push(c);
                    continue;
                }
                _ => {}
            }
        }
        // `${N}`, `${N:-$(pwd)}`: one word (its braces are no group, what
        // is inside no separator); substitutions in it are marked (R40-5).
        if quote != Some('\'') && rest.starts_with("${") {
            current.push_str("${");
            chars.next();
            parameters += 1;
            continue;
        }
        if quote != Some('\'') && parameters > 0 && c == '}' {
            current.push(c);
            parameters -= 1;
            inner = false;
            continue;
        }
        // `a=($(printf …))`: an array, kept whole in its word.
        if quote.is_none() && c == '(' && assigns_array(&current) {
            let end =
                crate::binding::substitution_end(text, at + 1, false).unwrap_or(text.len() - 1);
            current.push_str(&text[at..=end.min(text.len() - 1)]);
            while chars.peek().is_some_and(|(next, _)| *next <= end) {
                chars.next();
            }
            continue;
        }
        let starts_word = current.is_empty() || current.ends_with(char::is_whitespace);
        // `<<E`, `<<-E`, `<<'E'` (no `<<<`): a body follows the line.
        if quote.is_none()
            && parameters == 0
            && rest.starts_with("<<")
            && !rest.starts_with("<<<")
            && !current.ends_with('<')
        {
            here.open(parts.len(), text, at);
        }
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            // A line continuation is no character at all (`sh \⏎ "$(…)"`:
            // red team R44-2; shlex made it an empty word).
            (Some('"') | None, '\\') if rest[1..].starts_with('\n') => {
                chars.next();
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
            // A group's braces stand alone (`{ sh x; }`); `{}` is a word.
            (None, '{') if !rest[1..].starts_with(char::is_whitespace) => current.push(c),
            (None, '}') if !starts_word => current.push(c),
            (None, _) if parameters > 0 => current.push(c),
            // `&>`, `>&2`, `2>&1`, `>|` (round 51): redirections, no separator.
            (None, '&') if current.ends_with(['>', '<']) || rest[1..].starts_with('>') => {
                current.push(c);
            }
            (None, '|') if current.ends_with('>') => current.push(c),
            (None, '|' | ';' | '&' | '(' | ')' | '\n' | '{' | '}') => {
                here.mark_text(parts.len(), at);
                parts.push((std::mem::take(&mut current), piped));
                if c == '\n' {
                    here.read_bodies(text, at + 1, &parts);
                }
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
    here.mark_text(parts.len(), text.len());
    parts.push((current, piped));
    let commands = parts
        .into_iter()
        .enumerate()
        .map(|(at, (part, piped))| Command {
            words: shlex::split(&part)
                .unwrap_or_else(|| part.split_whitespace().map(str::to_owned).collect()),
            piped,
            here_document: here.body(at),
            in_text: here.is_text(at),
        })
        .collect();
    Cut {
        commands,
        substitutions,
        ambiguous,
    }
}

/// Whether `current` (the text of a command so far) ends with `NAME=` or
/// `NAME+=`: a `(` then opens an array.
fn assigns_array(current: &str) -> bool {
    let last = current.rsplit(char::is_whitespace).next().unwrap_or("");
    let Some(name) = last.strip_suffix('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A redirection of a command's input.
pub(super) enum Input {
    /// `< FILE`, `0< FILE`, `<> FILE`: the file.
    File(String),
    /// `<<< TEXT`: the text.
    Text(String),
}

/// `words` without their redirections, and the input ones taken out
/// (here-documents are read as the lines after the command).
pub(super) fn redirections(words: &[String]) -> (Vec<String>, Vec<Input>) {
    let mut kept = Vec::with_capacity(words.len());
    let mut inputs = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        // `3<`, `{fd}<` (R41-1): the descriptor is no part of the operator.
        let operator = match word.strip_prefix('{').and_then(|rest| rest.split_once('}')) {
            Some((name, rest)) if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                rest
            }
            _ => word.trim_start_matches(|c: char| c.is_ascii_digit()),
        };
        let output =
            operator.starts_with(['>', '&']) && operator.len() > 1 || operator.starts_with('>');
        let input = operator.starts_with('<');
        if !(output || input) || word.is_empty() {
            kept.push(word.clone());
            continue;
        }
        let symbols = operator.len() - operator.trim_start_matches(['>', '<', '&', '|', '-']).len();
        let (symbol, attached) = operator.split_at(symbols);
        // A bare operator's target is the next word.
        let target = match attached {
            "" => words.next().cloned().unwrap_or_default(),
            attached => attached.to_owned(),
        };
        match symbol {
            "<<<" => inputs.push(Input::Text(target)),
            "<" | "<>" => inputs.push(Input::File(target)),
            _ => {}
        }
    }
    (kept, inputs)
}

/// What each `.` / `source` of shell `text` reads, as written (its words
/// after the command, joined): wherever it stands (`if …; then . lib; fi`).
pub(in super::super) fn sourced(text: &str) -> Vec<String> {
    let cut = cut(text);
    let reading = Words {
        places: &[],
        substitutions: &cut.substitutions,
    };
    cut.commands
        .iter()
        .filter_map(|command| {
            let at = command
                .words
                .iter()
                .position(|w| !super::super::super::LEADING_KEYWORDS.contains(&w.as_str()))?;
            let (words, _) = redirections(&command.words[at..]);
            let (first, rest) = words.split_first()?;
            let rest: Vec<&String> = rest.iter().skip_while(|w| *w == "--").collect();
            (matches!(first.as_str(), "." | "source") && !rest.is_empty()).then(|| {
                let quoted: Vec<String> = rest
                    .iter()
                    .map(|w| {
                        shlex::try_quote(&reading.shown(w))
                            .map_or_else(|_| w.to_string(), |q| q.into_owned())
                    })
                    .collect();
                quoted.join(" ")
            })
        })
        .collect()
}
