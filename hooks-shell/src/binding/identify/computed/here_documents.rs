//! Here-documents as [`super::cut`] reads them: each body kept with the
//! command whose `<<DELIM` redirection reads it (`python3 - <<E`: the code
//! it is fed, which may write a file the hook then runs: round 51,
//! R50-10). Its lines are still read as command lines (their
//! substitutions found, as before), and marked as text when the line that
//! opens it names only programs that read it as data or another language's
//! code (a line of Python is no command the hook runs, nor names a file it
//! hands over).

use std::collections::{BTreeMap, BTreeSet};

use super::base_name;

/// Programs whose here-document is never shell text: other languages'
/// interpreters, and programs that read it as data or their own commands.
const READ_AS_TEXT: &[&str] = &[
    "python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "tclsh", "sqlite3", "ed",
    "cat", "tee", "psql", "mysql", "jq",
];

/// What [`super::cut`] learns of here-documents while cutting.
#[derive(Default)]
pub(super) struct HereDocuments {
    /// The ones opened on the line being cut, in order.
    open: Vec<Opened>,
    /// Each body read, by the index of the part (command) that reads it.
    bodies: BTreeMap<usize, String>,
    /// The parts that are lines of a body no shell reads.
    text: BTreeSet<usize>,
    /// Where the last body read ends (its delimiter line's start).
    body_until: usize,
    /// Whether that body is read as text (see [`READ_AS_TEXT`]).
    body_is_text: bool,
    /// Where the line being cut starts, and its first part's index.
    line_start: usize,
    line_part: usize,
}

/// A here-document opened by `<<DELIM`.
struct Opened {
    /// The index of the part that reads it.
    part: usize,
    /// Its delimiter, quotes taken off (`<<'E'` ends at a line `E`).
    delimiter: String,
    /// `<<-`: leading tabs are no part of its lines.
    strips_tabs: bool,
}

impl HereDocuments {
    /// Notes the `<<` at `at` of `text`, read by the part `part`.
    pub(super) fn open(&mut self, part: usize, text: &str, at: usize) {
        // `$((1<<E))`, `((x<<2))`: a shift, not a here-document; a `<<`
        // inside a body (`print(1 << 2)`) is the body's.
        if text[self.line_start.min(at)..at].contains("((") || at < self.body_until {
            return;
        }
        let rest = &text[at + 2..];
        let strips_tabs = rest.starts_with('-');
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '\t']);
        let end = rest
            .find(|c: char| c.is_whitespace() || ";|&<>()".contains(c))
            .unwrap_or(rest.len());
        let delimiter: String = rest[..end]
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect();
        if !delimiter.is_empty() {
            self.open.push(Opened {
                part,
                delimiter,
                strips_tabs,
            });
        }
    }

    /// At a line's end (`from` the next line's start, `parts` the parts cut
    /// so far): reads the bodies of the here-documents the line opened. An
    /// unterminated one is left to be read as command lines.
    pub(super) fn read_bodies(&mut self, text: &str, from: usize, parts: &[(String, bool)]) {
        let line_parts = &parts[self.line_part.min(parts.len())..];
        self.line_start = from;
        self.line_part = parts.len();
        if self.open.is_empty() {
            return;
        }
        let as_text = line_parts.iter().all(|(part, _)| reads_as_text(part));
        let mut cursor = from;
        for opened in std::mem::take(&mut self.open) {
            let mut lines = Vec::new();
            let mut delimiter_at = None;
            while cursor < text.len() {
                let end = text[cursor..].find('\n').map_or(text.len(), |n| cursor + n);
                let line = match opened.strips_tabs {
                    true => text[cursor..end].trim_start_matches('\t'),
                    false => &text[cursor..end],
                };
                let start = cursor;
                cursor = end + 1;
                if line == opened.delimiter {
                    delimiter_at = Some(start);
                    break;
                }
                lines.push(line);
            }
            let Some(delimiter_at) = delimiter_at else {
                return;
            };
            self.bodies.insert(opened.part, lines.join("\n"));
            self.body_until = self.body_until.max(delimiter_at);
            self.body_is_text = as_text;
        }
    }

    /// Notes the part `part`, cut at `at`: a line of a body read as text.
    pub(super) fn mark_text(&mut self, part: usize, at: usize) {
        if at < self.body_until && self.body_is_text {
            self.text.insert(part);
        }
    }

    /// The body of the here-document the part `part` reads.
    pub(super) fn body(&self, part: usize) -> Option<String> {
        self.bodies.get(&part).cloned()
    }

    /// Whether the part `part` is a line of a body read as text.
    pub(super) fn is_text(&self, part: usize) -> bool {
        self.text.contains(&part)
    }
}

/// Whether the command `part` (its text) starts, its assignments aside, a
/// program of [`READ_AS_TEXT`]; empty parts (a `;` after a `}`) aside.
fn reads_as_text(part: &str) -> bool {
    let words = shlex::split(part).unwrap_or_default();
    let program = words.iter().find(|word| {
        !word.contains('=') && !super::super::super::LEADING_KEYWORDS.contains(&word.as_str())
    });
    match program {
        Some(program) => READ_AS_TEXT.contains(&base_name(program).as_str()),
        None => part.trim().is_empty(),
    }
}
