//! # hermes-hooks-yaml
//!
//! The one place the hook system parses YAML (`config.yaml`, `plugin.yaml`,
//! `HOOK.yaml`). Everything else sees `serde_json::Value`, so the YAML reader
//! can be swapped here alone. It depends on no other crate of the hook system.
//!
//! ```
//! let value = hermes_hooks_yaml::parse("hooks:\n  enabled: yes\n  timeout: 0x1e\n").unwrap();
//! // YAML 1.1 as PyYAML reads it: `yes` is true, `0x1e` is 30.
//! assert_eq!(value, serde_json::json!({"hooks": {"enabled": true, "timeout": 30}}));
//!
//! let error = hermes_hooks_yaml::parse("a: [1, 2").unwrap_err();
//! assert!(error.line.is_some());
//! ```
//!
//! Hermes reads the same files with PyYAML (YAML 1.1: `SafeLoader`, or
//! libyaml's `CSafeLoader` when installed), so this reader follows PyYAML's
//! own scanner and parser rules (`scan.rs`, `parse.rs`) rather
//! than a YAML 1.2 parser's: NEL, LS and PS end lines (a comment ends there
//! too), flow collections and quoted strings ignore indentation, tabs are
//! blanks where libyaml takes them as blanks, `yes`/`on`/`off` are booleans,
//! a duplicate key keeps its last value, `<<` merges. Values JSON cannot hold
//! (an integer past 64 bits, an infinite float) are kept as a float or as
//! their text, so the reader of that one key rejects them and the rest of the
//! file is used. Size and depth are bounded, and aliases stay shared until
//! the end, where repeated copies spend a bounded budget
//! ([`MAX_ALIAS_NODES`], [`MAX_ALIAS_BYTES`]).

mod construct;
mod flow;
#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod fuzz_gen;
mod parse;
mod resolve;
mod scalar;
mod scan;
mod tag;
#[cfg(test)]
mod tests;

use serde_json::Value;

pub use construct::{MAX_ALIAS_BYTES, MAX_ALIAS_NODES, MAX_DUPLICATES_NOTED, NOT_EXPANDED};

/// The largest document read, in bytes.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;

/// The deepest nesting of mappings and sequences accepted.
pub const MAX_DEPTH: usize = 200;

/// A YAML document that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct YamlError {
    /// What is wrong, with line and column when known.
    pub message: String,
    /// 1-based line of the error, when known.
    pub line: Option<usize>,
    /// 1-based column of the error, when known.
    pub column: Option<usize>,
}

impl YamlError {
    fn at(mark: scan::Mark, what: impl Into<String>) -> YamlError {
        let (line, column) = (mark.line + 1, mark.column + 1);
        YamlError {
            message: format!("{} at line {line} column {column}", what.into()),
            line: Some(line),
            column: Some(column),
        }
    }
}

/// A character for a message: printable ones as themselves, others escaped.
fn shown(ch: char) -> String {
    if ch == '\0' {
        "end of text".to_owned()
    } else {
        format!("{:?}", ch.to_string())
    }
}

/// Parses YAML text into a JSON value (an empty document is `null`).
///
/// Mapping keys that are not strings (numbers, booleans, null) are spelled as
/// Python's `str()` spells the key PyYAML would build (`True`, `None`, `1`).
pub fn parse(text: &str) -> Result<Value, YamlError> {
    parse_document(text).map(|document| document.value)
}

/// A parsed document and what was left out of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Document {
    /// The value, as [`parse`] returns it.
    pub value: Value,
    /// How many alias uses past the expansion budget stand as [`NOT_EXPANDED`].
    pub unexpanded_aliases: usize,
    /// Keys given twice in one mapping, each by its place (`hooks`,
    /// `model.provider`, `hooks.pre_tool_call[0].command`): the last value
    /// is the one read, as PyYAML reads it. At most [`MAX_DUPLICATES_NOTED`].
    pub duplicate_keys: Vec<String>,
}

/// [`parse`], also saying how many alias uses were left unexpanded, so the
/// caller can warn about the file by name.
pub fn parse_document(text: &str) -> Result<Document, YamlError> {
    if text.len() > MAX_BYTES {
        return Err(YamlError {
            message: format!(
                "the document is {} bytes; the most accepted is {MAX_BYTES}",
                text.len()
            ),
            line: None,
            column: None,
        });
    }
    check_printable(text)?;
    let tokens = scan::Scanner::new(text).run()?;
    let Some(root) = parse::Parser::new(tokens).single_document()? else {
        return Ok(Document {
            value: Value::Null,
            unexpanded_aliases: 0,
            duplicate_keys: Vec::new(),
        });
    };
    let mut constructor = construct::Constructor::new();
    let value = constructor.value(&root);
    Ok(Document {
        value,
        unexpanded_aliases: constructor.cut,
        duplicate_keys: constructor.duplicates,
    })
}

/// PyYAML's reader refuses characters outside its printable set (C0 and C1
/// controls but tab, LF, CR and NEL; DEL; U+FFFE and U+FFFF).
fn check_printable(text: &str) -> Result<(), YamlError> {
    let mut mark = scan::Mark::default();
    let mut previous = '\0';
    for ch in text.chars() {
        let printable = matches!(ch, '\t' | '\n' | '\r' | '\u{85}')
            || ('\u{20}'..='\u{7e}').contains(&ch)
            || (ch >= '\u{a0}' && !matches!(ch, '\u{fffe}' | '\u{ffff}'));
        if !printable {
            return Err(YamlError::at(
                mark,
                format!(
                    "unacceptable character #x{:04x}: special characters are not allowed",
                    u32::from(ch)
                ),
            ));
        }
        if matches!(ch, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}') || previous == '\r' && ch != '\n'
        {
            mark.line += 1;
            mark.column = 0;
        } else {
            mark.column += 1;
        }
        previous = ch;
    }
    Ok(())
}

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
