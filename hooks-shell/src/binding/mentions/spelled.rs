//! Shell code as bash reads its words (red team round 8, R8-9): spellings
//! of a name that compute nothing at run time, undone before the words are
//! read again.
//!
//! - a backslash-newline joins the lines (`. lib/com\` + newline +
//!   `mon.sh`);
//! - ANSI-C quoting is decoded (`$'\x6cib/common.sh'`: `\xHH`, octal
//!   `\NNN`, `\uHHHH`, `\UHHHHHHHH`, `\cX`, `\n`...);
//! - brace lists and sequences are expanded ([`super::braces`]: `li{b,}`,
//!   `{a..z}`, bounded);
//! - `~+` (`$PWD`), `~-` (`$OLDPWD`) and `~N` (the folder stack) are read as
//!   the `$PWD` they stand for: a path from the working folder.

use std::sync::LazyLock;

use regex::Regex;

use super::braces;
use super::literals::{Flavor, escape};

/// `text` (shell code) as bash reads it; `None` when that is `text`
/// itself, word for word.
pub(super) fn as_bash_reads(text: &str) -> Option<String> {
    let mut changed = false;
    let mut spelled = match joined_lines(text) {
        Some(joined) => {
            changed = true;
            joined
        }
        None => text.to_owned(),
    };
    if let Some(decoded) = ansi_c_decoded(&spelled) {
        spelled = decoded;
        changed = true;
    }
    if let Some(expanded) = braces::expand_in(&spelled) {
        spelled = expanded;
        changed = true;
    }
    if let Some(home) = working_folder_tildes(&spelled) {
        spelled = home;
        changed = true;
    }
    changed.then_some(spelled)
}

/// `text` with each backslash-newline taken out, when one joins two parts
/// of a word (`lib/com\` + newline + `mon.sh`).
fn joined_lines(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let inside_word = text.match_indices("\\\n").any(|(at, _)| {
        let before = at.checked_sub(1).map(|b| bytes[b]);
        let after = bytes.get(at + 2);
        before.is_some_and(|b| !b.is_ascii_whitespace())
            && after.is_some_and(|a| !a.is_ascii_whitespace())
    });
    inside_word.then(|| text.replace("\\\n", ""))
}

/// `text` with each `$'...'` replaced by a quoted string of what it holds.
fn ansi_c_decoded(text: &str) -> Option<String> {
    if !text.contains("$'") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("$'") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        match ansi_c_body(body) {
            Some((decoded, used)) => {
                out.push_str(&quoted(&decoded));
                rest = &body[used..];
            }
            None => {
                out.push_str("$'");
                rest = body;
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// What the `$'...'` body at the start of `body` holds, and how many bytes
/// it takes with its closing quote; `None` when it is not closed.
fn ansi_c_body(body: &str) -> Option<(String, usize)> {
    let chars: Vec<(usize, char)> = body.char_indices().collect();
    let plain: Vec<char> = chars.iter().map(|(_, c)| *c).collect();
    let mut decoded = String::new();
    // Bash ends the string at a NUL.
    let mut ended = false;
    let mut at = 0;
    while at < plain.len() {
        let text = match plain[at] {
            '\'' => return Some((decoded, chars[at].0 + 1)),
            '\\' => {
                let (text, used) = escape(&plain, at + 1, Flavor::Bash);
                at += 1 + used.max(1);
                text
            }
            c => {
                at += 1;
                c.to_string()
            }
        };
        if !ended {
            let mut parts = text.split('\0');
            decoded.push_str(parts.next().unwrap_or(""));
            ended = parts.next().is_some();
        }
    }
    None
}

/// `text` as one shell word in quotes.
fn quoted(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `text` with `~+`, `~-`, `~N` (at a word's start, before a `/` or its
/// end) read as `$PWD`; `None` when it has none.
fn working_folder_tildes(text: &str) -> Option<String> {
    static TILDE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(^|[\s=:;&|(<>'"`])~(?:[+-][0-9]*|[0-9]+)(/|[\s;&|)<>'"`]|$)"#)
            .expect("valid regex")
    });
    if !text.contains('~') || !TILDE.is_match(text) {
        return None;
    }
    // Twice: a match takes the character after it (`~+ ~-`).
    let once = TILDE.replace_all(text, "${1}$$PWD${2}");
    Some(TILDE.replace_all(&once, "${1}$$PWD${2}").into_owned())
}
