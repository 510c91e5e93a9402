//! The words of a call in code other than a shell's, as written: its
//! arguments parted at top-level commas, keyword options, string literals
//! (and whether they interpolate in Perl's, Ruby's or PHP's double
//! quotes), commands in backquotes.

use std::sync::LazyLock;

use regex::Regex;

/// The words of a call's arguments as written: its lists' items in line,
/// keyword options (`check=True`) aside.
pub(super) fn words_of(argument: &str) -> Vec<&str> {
    let mut words: Vec<&str> = Vec::new();
    for part in top_level(argument, ',') {
        if KEYWORD.is_match(part) {
            continue;
        }
        match part
            .strip_prefix(['[', '('])
            .and_then(|p| p.strip_suffix([']', ')']))
        {
            Some(list) => words.extend(top_level(list, ',')),
            None => words.push(part),
        }
    }
    words
}

/// `name=value`: a keyword option.
pub(super) static KEYWORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[A-Za-z_]+\s*=[^=]").expect("valid regex"));

/// Whether `word` is one string literal (no interpolation in `program`'s
/// double quotes).
pub(super) fn is_string(word: &str, program: &str) -> bool {
    static STRING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*$"#).expect("valid regex")
    });
    let interpolating = matches!(program, "perl" | "ruby" | "php");
    let word = word.trim();
    // A JavaScript template with nothing put in (`` `npx` ``).
    if matches!(program, "node" | "bun" | "deno") {
        let template = word.len() > 1 && word.starts_with('`') && word.ends_with('`');
        if template && !word[1..word.len() - 1].contains(['`', '\\']) && !word.contains("${") {
            return true;
        }
    }
    STRING.is_match(word) && !(interpolating && word.starts_with('"') && interpolates(word))
}

/// `text` split at `separator` outside quotes and brackets, each part
/// trimmed, empty ones left out.
pub(super) fn top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = super::brackets::split_outside(text, separator.encode_utf8(&mut [0; 4]));
    parts.retain(|part| !part.is_empty());
    parts
}

/// Text in backquotes, `qx(…)` / `qx{…}` (Perl) or `%x(…)` (Ruby).
pub(super) static BACKQUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"`[^`]*`|\bqx\s*[({\[/][^)}\]/]*|%x\s*[({\[][^)}\]]*").expect("valid regex")
});

/// Whether quoted text interpolates a value (`$x`, `@x`, `#{x}`).
pub(super) fn interpolates(text: &str) -> bool {
    static VALUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[$@][A-Za-z_{(]|#\{").expect("valid regex"));
    VALUE.is_match(text)
}
