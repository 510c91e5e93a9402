//! The shell text a call of another language hands a shell, written out
//! (`os.system('sh "$(printf tools/g.%s sh)"')`, `execSync("…")`,
//! `["bash", "-c", "…"]`): read for names computed when it runs as the
//! hook's own text is ([`super::computed_name`]). A literal that spells
//! its text with an escape no reading decodes cannot be read.

use std::sync::LazyLock;

use regex::Regex;

/// Why one of the string literals `words` (a command's words as written,
/// its program first) that a shell runs as text runs a name computed when
/// it runs: the first word (a command line, or a program's name, which
/// computes nothing), and, after a shell, every other word (`-c`'s code).
pub(super) fn computed_in(words: &[&str], program: &str) -> Option<String> {
    let first = words.first()?;
    let read = match is_shell(first, program) {
        true => words,
        false => &words[..1],
    };
    for word in read {
        let Some(text) = decoded(word, program) else {
            return Some(format!(
                "hands a shell text spelled with an escape no reading decodes ({word})"
            ));
        };
        if let Some(why) = super::computed_name(&text) {
            return Some(format!("hands a shell text in which {why}"));
        }
    }
    None
}

/// Why the text a call with arguments `argument` feeds a shell on its
/// input (`run(["sh"], input="…")`, `spawnSync("sh", [], { input: "…" })`)
/// runs a name computed when it runs; one built when it runs is such a
/// name. `words` are the command's words as written: a shell given a
/// script or `-c` code reads its input as data.
pub(super) fn fed_computed(argument: &str, words: &[&str], program: &str) -> Option<String> {
    static INPUT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\binput\s*[=:]\s*").expect("valid regex"));
    static LITERAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:[rRbBuU]{0,2}"(?:[^"\\]|\\.)*"|[rRbBuU]{0,2}'(?:[^'\\]|\\.)*'|`[^`$]*`)\s*(?:[,})\n]|$)"#)
            .expect("valid regex")
    });
    let (first, rest) = words.split_first()?;
    let shell = is_shell(first, program);
    // Node's options object (`{ input: … }`) is no word of the command.
    let mut words = rest
        .iter()
        .filter(|word| !word.trim_start().starts_with('{'));
    // A `popen` mode (`'w'`) is no word of the command.
    let mode = |w: &str| matches!(w, "r" | "w" | "rb" | "wb" | "r+" | "w+");
    let reads_input = words.all(|word| {
        decoded(word, program).is_some_and(|w| mode(&w) || (w.starts_with('-') && !w.contains('c')))
    });
    if !shell || !reads_input {
        return None;
    }
    // `popen('sh', 'w')`, `Popen(['sh'], stdin=PIPE)`, `spawn('sh')`: what
    // it is fed later, no reading sees (round 49, as Perl's `open(F, "| sh")`).
    if !INPUT.is_match(argument) {
        return Some("starts a shell that reads its commands from its input".to_owned());
    }
    for found in INPUT.find_iter(argument) {
        let rest = &argument[found.end()..];
        let Some(literal) = LITERAL.find(rest) else {
            return Some("feeds a shell text built when it runs on its input".to_owned());
        };
        let word = literal
            .as_str()
            .trim_end()
            .trim_end_matches([',', '}', ')'])
            .trim_end();
        let text = decoded(word, program).ok_or_else(|| {
            format!("feeds a shell text spelled with an escape no reading decodes ({word})")
        });
        match text {
            Err(why) => return Some(why),
            Ok(text) => {
                if let Some(why) = super::computed_name(&text) {
                    return Some(format!("feeds a shell text in which {why}"));
                }
            }
        }
    }
    None
}

/// The text of `word` when it is a string literal of `program`: `None`
/// when it is none, `Some(None)` when it holds an escape not decoded here.
pub(super) fn literal_text(word: &str, program: &str) -> Option<Option<String>> {
    let body = word
        .trim()
        .trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U']);
    body.starts_with(['"', '\'', '`'])
        .then(|| decoded(word, program))
}

/// Whether the word `word` (as written in `program`) names a shell.
fn is_shell(word: &str, program: &str) -> bool {
    decoded(word, program)
        .is_some_and(|text| super::super::SHELLS.contains(&super::base_name(text.trim()).as_str()))
}

/// The text of the string literal `word` in `program`, its escapes
/// decoded (`\"`, `\n`, `\x24`, `\u0024`, `\u{24}`, `\044`); `None` for
/// an escape not decoded here (`\N{DOLLAR SIGN}`). A word that is no
/// quoted literal is its own text.
fn decoded(word: &str, program: &str) -> Option<String> {
    let word = word.trim();
    let python = matches!(program, "python" | "python3");
    let (raw, body) = match python {
        true => {
            let prefix = word.len()
                - word
                    .trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U'])
                    .len();
            (word[..prefix].contains(['r', 'R']), &word[prefix..])
        }
        false => (false, word),
    };
    let quote = body
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'));
    let Some(quote) = quote else {
        return Some(word.to_owned());
    };
    let inner = body.strip_prefix(quote)?.strip_suffix(quote)?;
    // Perl's and PHP's single quotes, and raw strings, keep backslashes
    // but `\\` and the quote.
    let plain = raw || (quote == '\'' && matches!(program, "perl" | "php" | "ruby"));
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        if plain {
            if next != '\\' && next != quote {
                out.push('\\');
            }
            out.push(next);
            continue;
        }
        match next {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0'..='7' => {
                let mut digits = String::from(next);
                while digits.len() < 3 && chars.peek().is_some_and(|d| ('0'..='7').contains(d)) {
                    digits.extend(chars.next());
                }
                out.push(char::from_u32(u32::from_str_radix(&digits, 8).ok()?)?);
            }
            'x' | 'u' | 'U' => {
                let braced = chars.peek() == Some(&'{');
                let count = match (next, braced) {
                    (_, true) => {
                        chars.next();
                        8
                    }
                    ('x', false) => 2,
                    ('u', false) => 4,
                    _ => 8,
                };
                let mut digits = String::new();
                while digits.len() < count && chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    digits.extend(chars.next());
                }
                if braced && chars.next() != Some('}') {
                    return None;
                }
                out.push(char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?);
            }
            // `\N{DOLLAR SIGN}`, Perl's `\N{U+24}`: named, not decoded.
            'N' => return None,
            '\\' | '\'' | '"' | '`' | '$' | '\n' => out.push(next),
            // Kept as written (Python keeps `\d`; elsewhere the letter).
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_text_computing_a_name_is_found_however_spelled() {
        for (program, words) in [
            ("python3", vec![r#""sh \"$(printf tools/g.%s sh)\"""#]),
            ("python3", vec![r#""sh \x24(printf tools/g.%s sh)""#]),
            ("python3", vec![r#""sh \N{DOLLAR SIGN}(printf x)""#]),
            (
                "python3",
                vec!["'bash'", "'-c'", r#"'sh "$(printf tools/g.%s sh)"'"#],
            ),
            ("node", vec![r#"'sh "\u{24}(printf tools/g.%s sh)"'"#]),
            ("perl", vec![r#""sh \$(printf tools/g.%s sh)""#]),
        ] {
            assert!(
                computed_in(&words, program).is_some(),
                "{program} {words:?}"
            );
        }
    }

    #[test]
    fn a_shell_fed_text_computing_a_name_is_found() {
        let computes = r#"'sh "$(printf tools/g.%s sh)" a'"#;
        for (argument, program) in [
            (format!("['sh'], input={computes}, text=True"), "python3"),
            ("['sh'], input='sh ' + n".to_owned(), "python3"),
        ] {
            assert!(
                fed_computed(&argument, &["'sh'"], program).is_some(),
                "{argument}"
            );
        }
        let node = format!("'sh', [], {{ input: {computes} }}");
        let words = ["'sh'", &format!("{{ input: {computes} }}")];
        assert!(fed_computed(&node, &words, "node").is_some());
        let fed = |argument: &str, words: &[&str]| fed_computed(argument, words, "python3");
        assert_eq!(fed("['sh'], input='make -s lint\\n'", &["'sh'"]), None);
        assert_eq!(fed("['jq', '.'], input=data", &["'jq'", "'.'"]), None);
        // Fed later (`stdin=PIPE`, `popen(…, 'w')`): no reading sees it.
        assert!(fed("['sh'], stdin=subprocess.PIPE", &["'sh'"]).is_some());
        assert!(fed("'sh', 'w'", &["'sh'", "'w'"]).is_some());
        assert!(fed_computed("'sh'", &["'sh'"], "node").is_some());
        // A script reads its input as data.
        assert_eq!(
            fed(
                "['sh', 'tools/g.sh'], input=data",
                &["'sh'", "'tools/g.sh'"]
            ),
            None
        );
    }

    #[test]
    fn written_shell_text_is_read_as_before() {
        for (program, words) in [
            ("python3", vec!["'make -s lint'"]),
            ("python3", vec!["'git'", "'diff'", "'$(not a shell)'"]),
            ("python3", vec![r#""ruff check \"$CLAUDE_PROJECT_DIR\"""#]),
            ("node", vec!["`npx prettier --check .`"]),
            ("perl", vec![r"'grep -q \d file'"]),
        ] {
            assert_eq!(computed_in(&words, program), None, "{program} {words:?}");
        }
    }
}
